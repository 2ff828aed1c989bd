"""Where the time of `authz whatif --spark` goes, end to end, against the "grouped" floor step of
bench_whatif_floor.py measured in the same run on the same files.

Per data set (gen_auditlogs' single file and rotated set, at each --lines size):

    floor     Spark's read.text().count() and the "grouped" floor step (stock lines cut and aggregated
              per distinct (hour, rest)), in this process's warm session, best of 3
    CLI       `authz whatif --logs DIR --proposed P --spark -f json` in a fresh process (what a user
              waits for): wall time, best of --repeat
    breakdown of one more CLI run, from timestamps taken inside it (Python start and ACL load, JVM
              launch, SparkContext start, Spark's event log: every job of every phase the job's
              progress names, and the driver's time between them: planning, code generation,
              Python merges) and what is left after the job (report, session stop, rendering)

    python tests/bench/bench_whatif_fixed.py [--lines 2000000 5000000] [--data DIR] [--only single|rotated]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import gen_auditlogs  # noqa: E402
from bench_whatif import SETTINGS, proposals  # noqa: E402
from timing import best_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------------------------
# The probe: the CLI, in a child process, with timestamps


def probe(argv: list[str], out: str, eventlog: str) -> None:
    """Run the CLI with `argv`; write the timestamps taken inside to `out`."""
    stamps = {"python_start": float(os.environ["AUTHZ_PROBE_T0"]), "probe_main": time.time()}
    import atexit

    from kafka_authz_cli.whatif import spark as spark_job

    stamps["imports_done"] = time.time()
    make_session, run = spark_job.spark_session, spark_job.run
    sessions = []

    def timed_session(*a, **kw):
        stamps["session_call"] = time.time()
        conf = dict(kw.pop("conf", None) or {})
        conf.update(json.loads(os.environ.get("AUTHZ_PROBE_CONF", "{}")))  # for experiments
        if eventlog:
            conf.update({"spark.eventLog.enabled": "true", "spark.eventLog.dir": "file://" + eventlog,
                         "spark.eventLog.compress": "false", "spark.eventLog.rolling.enabled": "false"})
        spark = make_session(*a, conf=conf, **kw)
        stamps["session_ready"] = time.time()
        rt = spark._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
        stamps["jvm_start"] = rt.getStartTime() / 1000
        stamps["app_id"] = spark.sparkContext.applicationId
        sessions.append(spark)
        return spark

    def timed_run(*a, **kw):
        stamps["run_call"] = time.time()
        try:
            return run(*a, **kw)
        finally:
            stamps["run_done"] = time.time()
            stamps["codegen"] = codegen_ms(sessions[0]) / 1000

    def codegen_ms(spark) -> float:
        """Janino's compile time of the generated code, this JVM's total (Spark's CodegenMetrics)."""
        hist = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()
        return sum(hist.getSnapshot().getValues())

    spark_job.spark_session, spark_job.run = timed_session, timed_run

    def write():
        stamps["exit"] = time.time()
        Path(out).write_text(json.dumps(stamps))

    atexit.register(write)
    from kafka_authz_cli.cli.app import main as cli_main

    sys.argv = ["authz", "whatif", *argv]
    cli_main()


# ----------------------------------------------------------------------------------------------
# Reading Spark's event log


def spark_events(eventlog: str, app_id: str) -> list[dict]:
    path = next(p for p in Path(eventlog).rglob("*") if app_id in p.name and p.is_file() and "appstatus" not in p.name)
    return [json.loads(line) for line in path.read_text().splitlines()]


def phases(events: list[dict]) -> list[dict]:
    """Per phase (the job group authz's progress names): first job submitted, last job done, busy time
    (union of job intervals), jobs, stages and tasks."""
    jobs: dict[int, dict] = {}
    for e in events:
        kind = e["Event"]
        if kind == "SparkListenerJobStart":
            props = e.get("Properties") or {}
            jobs[e["Job ID"]] = {"phase": props.get("spark.job.description") or props.get("spark.jobGroup.id") or "?",
                                 "start": e["Submission Time"] / 1000, "stages": len(e.get("Stage Infos", [])),
                                 "tasks": sum(s["Number of Tasks"] for s in e.get("Stage Infos", []))}
        elif kind == "SparkListenerJobEnd":
            jobs[e["Job ID"]]["end"] = e["Completion Time"] / 1000
    out: list[dict] = []
    for j in sorted(jobs.values(), key=lambda j: j["start"]):
        if not out or out[-1]["phase"] != j["phase"]:
            out.append({"phase": j["phase"], "start": j["start"], "end": j["end"], "busy": 0.0, "jobs": 0,
                        "tasks": 0, "_last": j["start"]})
        p = out[-1]
        # busy: the union of the phase's job intervals (jobs of one phase may overlap)
        lo = max(j["start"], p["_last"])
        p["busy"] += max(0.0, j["end"] - lo)
        p["_last"] = max(p["_last"], j["end"])
        p["end"] = max(p["end"], j["end"])
        p["jobs"] += 1
        p["tasks"] += j["tasks"]
    return out


def breakdown(stamps: dict, events: list[dict], t_spawn: float) -> list[tuple[str, float]]:
    rows = [("process start, Python imports", stamps["imports_done"] - stamps["python_start"]),
            ("ACL sets loaded, options checked", stamps["session_call"] - stamps["imports_done"]),
            ("JVM launched (spark-submit scripts)", stamps["jvm_start"] - stamps["session_call"]),
            ("SparkContext and session started", stamps["session_ready"] - stamps["jvm_start"]),
            ("between session and run", stamps["run_call"] - stamps["session_ready"])]
    ph = phases(events)
    t = stamps["run_call"]
    if ph:
        rows.append(("run() to its first job (file listing, planning)", ph[0]["start"] - t))
        t = ph[0]["start"]
    for p in ph:
        gap = p["start"] - t
        rows.append((f"  {p['phase']}: {p['jobs']} jobs, {p['tasks']} tasks: Spark jobs", p["busy"]))
        rows.append((f"  {p['phase']}: driver (planning, codegen, Python)",
                     (p["end"] - p["start"] - p["busy"]) + (gap if p is not ph[0] else 0.0)))
        t = p["end"]
    rows.append(("after the last job (report in Python)", stamps["run_done"] - t))
    rows.append(("session stop, rendering, exit", stamps["exit"] - stamps["run_done"]))
    rows.append(("(of which, anywhere above: Janino compiling generated code)", stamps["codegen"]))
    return rows


# ----------------------------------------------------------------------------------------------
# The floor, in this process


def floor(spark, files: list[str]) -> dict[str, float]:
    from pyspark.sql import functions as F

    from kafka_authz_cli.whatif.spark import scan

    value = F.col("value")

    def text():
        return spark.read.option("lineSep", "\n").text(files)

    def grouped():
        stock = value.endswith(scan.LOGGER_SUFFIX) & F.substring(value, 1, 26).rlike(scan._BRACKET_HEAD)
        s = F.col("stock")
        df = text().select("value", stock.alias("stock")).select(
            F.when(s, F.substring(value, 2, 13)).alias("hour"), F.when(s, scan._ms_in_hour(value, 2)).alias("ms"),
            F.when(s, F.substring(value.cast("binary"), 27, F.octet_length(value) - 52)).alias("rest"))
        return df.groupBy("hour", "rest").agg(F.count(F.lit(1)).alias("n"), F.min("ms").alias("a"),
                                              F.max("ms").alias("b")) \
            .select(F.sum("n"), F.sum("a"), F.sum("b"), F.sum(F.octet_length("rest"))).collect()

    text().count()
    grouped()  # warm
    return {"count": best_of(lambda: text().count(), 3), "grouped": best_of(grouped, 3)}


# ----------------------------------------------------------------------------------------------


def data_set(root: Path, kind: str, lines: int) -> Path:
    d = root / f"{kind}{lines}"
    marker = root / f"{kind}{lines}.complete"  # beside the data: the CLI would read a file inside it
    if not marker.exists():
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        (gen_auditlogs.single if kind == "single" else gen_auditlogs.rotated)(d, lines)
        marker.write_text("")
    return d


def cli_run(d: Path, acls: Path, probe_out: str | None = None, eventlog: str = "",
            master: str | None = None, tree: Path = ROOT) -> float:
    args = ["--logs", str(d), "--proposed", str(acls), "--spark", "--super-users", SETTINGS.super_users,
            "-f", "json"]
    if master:
        args += ["--master", master]
    env = dict(os.environ, PYTHONPATH=str(tree))
    if probe_out:
        cmd = [sys.executable, __file__, "--probe", probe_out, "--eventlog", eventlog, "--", *args]
    else:
        cmd = [sys.executable, "-m", "kafka_authz_cli", "whatif", *args]
    t0 = time.time()
    env["AUTHZ_PROBE_T0"] = str(t0)
    res = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
    t = time.time() - t0
    if res.returncode not in (0, 1):
        raise RuntimeError(f"authz whatif --spark failed ({res.returncode}): {res.stderr.decode()[-2000:]}")
    return t


def write_proposal(path: Path) -> None:
    acls = [b.as_dict() for b in proposals(1)[0]]
    path.write_text(json.dumps({"version": 1, "acls": acls}))


def main() -> None:
    if "--probe" in sys.argv:
        i = sys.argv.index("--probe")
        probe(sys.argv[sys.argv.index("--") + 1:], sys.argv[i + 1], sys.argv[sys.argv.index("--eventlog") + 1])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, nargs="+", default=[2_000_000, 5_000_000])
    ap.add_argument("--data", type=Path, help="where generated logs go (kept; reused when present)")
    ap.add_argument("--only", choices=["single", "rotated"], action="append")
    ap.add_argument("--repeat", type=int, default=2, help="CLI runs timed (best of), besides the probed one")
    ap.add_argument("--before", type=Path, help="a checkout of authz before a change (e.g. `git worktree add "
                    "/tmp/before main`): its CLI is timed too, on the same data in the same run")
    args = ap.parse_args()
    tmp = args.data or Path(tempfile.mkdtemp(prefix="authz-fixed-"))
    tmp.mkdir(parents=True, exist_ok=True)
    acls = tmp / "proposed.json"
    write_proposal(acls)
    from kafka_authz_cli.whatif.auditlog import expand_paths
    from kafka_authz_cli.whatif.spark import spark_session

    spark = spark_session("local[*]", "authz-bench-floor")
    print(f"local[*] on {spark.sparkContext.defaultParallelism} cores; the CLI runs in a fresh process "
          "(cold JVM) each time; the floor in this process's warm session, best of 3", flush=True)
    summary = []
    try:
        for lines in args.lines:
            for kind in args.only or ["single", "rotated"]:
                d = data_set(tmp, "single" if kind == "single" else "rot", lines)
                files = expand_paths([str(d)])
                fl = floor(spark, files)
                work = Path(tempfile.mkdtemp(prefix="authz-probe-"))
                (work / "events").mkdir()
                t_spawn = time.time()
                t_probe = cli_run(d, acls, str(work / "stamps.json"), str(work / "events"))
                stamps = json.loads((work / "stamps.json").read_text())
                events = spark_events(str(work / "events"), stamps["app_id"])
                t_cli = min([t_probe] + [cli_run(d, acls) for _ in range(args.repeat)])
                t_before = min(cli_run(d, acls, tree=args.before) for _ in range(max(1, args.repeat))) \
                    if args.before else None
                size = sum(os.path.getsize(f) for f in files)
                print(f"\n{kind} {lines:,} lines, {len(files)} files, {size / 1e9:.2f} GB: count {fl['count']:.1f} s, "
                      f"grouped floor {fl['grouped']:.1f} s; CLI end to end {t_cli:.1f} s = "
                      f"{t_cli / fl['grouped']:.2f}x grouped", flush=True)
                if t_before is not None:
                    print(f"  before the change ({args.before}): {t_before:.1f} s = {t_before / fl['grouped']:.2f}x "
                          "grouped", flush=True)
                print(f"  breakdown of one CLI run (with the event log: {t_probe:.1f} s):")
                for label, sec in breakdown(stamps, events, t_spawn):
                    print(f"    {label:70s} {sec:6.2f} s")
                summary.append((kind, lines, fl["grouped"], t_cli, t_before))
                shutil.rmtree(work, ignore_errors=True)
    finally:
        spark.stop()
        if args.data is None:
            shutil.rmtree(tmp, ignore_errors=True)
    print("\nset        lines   grouped floor   CLI end to end   ratio   (before the change)")
    for kind, lines, g, c, b in summary:
        before = f"{b:8.1f} s {b / g:6.2f}x" if b is not None else ""
        print(f"{kind:8s} {lines:>10,} {g:10.1f} s {c:14.1f} s {c / g:8.2f}x {before}")


if __name__ == "__main__":
    main()
