"""The whatif replay as a PySpark job: the only module that imports pyspark.

Files are parsed where they are (one task per file, gzip included) with the same reader as the
in-process path; per-request aggregates are merged with reduceByKey; each distinct request is
decided on the executors with the ACL sets broadcast; the driver only sees the aggregates. Local
Spark (`local[*]`) by default; `--master yarn|k8s://...|spark://...` runs the same job on a cluster
(the package is shipped to executors as a zip).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from kafka_authz_cli.auditlog import Quarantined, ReadStats, read_file_bytes
from kafka_authz_cli.model import AclBinding
from kafka_authz_cli.whatif import Aggregate, Verdict, WhatIfReport, aggregate, build_report, decide


def java_available() -> bool:
    return shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME"))


def spark_session(master: str = "local[*]", app_name: str = "authz-whatif", progress: bool = True):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(master).appName(app_name)
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "true" if progress else "false")
             .config("spark.sql.shuffle.partitions", "8")
             .config("spark.driver.memory", os.environ.get("AUTHZ_SPARK_DRIVER_MEMORY", "2g"))
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    if not master.startswith("local"):
        _ship_package(spark)
    return spark


def _ship_package(spark) -> None:
    """Executors on a cluster need authz's code: send it as a zip."""
    package = Path(__file__).resolve().parent
    tmp = tempfile.mkdtemp(prefix="authz-")
    archive = shutil.make_archive(os.path.join(tmp, "kafka_authz_cli"), "zip", package.parent, package.name)
    spark.sparkContext.addPyFile(archive)


def _parse_file(item):
    path, data = item
    stats = ReadStats()
    quarantine: list[Quarantined] = []
    decisions = read_file_bytes(bytes(data), path, stats, quarantine)
    out = [("S", stats)]
    out += [("Q", q) for q in quarantine]
    out += [("A", kv) for kv in aggregate(decisions).items()]
    return out


def _merge_stats(a: ReadStats, b: ReadStats) -> ReadStats:
    merged = ReadStats()
    merged.add(a)
    merged.add(b)
    return merged


def run(spark, paths: list[str], proposed: tuple[list[AclBinding], dict],
        current: tuple[list[AclBinding], dict] | None = None) -> tuple[ReadStats, list[Quarantined], WhatIfReport]:
    sc = spark.sparkContext
    files = sc.binaryFiles(",".join(paths), minPartitions=max(1, len(paths)))
    tagged = files.flatMap(_parse_file).persist()
    try:
        stats = tagged.filter(lambda t: t[0] == "S").map(lambda t: t[1]).fold(ReadStats(), _merge_stats)
        quarantine = tagged.filter(lambda t: t[0] == "Q").map(lambda t: t[1]).collect()
        aggs = tagged.filter(lambda t: t[0] == "A").map(lambda t: t[1]).reduceByKey(Aggregate.merge)
        acl_sets = sc.broadcast((proposed, current))

        def decide_partition(items):
            from kafka_authz_cli.engine import StandardAuthorizer

            (p_acls, p_settings), cur = acl_sets.value
            items = list(items)
            keys = [k for k, _ in items]
            after = decide(keys, StandardAuthorizer(p_acls, **p_settings))
            before = decide(keys, StandardAuthorizer(cur[0], **cur[1])) if cur is not None else None
            for k, agg in items:
                yield k, agg, after[k], before[k] if before is not None else None

        rows = aggs.mapPartitions(decide_partition).collect()
    finally:
        tagged.unpersist()
    agg_map = {k: a for k, a, _, _ in rows}
    after_map: dict = {k: v for k, _, v, _ in rows}
    before_map: dict | None = {k: b for k, _, _, b in rows} if current is not None else None
    quarantine.sort(key=lambda q: q.source)
    return stats, quarantine, build_report(agg_map, after_map, list(dict.fromkeys(proposed[0])), before_map)


def count_lines(spark, paths: list[str]) -> int:
    """The I/O floor for the benchmark: Spark reading the same files and counting lines."""
    return spark.read.text(paths).count()


__all__ = ["Verdict", "run", "spark_session", "count_lines", "java_available"]
