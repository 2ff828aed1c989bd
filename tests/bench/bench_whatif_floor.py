"""How far below the whatif scan a Spark SQL scan can go: the least per-line work the job's design needs,
against Spark's `read.text().count()` of the same files, in one warm session (best of 3 each, new
DataFrames every time so that no shuffle output is reused).

The files are the stock-layout KRaft broker of gen_auditlogs' rotated set (`[%d] %p %m (%c)`, the
cheapest layout for the job). Steps, each including the ones before it:

    count     read.text().count()
    touch     the sum of every line's length (each line's bytes are read)
    minimal   stock lines only: the logger suffix, one regex on the 26-byte timestamp, the hour, the
              milliseconds and the rest of the line cut out (nothing else is checked)
    grouped   minimal, aggregated per distinct (hour, rest): count, first and last millisecond
    job scan  the job's own first scan (every layout, line numbers, odd lines, per-split counts)

With --per-layout, the "grouped" step and the job's scan are timed on each broker's files of the
rotated set (stock KRaft, ZK 2.4+, Strimzi's thread layout, CRI-prefixed gzip files): the grouped
step only cuts and groups stock lines, so on the other layouts it reads and drops them, while the job
takes every layout apart. This says how far the job's per-line work is from the floor on each.

    python tests/bench/bench_whatif_floor.py [--data DIR] [--lines N] [--per-layout]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import gen_auditlogs  # noqa: E402
from timing import best_of  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", help="where the generated logs go (kept; reused when present)")
    ap.add_argument("--lines", type=int, default=2_000_000, help="lines of the whole rotated set (a quarter "
                    "of them are in the stock layout)")
    ap.add_argument("--per-layout", action="store_true", help="grouped step against the job's scan on each "
                    "broker's files (each layout) and on the whole set")
    args = ap.parse_args()
    root = Path(args.data or tempfile.mkdtemp(prefix="authz-floor-"))
    data = root if (root / "broker-0").is_dir() else root / f"rot{args.lines}"  # an existing set, or a new one
    if data is not root and not (data / ".complete").exists():
        shutil.rmtree(data, ignore_errors=True)
        data.mkdir(parents=True)
        gen_auditlogs.rotated(data, args.lines)
        (data / ".complete").write_text("")
    files = sorted(str(p) for p in (data / "broker-0").iterdir())
    if args.per_layout:
        per_layout(data)
        return

    from pyspark.sql import functions as F

    from kafka_authz_cli.whatif.spark import log_lines, scan, spark_session

    spark = spark_session("local[*]")
    value = F.col("value")

    def text():
        return spark.read.option("lineSep", "\n").text(files)

    def minimal():
        stock = value.endswith(scan.LOGGER_SUFFIX) & F.substring(value, 1, 26).rlike(scan._BRACKET_HEAD)
        df = text().select("value", stock.alias("stock"))
        s = F.col("stock")
        return df.select(F.when(s, F.substring(value, 2, 13)).alias("hour"),
                         F.when(s, scan._ms_in_hour(value, 2)).alias("ms"),
                         F.when(s, F.substring(value.cast("binary"), 27, F.octet_length(value) - 52)).alias("rest"))

    steps = {
        "count": lambda: text().count(),
        "touch": lambda: text().select(F.sum(F.octet_length(value))).collect(),
        "minimal": lambda: minimal().select(F.sum(F.octet_length("rest")), F.sum("ms"), F.count("hour")).collect(),
        "grouped": lambda: minimal().groupBy("hour", "rest").agg(F.count(F.lit(1)).alias("n"), F.min("ms").alias("a"),
                                                                 F.max("ms").alias("b"))
        .select(F.sum("n"), F.sum("a"), F.sum("b"), F.sum(F.octet_length("rest"))).collect(),
        "job scan": lambda: scan.grouped_lines(scan.shape_lines(log_lines.read_sources(spark, files).lines))
        .select(F.sum("n")).collect(),
    }
    lines = text().count()
    size = sum(os.path.getsize(f) for f in files)
    print(f"{len(files)} stock-layout files, {lines:,} lines, {size / 1e9:.2f} GB; local[*] on "
          f"{spark.sparkContext.defaultParallelism} cores; best of 3, warm")
    for fn in steps.values():  # warm every plan once
        fn()
    base = None
    for name, fn in steps.items():
        t = best_of(fn, 3)
        base = base or t
        print(f"  {name:9s} {t:6.2f} s  {t / base:5.2f}x count")
    spark.stop()
    if args.data is None:
        shutil.rmtree(root)


def per_layout(data: Path) -> None:
    from pyspark.sql import functions as F

    from kafka_authz_cli.whatif.spark import log_lines, scan, spark_session

    spark = spark_session("local[*]")
    value = F.col("value")

    def grouped(files):
        stock = value.endswith(scan.LOGGER_SUFFIX) & F.substring(value, 1, 26).rlike(scan._BRACKET_HEAD)
        s = F.col("stock")
        df = spark.read.option("lineSep", "\n").text(files).select("value", stock.alias("stock")).select(
            F.when(s, F.substring(value, 2, 13)).alias("hour"), F.when(s, scan._ms_in_hour(value, 2)).alias("ms"),
            F.when(s, F.substring(value.cast("binary"), 27, F.octet_length(value) - 52)).alias("rest"))
        return df.groupBy("hour", "rest").agg(F.count(F.lit(1)).alias("n"), F.min("ms").alias("a"),
                                              F.max("ms").alias("b")) \
            .select(F.sum("n"), F.sum("a"), F.sum("b"), F.sum(F.octet_length("rest"))).collect()

    def job_scan(files):
        return scan.grouped_lines(scan.shape_lines(log_lines.read_sources(spark, files).lines)) \
            .select(F.sum("n")).collect()

    layouts = {"broker-0": "stock KRaft", "broker-1": "stock ZK 2.4+", "broker-2": "Strimzi thread",
               "broker-3": "CRI prefix, gzip"}
    sets = {f"{b} ({what})": sorted(str(p) for p in (data / b).iterdir()) for b, what in layouts.items()}
    sets["all files"] = [f for fs in sets.values() for f in fs]
    print("best of 2, warm (each plan run once first)")
    for name, files in sets.items():
        grouped(files)
        job_scan(files)
        g, j = best_of(lambda: grouped(files), 2), best_of(lambda: job_scan(files), 2)
        print(f"  {name:34s} grouped {g:6.2f} s   job scan {j:6.2f} s   {j / g:5.2f}x", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
