"""Scale-out shown, not assumed: `authz whatif --spark` on a Spark standalone cluster (master and workers
launched from the pyspark distribution, as tests/whatif/test_standalone_cluster.py does) with 1 and
then 2 workers of 1 core each, on the same data, beside local[1] and local[2] in the same run.

On a 2-core machine the driver, the master and the workers share the two cores: 2 workers can at
best halve the executors' share of the time, and the driver's own work (planning, Python merges,
the report) does not shrink at all. What the run shows is how much of the job is parallel work.

    python tests/bench/bench_whatif_scaleout.py [--lines 2000000] [--data DIR] [--set rotated|single]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench_whatif_fixed import cli_run, data_set, write_proposal  # noqa: E402

from tests.whatif.test_standalone_cluster import free_port, stop_daemons, wait_port  # noqa: E402  (how the tests start the daemons)


class Cluster:
    """A standalone master; workers of 1 core added one at a time."""

    def __init__(self, work: Path, worker_memory: str = "3g"):
        import pyspark

        home = Path(pyspark.__file__).parent
        self.spark_class = str(home / "bin" / "spark-class")
        self.work, self.memory = work, worker_memory
        self.env = dict(os.environ, SPARK_HOME=str(home), PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1",
                        SPARK_LOG_DIR=str(work), SPARK_WORKER_DIR=str(work / "work"))
        self.procs: list[subprocess.Popen] = []
        port = free_port()
        self.url = f"spark://127.0.0.1:{port}"
        self._start("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                               "--webui-port", str(free_port())], port)

    def _start(self, name: str, args: list[str], port: int) -> None:
        with open(self.work / f"{name}.log", "wb") as log:
            p = subprocess.Popen([self.spark_class, *args], env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        self.procs.append(p)
        wait_port(port, p)

    def add_worker(self) -> None:
        port = free_port()
        self._start(f"worker{len(self.procs)}", ["org.apache.spark.deploy.worker.Worker", self.url, "--host",
                                                 "127.0.0.1", "--port", str(port), "--webui-port", str(free_port()),
                                                 "--cores", "1", "--memory", self.memory, "--work-dir",
                                                 str(self.work / "work")], port)
        time.sleep(2)  # registered with the master before a job asks for executors

    def stop(self) -> None:
        stop_daemons(self.procs)


def best(fn, repeat: int) -> float:
    return min(fn() for _ in range(repeat))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=2_000_000)
    ap.add_argument("--data", type=Path, help="where generated logs go (kept; reused when present)")
    ap.add_argument("--set", choices=["single", "rotated"], default="rotated")
    ap.add_argument("--repeat", type=int, default=2, help="runs per configuration (best of)")
    args = ap.parse_args()
    tmp = args.data or Path(tempfile.mkdtemp(prefix="authz-scale-"))
    tmp.mkdir(parents=True, exist_ok=True)
    acls = tmp / "proposed.json"
    write_proposal(acls)
    d = data_set(tmp, "single" if args.set == "single" else "rot", args.lines)
    work = Path(tempfile.mkdtemp(prefix="authz-cluster-"))
    times = {}
    print(f"{args.set} set, {args.lines:,} lines; `authz whatif --spark` end to end, best of {args.repeat}; "
          f"{os.cpu_count()} cores on this machine", flush=True)
    for master in ("local[1]", "local[2]"):
        times[master] = best(lambda: cli_run(d, acls, master=master), args.repeat)
        print(f"  {master:28s} {times[master]:6.1f} s", flush=True)
    cluster = Cluster(work)
    try:
        for n in (1, 2):
            cluster.add_worker()
            label = f"standalone, {n} worker{'s' if n > 1 else ''} x 1 core"
            times[n] = best(lambda: cli_run(d, acls, master=cluster.url), args.repeat)
            print(f"  {label:28s} {times[n]:6.1f} s", flush=True)
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
        if args.data is None:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"speed-up, 2 workers against 1: {times[1] / times[2]:.2f}x (local[2] against local[1]: "
          f"{times['local[1]'] / times['local[2]']:.2f}x)")


if __name__ == "__main__":
    main()
