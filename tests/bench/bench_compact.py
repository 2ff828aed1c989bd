"""`authz compact` speed at three sizes, with how cost grows, against the engine's own index build.

Workloads: Kafka's AuthorizerBenchmark ACLs (tests/bench/gen_authorizer_benchmark.py, 10 ACLs per
resource, 20% DENYs), and the same made redundant (a fifth of the ACLs repeated, a DESCRIBE beside
every READ, a super user's ACL on every hundredth ACL). The baseline, in the same run and on the same
ACLs, is removing the duplicates only (one hash of each ACL: the least any compaction does):
compact's cost is reported as a multiple of it. The proof (the exact decision diff of input and output) is
timed on the smallest sizes only (--proof-max to change): its cost grows with the request classes
the removed ACLs touch.

    python tests/bench/bench_compact.py [--sizes 10000,100000,1000000] [--proof-max 14000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gen_authorizer_benchmark import acls as benchmark_acls  # noqa: E402

from kafka_authz_cli.acl import AclBinding, BrokerSettings, diff  # noqa: E402
from kafka_authz_cli.formats import paused_gc  # noqa: E402
from kafka_authz_cli.review import compact_acls  # noqa: E402

SETTINGS = BrokerSettings(super_users="User:admin")


def workload(size: int) -> list[AclBinding]:
    """About ``size`` ACLs of AuthorizerBenchmark (12 a resource with 20% DENYs)."""
    with paused_gc():  # as a load does
        return [AclBinding.of(**a) for a in benchmark_acls(max(1, size // 12), 10, 20.0)]


def redundant(size: int, seed: int = 7) -> list[AclBinding]:
    rand = random.Random(seed)
    base = workload(int(size / 1.55))
    out: list[AclBinding] = []
    for i, b in enumerate(base):
        out.append(b)
        if rand.random() < 0.2:
            out.append(b)
        if b.operation.name == "READ" and b.permission.name == "ALLOW" and b.host == "*":
            out.append(AclBinding.of(b.resource_type.name, b.resource_name, b.pattern_type.name, b.principal, "*",
                                     "DESCRIBE", "ALLOW"))
        if i % 100 == 0:
            out.append(AclBinding.of(b.resource_type.name, b.resource_name, b.pattern_type.name, "User:admin", "*",
                                     "ALL", "ALLOW"))
    return out


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def run(name: str, make, sizes: list[int], proof_max: int) -> None:
    print(f"\n{name}")
    print(f"{'ACLs':>10} {'after':>10} {'dedup s':>9} {'compact s':>10} {'x dedup':>9} {'us/ACL':>7} "
          f"{'growth':>7} {'proof s':>8}")
    last = None
    for size in sizes:
        acls = make(size)
        with paused_gc():  # as compact runs
            _, base = timed(lambda: list(dict.fromkeys(acls)))
        result, cost = timed(lambda: compact_acls(acls, SETTINGS))
        growth = "" if last is None else f"{cost / last[1]:.1f}x/{len(acls) / last[0]:.0f}x"
        proof = ""
        if len(acls) <= proof_max:
            verdict, spent = timed(lambda: diff(acls, result.bindings, SETTINGS, SETTINGS).verdict)
            assert verdict == "equivalent", verdict
            proof = f"{spent:.1f}"
        print(f"{len(acls):>10,} {result.after:>10,} {base:>9.2f} {cost:>10.2f} {cost / base:>9.1f} "
              f"{cost / len(acls) * 1e6:>7.1f} {growth:>7} {proof:>8}", flush=True)
        last = (len(acls), cost)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--proof-max", type=int, default=14_000)
    ns = parser.parse_args()
    sizes = [int(s) for s in ns.sizes.split(",")]
    run("AuthorizerBenchmark workload", workload, sizes, ns.proof_max)
    run("redundant workload (duplicates, shadowed DESCRIBEs, super-user ACLs)", redundant, sizes, ns.proof_max)


if __name__ == "__main__":
    main()
