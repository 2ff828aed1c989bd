"""The whatif replay as a Spark pipeline: :func:`read_logs` runs the stages in order, and the three
jobs are built on it: :func:`run` (read and report), :func:`index_logs` (read and write an index) and
:func:`report_from_index` (report from an index).

Intermediate results are local checkpoints (:func:`.session.materialize`), so each later query reads a
small table instead of re-planning (and, after a self-join, re-running) the scan.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from kafka_authz_cli.acl import AclBinding, BrokerSettings
from kafka_authz_cli.errors import AuthzError
from kafka_authz_cli.whatif.auditlog import Quarantined, ReadStats
from kafka_authz_cli.whatif.incremental import Answer
from kafka_authz_cli.whatif.parquet_index import SORT_KEY
from kafka_authz_cli.whatif.replay import LinesRead, Replayed
from kafka_authz_cli.whatif.spark.aggregate import KEY, hourly_aggregates, per_key
from kafka_authz_cli.whatif.spark.decide import report_from
from kafka_authz_cli.whatif.spark.failures import spark_errors
from kafka_authz_cli.whatif.spark.log_lines import SourceCheck, read_sources
from kafka_authz_cli.whatif.spark.messages import classified_messages
from kafka_authz_cli.whatif.spark.odd_lines import hostile_groups, line_numbers, read_odd_lines
from kafka_authz_cli.whatif.spark.progress import StatusProgress
from kafka_authz_cli.whatif.spark.scan import fast_groups, grouped_lines, shape_lines
from kafka_authz_cli.whatif.spark.session import SPLIT_BYTES, fit_shuffle, materialize, release

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass
class ReadResult:
    """What reading the logs gives: per (request, hour) aggregates (a DataFrame), the line accounting,
    the quarantine, and how the work was split (for tests and the benchmark)."""

    hourly: DataFrame
    stats: ReadStats
    quarantine: list[Quarantined]
    info: dict = field(default_factory=dict)


def read_logs(spark, files: list[str], progress: StatusProgress | None = None,
              partition_bytes: int | None = None, names: dict[str, str] | None = None,
              check: SourceCheck | None = None) -> ReadResult:
    """Read log files into per (request, hour) aggregates; the caller releases `info['cached']`.
    `check` is how the files are read, when that was started before the session (see SourceCheck)."""
    from pyspark.sql import functions as F

    progress = progress or StatusProgress(spark, None)
    _set_split_bytes(spark, partition_bytes)
    sources = read_sources(spark, files, names, check)
    fit_shuffle(spark, sources.total_bytes)
    shaped = shape_lines(sources.lines)
    progress.set(f"scanning {_size(sources.total_bytes)} of logs")
    stage1 = materialize(grouped_lines(shaped))
    cached = [stage1]
    progress.set("line accounting")
    order = {(names or {}).get(f, f): i for i, f in enumerate(files)}
    # per-split counts and decoder warnings in one collect (each action on the scan is a job)
    small = stage1.where("kind IN ('B', 'W')").select("kind", "file", "block", "n", "bmin", "fmin", "rid", "raw") \
        .collect()
    numbers = line_numbers(spark, [r for r in small if r.kind == "B"], sources.display)
    warnings = _decoder_warnings([r for r in small if r.kind == "W"], sources.display, order)

    groups = fast_groups(stage1)
    # A group the stock path took that is not a record after all (a level or a date that does not
    # exist): its lines go to the reference reader, with their context, like a quarantined message.
    has_invalid = groups.where("NOT valid").limit(1).count() > 0
    fast = groups.where("valid")
    progress.set("reading distinct messages")
    classes = classified_messages(fast)
    cached.append(classes)
    by_class = classes.groupBy("cls", "format", "agree").agg(F.sum("n").alias("n"), F.count(F.lit(1)).alias("m")) \
        .collect()
    agree_counts = {r.agree: r.m for r in by_class if r.cls == "D"}
    has_bad = any(r.cls == "Q" for r in by_class)

    hostile = hostile_groups(groups, fast, classes, has_invalid, has_bad)
    odd, odd_rows, reroute = read_odd_lines(spark, shaped, stage1, hostile, numbers, progress, cached)
    if reroute is not None:
        fast = fast.join(F.broadcast(reroute.distinct()), ["hour", "rest"], "left_anti")
        by_class = fast.join(classes.drop("n"), "msg").groupBy("cls", "format").agg(F.sum("n").alias("n")).collect()
    stats, quarantine = _line_accounting(len(files), by_class, odd_rows, numbers.total)
    stats.warnings = warnings + stats.warnings
    quarantine.sort(key=lambda q: _source_key(q.source, order))

    hourly, join_on = hourly_aggregates(fast, classes, odd, cached)
    info = {"cached": cached, "agree": agree_counts, "rerouted": reroute is not None, "blocks": len(numbers.offsets),
            "files": numbers.files, "join_on": join_on}
    return ReadResult(hourly, stats, quarantine, info)


def _set_split_bytes(spark, partition_bytes: int | None) -> None:
    if partition_bytes is not None and partition_bytes <= 0:
        # Spark reads a negative split size without complaint, and skips most of every file.
        raise ValueError(f"partition_bytes must be positive, not {partition_bytes}")
    split = str(SPLIT_BYTES if partition_bytes is None else partition_bytes)
    spark.conf.set("spark.sql.files.maxPartitionBytes", split)
    spark.conf.set("spark.sql.files.openCostInBytes", split)


def _decoder_warnings(rows, display: dict[str, str], order: dict[str, int]) -> list[str]:
    """What the Python decoder said (the scan's kind W rows), in the order of the files and of what it said."""
    warn_rows = sorted(rows, key=lambda r: (order.get(display[r.file], 0) if r.file in display else 0, -r.rid))
    return [bytes(r.raw).decode("utf-8", "replace") for r in warn_rows]


def _line_accounting(files: int, by_class, odd_rows, total: int) -> tuple[ReadStats, list[Quarantined]]:
    """Fast lines by their message's class, odd lines as the reader counted them."""
    stats = ReadStats(files=files)
    for r in by_class:
        stats.lines += r.n
        if r.cls == "D":
            stats.decision_lines += r.n
            stats.decisions += r.n
            stats.by_format[r.format] = stats.by_format.get(r.format, 0) + r.n
        elif r.cls == "N":
            stats.non_decision_lines += r.n
        else:  # pragma: no cover - quarantined messages were routed to the reader
            raise AuthzError("internal error: a quarantined message was not routed")
    quarantine = []
    for r in odd_rows:
        if r.kind == "T":
            stats.add(ReadStats.from_dict(json.loads(r.a)))
        elif r.kind == "Q":
            quarantine.append(Quarantined(r.a, r.b, r.c))
    if stats.lines != total:  # pragma: no cover - every line is a fast line or an odd line
        raise AuthzError(f"internal error: {total} lines read but {stats.lines} accounted for")
    return stats, quarantine


def _source_key(source: str, order: dict[str, int]):
    path, _, line = source.rpartition(":")
    return (order.get(path, len(order)), path, int(line) if line.isdigit() else 0)


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return str(n)


def run(spark, paths: list[str], proposed: tuple[list[AclBinding], BrokerSettings],
        current: tuple[list[AclBinding], BrokerSettings] | None = None, progress: Callable | None = None,
        partition_bytes: int | None = None, decide_on: str = "executors", names: dict[str, str] | None = None,
        check: SourceCheck | None = None) -> Replayed:
    """Read the logs and report, as the in-process replay does."""
    with spark_errors("whatif"), StatusProgress(spark, progress) as tracker:
        result = read_logs(spark, paths, tracker, partition_bytes, names, check)
        try:
            tracker.set("aggregating per request and hour")
            hourly = materialize(result.hourly)
            report = report_from(spark, per_key(hourly), proposed, current, hourly, tracker, decide_on)
            release(hourly)
        finally:
            for df in result.info["cached"]:
                release(df)
    return Replayed(result.stats, result.quarantine, report)


def index_logs(spark, paths: list[str], staged: str, progress: Callable | None = None,
               partition_bytes: int | None = None, names: dict[str, str] | None = None,
               check: SourceCheck | None = None) -> LinesRead:
    """Read the logs and write their per (request, hour) aggregates under `staged`/day=.../ (Parquet)."""
    from pyspark.sql import functions as F

    with spark_errors("index"), StatusProgress(spark, progress) as tracker:
        result = read_logs(spark, paths, tracker, partition_bytes, names, check)
        try:
            tracker.set("writing the index")
            h = result.hourly
            out = h.select(*KEY, F.expr("try_cast(concat(hour, ':00:00') AS timestamp_ntz)").alias("hour"),
                           F.col("hour").alias("hour_text"), "count", "visible", "allowed", "denied",
                           F.expr("try_cast(translate(first_seen, ',', '.') AS timestamp_ntz)").alias("first_seen"),
                           F.expr("try_cast(translate(last_seen, ',', '.') AS timestamp_ntz)").alias("last_seen"),
                           F.col("first_seen").alias("first_seen_text"), F.col("last_seen").alias("last_seen_text"),
                           "rule_at", "rule", F.substring("hour", 1, 10).alias("day"))
            # Files of at most 250,000 rows: a later --index on Spark reads them on every core at once.
            # Sorted by day (what partitionBy needs, so Spark adds no sort of its own) then by resource,
            # in small row groups: in-process readers skip the row groups a selection cannot touch.
            (out.repartition("day").sortWithinPartitions("day", *SORT_KEY).write.option("maxRecordsPerFile", 250_000)
             .option("parquet.block.size", 4 << 20).partitionBy("day").parquet(staged))
        finally:
            for df in result.info["cached"]:
                release(df)
    return LinesRead(result.stats, result.quarantine)


def report_from_index(spark, roots: list[tuple[str, list[str]]], since: str | None, until: str | None,
                      proposed: tuple[list[AclBinding], BrokerSettings],
                      current: tuple[list[AclBinding], BrokerSettings] | None,
                      progress: Callable | None = None, decide_on: str = "executors") -> Answer:
    """Answer from one or more indexes ((root, run ids)), every request decided (a full pass, with no
    baseline kept); the answer also says how many decisions had no time and were left out by --since/--until."""
    from pyspark.sql import functions as F

    from kafka_authz_cli.whatif.parquet_index import SPARK_SCHEMA

    with spark_errors("whatif --index"), StatusProgress(spark, progress) as tracker:
        tracker.set("reading the index")
        parts = []
        for root, runs in roots:
            req = os.path.join(root, "requests")
            if not os.path.isdir(req) or not runs:
                continue
            df = spark.read.schema(SPARK_SCHEMA).option("basePath", req).parquet(req)
            parts.append(df.where(F.col("run").isin(runs)))
        if not parts:
            empty = spark.createDataFrame([], SPARK_SCHEMA)
            parts = [empty]
        rows = parts[0]
        for p in parts[1:]:
            rows = rows.unionByName(p)
        untimed = 0
        if since is not None or until is not None:
            untimed = rows.where("hour_text IS NULL").agg(F.sum("count")).collect()[0][0] or 0
            if since is not None:
                rows = rows.where(F.col("hour_text") >= since)
            if until is not None:
                rows = rows.where(F.col("hour_text") < until)
        hourly = rows.select(*KEY, F.col("hour_text").alias("hour"), "count", "visible", "allowed", "denied",
                             F.col("first_seen_text").alias("first_seen"), F.col("last_seen_text").alias("last_seen"),
                             "rule_at", "rule")
        # Several runs may hold the same (request, hour): nothing needs them merged, everything downstream
        # aggregates per request or per hour (a sort-based merge took 4-6 s of 9 on 10 M indexed lines).
        hourly = materialize(hourly)
        try:
            report = report_from(spark, per_key(hourly), proposed, current, hourly, tracker, decide_on)
        finally:
            release(hourly)
    return Answer(report, untimed, "full", "full: every request decided by the Spark job")


def count_lines(spark, paths: list[str]) -> int:
    """The I/O floor for the benchmark: Spark reading the same files and counting lines."""
    return spark.read.text(paths).count()
