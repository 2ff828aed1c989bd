"""Spark failures said in one line: what happened and what to change (`authz: error: ...`, exit 2).

Py4J and Spark report a failure as pages of JVM trace; a JVM that never started says why only in its
own output (which goes to Spark's log, see :mod:`.jvm`). Everything here reads those and names the
option to change.
"""

from __future__ import annotations

import os
import re

from kafka_authz_cli.errors import AuthzError
from kafka_authz_cli.whatif.spark.jvm import java_problem, spark_log_file, start_of_this_start


class SparkFailure(AuthzError):
    """A Spark failure, said in one line with what to change."""


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
            f.seek(max(start_of_this_start.get(log, 0), f.seek(0, os.SEEK_END) - 200_000))
            said = f.read().decode("utf-8", "replace")
    except OSError:
        said = ""
    for pattern, why in _JVM_START_ERRORS:
        if pattern.search(said):
            return why
    return "Spark's Java process exited before it was ready (killed, or out of memory?)"


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
