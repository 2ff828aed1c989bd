"""Spark failures end in one line saying what happened and what to change, exit 2, no half output."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafka_authz_cli.whatif.spark import explain_failure

EXAMPLES = Path(__file__).parents[2] / "examples" / "whatif"
AUTHZ = str(Path(sys.executable).with_name("authz"))


def authz(*args, env=None):
    return subprocess.run([AUTHZ, "whatif", "--logs", str(EXAMPLES / "logs"), "--proposed",
                           str(EXAMPLES / "proposed.json"), *args], capture_output=True, text=True, env=env,
                          timeout=300)


def one_line_error(res, *words):
    assert res.returncode == 2, res
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("authz: error: "), res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    for w in words:
        assert w in lines[0], lines[0]


def test_no_java(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(tmp_path)
    res = authz("--spark", "--out", str(tmp_path / "out"), env=env)
    one_line_error(res, "Java 17+")
    assert not (tmp_path / "out").exists()


def test_unreachable_master(tmp_path):
    res = authz("--spark", "--master", "spark://127.0.0.1:9", "--out", str(tmp_path / "out"))
    one_line_error(res, "cannot reach the Spark master", "--master")
    assert not (tmp_path / "out").exists()
    one_line_error(authz("--spark", "--master", "local[two]"), "local[N]")


@pytest.mark.spark
def test_driver_memory_too_small(tmp_path):
    res = authz("--spark", "--master", "local[1]", "--driver-memory", "300m", "--out", str(tmp_path / "out"))
    one_line_error(res, "--driver-memory")
    assert not (tmp_path / "out").exists()


@pytest.mark.spark
def test_a_killed_jvm_is_one_line_not_a_traceback(tmp_path):
    """The driver JVM killed mid-job (the OOM killer does this): py4j's own loggers and pyspark's
    accumulator thread would print pages of tracebacks; authz says what happened once."""
    proc = subprocess.Popen([AUTHZ, "whatif", "--spark", "--master", "local[1]", "--logs", str(EXAMPLES / "logs"),
                             "--proposed", str(EXAMPLES / "proposed.json"), "--out", str(tmp_path / "out")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        jvm = None
        end = time.time() + 120
        while jvm is None and time.time() < end and proc.poll() is None:
            time.sleep(0.5)
            # Spark's JVM by its command line: authz also runs a short `java -version` first (java_problem),
            # which a match on the process name alone could pick
            kids = subprocess.run(["pgrep", "-f", "-P", str(proc.pid), "org.apache.spark"], capture_output=True,
                                  text=True).stdout.split()
            jvm = int(kids[0]) if kids else None
        assert jvm is not None, "Spark's JVM never started"
        # Into the job, however slow the machine: the JVM starts its Python workers only for a job's tasks
        # (a fixed sleep killed it before its gateway was up on a slow machine).
        worker, end = False, time.time() + 600  # a loaded machine: only a failure waits this long
        while not worker and time.time() < end and proc.poll() is None:
            time.sleep(0.2)
            worker = "pyspark.daemon" in subprocess.run(["pgrep", "-a", "-P", str(jvm)], capture_output=True,
                                                        text=True).stdout
        assert worker, ("Spark never started a Python worker" if proc.poll() is None else
                        f"authz ended before its job started a Python worker: {proc.communicate()}")
        time.sleep(1)
        os.kill(jvm, signal.SIGKILL)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    res = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    one_line_error(res, "--driver-memory")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, says", [
    ("py4j.protocol.Py4JJavaError: An error occurred while calling o91.count.\n: org.apache.spark.SparkException: "
     "Job aborted due to stage failure: Task 3 in stage 2.0 failed 1 times, most recent failure: Lost task 3.0: "
     "java.lang.OutOfMemoryError: Java heap space\n\tat java.base/java.util.Arrays.copyOf", "--driver-memory"),
    ("org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 1.0 failed 4 times: "
     "ExecutorLostFailure (executor 1 exited caused by one of the running tasks) Reason: Container killed",
     "executor was lost"),
    # an executor that held a local checkpoint (the job's intermediate results) went away
    ("org.apache.spark.SparkException: Checkpoint block rdd_42_0 not found! Either the executor that originally "
     "checkpointed this partition is no longer alive, or the original RDD is unpersisted.", "executor was lost"),
    ("[JAVA_GATEWAY_EXITED] Java gateway process exited before sending its port number.",
     "Spark's Java process exited before it was ready"),
    ("java.io.FileNotFoundException: File file:/logs/a.log does not exist", "/logs/a.log"),
    ("[Errno 111] Connection refused", "JVM died"),
    # what an executor whose Python lacks pyspark says (seen on the standalone cluster)
    ("An error occurred while calling o73.localCheckpoint.\n: org.apache.spark.SparkException: Job aborted: \n"
     "Error from python worker:\n  Traceback (most recent call last):\n    File \"<frozen runpy>\", line 131\n"
     "  ModuleNotFoundError: No module named 'pyspark'\n  \n  ImportError: Error while finding module "
     "specification for 'pyspark.daemon' (ModuleNotFoundError: No module named 'pyspark')\nPYTHONPATH was:\n  /x",
     "(ImportError: Error while finding module specification for 'pyspark.daemon'"),
    ("\n\n  \nsomething odd happened\nmore", "Spark failed: something odd happened"),
    ("org.apache.spark.SparkException: [FAILED_READ_FILE.NO_HINT] Encountered error while reading file "
     "file:///ix/requests/day=2026-11-20/run=r1/part-0.parquet.  SQLSTATE: KD001",
     "Spark cannot read /ix/requests/day=2026-11-20/run=r1/part-0.parquet: it is corrupt"),
    ("An error occurred while calling o120.localCheckpoint.\n: java.io.EOFException: Unexpected end of input stream",
     "Spark failed: java.io.EOFException: Unexpected end of input stream"),
])
def test_failures_are_explained_in_one_line(text, says):
    out = explain_failure(RuntimeError(text))
    assert says in out and "\n" not in out


def test_a_call_cut_off_by_a_dying_jvm_says_the_jvm_died():
    """py4j's message for a call whose connection broke mid-answer (seen in CI when the JVM was killed
    during a repartition) carries nothing but the call's name."""
    from py4j.protocol import Py4JError
    out = explain_failure(Py4JError("An error occurred while calling o1234.repartition"))
    assert "JVM died" in out and "--driver-memory" in out
    # a live JVM's error carries its trace, and is not a dead JVM
    out = explain_failure(Py4JError("An error occurred while calling o12.foo. Trace:\npy4j.Py4JException: "
                                    "Method foo([]) does not exist\n"))
    assert "JVM died" not in out and out.startswith("Spark failed: ")


def test_an_exited_jvm_is_reported_whatever_py4j_said(monkeypatch):
    from pyspark import SparkContext

    class Exited:
        def poll(self):
            return -9

    class Gateway:
        proc = Exited()

    monkeypatch.setattr(SparkContext, "_gateway", Gateway(), raising=False)
    out = explain_failure(RuntimeError("An error occurred while calling o77.collectToPython.\n: weird"))
    assert "JVM died" in out


@pytest.mark.parametrize("size", ["2x", "2gb", "512", "0g", "-1g", "", "1.5g", "2 g"])
def test_a_memory_size_the_jvm_would_not_take_is_refused_before_spark_starts(tmp_path, size):
    """Spark hands --driver-memory to the JVM as -Xmx: '2gb' or '2x' would end in a JVM that never starts."""
    res = authz("--spark", "--master", "local[1]", "--driver-memory", size, "--out", str(tmp_path / "out"))
    one_line_error(res, "--driver-memory", "like 512m or 2g")
    assert not (tmp_path / "out").exists()


def test_an_executor_memory_size_is_checked_too(tmp_path):
    res = authz("--spark", "--master", "local[1]", "--executor-memory", "1x", "--out", str(tmp_path / "out"))
    one_line_error(res, "--executor-memory '1x'")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("jvm_said, says", [
    ("Error occurred during initialization of VM\nToo small maximum heap\n", "raise --driver-memory"),
    ("#\n# There is insufficient memory for the Java Runtime Environment to continue.\n# Native memory "
     "allocation (mmap) failed to map 2199023255552 bytes.\n", "lower --driver-memory"),
    ("Invalid maximum heap size: -Xmx2gb\nError: Could not create the Java Virtual Machine.\n",
     "does not understand --driver-memory"),
    ("Unrecognized VM option 'UseFooGC'\nError: Could not create the Java Virtual Machine.\n",
     "refuses an option"),
    ("", "exited before it was ready (killed"),
])
def test_a_jvm_that_never_started_is_explained_from_what_it_said(tmp_path, monkeypatch, jvm_said, says):
    from kafka_authz_cli.whatif.spark import failures
    log = tmp_path / "spark.log"
    log.write_text("26/11/23 23:20:07 WARN Utils: Set SPARK_LOCAL_IP if you need to bind to another address\n"
                   + jvm_said)
    monkeypatch.setattr(failures, "spark_log_file", lambda: str(log))
    monkeypatch.setattr(failures, "java_problem", lambda: None)
    out = explain_failure(RuntimeError("[JAVA_GATEWAY_EXITED] Java gateway process exited before sending its port "
                                       "number."))
    assert says in out and str(log) in out and "\n" not in out
    monkeypatch.setattr(failures, "java_problem", lambda: "no Java runtime (java is not on PATH)")
    assert "Java 17+" in explain_failure(RuntimeError("[JAVA_GATEWAY_EXITED] Java gateway process exited"))


@pytest.mark.spark
def test_a_heap_the_jvm_refuses_is_one_line_and_leaves_no_crash_file(tmp_path):
    """-Xmx1m: the JVM prints its refusal on stdout, which went to the terminal (and into --format json
    output on stdout); a JVM that crashes at start writes hs_err_pid*.log into the working directory."""
    res = subprocess.run([AUTHZ, "whatif", "--spark", "--master", "local[1]", "--driver-memory", "1m", "--logs",
                          str(EXAMPLES / "logs"), "--proposed", str(EXAMPLES / "proposed.json"), "--format", "json"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    one_line_error(res, "raise --driver-memory")
    assert res.stdout == ""
    assert not list(tmp_path.glob("hs_err*"))


def test_only_what_the_latest_jvm_start_said_explains_it(tmp_path, monkeypatch):
    """Spark's log is one per process: an earlier session's lines are not why this start failed."""
    from kafka_authz_cli.whatif.spark import failures, jvm
    log = tmp_path / "spark.log"
    log.write_text("Error occurred during initialization of VM\nToo small maximum heap\n")
    monkeypatch.setattr(failures, "spark_log_file", lambda: str(log))
    monkeypatch.setattr(failures, "java_problem", lambda: None)
    with jvm.jvm_output_to(str(log)):
        os.write(1, b"Invalid maximum heap size: -Xmx2gb\n")
    assert "Invalid maximum" in log.read_text()
    out = explain_failure(RuntimeError("[JAVA_GATEWAY_EXITED] Java gateway process exited"))
    assert "does not understand --driver-memory" in out
