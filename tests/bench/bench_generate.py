"""`authz generate` speed at three sizes of a window (distinct requests), with how the cost grows.

The traffic: services (one principal each) reading and writing numbered topics of their team
(`team7-orders-12`), describing them, a consumer group, idempotent producing, and denied requests
(5%) on other teams' topics; every request allowed or denied as the window logged it. Timed: the
generation with --max-widening none and any, and the proof (whatif's replay of the window against the
generated set). Baseline, in the same run: whatif's replay of the same window against a fixed ACL set
(what `authz whatif` does per distinct request), so the figures read as ratios on any machine.

    python tests/bench/bench_generate.py [--quick]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from timing import best_of  # noqa: E402

from kafka_authz_cli.acl import AclBinding, BrokerSettings, StandardAuthorizer  # noqa: E402
from kafka_authz_cli.review.generate import GenerateOptions, least_privilege, prove  # noqa: E402
from kafka_authz_cli.whatif import Aggregate, replay_aggregates  # noqa: E402


def window(n: int, seed: int = 7) -> dict:
    """About ``n`` distinct requests."""
    rand = random.Random(seed)
    aggs: dict = {}
    services = max(1, n // 40)
    i = 0
    while len(aggs) < n:
        svc = i % services
        team = svc % max(1, services // 4)
        principal, host = f"User:svc{svc}", f"10.{svc // 250 % 250}.{svc % 250}.{i % 3 + 1}"
        topic = f"team{team}-orders-{rand.randrange(30)}"
        op = "READ" if svc % 2 else "WRITE"
        for key, ok in (((principal, host, op, "TOPIC", topic), True),
                        ((principal, host, "DESCRIBE", "TOPIC", topic), True),
                        ((principal, host, "READ", "GROUP", f"team{team}-svc{svc}"), True),
                        ((principal, host, "IDEMPOTENT_WRITE", "CLUSTER", "kafka-cluster"), op == "WRITE"),
                        ((principal, host, "READ", "TOPIC", f"team{team + 1}-secret-{rand.randrange(5)}"),
                         rand.random() > 0.95)):
            if key not in aggs and (ok or rand.random() < 0.25):
                aggs[key] = Aggregate(count=3, visible=3, allowed=3 if ok else 0, denied=0 if ok else 3)
        i += 1
    return aggs


def baseline_acls(aggs: dict) -> list[AclBinding]:
    return [AclBinding.of(k[3], k[4], "LITERAL", k[0], "*", k[2], "ALLOW") for k, a in aggs.items() if a.allowed]


def measure(n: int) -> dict:
    aggs = window(n)
    acls = baseline_acls(aggs)
    base = best_of(lambda: replay_aggregates(aggs, StandardAuthorizer(acls)), 2)
    none = best_of(lambda: least_privilege(aggs, GenerateOptions("none")), 2)
    widened = least_privilege(aggs, GenerateOptions("any"))
    any_ = best_of(lambda: least_privilege(aggs, GenerateOptions("any")), 2)
    proof = best_of(lambda: prove(aggs, widened.bindings, BrokerSettings()), 2)
    report = prove(aggs, widened.bindings, BrokerSettings())
    assert not report.newly_denied and not report.newly_allowed
    return {"requests": len(aggs), "acls_none": len(least_privilege(aggs, GenerateOptions("none")).bindings),
            "acls_any": len(widened.bindings), "prefixes": len(widened.prefixes), "replay_s": base,
            "none_s": none, "any_s": any_, "proof_s": proof}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller sizes (1k, 4k, 16k)")
    args = parser.parse_args()
    sizes = [1_000, 4_000, 16_000] if args.quick else [10_000, 40_000, 160_000]
    rows = [measure(n) for n in sizes]
    print(f"{'requests':>9} {'ACLs none':>9} {'ACLs any':>8} {'prefixes':>8} {'replay s':>9} {'none s':>7} "
          f"{'any s':>7} {'proof s':>8} {'(none+proof)/replay':>20}")
    for r in rows:
        print(f"{r['requests']:>9,} {r['acls_none']:>9,} {r['acls_any']:>8,} {r['prefixes']:>8,} {r['replay_s']:>9.3f} "
              f"{r['none_s']:>7.3f} {r['any_s']:>7.3f} {r['proof_s']:>8.3f} "
              f"{(r['none_s'] + r['proof_s']) / r['replay_s']:>20.2f}")
    for a, b in zip(rows, rows[1:]):
        grow = b["requests"] / a["requests"]
        print(f"x{grow:.1f} requests: least_privilege(any) x{b['any_s'] / a['any_s']:.1f}, proof x{b['proof_s'] / a['proof_s']:.1f}, "
              f"replay baseline x{b['replay_s'] / a['replay_s']:.1f}")


if __name__ == "__main__":
    main()
