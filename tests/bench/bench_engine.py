"""Engine speed on Kafka's own AuthorizerBenchmark workload, against scans measured in the same run.

Workload (jmh-benchmarks AuthorizerBenchmark): resources `foo-bar35_resource-<i>`, every 10th a
GROUP, every 5th PREFIXED; `aclCount` ALLOW READ ACLs per resource for User:test-user and
suffixed variants, each with a matching DENY with probability `denyPercentage`; a PREFIXED
`foo-bar35_resource-` set for hosts 127.0.0.0-9; resourceCount/10 wildcard `*` ACLs with distinct
hosts. Action: WRITE on topic `foo-bar35_resource-95` from 127.0.0.1 (matches nothing, so every
candidate ACL is looked at: Kafka's worst case).

Baselines in the same run: the naive evaluator (reads every ACL) and Kafka's own sorted-set walk
re-implemented in Python (what the JVM does, in the same interpreter). JVM figures quoted in the
issue: 120-550 us/decision at 10k resources, 750-2,500 us at 50k.

    python tests/bench/bench_engine.py            # the matrix (several minutes, several GB)
    python tests/bench/bench_engine.py --quick    # 10k/50k, aclCount 10
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kafka_authz_cli.acl.engine import Request, StandardAuthorizer  # noqa: E402
from kafka_authz_cli.acl.model import (  # noqa: E402
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from kafka_authz_cli.acl.naive import NaiveAuthorizer  # noqa: E402

PREFIX = "foo-bar35_resource-"
JVM_US = {10_000: (120, 550), 50_000: (750, 2500)}


def workload(resource_count: int, acl_count: int, deny_percentage: int, seed: int = 1) -> list[AclBinding]:
    rand = random.Random(seed)
    read, allow, deny = AclOperation.READ, AclPermissionType.ALLOW, AclPermissionType.DENY
    acls = []
    for rid in range(resource_count):
        rtype = ResourceType.GROUP if rid % 10 == 0 else ResourceType.TOPIC
        pattern = PatternType.PREFIXED if rid % 5 == 0 else PatternType.LITERAL
        name = PREFIX + str(rid)
        for aid in range(acl_count):
            principal = "User:test-user" + ("" if aid == 0 else str(aid))
            acls.append(AclBinding(rtype, name, pattern, principal, "*", read, allow))
            if rand.randrange(100) < deny_percentage:
                acls.append(AclBinding(rtype, name, pattern, principal, "*", read, deny))
    for host_id in range(10):
        acls.append(AclBinding(ResourceType.TOPIC, PREFIX, PatternType.PREFIXED, "User:test-user",
                               f"127.0.0.{host_id}", read, allow))
        if rand.randrange(100) < deny_percentage:
            acls.append(AclBinding(ResourceType.TOPIC, PREFIX, PatternType.PREFIXED, "User:test-user",
                                   f"127.0.0.{host_id}", read, deny))
    for host_id in range(resource_count // 10):
        acls.append(AclBinding(ResourceType.TOPIC, "*", PatternType.LITERAL, "User:test-user",
                               f"127.0.0{host_id}", read, allow))
        if rand.randrange(100) < deny_percentage:
            acls.append(AclBinding(ResourceType.TOPIC, "*", PatternType.LITERAL, "User:test-user",
                                   f"127.0.0{host_id}", read, deny))
    return acls


ACTION = Request("User:test-user", "127.0.0.1", AclOperation.WRITE, ResourceType.TOPIC, PREFIX + "95", api_key=0)


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096


def per_call_us(fn, min_time: float = 0.3, max_calls: int = 200_000) -> float:
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time or calls >= max_calls:
            return elapsed / calls * 1e6


def bench(resource_count: int, acl_count: int, deny: int, baselines: bool) -> dict:
    gc.collect()
    acls = workload(resource_count, acl_count, deny)
    gc.collect()
    before = rss_bytes()
    t0 = time.perf_counter()
    engine = StandardAuthorizer(acls)
    build_s = time.perf_counter() - t0
    gc.collect()
    index_bytes = rss_bytes() - before
    warm = per_call_us(lambda: engine.authorize(ACTION))

    def cold():
        engine.clear_caches()
        return engine.authorize(ACTION)

    cold_us = per_call_us(cold)
    batch = [Request(f"User:test-user{i % 7 or ''}", f"127.0.0.{i % 10}", AclOperation.READ,
                     ResourceType.TOPIC, PREFIX + str(i % resource_count)) for i in range(20_000)]
    t0 = time.perf_counter()
    engine.authorize_many(batch)
    batch_us = (time.perf_counter() - t0) / len(batch) * 1e6
    row = {"resources": resource_count, "acl_count": acl_count, "deny_pct": deny, "acls": len(engine.bindings),
           "build_s": build_s, "bytes_per_acl": index_bytes / max(1, len(engine.bindings)),
           "us_cold": cold_us, "us_warm": warm, "us_batch": batch_us}
    assert engine.authorize(ACTION).rule == "DefaultDeny"
    if baselines:
        walk = StandardAuthorizer(acls, force_walk=True)
        walk.authorize(ACTION)  # builds the sorted set once
        row["us_walk"] = per_call_us(lambda: (walk.clear_caches(), walk.authorize(ACTION)), 0.5, 2000)
        naive = NaiveAuthorizer(acls)
        row["us_naive"] = per_call_us(lambda: naive.authorize(ACTION), 0.5, 20)
        assert naive.authorize(ACTION).rule == walk.authorize(ACTION).rule == "DefaultDeny"
        del walk, naive
    engine = acls = None  # freed before the next size is built
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10k and 50k resources, aclCount 10 only")
    args = parser.parse_args()
    if args.quick:
        matrix = [(r, 10, d) for r in (10_000, 50_000) for d in (0, 50, 100)]
    else:
        matrix = [(r, a, d) for r in (10_000, 50_000, 200_000) for a in (10, 50) for d in (0, 50, 100)
                  if not (r == 200_000 and a == 50)]
    print("engine: us/decision on AuthorizerBenchmark (WRITE on foo-bar35_resource-95 from 127.0.0.1)")
    header = (f"{'resources':>9} {'acl/res':>7} {'deny%':>5} {'ACLs':>9} {'build s':>7} {'B/ACL':>6} "
              f"{'cold us':>8} {'warm us':>8} {'batch us':>8} {'walk us':>9} {'naive us':>10} "
              f"{'x walk':>7} {'x naive':>8} {'x JVM(best)':>11}")
    print(header)
    for r, a, d in matrix:
        row = bench(r, a, d, baselines=(r <= 50_000 and a == 10) or r == 200_000)
        walk = row.get("us_walk")
        naive = row.get("us_naive")
        jvm = JVM_US.get(r)
        print(f"{r:>9} {a:>7} {d:>5} {row['acls']:>9} {row['build_s']:>7.2f} {row['bytes_per_acl']:>6.0f} "
              f"{row['us_cold']:>8.2f} {row['us_warm']:>8.2f} {row['us_batch']:>8.2f} "
              f"{walk if walk else float('nan'):>9.1f} {naive if naive else float('nan'):>10.0f} "
              f"{(walk / row['us_cold']) if walk else float('nan'):>7.0f} "
              f"{(naive / row['us_cold']) if naive else float('nan'):>8.0f} "
              f"{(jvm[0] / row['us_cold']) if jvm else float('nan'):>11.0f}", flush=True)
    print("cold: candidate cache cleared before each call; warm: repeated request; batch: 20,000 mixed READ "
          "requests through authorize_many. x walk / x naive: speed-up over Kafka's walk and over the naive "
          "scan in this run; x JVM(best): the JVM's best quoted figure divided by cold us.")


if __name__ == "__main__":
    main()
