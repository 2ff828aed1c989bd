"""Diff speed: two 100,000-binding ACL sets differing in 1%, and a brute-force baseline.

The baseline decides every request of a fixed grid (all principals x hosts x operations x a name
sample) under both sets; it is run on a smaller size and scaled per request in the same run.

    python tests/bench/bench_diff.py [--quick]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kafka_authz_cli.acl.compare import diff  # noqa: E402
from kafka_authz_cli.acl.engine import Request, StandardAuthorizer  # noqa: E402
from kafka_authz_cli.acl.model import (  # noqa: E402
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)

SETTINGS = {"super_users": "User:admin", "allow_everyone_if_no_acl_found": False}


def acl_set(n: int, seed: int = 3) -> list[AclBinding]:
    rand = random.Random(seed)
    out = []
    for i in range(n):
        team = i % 500
        rtype = ResourceType.GROUP if i % 7 == 0 else ResourceType.TOPIC
        pattern = PatternType.PREFIXED if i % 3 == 0 else PatternType.LITERAL
        name = f"team{team}.svc{i}" + ("-" if pattern is PatternType.PREFIXED else "")
        op = rand.choice([AclOperation.READ, AclOperation.DESCRIBE]) if rtype is ResourceType.GROUP else \
            rand.choice([AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE])
        perm = AclPermissionType.DENY if i % 50 == 0 else AclPermissionType.ALLOW
        out.append(AclBinding(rtype, name, pattern, f"User:svc{i % 2000}", "*", op, perm))
    return out


def mutate(acls: list[AclBinding], fraction: float, seed: int = 5) -> list[AclBinding]:
    rand = random.Random(seed)
    out = list(acls)
    for _ in range(int(len(acls) * fraction)):
        i = rand.randrange(len(out))
        a = out[i]
        out[i] = AclBinding(a.resource_type, a.resource_name, a.pattern_type, f"User:svc{rand.randrange(2000)}",
                            a.host, a.operation, a.permission)
    return out


def brute_force(old, new, names, principals) -> tuple[int, int]:
    a, b = StandardAuthorizer(old, **SETTINGS), StandardAuthorizer(new, **SETTINGS)
    differing = checked = 0
    for rtype, name in names:
        for p in principals:
            for op in SUPPORTED_OPERATIONS[rtype]:
                r = Request(p, "10.0.0.1", op, rtype, name)
                checked += 1
                differing += a.authorize(r).outcome != b.authorize(r).outcome
    return checked, differing


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n = 20_000 if args.quick else 100_000
    old = acl_set(n)
    new = mutate(old, 0.01)
    t0 = time.perf_counter()
    result = diff(old, new, SETTINGS, SETTINGS)
    t_diff = time.perf_counter() - t0
    print(f"diff: {n:,} vs {n:,} bindings (1% changed): {t_diff:.2f} s, {result.classes_examined:,} classes decided, "
          f"{len(result.changes):,} changed classes, verdict {result.verdict}")
    # Brute force on a sample: every principal x op on sampled names, then per-request cost extrapolated.
    small_names = sorted({(a.resource_type, a.resource_name + "x") for a in old[:200]}, key=lambda t: (t[0].code, t[1]))
    principals = [f"User:svc{i}" for i in range(2000)] + ["User:other"]
    t0 = time.perf_counter()
    checked, _ = brute_force(old, new, small_names, principals)
    t_brute = time.perf_counter() - t0
    per_request = t_brute / checked
    names_total = len({(a.resource_type, a.resource_name) for a in old + new}) * 2
    requests_total = names_total * len(principals) * 8
    print(f"brute force: {checked:,} requests in {t_brute:.2f} s ({per_request * 1e6:.1f} us each); covering the "
          f"same {names_total:,} name classes x {len(principals):,} principals x ~8 operations would take "
          f"~{requests_total * per_request / 3600:.1f} h, i.e. x{requests_total * per_request / t_diff:,.0f} the "
          f"diff (and still only one host and one name per class)")


if __name__ == "__main__":
    main()
