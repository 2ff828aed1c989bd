"""The SparkSession: checked options (master URL, memory sizes) before anything starts, Spark's own
output off, its splits made deterministic, its shuffle sized to the logs, and what the pipeline keeps
of a stage (local checkpoints); the session of one job (:func:`job_session`), stopped after it."""

from __future__ import annotations

import os
import re
import shutil
import socket
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from kafka_authz_cli.whatif.spark.failures import SparkFailure, spark_errors
from kafka_authz_cli.whatif.spark.jvm import java_problem, jvm_output_to, spark_log_file

SPLIT_BYTES = 128 << 20


@dataclass(frozen=True)
class SparkOptions:
    """Where and how the Spark job runs (`--master`, `--driver-memory`, `--executor-memory`,
    `--partition-bytes`)."""

    master: str = "local[*]"
    driver_memory: str = "2g"
    executor_memory: Optional[str] = None
    partition_bytes: int = SPLIT_BYTES

    @property
    def local(self) -> bool:
        return self.master.startswith("local")


def _log_config() -> Path:
    return Path(__file__).with_name("spark-log4j2.properties")


def check_master(master: str) -> None:
    """Fail fast (one line) on a master URL Spark would retry for a minute before giving up."""
    if master.startswith("local"):
        if not re.fullmatch(r"local(\[(\*|\d+)(,\d+)?\])?", master):
            raise SparkFailure(f"--master {master!r}: a local master is local, local[N] or local[*]")
        return
    m = re.fullmatch(r"spark://([^:/]+):(\d+)", master)
    if m:
        try:
            socket.create_connection((m[1], int(m[2])), timeout=5).close()
        except OSError as exc:
            raise SparkFailure(f"cannot reach the Spark master at {m[1]}:{m[2]} ({exc.strerror or exc}): check "
                               "--master and that the master is running") from None
        return
    if not (master == "yarn" or master.startswith("k8s://") or master.startswith("mesos://")):
        raise SparkFailure(f"--master {master!r} is not a Spark master URL (local[*], spark://HOST:PORT, yarn, "
                           "k8s://https://HOST:PORT)")


def spark_session(master: str = "local[*]", app_name: str = "authz-whatif", progress: bool = False,
                  driver_memory: str | None = None, executor_memory: str | None = None, conf: dict | None = None):
    """A SparkSession with Spark's own console output off (its log goes to a file, see spark_log_file)."""
    problem = java_problem()
    if problem:
        raise SparkFailure(f"the Spark job needs Java 17+: {problem} (install e.g. openjdk-17-jre-headless)")
    check_master(master)
    if driver_memory is None:
        driver_memory = os.environ.get("AUTHZ_SPARK_DRIVER_MEMORY", "2g")
    check_memory("--driver-memory", driver_memory, passed_to_jvm=True)
    if executor_memory is not None:
        check_memory("--executor-memory", executor_memory, passed_to_jvm=False)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    import logging

    from pyspark.sql import SparkSession

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger", "py4j", "py4j.clientserver"):
        logging.getLogger(name).setLevel(logging.CRITICAL)  # failures are said once, by authz
    # py4j logs a lost connection on the root logger, traceback and all: the failure is said once, by authz
    logging.getLogger().addFilter(lambda record: "py4j" not in (record.pathname or ""))
    from pyspark import accumulators

    # Its server thread prints a traceback when the JVM dies mid-job; the main thread says it once.
    for server in ("AccumulatorTCPServer", "AccumulatorUnixServer"):
        if hasattr(accumulators, server):
            getattr(accumulators, server).handle_error = lambda self, request, client_address: None
    log = spark_log_file()
    # A JVM that cannot start or crashes writes hs_err_pid*.log into the working directory: keep it with
    # Spark's own log instead of leaving it in the user's project.
    java_opts = (f"-Dlog4j2.configurationFile={_log_config().as_uri()} -Dauthz.spark.log={log} "
                 f"-XX:ErrorFile={os.path.join(tempfile.gettempdir(), 'authz-spark-hs_err_%p.log')}")
    if master.startswith("local"):
        # Local tasks run in this JVM: G1's concurrent threads take cores from them (a cold 10 M-line
        # run: 57 s with the throughput collector, 65-69 s with G1 on 2 cores). A cluster's executors
        # keep whatever collector their operators chose.
        java_opts += " -XX:+UseParallelGC"
    builder = (SparkSession.builder.master(master).appName(app_name)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.extraJavaOptions", java_opts)
               .config("spark.log.structuredLogging.enabled", "false")
               # The line shape is many derived columns over the same value: Catalyst's constraint
               # inference multiplies them at every join and filter (86 s and 1.4 GB of heap for the
               # 130-line example with it, 37 s without); the pipeline's filters need none of it.
               .config("spark.sql.constraintPropagation.enabled", "false")
               # A long-lived session (tests, a notebook) keeps each query's plan for the UI it does not
               # show: keep few, or the heap fills run after run.
               .config("spark.sql.ui.retainedExecutions", "20")
               .config("spark.ui.retainedJobs", "100")
               .config("spark.ui.retainedStages", "100")
               .config("spark.driver.memory", driver_memory)
               .config("spark.sql.files.maxPartitionBytes", str(SPLIT_BYTES))
               .config("spark.sql.files.openCostInBytes", str(SPLIT_BYTES)))
    if master.startswith("local") and "spark.sql.shuffle.partitions" not in (conf or {}):
        builder = builder.config("spark.sql.shuffle.partitions", "4").config("spark.authz.fitShuffle", "true")
    if executor_memory is not None:
        builder = builder.config("spark.executor.memory", executor_memory)
    for k, v in (conf or {}).items():
        builder = builder.config(k, v)
    with spark_errors("starting Spark"), jvm_output_to(log):
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        if not master.startswith("local"):
            _ship_package(spark)
    return spark


@contextmanager
def job_session(options: SparkOptions) -> Iterator[object]:
    """The SparkSession of one job, stopped after it; Spark's log file is kept only when something
    failed (the error line names it)."""
    session = spark_session(options.master, driver_memory=options.driver_memory,
                            executor_memory=options.executor_memory)
    ok = False
    try:
        yield session
        ok = True
    finally:
        _stop(session, ok)


def _stop(session, ok: bool) -> None:
    try:
        session.stop()
    except Exception:  # the JVM is already gone (killed, out of memory): the error was said once
        ok = False
    if ok:
        try:
            os.remove(spark_log_file())
        except OSError:
            pass


def _ship_package(spark) -> None:
    """Executors on a cluster need authz's code: send it as a zip."""
    package = Path(__file__).resolve().parents[2]  # kafka_authz_cli/, from whatif/spark/
    tmp = tempfile.mkdtemp(prefix="authz-")
    archive = shutil.make_archive(os.path.join(tmp, "kafka_authz_cli"), "zip", package.parent, package.name)
    spark.sparkContext.addPyFile(archive)


def check_memory(flag: str, value: str, passed_to_jvm: bool) -> None:
    """Spark passes a local driver's memory to the JVM as -Xmx as it is written, so it must be a JVM size
    (digits and k, m, g or t); an executor's is read by Spark itself (no unit is MiB, '1gb' is fine)."""
    size = r"[1-9]\d{0,9}[kmgt]" if passed_to_jvm else r"[1-9]\d{0,9}(?:[kmgtp]b?)?"
    if not re.fullmatch(size, value or "", re.I):
        raise SparkFailure(f"{flag} {value!r}: give a size with its unit, like 512m or 2g")


def fit_shuffle(spark, total_bytes: int) -> None:
    """Shuffle partitions sized to the logs and the cores. Spark's default of 200 costs a Python
    worker round per partition per stage, which on a small cluster dwarfs the work (the example logs
    took minutes on a 2-core standalone worker); too few, and one partition of a 100 M-line run's
    aggregates does not fit in the heap. A value set in Spark's own configuration wins."""
    conf = spark.sparkContext.getConf()
    by_size = -(-total_bytes // SPLIT_BYTES)
    if spark.sparkContext.master.startswith("local"):
        if conf.get("spark.authz.fitShuffle", "false") == "true":
            spark.conf.set("spark.sql.shuffle.partitions", str(max(4, min(400, by_size))))
        return
    if conf.contains("spark.sql.shuffle.partitions"):
        return
    cores = spark.sparkContext.defaultParallelism
    spark.conf.set("spark.sql.shuffle.partitions", str(max(2, min(400, max(cores, by_size) * 2))))


def materialize(df):
    """Computed once, kept (memory, then disk) and cut from its lineage. Derived queries read it as a
    table instead of re-planning the scan: a join of two DataFrames derived from the same cached plan
    re-instantiates one side, and the grouping-sets aggregation then no longer matches its cache, so
    the logs would be scanned again. Local checkpoints live on the executors: losing one fails the
    job (said as such, see explain_failure), which costs less than keeping the lineage."""
    from pyspark import StorageLevel

    return df.localCheckpoint(eager=True, storageLevel=StorageLevel.MEMORY_AND_DISK)


def release(df) -> None:
    """Drop what materialize kept."""
    try:
        df._jdf.queryExecution().analyzed().rdd().unpersist(False)
    except Exception:  # noqa: BLE001 - not a checkpoint, or the JVM is gone: nothing to drop
        pass
