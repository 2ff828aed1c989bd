"""whatif on Spark: speed against Spark's own read-and-count of the same files, measured in the same run.

Data comes from gen_auditlogs.py (realistic: hundreds of principals, thousands of resources and hosts,
allowed/denied/TRACE, KRaft/ZK/Confluent lines, Apache/Strimzi/CRI layouts, odd lines). Generated
files go to a temporary directory (or --data DIR, kept) and are never committed.

    python tests/bench/bench_whatif.py --quick                    # 1 M lines, a few minutes
    python tests/bench/bench_whatif.py                            # 7 M single file, 10 M rotated
    python tests/bench/bench_whatif.py --big --data /tmp/authz-bench   # + 100 M lines and an index of them

Reported per data set: the floor (Spark's `read.text().count()`), the whatif job, the ratio, lines/s;
for the rotated set also the in-process replay and deciding on the driver vs on the executors; for
100 M lines the per-core throughput and what a 32-core cluster would take (linear in cores, the
distinct requests are few), and `whatif --index` seconds per proposal.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import gen_auditlogs  # noqa: E402

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.model import AclBinding  # noqa: E402
from kafka_authz_cli.whatif.auditlog import expand_paths  # noqa: E402

SETTINGS = BrokerSettings(super_users="User:svc-orders-0;User:svc-payments-1")


def proposals(n: int = 3) -> list[list[AclBinding]]:
    """Realistic changes: the current grants (prefixed per team) minus some teams, minus literal grants."""
    base = []
    for i, team in enumerate(gen_auditlogs.TEAMS):
        for op in ("READ", "WRITE", "DESCRIBE"):
            base.append(AclBinding.of("TOPIC", team + ".", "PREFIXED", "User:*", "*", op, "ALLOW"))
        base.append(AclBinding.of("GROUP", team + "-", "PREFIXED", "User:*", "*", "READ", "ALLOW"))
        base.append(AclBinding.of("TRANSACTIONAL_ID", team + "-", "PREFIXED", "User:*", "*", "ALL", "ALLOW"))
    base.append(AclBinding.of("CLUSTER", "kafka-cluster", "LITERAL", "User:*", "*", "IDEMPOTENT_WRITE", "ALLOW"))
    out = []
    for k in range(n):
        drop = set(gen_auditlogs.TEAMS[k::5])
        out.append([a for a in base if not any(a.resource_name.startswith(t) for t in drop)])
    return out


def timed(fn):
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def cores(spark) -> int:
    return spark.sparkContext.defaultParallelism


def bench_set(spark, label: str, files: list[str], lines: int, extra: bool = False) -> dict:
    from kafka_authz_cli.whatif import spark as spark_job

    proposed = proposals(1)[0]
    t_floor, counted = timed(lambda: spark_job.count_lines(spark, files))
    t_job, on_spark = timed(lambda: spark_job.run(spark, files, (proposed, SETTINGS)))
    stats, report = on_spark.stats, on_spark.report
    assert stats.lines == counted, (stats.lines, counted)
    lines = counted  # the generator adds a few odd lines (stack traces, multi-line records) to the decisions
    row = {"set": label, "lines": lines, "bytes": sum(os.path.getsize(f) for f in files), "floor_s": t_floor,
           "job_s": t_job, "x_floor": t_job / t_floor, "lines_per_s": lines / t_job,
           "distinct": report.distinct_requests, "quarantined": stats.quarantined_lines,
           "newly_denied": len(report.newly_denied), "formats": stats.by_format}
    print(f"{label:>22} {lines:>12,} {row['bytes'] / 1e9:>7.2f} GB  floor {t_floor:>7.1f} s  whatif {t_job:>7.1f} s  "
          f"x floor {row['x_floor']:>5.2f}  {row['lines_per_s']:>10,.0f} lines/s  {report.distinct_requests:,} "
          f"distinct requests, {stats.quarantined_lines} quarantined", flush=True)
    if extra:
        t_drv, on_driver = timed(lambda: spark_job.run(spark, files, (proposed, SETTINGS), decide_on="driver"))
        r2 = on_driver.report
        assert r2 == report
        row["job_driver_decide_s"] = t_drv
        print(f"{'':>22} deciding on the driver after one collect: {t_drv:.1f} s (on the executors, Arrow: "
              f"{t_job:.1f} s)", flush=True)
    return row


def bench_in_process(files: list[str], lines: int, t_job: float) -> None:
    from kafka_authz_cli.services.whatif import replay_local

    class Set:
        bindings = proposals(1)[0]
    t, _ = timed(lambda: replay_local(files, {}, Set.bindings, None, SETTINGS))
    print(f"{'in-process replay':>22} {lines:>12,} {t:>7.1f} s ({lines / t:,.0f} lines/s): Spark job is "
          f"{t / t_job:.2f}x faster on this machine", flush=True)


def bench_index(spark, files: list[str], lines: int, tmp: Path) -> None:
    from kafka_authz_cli.services.whatif import replay_index_local
    from kafka_authz_cli.whatif import spark as spark_job
    from kafka_authz_cli.whatif.parquet_index import commit_run, new_run_id, open_index, staging_dir

    root = tmp / "index"
    shutil.rmtree(root, ignore_errors=True)
    ix = open_index(root, create=True)
    run_id = new_run_id()
    staged = staging_dir(ix, run_id)
    t_ix, read = timed(lambda: spark_job.index_logs(spark, files, str(staged / "spark")))
    stats, quarantine = read.stats, read.quarantine
    for d in (staged / "spark").glob("day=*"):
        os.replace(d, staged / d.name)
    commit_run(ix, run_id, staged, [], stats, quarantine)
    size = sum(f.stat().st_size for f in (root / "requests").rglob("*.parquet"))
    print(f"{'index of':>22} {lines:>12,} lines: {t_ix:.1f} s, {size / 1e6:.1f} MB of Parquet", flush=True)
    ix = open_index(root)
    for k, proposed in enumerate(proposals(3)):
        t_local, done = timed(lambda: replay_index_local([ix], None, None, proposed, None, SETTINGS))
        report = done.report
        t_spark, on_spark = timed(lambda: spark_job.report_from_index(spark, [(str(root), [r["id"] for r in ix.runs])],
                                                                     None, None, (proposed, SETTINGS), None))
        assert on_spark.report == report
        print(f"{'whatif --index':>22} proposal {k + 1}: in-process {t_local:.1f} s, on Spark {t_spark:.1f} s "
              f"({report.distinct_requests:,} distinct requests, {len(report.newly_denied)} newly denied kinds)",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="1 M lines only")
    ap.add_argument("--big", action="store_true", help="also 100 M lines and an index of them")
    ap.add_argument("--data", type=Path, help="where generated logs go (kept; reused when present)")
    ap.add_argument("--only", choices=["single", "rotated", "big"], action="append")
    args = ap.parse_args()
    from kafka_authz_cli.whatif import spark as spark_job

    tmp = args.data or Path(tempfile.mkdtemp(prefix="authz-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    plan = [("single", "single file", 1_000_000 if args.quick else 7_000_000, "single7m" if not args.quick else "s1m"),
            ("rotated", "rotated, 24 files", 1_000_000 if args.quick else 10_000_000, "rot10m" if not args.quick else "r1m")]
    if args.big:
        plan.append(("big", "rotated, 100 files", 100_000_000, "rot100m"))
    if args.only:
        plan = [p for p in plan if p[0] in args.only]
    spark = spark_job.spark_session("local[*]", "authz-bench")
    print(f"Spark local[*] with {cores(spark)} cores, default 2g driver; ratios are against Spark's "
          "read.text().count() of the same files, measured in this run", flush=True)
    try:
        for kind, label, lines, sub in plan:
            d = tmp / sub
            marker = tmp / f"{sub}.complete"  # beside the data: expand_paths would read a file inside it
            if not marker.exists():
                shutil.rmtree(d, ignore_errors=True)
                d.mkdir(parents=True)
                if kind == "single":
                    gen_auditlogs.single(d, lines)
                else:
                    gen_auditlogs.rotated(d, lines, 100 if kind == "big" else 24, gzip_every=0 if kind == "big" else 4)
                marker.write_text("")
            files = expand_paths([str(d)])
            row = bench_set(spark, label, files, lines, extra=(kind == "rotated"))
            if kind == "rotated" and not args.quick:
                bench_in_process(files, lines, row["job_s"])
            if kind == "big":
                per_core = lines / row["job_s"] / cores(spark)
                print(f"{'':>22} {per_core:,.0f} lines/s per core: a 32-core cluster would read these "
                      f"{lines / 1e6:.0f} M lines in about {lines / (per_core * 32):.0f} s "
                      f"({lines / (per_core * 32) / 60:.1f} min)", flush=True)
                bench_index(spark, files, row["lines"], tmp)
            elif args.quick:
                bench_index(spark, files, row["lines"], tmp)
    finally:
        spark.stop()
        if args.data is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
