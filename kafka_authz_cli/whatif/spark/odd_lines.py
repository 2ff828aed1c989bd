"""The odd lines: the reference reader, per file, with the context it needs.

Line numbers are exact: Spark's file splits are made deterministic (`openCostInBytes` =
`maxPartitionBytes`), each line carries its split and its position in its partition, and a per-split
line count (collected with the aggregates, in the same scan) turns them into file line numbers.

Every line the JVM takes ends a record, so the odd lines fall into runs that the reference reader
reads independently - except when a run ends inside an open record (a forged record right after an
unterminated one): that line is then routed to the reader as well, with every line of its
(hour, rest) group, and the odd lines are read again. The same happens to messages the reference
reader quarantines (their lines need numbers) and to stock-layout groups whose level or date does not
exist. These only happen on hostile or broken input.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass

from kafka_authz_cli.errors import AuthzError
from kafka_authz_cli.whatif.auditlog import Quarantined, ReadStats, read_runs
from kafka_authz_cli.whatif.replay import Aggregate
from kafka_authz_cli.whatif.spark.session import materialize

_SLOW_SCHEMA = ("kind string, principal string, host string, operation string, resource_type string, "
                "resource_name string, hour string, count long, visible long, allowed long, denied long, "
                "first_seen string, last_seen string, rule_at string, rule string, a string, b string, c string, "
                "num long")
_SLOW_FIELDS = [f.split()[0] for f in _SLOW_SCHEMA.split(", ")]


def _slow_worker(info_bc):
    def run(batches):
        import pyarrow as pa

        info = info_bc.value
        rows: list[tuple] = []

        def flush():
            cols: list = list(zip(*rows)) if rows else [[] for _ in _SLOW_FIELDS]
            types = [pa.int64() if f in ("count", "visible", "allowed", "denied", "num") else pa.string()
                     for f in _SLOW_FIELDS]
            batch = pa.record_batch([pa.array(list(c), t) for c, t in zip(cols, types)], names=_SLOW_FIELDS)
            rows.clear()
            return batch

        def items():
            for b in batches:
                yield from zip(b.column("file").to_pylist(), b.column("lineno").to_pylist(), b.column("raw").to_pylist())

        none = (None,) * 14
        for file, group in itertools.groupby(items(), key=lambda t: t[0]):
            display, total, first_fast = info[file]
            stats = ReadStats()
            quarantine: list[Quarantined] = []
            consumed: list = []
            aggs: dict = {}
            numbered = ((n, raw.decode("utf-8", "replace")) for _, n, raw in group)
            for d in read_runs(display, numbered, total, first_fast, stats, quarantine, consumed):
                ts = d.timestamp.replace("T", " ") if d.timestamp else None
                k = (d.principal, d.host, d.operation, d.resource_type, d.resource_name, ts[:13] if ts else None)
                agg = aggs.get(k)
                if agg is None:
                    agg = aggs[k] = Aggregate()
                agg.add(d)
            for k, a in aggs.items():
                rows.append(("D",) + k + (a.count, a.visible, a.allowed, a.denied, a.first_seen, a.last_seen,
                                          a.rule_at if a.rule is not None else None, a.rule, None, None, None, None))
            for q in quarantine:
                rows.append(("Q",) + none[:14] + (q.source, q.reason, q.text, None))
            for n in consumed:
                rows.append(("C",) + none[:14] + (file, None, None, n))
            rows.append(("T",) + none[:14] + (json.dumps(stats.as_dict()), None, None, None))
            if len(rows) > 20000:
                yield flush()
        if rows:
            yield flush()
    return run


def _slow_stage(spark, slow, offsets_df, info_bc):
    from pyspark.sql import functions as F

    numbered = slow.join(F.broadcast(offsets_df), ["file", "block"]).select(
        "file", (F.col("off") + F.col("id") - F.col("bmin") + 1).alias("lineno"), "raw")
    parts = max(1, min(len(info_bc.value), int(spark.conf.get("spark.sql.shuffle.partitions"))))
    odd = (numbered.repartition(parts, "file").sortWithinPartitions("file", "lineno")
           .mapInArrow(_slow_worker(info_bc), _SLOW_SCHEMA))
    return materialize(odd)


def _positions(consumed, offsets) -> list[tuple[str, int]]:
    out = []
    by_file: dict[str, list] = {}
    for f, block, off, bmin, n in offsets:
        by_file.setdefault(f, []).append((off, bmin, n))
    for file, lineno in consumed:
        for off, bmin, n in by_file.get(file, []):
            if off < lineno <= off + n:
                out.append((file, bmin + lineno - off - 1))
                break
    return out


@dataclass
class LineNumbers:
    """What turns a line's split and position into its file line number: per split (file, block, lines
    of the file before it, its first position, its lines), and per file (its name as the user gave it,
    its lines, its first fast line). `table` and `files_bc` are the same for the executors."""

    offsets: list[tuple[str, int, int, int, int]]
    files: dict[str, tuple[str, int, int | None]]
    table: object  # DataFrame(file, block, off, bmin, n)
    files_bc: object  # a broadcast of `files`

    @property
    def total(self) -> int:
        return sum(n for *_, n in self.offsets)


def line_numbers(spark, blocks, display: dict[str, str]) -> LineNumbers:
    """From the per-split line counts of the scan (its kind B rows, collected)."""
    per_file: dict[str, list] = {}
    for r in blocks:
        per_file.setdefault(r.file, []).append(r)
    offsets, file_info = [], {}
    for f, bl in per_file.items():
        bl.sort(key=lambda r: r.block)
        off, first_fast = 0, None
        for r in bl:
            offsets.append((f, r.block, off, r.bmin, r.n))
            if r.fmin is not None and first_fast is None:
                first_fast = off + (r.fmin - r.bmin) + 1
            off += r.n
        file_info[f] = (display.get(f, f), off, first_fast)
    offsets_df = spark.createDataFrame(offsets or [("", 0, 0, 0, 0)], "file string, block long, off long, bmin long, "
                                                                       "n long")
    return LineNumbers(offsets, file_info, offsets_df, spark.sparkContext.broadcast(file_info))


def hostile_groups(groups, fast, classes, has_invalid: bool, has_bad: bool):
    """The fast groups whose lines go to the reference reader, with their context: groups that are not
    records after all (a level or a date that does not exist) and, when there are any, the groups of
    the messages it quarantines (their lines need numbers). None when there are none."""
    from pyspark.sql import functions as F

    if not (has_bad or has_invalid):
        return None
    route = groups.where("NOT valid").select("hour", "rest")
    if has_bad:
        bad_msgs = classes.where("cls = 'Q'").select("msg")
        route = route.unionByName(fast.join(F.broadcast(bad_msgs), "msg").select("hour", "rest"))
    return route


def read_odd_lines(spark, shaped, stage1, hostile, numbers: LineNumbers, progress, cached: list):
    """The odd lines (and the `hostile` groups' lines) through the reference reader: (the reader's rows,
    their accounting rows (kinds T, Q, C) collected, the (hour, rest) groups routed to the reader or
    None). Lines of a group whose run ended inside an open record are routed too, and the odd lines
    read again."""
    from pyspark.sql import functions as F

    slow = stage1.where("kind = 'S'").select("file", "block", F.col("rid").alias("id"), "raw")
    reroute = None
    for attempt in range(3):
        progress.set("reading odd lines" if attempt == 0 else "reading odd lines again (with their context)")
        odd = _slow_stage(spark, slow, numbers.table, numbers.files_bc)
        cached.append(odd)
        odd_rows = odd.where("kind IN ('T', 'Q', 'C')").select("kind", "a", "b", "c", "num").collect()
        consumed = [r for r in odd_rows if r.kind == "C"]
        route = hostile if attempt == 0 else None
        if not consumed and route is None:
            break
        if attempt == 2:  # pragma: no cover - routing every line of a group closes its runs
            raise AuthzError("internal error: odd lines still need context after two rounds")
        progress.set("routing hostile lines to the reference reader")
        if consumed:
            pos = _positions([(r.a, r.num) for r in consumed], numbers.offsets)
            pos_df = spark.createDataFrame(pos, "file string, id long")
            hit = shaped.join(F.broadcast(pos_df), ["file", "id"]).where("fast").select("hour", "rest")
            route = hit if route is None else route.unionByName(hit)
        assert route is not None  # the hostile lines, or those the odd lines consumed
        grp_rows = route.distinct().collect()
        grp_df = spark.createDataFrame(grp_rows, "hour string, rest binary")
        new = (shaped.where("fast").join(F.broadcast(grp_df), ["hour", "rest"], "left_semi")
               .select("file", "block", "id", F.col("value").cast("binary").alias("raw")))
        slow = slow.unionByName(new)
        reroute = grp_df if reroute is None else reroute.unionByName(grp_df)
    return odd, odd_rows, reroute
