"""A real Spark standalone cluster (master + one worker on 127.0.0.1, launched with the classes the
pyspark package ships): `whatif --master spark://...` gives exactly what local mode gives, with
executors whose Python cannot import authz unless the driver ships it."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.formats import load_acls

EXAMPLES = Path(__file__).parents[2] / "examples" / "whatif"
AUTHZ = str(Path(sys.executable).with_name("authz"))
SETTINGS = BrokerSettings()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc, timeout: float = 120) -> None:
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"Spark daemon exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


@pytest.fixture
def standalone(tmp_path):
    import pyspark

    home = Path(pyspark.__file__).parent
    spark_class = str(home / "bin" / "spark-class")
    env = dict(os.environ, SPARK_HOME=str(home), PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1",
               SPARK_LOG_DIR=str(tmp_path), SPARK_WORKER_DIR=str(tmp_path / "work"))
    procs = []
    try:
        port = free_port()
        with open(tmp_path / "master.log", "wb") as log:
            master = subprocess.Popen([spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                       "--port", str(port), "--webui-port", str(free_port())], env=env, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
        procs.append(master)
        wait_port(port, master)
        url = f"spark://127.0.0.1:{port}"
        wport = free_port()
        with open(tmp_path / "worker.log", "wb") as log:
            worker = subprocess.Popen([spark_class, "org.apache.spark.deploy.worker.Worker", url, "--host",
                                       "127.0.0.1", "--port", str(wport), "--webui-port", str(free_port()),
                                       "--cores", "2", "--memory", "1g", "--work-dir", str(tmp_path / "work")],
                                      env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        procs.append(worker)
        wait_port(wport, worker)
        yield url
    finally:
        stop_daemons(procs)


def stop_daemons(procs) -> None:
    """The daemons started last stop first: SIGTERM to each one's process group, SIGKILL after 30 s."""
    for p in reversed(procs):
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


# The executors' Python: this venv's, with authz's editable install hidden (its import hook and the
# checkout on sys.path), as on a cluster node where only pyspark and pyarrow are installed.
BARE_PYTHON = """#!/bin/sh
exec "{python}" -c '
import runpy, sys
hidden = lambda x: "editable" in (getattr(x, "__module__", "") or "") or "editable" in repr(x)
sys.meta_path[:] = [f for f in sys.meta_path if not hidden(f)]
sys.path_hooks[:] = [h for h in sys.path_hooks if not hidden(h)]
sys.path[:] = [p for p in sys.path if p and p.rstrip("/") != "{checkout}"]
sys.path_importer_cache.clear()
assert sys.argv[1] == "-m", "only python -m MODULE (what pyspark runs)"
open("{marker}", "a").write(sys.argv[2] + "\\n")
sys.argv = sys.argv[2:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
' "$@"
"""


def bare_python(tmp_path: Path) -> str:
    path = tmp_path / "bare-python"
    checkout = str(Path(__file__).parents[2])
    path.write_text(BARE_PYTHON.format(python=sys.executable, checkout=checkout, marker=tmp_path / "bare-python.used"))
    path.chmod(0o755)
    return str(path)


@pytest.mark.spark
@pytest.mark.spark_cluster
def test_whatif_on_a_standalone_cluster_equals_local_mode(spark, standalone, tmp_path):
    from kafka_authz_cli.whatif import spark as spark_job
    from kafka_authz_cli.whatif.auditlog import expand_paths
    from kafka_authz_cli.whatif.report_files import report_dict

    executor_python = bare_python(tmp_path)
    probe = subprocess.run([executor_python, "-m", "kafka_authz_cli"], capture_output=True, text=True, timeout=60)
    assert probe.returncode != 0 and "No module named kafka_authz_cli" in probe.stderr, probe.stderr
    probe = subprocess.run([executor_python, "-m", "platform"], capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0 and probe.stdout.strip(), probe.stderr
    res = subprocess.run([AUTHZ, "whatif", "--spark", "--master", standalone, "--driver-memory", "1g",
                          "--executor-memory", "512m", "--logs", str(EXAMPLES / "logs"), "--proposed",
                          str(EXAMPLES / "proposed.json"), "--current", str(EXAMPLES / "current.json"), "-f", "json"],
                         capture_output=True, text=True, timeout=600, env=dict(os.environ, PYSPARK_PYTHON=executor_python))
    assert res.returncode == 0, res.stderr
    on_cluster = json.loads(res.stdout)
    files = expand_paths([str(EXAMPLES / "logs")])
    local = spark_job.run(spark, files, (load_acls(EXAMPLES / "proposed.json"), SETTINGS),
                          (load_acls(EXAMPLES / "current.json"), SETTINGS))
    assert on_cluster == json.loads(json.dumps(report_dict(local.report, local.stats)))
    assert on_cluster["lines"]["total"] == 130 and on_cluster["newly_denied"]
    # the executors ran the bare Python, which had authz only from the zip the driver shipped
    assert "pyspark.daemon" in (tmp_path / "bare-python.used").read_text().split()
