"""The log files as one DataFrame of lines (file, block, id, value), whatever they are.

A plain file is read by Spark's splittable text source; a gzip file too when its stream is whole;
anything else (a damaged gzip file, a byte-order mark, another codec's extension) goes through the
reference reader's streaming Python decoder, one task per file. No file is ever held whole in memory.

Whether a gzip file is whole takes a full decompression. In local mode it is checked on the driver, in
threads (zlib lets go of the GIL), started before the JVM is (:class:`SourceCheck`): the JVM's start is
mostly one thread for ten seconds, so the check rides along on the other cores instead of being a
Spark job of its own after it (at 10 M rotated lines, 6 gzip files: that job took 7.5 s, most of it
Python workers starting). On a cluster the executors check them, a file per task.
"""

from __future__ import annotations

import os
import re
import threading
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_authz_cli.whatif.auditlog import GZIP_MAGIC, ReadStats, iter_decoded, iter_file_line_bytes

if TYPE_CHECKING:
    from kafka_authz_cli.whatif.spark.session import SparkOptions


def _sniff(path: str) -> str:
    """How Spark reads this file: "text" (Spark's text source), "gzip" (Spark's text source too, if the
    gzip stream turns out whole, see _gzip_worker), or "python" (a byte-order mark, another codec's
    extension, gzip data without the .gz name Spark decompresses by: the Python decoder)."""
    with open(path, "rb") as fh:
        head = fh.read(3)
    if head[:2] == GZIP_MAGIC and path.endswith(".gz"):
        return "gzip"
    if re.search(r"\.(gz|bz2|deflate|lz4|snappy|zst|xz|z|br|zip)$", path, re.I):
        return "python"
    return "python" if head[:2] == GZIP_MAGIC or head == b"\xef\xbb\xbf" else "text"


def _gzip_worker(batches):
    """Executor side: is each gzip file whole? Only then is Spark's own decompressor known to give the
    lines the reference reader would; anything else goes to the Python decoder, which reads what a
    damaged file holds and says what it skipped."""
    import pyarrow as pa

    for batch in batches:
        out = [_gzip_whole(path) for path in batch.column("path").to_pylist()]
        yield pa.record_batch([batch.column("path"), pa.array(out, pa.bool_())], names=["path", "whole"])


def _gzip_whole(path: str) -> bool:
    """The reference reader's decoder has nothing to say about it (every member complete, nothing
    after the last), and it holds no byte-order mark (Hadoop's line reader drops one; the reader keeps it)."""
    stats, head = ReadStats(), b""
    with open(path, "rb") as fh:
        for data in iter_decoded(fh, path, stats, None):
            if len(head) < 3:
                head += data[:3 - len(head)]
    return not stats.warnings and head != b"\xef\xbb\xbf"


class SourceCheck:
    """How each file is read ("text" or "python", see _sniff and _gzip_whole), found on the driver in
    daemon threads from the moment it is made: a Ctrl-C never waits for a decompression to end.
    :meth:`kinds` waits for the answer and raises what reading a file raised."""

    def __init__(self, files: list[str], threads: int | None = None):
        self._files = list(files)
        self._kinds: dict[str, str] = {}
        self._error: BaseException | None = None
        self._todo = list(reversed(self._files))
        self._lock = threading.Lock()
        n = max(1, min(threads or os.cpu_count() or 1, len(self._files)))
        self._threads = [threading.Thread(target=self._work, name="authz-source-check", daemon=True)
                         for _ in range(n)]
        for t in self._threads:
            t.start()

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._todo or self._error is not None:
                    return
                path = self._todo.pop()
            try:
                kind = _sniff(path)
                if kind == "gzip":
                    kind = "text" if _gzip_whole(path) else "python"
            except BaseException as exc:  # noqa: BLE001 - said where the answer is waited for
                with self._lock:
                    self._error = self._error or exc
                return
            with self._lock:
                self._kinds[path] = kind

    def kinds(self) -> dict[str, str]:
        for t in self._threads:
            t.join()
        if self._error is not None:
            raise self._error
        return {f: self._kinds[f] for f in self._files}


def source_check(files: list[str], options: SparkOptions) -> SourceCheck | None:
    """In local mode, how each file is read (gzip wholeness: a full decompression) is found on this
    machine's other cores while the JVM starts; a cluster's executors find it themselves."""
    return SourceCheck(files) if options.local else None


def _decode_worker(batches):
    """Executor side of the Python decoder: one file per row in, its lines out (memory flat)."""
    import pyarrow as pa

    schema = pa.schema([("file", pa.string()), ("block", pa.int64()), ("id", pa.int64()), ("value", pa.binary())])
    for batch in batches:
        for key, path, display in zip(batch.column("key").to_pylist(), batch.column("path").to_pylist(),
                                      batch.column("display").to_pylist()):
            stats = ReadStats()
            ids, values = [], []
            n = 0
            with open(path, "rb") as fh:
                for line in iter_file_line_bytes(fh, display, stats):
                    ids.append(n)
                    values.append(line)
                    n += 1
                    if len(values) >= 32768:
                        yield pa.record_batch([pa.array([key] * len(ids)), pa.array([0] * len(ids), pa.int64()),
                                               pa.array(ids, pa.int64()), pa.array(values, pa.binary())], schema=schema)
                        ids, values = [], []
            for i, w in enumerate(stats.warnings):  # warnings ride along as negative ids
                ids.append(-1 - i)
                values.append(w.encode())
            if ids:
                yield pa.record_batch([pa.array([key] * len(ids)), pa.array([0] * len(ids), pa.int64()),
                                       pa.array(ids, pa.int64()), pa.array(values, pa.binary())], schema=schema)


@dataclass
class Sources:
    lines: object  # DataFrame(file, block, id, value)
    display: dict[str, str]  # Spark's file name -> the path as the user named it
    total_bytes: int


def _gzip_check(spark, files: list[str]) -> dict[str, bool]:
    """Which gzip files are whole, checked on the executors (a file per task, in parallel)."""
    paths = [os.path.abspath(f) for f in files]
    df = spark.createDataFrame([(p,) for p in paths], "path string").repartition(min(len(paths), 400))
    return {r.path: r.whole for r in df.mapInArrow(_gzip_worker, "path string, whole boolean").collect()}


def _kinds(spark, files: list[str], check: SourceCheck | None) -> dict[str, str]:
    """How each file is read: from `check` (started earlier), on the driver in local mode, else with
    the gzip files checked on the executors."""
    if check is not None:
        return check.kinds()
    if spark.sparkContext.master.startswith("local"):
        return SourceCheck(files).kinds()
    kinds = {f: _sniff(f) for f in files}
    gz = [f for f, k in kinds.items() if k == "gzip"]
    if gz:
        whole = _gzip_check(spark, gz)
        kinds.update({f: "text" if whole[os.path.abspath(f)] else "python" for f in gz})
    return kinds


def read_sources(spark, files: list[str], names: dict[str, str] | None = None,
                 check: SourceCheck | None = None) -> Sources:
    from pyspark.sql import functions as F

    display: dict[str, str] = {}
    kinds = _kinds(spark, files, check)
    text = [f for f in files if kinds[f] == "text"]
    python = [f for f in files if kinds[f] == "python"]
    parts = []
    if text:
        real = {os.path.realpath(f): (names or {}).get(f, f) for f in text}
        raw = spark.read.option("lineSep", "\n").text([os.path.abspath(f) for f in text])
        parts.append(raw.select(F.col("_metadata.file_path").alias("file"),
                                F.col("_metadata.file_block_start").alias("block"),
                                F.monotonically_increasing_id().alias("id"), "value"))
        for uri in raw.inputFiles():  # the listing the read made (listing the files again cost a second one)
            local = os.path.realpath(urllib.parse.unquote(urllib.parse.urlparse(uri).path))
            for form in (uri, "file:" + urllib.parse.urlparse(uri).path):
                display[form] = real.get(local, local)
    if python:
        rows = []
        for i, f in enumerate(python):
            key = f"authz-python:{i}"
            display[key] = (names or {}).get(f, f)
            rows.append((key, os.path.abspath(f), display[key]))
        paths = spark.createDataFrame(rows, "key string, path string, display string").repartition(len(rows))
        decoded = paths.mapInArrow(_decode_worker, "file string, block long, id long, value binary")
        parts.append(decoded.select("file", "block", "id", F.col("value").cast("string").alias("value")))
    lines = parts[0]
    for p in parts[1:]:
        lines = lines.unionByName(p)
    return Sources(lines, display, sum(os.path.getsize(f) for f in files))
