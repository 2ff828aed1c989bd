"""`authz access` on Kafka's AuthorizerBenchmark workload: one topic, and every topic of the cluster.

The workload is tests/bench/gen_authorizer_benchmark.py's (resourceCount resources x aclCount=10
ACLs, its PREFIXED section with ten hosts, and resourceCount/10 wildcard `*` ACLs whose hosts never
match) at 1k, 10k and 100k resources: 10k, 100k and 1M ACLs. In one process per size:

- load: the ACL file read (load_source) and the authorizer built (as `authz access` does);
- one topic: the effective permissions of one topic (`--topic foo-bar35_resource-95`), first ask
  (cold: its buckets summarised) and again on a fresh review (the per-bucket summaries not reused);
- every topic: the names of a cluster of resourceCount topics (foo-bar35_resource-0 .. -N-1, as
  `--names` or `--bootstrap-server` give them), every entry computed, the shared JSON document built
  and serialised (what `--format json` writes);
- baseline, in the same run: asking the engine (what `authz simulate` does) every class of the same
  one topic one request at a time (principals x hosts x operations), the cost of an exact answer
  without the bucket summaries.

Times are this process's CPU seconds (time.process_time): the figures do not count waiting for a
core on a shared machine.

    python tests/bench/bench_access.py            # 1k, 10k, 100k resources
    python tests/bench/bench_access.py --quick    # 1k, 10k

`--principal` measures `authz access SET --principal P --format json` instead, end to end in a fresh
process (wall time, peak RSS), against `authz convert SET` (loading the set) in the same run, on both
shapes of tests/bench/bench_diff.py at three sizes: the AuthorizerBenchmark layout at 5k / 50k / 200k
resources (76k / 757k / 3.0M ACLs; P = User:test-user, who holds the resourceCount/10 host-specific
ACLs on `*`) and the team estate at 10k / 100k / 1M ACLs (P = User:team7-svc3):

    python tests/bench/bench_access.py --principal [--sizes 0,1] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import gen_authorizer_benchmark as gen  # noqa: E402

from kafka_authz_cli.acl import SUPPORTED_OPERATIONS, Request, ResourceType, StandardAuthorizer  # noqa: E402
from kafka_authz_cli.review.access import AccessReview  # noqa: E402
from kafka_authz_cli.review.access_scope import access_json  # noqa: E402
from kafka_authz_cli.services.access import _Origins  # noqa: E402
from kafka_authz_cli.services.acl_sources import load_source  # noqa: E402
from kafka_authz_cli.services.settings import broker_settings  # noqa: E402

TOPIC = ResourceType.TOPIC
ONE = gen.PREFIX + "95"


def _engine_baseline(authorizer) -> float:
    """Every (principal, host, operation) class of ONE asked of the engine one request at a time."""
    principals = [gen.PRINCIPAL + ("" if i == 0 else str(i)) for i in range(10)] + ["User:anyone-else"]
    hosts = [f"127.0.0.{i}" for i in range(gen.HOST_PRE_COUNT)] + ["192.0.2.254"]
    t = time.process_time()
    for p in principals:
        for h in hosts:
            for op in SUPPORTED_OPERATIONS[TOPIC]:
                authorizer.authorize(Request(p, h, op, TOPIC, ONE))
    return time.process_time() - t


def measure(resources: int, workdir: Path) -> dict:
    path = workdir / f"acls-{resources}.json"
    count = gen.write_acls(path, resources)
    t0 = time.process_time()
    acl_set = load_source(path, quiet=True)
    authorizer = StandardAuthorizer(acl_set.bindings, broker_settings(None, None, None))
    load = time.process_time() - t0
    t = time.process_time()
    one = AccessReview(authorizer).resource(TOPIC, ONE)
    one_cold = time.process_time() - t
    t = time.process_time()
    AccessReview(authorizer).resource(TOPIC, ONE)
    one_again = time.process_time() - t
    baseline = _engine_baseline(authorizer)
    t = time.process_time()
    review = AccessReview(authorizer)
    results = [review.resource(TOPIC, gen.PREFIX + str(i)) for i in range(resources)]
    compute = time.process_time() - t
    t = time.process_time()
    text = access_json(results, {"pattern": "names"}, _Origins(acl_set, authorizer))  # what --format json writes
    write = time.process_time() - t
    return {"resources": resources, "acls": count, "load_s": load, "one_topic_ms": one_cold * 1e3,
            "one_topic_again_ms": one_again * 1e3, "one_topic_entries": len(one.grants),
            "engine_baseline_ms": baseline * 1e3, "every_topic_compute_s": compute,
            "every_topic_json_s": write, "every_topic_s": compute + write, "entries": sum(len(r.grants) for r in results),
            "json_mb": len(text) / 1e6}


def principal_rows(sizes: str | None, workdir: Path, timeout: float) -> None:
    """`access --principal` against loading the set, per shape and size, and how both grow."""
    import bench_diff

    rows = []
    for shape, all_sizes in bench_diff.SIZES.items():
        chosen = [all_sizes[int(i)] for i in sizes.split(",")] if sizes else all_sizes
        for size in chosen:
            paths = bench_diff.make_sets(shape, size, workdir)
            sink = workdir / "out"
            authz = bench_diff.authz_of(ROOT)
            load = bench_diff.run(authz, ["convert", paths["old"], "--to", "json"], sink, timeout)
            asked = bench_diff.run(authz, ["access", paths["old"], "--principal", bench_diff.PRINCIPAL[shape],
                                           "--format", "json"], sink, timeout)
            row = {"shape": shape, "size": size, "acls": bench_diff._count(paths["old"]), "load": load,
                   "access": asked}
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(f"\n{'shape':<22} {'ACLs':>10} {'load s':>7} {'access s':>9} {'x load':>7} {'MiB':>6} {'growth':>22}")
    first: dict = {}
    for r in rows:
        s, base = r["access"]["s"], r["load"]["s"]
        if s is None:
            print(f"{r['shape']:<22} {r['acls']:>10,} {base:>7.1f} {'timed out':>9}")
            continue
        start = first.setdefault(r["shape"], r)
        growth = (f"{r['acls'] / start['acls']:.0f}x ACLs: {s / start['access']['s']:.1f}x time"
                  if start is not r else "")
        print(f"{r['shape']:<22} {r['acls']:>10,} {base:>7.1f} {s:>9.1f} {s / base:>6.2f}x "
              f"{r['access']['mib']:>6.0f} {growth:>22}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--principal", action="store_true", help="access --principal against loading the set")
    parser.add_argument("--sizes", default=None, help="with --principal: indexes into each shape's sizes (0,1,2)")
    parser.add_argument("--workdir", type=Path, default=None, help="with --principal: keep the generated sets here")
    parser.add_argument("--timeout", type=float, default=900.0)
    ns = parser.parse_args()
    if ns.principal:
        with tempfile.TemporaryDirectory() as tmp:
            principal_rows(ns.sizes or ("0,1" if ns.quick else None), ns.workdir or Path(tmp), ns.timeout)
        return
    sizes = [1_000, 10_000] if ns.quick else [1_000, 10_000, 100_000]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            row = measure(size, Path(tmp))
            rows.append(row)
            print(json.dumps(row), flush=True)
    base = rows[0]
    print(f"\n{'ACLs':>10} {'load s':>8} {'one topic ms':>13} {'engine ms':>10} {'every topic s':>14} "
          f"{'µs/topic':>9} {'growth (per topic)':>19}")
    for r in rows:
        per = r["every_topic_s"] / r["resources"] * 1e6
        growth = per / (base["every_topic_s"] / base["resources"] * 1e6)
        print(f"{r['acls']:>10,} {r['load_s']:>8.2f} {r['one_topic_ms']:>13.2f} {r['engine_baseline_ms']:>10.2f} "
              f"{r['every_topic_s']:>14.2f} {per:>9.1f} {growth:>18.2f}x")


if __name__ == "__main__":
    main()
