"""Shadow mode on Spark Structured Streaming: the log directory as a file source.

For a cluster whose authorizer logs are too many for one process to follow, the brokers' rolled
files land in a directory (a shared volume, HDFS, S3: whatever Spark reads); Structured Streaming's
file source lists it every trigger and hands each micro-batch of lines of the files new since the
last one. A file source sees a file once, when it appears, not lines appended to it later: it follows
rolled files (the active log of a broker is followed with `--follow FILE` in-process).

Each micro-batch arrives at the driver through `foreachBatch` as (file, line number, text) rows in
file and line order, and is judged there with the same readers and the same :class:`Shadow` as the
in-process follower, so the output is the same; the executors read and number the lines.
"""

from __future__ import annotations

import queue
import time
from typing import Callable

#: Lines of one micro-batch brought to the driver at a time (spark.sql.streaming ... maxFilesPerTrigger
#: bounds the files; this bounds the memory of one hand-over).
FILES_PER_TRIGGER = 64


def follow_directory(spark, directory: str, on_lines: Callable[[list[tuple[str, int, str]]], None],
                     stop: Callable[[], bool], interval: float = 1.0, checkpoint: str | None = None,
                     from_start: bool = True) -> int:
    """Stream the text files of `directory` (files new since the start; with `from_start` those already
    there too) and call `on_lines` on the driver with each micro-batch's (file, line number, text) rows,
    in order, until `stop()` is true. Returns the number of micro-batches. Errors of the query (a
    directory that went away, a file that cannot be read) are raised as they are, on this thread."""
    import os

    from pyspark.sql import functions as F
    from pyspark.sql.window import Window

    # Spark's file source reads the files already there on its first trigger: without `from_start`
    # their lines are dropped before they reach the driver
    there = [] if from_start else sorted(os.path.realpath(os.path.join(d, f)) for d, _, files in os.walk(directory)
                                         for f in files)
    # files in subdirectories too (one per broker, as a replay's --logs DIR reads them)
    reader = spark.readStream.option("maxFilesPerTrigger", FILES_PER_TRIGGER).option("recursiveFileLookup", "true")
    lines = reader.text(directory).withColumn("file", F.regexp_replace(F.input_file_name(), "^file:/+", "/"))
    if there:
        lines = lines.where(~F.col("file").isin(there))
    handed: queue.Queue = queue.Queue()

    def batch(df, batch_id: int) -> None:
        # numbered within the batch, per file, in the order Spark read them (a new file is new whole)
        numbered = df.withColumn("at", F.monotonically_increasing_id()) \
            .withColumn("lineno", F.row_number().over(Window.partitionBy("file").orderBy("at")))
        rows = numbered.select("file", "lineno", "value").orderBy("file", "lineno").collect()
        handed.put([(r["file"], r["lineno"], r["value"]) for r in rows])

    writer = lines.writeStream.foreachBatch(batch).trigger(processingTime=f"{max(interval, 0.1):g} seconds")
    if checkpoint is not None:
        writer = writer.option("checkpointLocation", checkpoint)
    query = writer.start()
    batches = 0
    try:
        while not stop():
            try:
                rows = handed.get(timeout=0.1)
            except queue.Empty:
                if query.exception() is not None:
                    raise query.exception()
                if not query.isActive:
                    break
                continue
            batches += 1
            on_lines(rows)
    finally:
        query.stop()
        deadline = time.monotonic() + 5
        while not handed.empty() and time.monotonic() < deadline:
            batches += 1
            on_lines(handed.get_nowait())
    return batches
