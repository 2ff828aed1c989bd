"""The whatif replay as a Spark pipeline: the only module that imports pyspark.

Lines are read with Spark's splittable text source (a plain file is split across tasks, a whole
gzip file is one task; a damaged gzip file, a byte-order mark or another codec's extension go through
the reference reader's streaming Python decoder, one task per file), so no file is ever held whole in
memory. Per line, the JVM recognises the stock layout `[%d] %p %m (%c)` (alone or behind the CRI,
docker compose and stern prefixes the reader strips) and the thread layout `%d %p %m (%c) [%t]` with
byte tests and a regex on the timestamp, and takes other layouts apart with anchored Spark SQL
expressions. Lines are aggregated per distinct (hour, `LEVEL message`); the level and the calendar
date are checked once per group. Every other line - multi-line records,
foreign lines, odd layouts - keeps its file and line number and goes to the reference reader
(:mod:`kafka_authz_cli.whatif.auditlog`) with the context it needs. Message fields of the KRaft and ZK 2.4+
shapes are extracted in the JVM; each distinct message is also read once by the reference reader,
which has the last word. Distinct requests are aggregated in Spark SQL and decided on the executors
(Arrow batches) with the ACL sets broadcast. Intermediate results are local checkpoints, so each
later query reads a small table instead of re-planning (and, after a self-join, re-running) the scan.

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
import os
import re
import shutil
import socket
import sys
import tempfile
import threading
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kafka_authz_cli.acl.model import AclBinding, AclOperation, ResourceType
from kafka_authz_cli.errors import AuthzError
from kafka_authz_cli.whatif.auditlog import (
    GZIP_MAGIC,
    LOGGER_SUFFIX,
    Quarantined,
    ReadStats,
    classify_message,
    iter_decoded,
    iter_file_line_bytes,
    read_runs,
)
from kafka_authz_cli.whatif.replay import (
    Aggregate,
    Summary,
    Verdict,
    WhatIfReport,
    assemble_report,
    classify,
    decide,
    mismatch_row,
)

KEY = ["principal", "host", "operation", "resource_type", "resource_name"]
SPLIT_BYTES = 128 << 20
_SEP_THREAD = LOGGER_SUFFIX + " ["


class SparkFailure(AuthzError):
    """A Spark failure, said in one line with what to change."""


# ----------------------------------------------------------------------------------------------
# Session, logging, failures, progress


def java_problem() -> str | None:
    """None when a Java 17+ runtime is there; otherwise what is wrong, in words."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    if home and not os.access(java, os.X_OK):
        return f"JAVA_HOME is {home} but {java} is not an executable"
    if not java:
        return "no Java runtime (java is not on PATH and JAVA_HOME is not set)"
    import subprocess

    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{java} does not run ({exc})"
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out)
    if m:
        major = int(m[1]) if m[1] != "1" else int(m[2] or 0)
        if major < 17:
            return f"Spark needs Java 17+, found Java {major} ({java})"
    return None


def java_available() -> bool:
    return java_problem() is None


def _log_config() -> Path:
    return Path(__file__).with_name("spark-log4j2.properties")


def spark_log_file() -> str:
    return os.path.join(tempfile.gettempdir(), f"authz-spark-{os.getpid()}.log")


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
    with spark_errors("starting Spark"), _jvm_output_to(log):
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        if not master.startswith("local"):
            _ship_package(spark)
    return spark


# Where in Spark's log (one per process) the latest JVM start began: what an earlier session of the
# same process logged is not why this one failed.
_start_of_this_start: dict[str, int] = {}


class _jvm_output_to:
    """The JVM Spark starts inherits file descriptors 1 and 2: point them at the log file while it
    starts, so that Java's own notes (start-up warnings on stderr; a heap it cannot reserve, on stdout)
    never reach the terminal or authz's own output (both are restored after)."""

    def __init__(self, path: str):
        self.path = path
        self.saved: list[tuple[int, int]] = []

    def __enter__(self):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            _start_of_this_start[self.path] = os.fstat(fd).st_size
            for target in (1, 2):
                self.saved.append((target, os.dup(target)))
                os.dup2(fd, target)
            os.close(fd)
        except OSError:
            self.__exit__()
        return self

    def __exit__(self, *exc):
        for target, saved in reversed(self.saved):
            os.dup2(saved, target)
            os.close(saved)
        self.saved = []
        return False


def _ship_package(spark) -> None:
    """Executors on a cluster need authz's code: send it as a zip."""
    package = Path(__file__).resolve().parents[2]  # kafka_authz_cli/, from whatif/spark/
    tmp = tempfile.mkdtemp(prefix="authz-")
    archive = shutil.make_archive(os.path.join(tmp, "kafka_authz_cli"), "zip", package.parent, package.name)
    spark.sparkContext.addPyFile(archive)


# py4j gives a call whose connection broke mid-answer (the JVM died under it) this message and nothing
# else; a JVM that is alive always sends the exception it raised.
_BARE_PY4J_ERROR = re.compile(r"Py4JError: An error occurred while calling [\w$.]+\s*$")


def _jvm_has_exited() -> bool:
    """Whether the driver JVM this process started is gone: the surest sign, whatever py4j said."""
    try:
        from pyspark import SparkContext
        proc = getattr(SparkContext._gateway, "proc", None)
        return proc is not None and proc.poll() is not None
    except Exception:
        return False


# What a JVM that refuses to start says (on stdout or stderr, into Spark's log), and what to change.
_JVM_START_ERRORS = (
    (re.compile(r"Too small (?:maximum|initial) heap|must be at least \d+|Initial heap size set to a larger"),
     "Spark's JVM refuses this heap size: raise --driver-memory (at least 512m)"),
    (re.compile(r"insufficient memory for the Java Runtime|Could not reserve enough space|Cannot allocate memory|"
                r"Native memory allocation \(mmap\) failed"),
     "Spark's JVM cannot get the memory it asks for: lower --driver-memory to what this machine has free"),
    (re.compile(r"Invalid (?:maximum|initial) heap size"), "Spark's JVM does not understand --driver-memory: "
                                                           "give a size like 512m or 2g"),
    (re.compile(r"Unrecognized VM option|Could not create the Java Virtual Machine"),
     "Spark's JVM refuses an option it was given (spark.driver.extraJavaOptions?)"),
)


def _why_the_jvm_did_not_start(log: str) -> str:
    problem = java_problem()
    if problem:
        return f"Spark could not start its Java process: {problem}; it needs Java 17+ (JAVA_HOME, java on PATH)"
    try:
        with open(log, "rb") as f:
            f.seek(max(_start_of_this_start.get(log, 0), f.seek(0, os.SEEK_END) - 200_000))
            said = f.read().decode("utf-8", "replace")
    except OSError:
        said = ""
    for pattern, why in _JVM_START_ERRORS:
        if pattern.search(said):
            return why
    return "Spark's Java process exited before it was ready (killed, or out of memory?)"


def check_memory(flag: str, value: str, passed_to_jvm: bool) -> None:
    """Spark passes a local driver's memory to the JVM as -Xmx as it is written, so it must be a JVM size
    (digits and k, m, g or t); an executor's is read by Spark itself (no unit is MiB, '1gb' is fine)."""
    size = r"[1-9]\d{0,9}[kmgt]" if passed_to_jvm else r"[1-9]\d{0,9}(?:[kmgtp]b?)?"
    if not re.fullmatch(size, value or "", re.I):
        raise SparkFailure(f"{flag} {value!r}: give a size with its unit, like 512m or 2g")


def explain_failure(exc: BaseException) -> str:
    """One line: what happened to Spark and what to change."""
    log = spark_log_file()
    where = f" (Spark's log: {log})" if os.path.exists(log) else ""
    try:
        text = f"{type(exc).__name__}: {exc}"
    except Exception:  # a py4j error asks the JVM for its text: the JVM died
        text = "Py4JNetworkError"
    if isinstance(exc, ConnectionError) or "Py4JNetworkError" in text or "Connection refused" in text or \
            _BARE_PY4J_ERROR.match(text) or _jvm_has_exited():
        return ("Spark's JVM died (out of memory or killed): raise --driver-memory, or give it more partitions "
                "(smaller --partition-bytes)" + where)
    if "OutOfMemoryError" in text or "Java heap space" in text or "GC overhead limit" in text:
        return ("Spark ran out of memory: raise --driver-memory (and --executor-memory on a cluster), or give it "
                "more partitions (smaller --partition-bytes)" + where)
    if "must be at least" in text and "memory" in text.lower():
        m = re.search(r"[Ss]ystem memory (\d+) must be at least (\d+)", text)
        need = f" (at least {int(m[2]) >> 20} MiB)" if m else ""
        return f"Spark refuses to start with this little memory: raise --driver-memory{need}" + where
    if "ExecutorLostFailure" in text or "Lost executor" in text or "executor lost" in text.lower() or \
            "Worker lost" in text or "SparkContext was shut down" in text or "Checkpoint block" in text:
        return ("a Spark executor was lost (killed, out of memory or its worker died): check the cluster, raise "
                "--executor-memory, or retry" + where)
    if "JAVA_GATEWAY_EXITED" in text or "Java gateway process exited" in text:
        return _why_the_jvm_did_not_start(log) + where
    if "All masters are unresponsive" in text or "Could not parse Master URL" in text or \
            "Failed to connect to master" in text:
        return "Spark cannot use this --master: check the URL and that the master is running" + where
    m = re.search(r"FAILED_READ_FILE(?:\.NO_HINT)?\] Encountered error while reading file (?:file://)?(\S+?)\.?(?:\s|$)", text)
    if m:
        return f"Spark cannot read {m[1]}: it is corrupt, cut short or not the kind of file it should be" + where
    if "FileNotFoundException" in text or "PATH_NOT_FOUND" in text or \
            re.search(r"(?:File|Path) (?:file:)?(?:\S+ )?does not exist", text):
        m = re.search(r"(?:File|Path) (?:file:)?(\S+) does not exist", text)
        return f"a log file disappeared or is not readable where Spark runs{': ' + m[1] if m else ''}" + where
    if "Error from python worker" in text:
        errors = re.findall(r"^\s*([A-Za-z_.]*(?:Error|Exception): .*)$", text, re.M)
        why = errors[-1].strip() if errors else "it exited"
        return (f"a Python worker failed on an executor ({why[:200]}): the executors' Python (PYSPARK_PYTHON) needs "
                "pyspark and pyarrow installed" + where)
    lines = [ln.strip() for ln in str(exc).splitlines()]
    lines = [ln for ln in (re.sub(r"^(An error occurred while calling \S+\.|:)\s*", "", ln) for ln in lines) if ln]
    first = lines[0] if lines else type(exc).__name__
    return f"Spark failed: {first[:300]}" + where


class spark_errors:
    """Turn any Spark/py4j failure into one SparkFailure line (exit 2)."""

    def __init__(self, what: str):
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, et, exc, tb):
        if exc is None or isinstance(exc, (AuthzError, KeyboardInterrupt, SystemExit)):
            return False
        raise SparkFailure(explain_failure(exc)) from None


class StatusProgress:
    """Polls Spark's status tracker (tasks of the running jobs) for authz's own progress bar."""

    def __init__(self, spark, callback: Callable[[str, int, int], None] | None, interval: float = 0.3):
        self.sc = spark.sparkContext
        self.callback = callback
        self.interval = interval
        self.phase = ""
        self._stop = threading.Event()
        self._thread = None

    def __enter__(self):
        if self.callback is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def set(self, phase: str) -> None:
        self._tick()  # the finished phase's final count
        self._n = getattr(self, "_n", 0) + 1
        self.phase = phase
        self.sc.setJobGroup(f"authz-{self._n}", phase, interruptOnCancel=True)

    def _tick(self) -> None:
        if self.callback is None or not self.phase:
            return
        try:
            tracker = self.sc.statusTracker()
            done = total = 0
            for job in tracker.getJobIdsForGroup(f"authz-{self._n}"):
                info = tracker.getJobInfo(job)
                if info is None:
                    continue
                for sid in info.stageIds:
                    st = tracker.getStageInfo(sid)
                    if st is not None:
                        done += st.numCompletedTasks
                        total += st.numTasks
            self.callback(self.phase, done, total)
        except Exception:  # noqa: BLE001 - progress must never break the job
            pass

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._tick()

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._tick()
        return False


# ----------------------------------------------------------------------------------------------
# Reading: sources and the per-line JVM shape


_HMS = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"


def _date_re() -> str:
    """A calendar date `yyyy-MM-dd` that exists (leap years included), in Java regex."""
    y = "(?!0000)[0-9]{4}"
    md = r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
    leap = r"(?!0000)(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29"
    return rf"(?:{y}-{md}|{leap})"


def _ts_re() -> str:
    """A log4j %d that names a real instant (what auditlog.valid_timestamp accepts), in Java regex."""
    return rf"{_date_re()}[ T]{_HMS}(?:[,.][0-9]{{1,9}})?"


_HOUR_RE = rf"^{_date_re()} (?:[01][0-9]|2[0-3])$"


_LEVELS = "TRACE|DEBUG|INFO|WARN|ERROR"
# The collection prefixes auditlog's _NOISE strips, in ASCII: CRI, docker compose, stern (before "[").
_CRI, _COMPOSE, _STERN = (r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z (?:stdout|stderr) [FP] ", r"[A-Za-z0-9_.-]+ +\| ",
                          r"[A-Za-z0-9_.-]+ [A-Za-z0-9_.-]+ ")
_PREFIX_RE = (rf"^(?:{_CRI}|{_COMPOSE}|{_STERN}(?=\[[0-9]{{4}}-))?"
              rf"(?:\[{_ts_re()}\]|{_ts_re()}) (?:{_LEVELS}) ")


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


def _sources(spark, files: list[str], names: dict[str, str] | None = None) -> Sources:
    from pyspark.sql import functions as F

    display: dict[str, str] = {}
    text, python, gz = [], [], []
    for f in files:
        {"text": text, "python": python, "gzip": gz}[_sniff(f)].append(f)
    if gz:
        whole = _gzip_check(spark, gz)
        text += [f for f in gz if whole[os.path.abspath(f)]]
        python += [f for f in gz if not whole[os.path.abspath(f)]]
    parts = []
    if text:
        real = {os.path.realpath(f): (names or {}).get(f, f) for f in text}
        df = (spark.read.option("lineSep", "\n").text([os.path.abspath(f) for f in text])
              .select(F.col("_metadata.file_path").alias("file"), F.col("_metadata.file_block_start").alias("block"),
                      F.monotonically_increasing_id().alias("id"), "value"))
        parts.append(df)
        for uri in spark.read.text([os.path.abspath(f) for f in text]).inputFiles():
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


# Nearly every line of a real log is in one of two layouts: Kafka's stock `[%d] %p %m (%c)` (alone or
# behind a CRI, docker compose or stern prefix, which holds no "[") and the thread form
# `%d %p %m (%c) [%t]` (Strimzi). Both are recognised with byte tests and one small regex on the
# timestamp (and one on the prefix when there is one); the date's calendar and the level are checked
# once per distinct (hour, rest) group (see _groups), not per line. Every other line - and any line
# whose thread form is ambiguous - goes through the general shape.
_HH = _HMS + ",[0-9]{3}"
_BRACKET_HEAD = rf"^\[[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}} {_HH}\] $"  # 26 bytes
_THREAD_HEAD = rf"^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}} {_HH} $"  # 24 bytes
_PREFIXES = rf"^(?:{_CRI}|{_COMPOSE}|{_STERN})$"


def _ms_in_hour(ts, at=1):
    """The `yyyy-MM-dd HH:mm:ss,SSS` at byte `at` (an int or a column) of a column, as milliseconds
    within its hour."""
    from pyspark.sql import functions as F

    return (F.substring(ts, at + 14, 2).cast("int") * 60000 + F.substring(ts, at + 17, 2).cast("int") * 1000
            + F.substring(ts, at + 20, 3).cast("int"))


def _closes_thread(after):
    """What follows the first thread separator is a thread name and its "]": no other "]" in it."""
    from pyspark.sql import functions as F

    return F.octet_length(F.substring_index(after, "]", 1)) == F.octet_length(after) - 1


def _shape(lines):
    """Per line, JVM side: does it end a record in a layout the JVM takes apart (`fast`), and if so its
    hour, its milliseconds within the hour and its `rest` (`LEVEL message`, as bytes): the key lines
    are aggregated on. Byte-exact cuts at ASCII boundaries, byte-level functions only (counting
    characters costs more than reading the line); every intermediate value is its own column so that
    nothing is computed twice."""
    from pyspark.sql import functions as F

    base = ["file", "block", "id", "value"]
    value, rid = F.col("value"), F.col("id")
    # Bracket form: k bytes of prefix (none, or a collection prefix) before the first "[".
    s = lines.select(*base, F.octet_length(F.substring_index(value, "[", 1)).alias("k"),
                     F.octet_length(value).alias("len"))
    k, n = F.col("k"), F.col("len")
    # The prefix, when there is one, is ASCII: character positions are byte positions from there on.
    bracket = (value.endswith(LOGGER_SUFFIX) & (rid >= 0) & ((k == 0) | F.substring(value, 1, k).rlike(_PREFIXES))
               & F.substring(value, k + 1, 26).rlike(_BRACKET_HEAD))
    s = s.select(*base, "k", "len", bracket.alias("bracket"))
    # Thread form, with exactly one separator and no "]" in the thread name but the last character.
    pre = F.octet_length(F.substring_index(value, _SEP_THREAD, 1))
    after = F.substring_index(value, _SEP_THREAD, -1)
    # (no separator: `pre` is the whole line and `single` fails)
    thread = ~F.col("bracket") & (rid >= 0) & value.endswith("]") & F.substring(value, 1, 24).rlike(_THREAD_HEAD)
    s = s.select(*base, "k", "len", "bracket", F.when(thread, pre).alias("pre"), F.when(thread, after).alias("after"))
    pre, after = F.col("pre"), F.col("after")
    single = pre + len(_SEP_THREAD) + F.octet_length(after) == n
    s = s.select(*base, "k", "len", "bracket", "pre",
                 F.coalesce(single & _closes_thread(after), F.lit(False)).alias("thread"))
    known = F.col("bracket") | F.col("thread")
    # The general shape, for the other lines only (CASE WHEN is lazy: known lines skip the regex).
    # auditlog strips trailing CRs; only lines that have one pay for the trim
    v = F.when(value.endswith("\r"), F.expr("TRIM(TRAILING '\\r' FROM value)")).otherwise(value)
    s = s.select(*base, "k", "len", "bracket", "pre", "thread", F.when(~known, v).alias("v"))
    head = F.substring(F.col("v").cast("binary"), 1, 160).cast("string")
    keep = [*base, "k", "len", "bracket", "pre", "thread"]
    s = s.select(*keep, "v", F.regexp_extract(head, _PREFIX_RE, 0).alias("pfx"))
    v, pfx = F.col("v"), F.col("pfx")
    s = s.select(*keep, "v", "pfx", F.octet_length(pfx).alias("plen"), F.octet_length(v).alias("vlen"))
    plen, vlen = F.col("plen"), F.col("vlen")
    # Thread form "... (kafka.authorizer.logger) [thread]": cut at the first separator, which must be
    # followed by no "]" but the last character (auditlog's _THREAD_SUFFIX, searched leftmost).
    before_sep = F.octet_length(F.substring_index(v, _SEP_THREAD, 1))
    s = s.select(*keep, "v", "pfx", "plen", "vlen",
                 F.when(plen == 0, None).when(v.endswith(LOGGER_SUFFIX), vlen - plen - len(LOGGER_SUFFIX))
                 .when(v.endswith("]") & v.contains(_SEP_THREAD), before_sep).alias("cut"),
                 v.endswith(LOGGER_SUFFIX).alias("apache"))
    cut = F.col("cut")
    tail = F.substring(v.cast("binary"), cut + len(_SEP_THREAD) + 1, vlen).cast("string")
    msg_len = F.when(F.col("apache"), cut).when(cut.isNotNull() & _closes_thread(tail), cut - plen)
    s = s.select(*keep, "v", "pfx", "plen", msg_len.alias("mlen"))
    mlen = F.col("mlen")
    general = F.coalesce((mlen >= 0) & (rid >= 0), F.lit(False))
    s = s.select(*keep, "v", "pfx", "plen", "mlen", general.alias("general"))
    # level: the last token of the prefix; time: inside [..], or the one/two tokens before the level
    s = s.select(*keep, "general",
                 F.when(F.col("general"), F.substring(F.col("v").cast("binary"), plen + 1, mlen)).alias("msg"),
                 F.when(F.col("general"), F.rtrim(pfx)).alias("p"))
    p = F.col("p")
    s = s.select(*keep, "general", "msg", F.substring_index(p, " ", -1).alias("level"),
                 F.expr("substring(p, 1, octet_length(p) - octet_length(substring_index(p, ' ', -1)) - 1)").alias("bfr"))
    bfr = F.col("bfr")
    last = F.substring_index(bfr, " ", -1)
    ts = (F.when(bfr.endswith("]"), F.substring_index(F.expr("substring(bfr, 1, octet_length(bfr) - 1)"), "[", -1))
          .when(last.contains("T"), last).otherwise(F.substring_index(bfr, " ", -2)))
    s = s.select(*keep, "general", "msg", "level", F.translate(ts, "T", " ").alias("ts"))
    # The JVM takes log4j's own `,SSS`; other fractions go to the reader.
    t = F.col("ts")
    stock_ts = F.coalesce((F.octet_length(t) == 23) & (F.substring(t, 20, 1) == ","), F.lit(False))
    general = F.col("general") & stock_ts
    bracket, thread = F.col("bracket"), F.col("thread")
    b = value.cast("binary")
    rest = (F.when(bracket, F.substring(b, k + 27, n - k - 52))
            .when(thread, F.substring(b, 25, F.col("pre") - 24))
            .when(general, F.concat(F.col("level").cast("binary"), F.lit(b" "), F.col("msg"))))
    hour = F.when(bracket, F.substring(value, k + 2, 13)).when(thread, F.substring(value, 1, 13)) \
        .when(general, F.substring(t, 1, 13))
    ms = F.when(bracket, _ms_in_hour(value, k + 2)).when(thread, _ms_in_hour(value, 1)).when(general, _ms_in_hour(t))
    return s.select("file", "block", "id", "value", (bracket | thread | general).alias("fast"), hour.alias("hour"),
                    ms.alias("ms"), rest.alias("rest"))


def _ts_from(hour, ms):
    """An hour (`yyyy-MM-dd HH`) and milliseconds within it back to log4j's `yyyy-MM-dd HH:mm:ss,SSS`."""
    from pyspark.sql import functions as F

    def pad(c, n):
        return F.lpad(c.cast("string"), n, "0")

    return F.when(ms.isNotNull(), F.concat(hour, F.lit(":"), pad(F.floor(ms / 60000), 2), F.lit(":"),
                                           pad(F.floor(ms / 1000) % 60, 2), F.lit(","), pad(ms % 1000, 3)))


def _stage1(shaped):
    """One scan, one hash aggregation with two grouping sets: per split (kind B), its lines, first line
    and first fast line (for line numbers); and per distinct (hour, rest) of the fast lines (kind F),
    their count and first/last time - or, for every other line, the line itself with its position
    (kind S, or W for a decoder warning). Its bytes are a grouping key, so every aggregation buffer
    is fixed-width (a hash aggregation that spills), and the fast groups are global, not per split:
    what is kept for the later phases is about as large as the distinct requests, not the logs."""
    from pyspark.sql import functions as F

    fast, rid = F.col("fast"), F.col("id")
    rows = shaped.select("file", "block", "hour", "rest", F.when(~fast, F.col("file")).alias("sfile"),
                         F.when(~fast, F.col("block")).alias("sblock"), F.when(~fast, rid).alias("rid"),
                         F.when(~fast, F.col("value").cast("binary")).alias("raw"), "ms", "id", "fast")
    keys = ["hour", "rest", "sfile", "sblock", "rid", "raw"]
    agg = rows.groupingSets([keys, ["file", "block"]], *keys, "file", "block").agg(
        F.grouping("file").alias("g"), F.count(F.when(rid >= 0, 1)).alias("n"), F.min("ms").alias("tmin"),
        F.max("ms").alias("tmax"), F.min(F.when(rid >= 0, rid)).alias("bmin"),
        F.min(F.when(fast, rid)).alias("fmin"))
    kind = (F.when(F.col("g") == 0, "B").when(F.col("rest").isNotNull(), "F").when(F.col("rid") >= 0, "S")
            .otherwise("W"))
    return agg.select(kind.alias("kind"), F.coalesce("file", "sfile").alias("file"),
                      F.coalesce("block", "sblock").alias("block"), "hour", "rest", "rid", "raw", "n", "tmin", "tmax",
                      "bmin", "fmin")


def _groups(stage1):
    """The fast groups taken apart: level and message, and whether the group really is a record (a
    valid level and calendar date: the stock path checks these per group, not per line)."""
    from pyspark.sql import functions as F

    rest = F.col("rest")
    level = F.substring_index(rest.cast("string"), " ", 1)
    g = stage1.where("kind = 'F'").select("hour", "rest", "n", "tmin", "tmax", level.alias("level"))
    lv = F.octet_length(F.col("level"))
    mlen = F.octet_length(rest) - lv - 1
    valid = F.col("level").isin(*_LEVELS.split("|")) & (mlen >= 0) & F.col("hour").rlike(_HOUR_RE)
    return g.select("hour", "rest", "n", "tmin", "tmax", "level",
                    F.when(valid, F.substring(rest, lv + 2, mlen).cast("string")).alias("msg"), valid.alias("valid"))


# ----------------------------------------------------------------------------------------------
# Messages: JVM extraction of the KRaft / ZK 2.4+ shapes, checked by the reference reader


_KRAFT_OPS = "|".join(m.name for m in AclOperation.concrete())
_ZK_OPS = "|".join(m.pascal for m in AclOperation.concrete())
_PASCAL_TYPES = "|".join(m.pascal for m in ResourceType.concrete())
_HOST = r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}(?:%[A-Za-z0-9_.-]+)?"
_RULE = r"SuperUser|DefaultAllow|DefaultDeny|MatchingAcl\(acl=StandardAcl[(\[].*[)\]]\)"
_KRAFT_RE = (rf"(?s)^Principal = (.*?) is (Allowed|Denied) operation = ({_KRAFT_OPS}) from host = ({_HOST}) on "
             rf"resource = ({_PASCAL_TYPES}):LITERAL:(.*) for request = ([A-Za-z_]+|[0-9]+) with resourceRefCount = "
             rf"(-?[0-9]+) based on rule ({_RULE})$")
_ZK_RE = (rf"(?s)^Principal = (.*?) is (Allowed|Denied) Operation = ({_ZK_OPS}) from host = ({_HOST}) on "
          rf"resource = ({_PASCAL_TYPES}):LITERAL:(.*) for request = ([A-Za-z_]+|[0-9]+) with resourceRefCount = "
          r"(-?[0-9]+)$")


def _jvm_fields(msgs):
    """KRaft / ZK 2.4+ fields of each distinct message, in the JVM (one regex pass each, groups split)."""
    from pyspark.sql import functions as F

    m = F.col("msg")
    sep = "\u0001"
    kraft = F.split(F.regexp_replace(m, _KRAFT_RE, sep + "K" + sep + sep.join(f"${i}" for i in range(1, 10))), sep)
    zk = F.split(F.regexp_replace(m, _ZK_RE, sep + "Z" + sep + sep.join(f"${i}" for i in range(1, 9))), sep)
    ok = F.is_valid_utf8(m) & ~m.contains(sep)
    parts = F.when(ok & m.startswith("Principal = ") & (F.get(kraft, 1) == "K"), kraft) \
        .when(ok & m.startswith("Principal = ") & (F.get(zk, 1) == "Z"), zk)
    op_map = F.create_map(*itertools.chain.from_iterable(
        (F.lit(x), F.lit(o.name)) for o in AclOperation.concrete() for x in {o.name, o.pascal}))
    type_map = F.create_map(*itertools.chain.from_iterable(
        (F.lit(t.pascal), F.lit(t.name)) for t in ResourceType.concrete()))
    p = F.col("parts")
    rule = F.when(F.get(p, 1) == "K", F.get(p, 10))
    return msgs.select("msg", "n", parts.alias("parts")).select(
        F.col("msg").cast("binary").alias("msg"), "n",
        F.get(p, 2).alias("j_principal"), F.get(p, 5).alias("j_host"),
        F.element_at(op_map, F.get(p, 4)).alias("j_operation"),
        F.element_at(type_map, F.get(p, 6)).alias("j_resource_type"), F.get(p, 7).alias("j_resource_name"),
        F.when(F.get(p, 3) == "Allowed", "ALLOWED").when(F.get(p, 3) == "Denied", "DENIED").alias("j_decision"),
        rule.alias("j_rule"),
        F.when(F.get(p, 1) == "Z", "F-ZK24").when(rule.contains("StandardAcl["), "F-KRAFT-RECORD")
        .when(F.get(p, 1) == "K", "F-KRAFT").alias("j_format"))


_CLASS_SCHEMA = ("msg string, n long, cls string, principal string, host string, operation string, resource_type string, "
                 "resource_name string, decision string, rule string, format string, reason string, agree boolean")


def _classify_worker(batches):
    """The reference reader on each distinct message; JVM fields are kept where it agrees."""
    import pyarrow as pa

    names = ["principal", "host", "operation", "resource_type", "resource_name", "decision", "rule", "format"]
    for batch in batches:
        msgs = batch.column("msg")
        jvm = [batch.column("j_" + n).to_pylist() for n in names]
        out = {n: [] for n in ["cls"] + names + ["reason", "agree"]}
        for i, raw in enumerate(msgs.to_pylist()):
            c = classify_message(raw.decode("utf-8", "replace"))
            out["cls"].append(c[0])
            if c[0] == "D":
                principal, host, op, rtype, name, _, decision, _, _, rule, fmt = c[1:]
                mine = [principal, host, op, rtype, name, decision, rule, fmt]
                theirs = [col[i] for col in jvm]
                out["agree"].append(theirs[0] is None or theirs == mine)
                for n, val in zip(names, mine):
                    out[n].append(val)
                out["reason"].append(None)
            else:
                for n in names:
                    out[n].append(None)
                out["reason"].append(c[1] if c[0] == "Q" else None)
                out["agree"].append(jvm[0][i] is None)
        yield pa.record_batch([msgs.cast(pa.binary()), batch.column("n")]
                              + [pa.array(out[n], pa.bool_() if n == "agree" else pa.string())
                                 for n in ["cls"] + names + ["reason", "agree"]],
                              names=["msg", "n", "cls"] + names + ["reason", "agree"])


# ----------------------------------------------------------------------------------------------
# The odd lines: the reference reader, per file, with the context it needs


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
            cols = list(zip(*rows)) if rows else [[] for _ in _SLOW_FIELDS]
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
            stats, quarantine, consumed = ReadStats(), [], []
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


# ----------------------------------------------------------------------------------------------
# Deciding distinct requests on the executors


_DECIDED_SCHEMA = ("principal string, host string, operation string, resource_type string, resource_name string, "
                   "count long, visible long, allowed long, denied long, first_seen string, last_seen string, "
                   "rule string, kind string, before_rule string, after_rule string, after_acl int, "
                   "comparable int, reproduced int, mismatch boolean, mixed boolean, current_decision string, "
                   "current_rule string")


def _decide_worker(acls_bc):
    def run(batches):
        import pyarrow as pa

        from kafka_authz_cli.acl.engine import StandardAuthorizer

        proposed, current, settings = acls_bc.value
        after_authz = StandardAuthorizer(proposed, **settings)
        before_authz = StandardAuthorizer(current, **settings) if current is not None else None
        index = {a: i for i, a in enumerate(proposed)}
        names = [f.split()[0] for f in _DECIDED_SCHEMA.split(", ")]
        for batch in batches:
            cols = {n: batch.column(n).to_pylist() for n in batch.schema.names}
            keys = list(zip(*(cols[k] for k in KEY)))
            after = decide(keys, after_authz)
            before = decide(keys, before_authz) if before_authz is not None else None
            out = {n: [] for n in names}
            for i, key in enumerate(keys):
                agg = Aggregate(cols["count"][i], cols["visible"][i], cols["allowed"][i], cols["denied"][i],
                                cols["first_seen"][i], cols["last_seen"][i], rule=cols["rule"][i])
                a = after[key]
                b = before[key] if before is not None else None
                kind, _, before_rule = classify(agg, a, b)
                logged = agg.logged
                comparable = b is not None and logged != "MIXED"
                for n, val in zip(KEY, key):
                    out[n].append(val)
                for n in ("count", "visible", "allowed", "denied", "first_seen", "last_seen", "rule"):
                    out[n].append(cols[n][i])
                out["kind"].append(kind)
                out["before_rule"].append(before_rule)
                out["after_rule"].append(a.rule)
                out["after_acl"].append(index.get(a.acl, -1) if a.acl is not None else -1)
                out["comparable"].append(int(comparable))
                out["reproduced"].append(int(comparable and b.decision == logged))
                out["mismatch"].append(bool(comparable and b.decision != logged))
                out["mixed"].append(logged == "MIXED")
                out["current_decision"].append(b.decision if b is not None else None)
                out["current_rule"].append(b.rule if b is not None else None)
            types = {"count": pa.int64(), "visible": pa.int64(), "allowed": pa.int64(), "denied": pa.int64(),
                     "after_acl": pa.int32(), "comparable": pa.int32(), "reproduced": pa.int32(),
                     "mismatch": pa.bool_(), "mixed": pa.bool_()}
            yield pa.record_batch([pa.array(out[n], types.get(n, pa.string())) for n in names], names=names)
    return run


# ----------------------------------------------------------------------------------------------
# The pipeline


@dataclass
class ReadResult:
    """What reading the logs gives: per (request, hour) aggregates (a DataFrame), the line accounting,
    the quarantine, and how the work was split (for tests and the benchmark)."""

    hourly: object
    stats: ReadStats
    quarantine: list[Quarantined]
    info: dict = field(default_factory=dict)


def _fit_shuffle(spark, total_bytes: int) -> None:
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


def _materialize(df):
    """Computed once, kept (memory, then disk) and cut from its lineage. Derived queries read it as a
    table instead of re-planning the scan: a join of two DataFrames derived from the same cached plan
    re-instantiates one side, and the grouping-sets aggregation then no longer matches its cache, so
    the logs would be scanned again. Local checkpoints live on the executors: losing one fails the
    job (said as such, see explain_failure), which costs less than keeping the lineage."""
    from pyspark import StorageLevel

    return df.localCheckpoint(eager=True, storageLevel=StorageLevel.MEMORY_AND_DISK)


def release(df) -> None:
    """Drop what _materialize kept."""
    try:
        df._jdf.queryExecution().analyzed().rdd().unpersist(False)
    except Exception:  # noqa: BLE001 - not a checkpoint, or the JVM is gone: nothing to drop
        pass


def read_logs(spark, files: list[str], progress: StatusProgress | None = None,
              partition_bytes: int | None = None, names: dict[str, str] | None = None) -> ReadResult:
    """Read log files into per (request, hour) aggregates; the caller releases `info['cached']`."""
    from pyspark.sql import functions as F

    progress = progress or StatusProgress(spark, None)
    if partition_bytes is not None and partition_bytes <= 0:
        # Spark reads a negative split size without complaint, and skips most of every file.
        raise ValueError(f"partition_bytes must be positive, not {partition_bytes}")
    split = str(SPLIT_BYTES if partition_bytes is None else partition_bytes)
    spark.conf.set("spark.sql.files.maxPartitionBytes", split)
    spark.conf.set("spark.sql.files.openCostInBytes", split)
    sources = _sources(spark, files, names)
    _fit_shuffle(spark, sources.total_bytes)
    shaped = _shape(sources.lines)
    progress.set(f"scanning {_size(sources.total_bytes)} of logs")
    stage1 = _materialize(_stage1(shaped))
    cached = [stage1]
    progress.set("line accounting")
    order = {(names or {}).get(f, f): i for i, f in enumerate(files)}
    blocks = stage1.where("kind = 'B'").select("file", "block", "n", "bmin", "fmin").collect()
    warn_rows = sorted(stage1.where("kind = 'W'").select("file", "rid", "raw").collect(),
                       key=lambda r: (order.get(sources.display.get(r.file), 0), -r.rid))
    warnings = [bytes(r.raw).decode("utf-8", "replace") for r in warn_rows]
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
        file_info[f] = (sources.display.get(f, f), off, first_fast)
    offsets_df = spark.createDataFrame(offsets or [("", 0, 0, 0, 0)], "file string, block long, off long, bmin long, "
                                                                       "n long")
    info_bc = spark.sparkContext.broadcast(file_info)

    groups = _groups(stage1)
    # A group the stock path took that is not a record after all (a level or a date that does not
    # exist): its lines go to the reference reader, with their context, like a quarantined message.
    has_invalid = groups.where("NOT valid").limit(1).count() > 0
    fast = groups.where("valid")
    progress.set("reading distinct messages")
    msgs = fast.groupBy("msg").agg(F.sum("n").alias("n"))
    classes = _materialize(_jvm_fields(msgs).mapInArrow(_classify_worker,
                                                         _CLASS_SCHEMA.replace("msg string", "msg binary"))
                           .withColumn("msg", F.col("msg").cast("string")).select("*", *_msg_id(F.col("msg"))))
    cached.append(classes)
    by_class = classes.groupBy("cls", "format", "agree").agg(F.sum("n").alias("n"), F.count(F.lit(1)).alias("m")) \
        .collect()
    agree_counts = {r.agree: r.m for r in by_class if r.cls == "D"}
    bad_msgs = classes.where("cls = 'Q'").select("msg")
    has_bad = any(r.cls == "Q" for r in by_class)

    slow = stage1.where("kind = 'S'").select("file", "block", F.col("rid").alias("id"), "raw")
    reroute = None
    for attempt in range(3):
        progress.set("reading odd lines" if attempt == 0 else "reading odd lines again (with their context)")
        odd = _slow_stage(spark, slow, offsets_df, info_bc)
        cached.append(odd)
        odd_rows = odd.where("kind IN ('T', 'Q', 'C')").select("kind", "a", "b", "c", "num").collect()
        consumed = [r for r in odd_rows if r.kind == "C"]
        need_bad = attempt == 0 and (has_bad or has_invalid)
        if not consumed and not need_bad:
            break
        if attempt == 2:  # pragma: no cover - routing every line of a group closes its runs
            raise AuthzError("internal error: odd lines still need context after two rounds")
        progress.set("routing hostile lines to the reference reader")
        route = None
        if need_bad:
            route = groups.where("NOT valid").select("hour", "rest")
            if has_bad:
                route = route.unionByName(fast.join(F.broadcast(bad_msgs), "msg").select("hour", "rest"))
        if consumed:
            pos = _positions([(r.a, r.num) for r in consumed], offsets)
            pos_df = spark.createDataFrame(pos, "file string, id long")
            hit = shaped.join(F.broadcast(pos_df), ["file", "id"]).where("fast").select("hour", "rest")
            route = hit if route is None else route.unionByName(hit)
        grp_rows = route.distinct().collect()
        grp_df = spark.createDataFrame(grp_rows, "hour string, rest binary")
        new = (shaped.where("fast").join(F.broadcast(grp_df), ["hour", "rest"], "left_semi")
               .select("file", "block", "id", F.col("value").cast("binary").alias("raw")))
        slow = slow.unionByName(new)
        reroute = grp_df if reroute is None else reroute.unionByName(grp_df)
    if reroute is not None:
        fast = fast.join(F.broadcast(reroute.distinct()), ["hour", "rest"], "left_anti")
        by_class = fast.join(classes.drop("n"), "msg").groupBy("cls", "format").agg(F.sum("n").alias("n")).collect()

    # Line accounting: fast lines by their message's class, odd lines as the reader counted them.
    stats = ReadStats(files=len(files))
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
    stats.warnings = warnings + stats.warnings
    total = sum(n for *_, n in offsets)
    if stats.lines != total:  # pragma: no cover - every line is a fast line or an odd line
        raise AuthzError(f"internal error: {total} lines read but {stats.lines} accounted for")
    quarantine.sort(key=lambda q: _source_key(q.source, order))

    hourly, join_on = _hourly(fast, classes, odd, cached)
    info = {"cached": cached, "agree": agree_counts, "rerouted": reroute is not None, "blocks": len(offsets),
            "files": file_info, "join_on": join_on}
    return ReadResult(hourly, stats, quarantine, info)


def _msg_id(msg):
    """A message as two independent 64-bit hashes (xxHash64 under two seeds): what the fast groups and
    their message's fields are joined on, so that the join moves 16 bytes a row instead of the message.
    Used only when one-to-one on the run's distinct messages (checked: a crafted collision falls back
    to joining on the message itself)."""
    from pyspark.sql import functions as F

    return [F.xxhash64(msg).alias("h1"), F.xxhash64(F.lit(0x5EED), msg).alias("h2")]


# A rule's rank (among the run's distinct rules, in Spark's string order) in the low bits, the
# millisecond of the hour it was last logged at (< 2**22) above them: max() of the two together picks
# the latest rule and, at the same millisecond, the greatest - what merge_hourly's struct max picks.
_RANK_BITS = 40


def _hourly(fast, classes, odd, cached: list) -> tuple[object, str]:
    """Per (request, hour) aggregates of the fast groups and the odd lines' decisions, and what the
    groups were joined to their fields on. The fast groups aggregate with fixed-width buffers only
    (times as milliseconds within the hour, the last rule as a rank), which Spark does with a hash
    aggregation; strings in a buffer force a sort-based one (with the join on the message text: 8.2 s
    for 10 M lines, 7.4 s now). The odd lines' requests, usually none, merge with the strings they carry."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    decided = classes.where("cls = 'D'")
    ranked = _materialize(decided.where("rule IS NOT NULL").select("rule").distinct()
                          .select("rule", F.dense_rank().over(Window.orderBy("rule")).cast("long").alias("rrank")))
    cached.append(ranked)
    d = decided.join(ranked, "rule", "left")
    one_to_one = classes.groupBy("h1", "h2").count().where("count > 1").limit(1).count() == 0
    if one_to_one:
        on, ids = ["h1", "h2"], _msg_id(F.col("msg"))
    else:
        on, ids = ["msg"], ["msg"]
    f = fast.select(*ids, "hour", "n", "tmin", "tmax", "level").join(d.select(*on, *KEY, "decision", "rrank"), on)
    n = F.col("n")
    per = f.groupBy(*KEY, "hour").agg(
        F.sum(n).alias("count"), F.sum(F.when(F.col("level") != "TRACE", n).otherwise(0)).alias("visible"),
        F.sum(F.when(F.col("decision") == "ALLOWED", n).otherwise(0)).alias("allowed"),
        F.sum(F.when(F.col("decision") == "DENIED", n).otherwise(0)).alias("denied"),
        F.min("tmin").alias("tmin"), F.max("tmax").alias("tmax"),
        F.max(F.shiftleft(F.col("tmax").cast("long"), _RANK_BITS) + F.col("rrank")).alias("best"))
    best, hour = F.col("best"), F.col("hour")
    hourly = per.withColumn("rrank", best.bitwiseAND((1 << _RANK_BITS) - 1)).join(ranked, "rrank", "left").select(
        *KEY, "hour", "count", "visible", "allowed", "denied", _ts_from(hour, F.col("tmin")).alias("first_seen"),
        _ts_from(hour, F.col("tmax")).alias("last_seen"),
        _ts_from(hour, F.shiftright(best, _RANK_BITS)).alias("rule_at"), "rule")
    slow = odd.where("kind = 'D'").select(*KEY, "hour", "count", "visible", "allowed", "denied", "first_seen",
                                          "last_seen", "rule_at", "rule")
    if slow.limit(1).count() > 0:
        # (an untimed request has no hour: it meets no fast group, and merges with its own kind)
        keys = [*KEY, "hour"]
        touched = slow.select(*keys).distinct()
        hourly = hourly.join(touched, keys, "left_anti").unionByName(
            merge_hourly(hourly.join(touched, keys, "left_semi").unionByName(slow), ["hour"]))
    return hourly, "+".join(on)


def merge_hourly(rows, extra: list[str]):
    """Aggregate rows of the hourly schema by request (+ `extra` columns) in Spark SQL."""
    from pyspark.sql import functions as F

    best = F.max(F.when(F.col("rule").isNotNull(), F.struct(F.coalesce(F.col("rule_at"), F.lit("")).alias("at"),
                                                             F.col("rule").alias("rule"))))
    out = rows.groupBy(*KEY, *extra).agg(
        F.sum("count").alias("count"), F.sum("visible").alias("visible"), F.sum("allowed").alias("allowed"),
        F.sum("denied").alias("denied"), F.min("first_seen").alias("first_seen"),
        F.max("last_seen").alias("last_seen"), best.alias("best"))
    return out.select(*KEY, *extra, "count", "visible", "allowed", "denied", "first_seen", "last_seen",
                      F.col("best.at").alias("rule_at"), F.col("best.rule").alias("rule"))


def _slow_stage(spark, slow, offsets_df, info_bc):
    from pyspark.sql import functions as F

    numbered = slow.join(F.broadcast(offsets_df), ["file", "block"]).select(
        "file", (F.col("off") + F.col("id") - F.col("bmin") + 1).alias("lineno"), "raw")
    parts = max(1, min(len(info_bc.value), int(spark.conf.get("spark.sql.shuffle.partitions"))))
    odd = (numbered.repartition(parts, "file").sortWithinPartitions("file", "lineno")
           .mapInArrow(_slow_worker(info_bc), _SLOW_SCHEMA))
    return _materialize(odd)


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


def _source_key(source: str, order: dict[str, int]):
    path, _, line = source.rpartition(":")
    return (order.get(path, len(order)), path, int(line) if line.isdigit() else 0)


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return str(n)


# ----------------------------------------------------------------------------------------------
# From per-request aggregates to the report


def report_from(spark, per_key, proposed: tuple[list[AclBinding], dict],
                current: tuple[list[AclBinding], dict] | None, hourly, progress: StatusProgress | None = None,
                decide_on: str = "executors") -> WhatIfReport:
    """Decide each distinct request (on the executors, or on the driver after one collect) and report."""
    from pyspark.sql import functions as F

    progress = progress or StatusProgress(spark, None)
    acls = list(dict.fromkeys(proposed[0]))
    settings = proposed[1]
    if decide_on == "driver":
        progress.set("collecting distinct requests")
        from kafka_authz_cli.acl.engine import StandardAuthorizer
        from kafka_authz_cli.whatif.replay import build_report

        table = per_key.toArrow()
        hours = {}
        per_hour = hourly.where("hour IS NOT NULL").groupBy(*KEY, "hour").agg(F.sum("count").alias("count"))
        for r in per_hour.groupBy(*KEY).agg(
                F.map_from_entries(F.collect_list(F.struct("hour", "count"))).alias("hours")).collect():
            hours[tuple(r[k] for k in KEY)] = dict(r.hours)
        aggs = {}
        cols = table.to_pydict()
        for i in range(table.num_rows):
            key = tuple(cols[k][i] for k in KEY)
            aggs[key] = Aggregate(cols["count"][i], cols["visible"][i], cols["allowed"][i], cols["denied"][i],
                                  cols["first_seen"][i], cols["last_seen"][i], hours.get(key, {}), cols["rule"][i],
                                  cols["rule_at"][i] or "")
        progress.set("deciding distinct requests")
        after = decide(aggs, StandardAuthorizer(acls, **settings))
        before = decide(aggs, StandardAuthorizer(current[0], **current[1])) if current is not None else None
        return build_report(aggs, after, acls, before)
    acls_bc = spark.sparkContext.broadcast((acls, current[0] if current is not None else None, settings))
    progress.set("deciding distinct requests")
    decided = _materialize(per_key.mapInArrow(_decide_worker(acls_bc), _DECIDED_SCHEMA))
    try:
        totals = decided.agg(F.count(F.lit(1)).alias("distinct"), F.sum("count").alias("decisions"),
                             F.sum("allowed").alias("allowed"), F.sum("denied").alias("denied"),
                             F.sum("comparable").alias("comparable"), F.sum("reproduced").alias("reproduced"),
                             F.max("mixed").alias("mixed"), F.collect_set("after_acl").alias("used")).collect()[0]
        summary = Summary(totals.distinct, totals.decisions or 0, totals.allowed or 0, totals.denied or 0,
                          totals.comparable or 0, totals.reproduced or 0, bool(totals.mixed))
        progress.set("collecting the changes")
        for r in decided.where("mismatch").orderBy(*KEY).limit(20).collect():
            key, agg = _decided_row(r)
            summary.mismatches.append((key, mismatch_row(key, agg, Verdict(r.current_decision, r.current_rule, None))))
        changed_df = decided.where("kind IS NOT NULL")
        changed = []
        for r in changed_df.collect():
            key, agg = _decided_row(r)
            changed.append((key, agg, r.kind, r.before_rule, r.after_rule))
        timeline: dict[str, dict[str, int]] = {}
        if changed:
            kinds = changed_df.select(*KEY, "kind")
            for r in hourly.where("hour IS NOT NULL").join(kinds, KEY).groupBy("hour", "kind").agg(
                    F.sum("count").alias("n")).collect():
                slot = timeline.setdefault(r.hour, {"newly_denied": 0, "newly_allowed": 0})
                slot[r.kind] += r.n
        used = {acls[i] for i in totals.used if i is not None and i >= 0}
        return assemble_report(changed, summary, timeline, acls, used, current is not None)
    finally:
        release(decided)


def _decided_row(r) -> tuple[tuple, Aggregate]:
    """A row of the decided table back to the request key and its aggregate."""
    key = tuple(r[k] for k in KEY)
    return key, Aggregate(r["count"], r.visible, r.allowed, r.denied, r.first_seen, r.last_seen, rule=r.rule)


def per_key(hourly):
    return merge_hourly(hourly, [])


def run(spark, paths: list[str], proposed: tuple[list[AclBinding], dict],
        current: tuple[list[AclBinding], dict] | None = None, progress: Callable | None = None,
        partition_bytes: int | None = None, decide_on: str = "executors", names: dict[str, str] | None = None):
    """Read the logs and report: (stats, quarantine, report), as the in-process replay gives them."""
    with spark_errors("whatif"), StatusProgress(spark, progress) as tracker:
        result = read_logs(spark, paths, tracker, partition_bytes, names)
        try:
            tracker.set("aggregating per request and hour")
            hourly = _materialize(result.hourly)
            report = report_from(spark, per_key(hourly), proposed, current, hourly, tracker, decide_on)
            release(hourly)
        finally:
            for df in result.info["cached"]:
                release(df)
    return result.stats, result.quarantine, report


def index_logs(spark, paths: list[str], staged: str, progress: Callable | None = None,
               partition_bytes: int | None = None, names: dict[str, str] | None = None):
    """Read the logs and write their per (request, hour) aggregates under `staged`/day=.../ (Parquet)."""
    from pyspark.sql import functions as F

    with spark_errors("index"), StatusProgress(spark, progress) as tracker:
        result = read_logs(spark, paths, tracker, partition_bytes, names)
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
            out.repartition("day").write.option("maxRecordsPerFile", 250_000).partitionBy("day").parquet(staged)
        finally:
            for df in result.info["cached"]:
                release(df)
    return result.stats, result.quarantine


def report_from_index(spark, roots: list[tuple[str, list[str]]], since: str | None, until: str | None,
                      proposed: tuple[list[AclBinding], dict], current: tuple[list[AclBinding], dict] | None,
                      progress: Callable | None = None, decide_on: str = "executors") -> tuple[WhatIfReport, int]:
    """Answer from one or more indexes ((root, run ids)); also returns how many decisions had no time
    and were left out by --since/--until."""
    from pyspark.sql import functions as F

    from kafka_authz_cli.whatif.index import SPARK_SCHEMA

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
        hourly = _materialize(hourly)
        try:
            report = report_from(spark, per_key(hourly), proposed, current, hourly, tracker, decide_on)
        finally:
            release(hourly)
    return report, untimed


def count_lines(spark, paths: list[str]) -> int:
    """The I/O floor for the benchmark: Spark reading the same files and counting lines."""
    return spark.read.text(paths).count()


__all__ = ["Verdict", "run", "read_logs", "report_from", "spark_session", "count_lines", "java_available",
           "SparkFailure", "StatusProgress"]
