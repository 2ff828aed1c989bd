"""`authz simulate` on Kafka's own AuthorizerBenchmark workload: per-decision cost, peak memory, load time.

The workload is tests/bench/gen_authorizer_benchmark.py's (resourceCount x aclCount=10 ACLs, its
PREFIXED section and its resourceCount/10 wildcard ACLs whose hosts never match), at 10k, 50k and
200k resources, with 20,000 random requests; then loading 1M ACLs. Every figure is the real command in
a fresh process (`authz simulate ACLS --requests FILE --format jsonl`):

- load: from the start of the process to the authorizer ready (the ACLs read, checked, indexed);
- µs per decision: from then to the end of the process (the requests read, decided, their rows written),
  divided by the number of requests;
- peak memory: the process's maximum resident set (getrusage ru_maxrss), with 20,000 requests and
  with the baseline's 1,000 (flat if the decisions stream);
- the baseline, measured in the same run: the same commands on this project's code as it was before
  this benchmark was added (`git archive` of the parent of the commit that added
  gen_authorizer_benchmark.py, or --baseline REF), on the first --baseline-requests requests only (that
  code holds every decision and notes each of the wildcard ACLs on each: 20,000 requests do not fit);
  the ratios compare it with this code on the same requests (one-time costs amortised alike).

Kafka's own StandardAuthorizer on this workload, as this project records it (README "Speed"): 120-550 µs
per decision at 10k resources, 750-2,500 µs at 50k.

    python tests/bench/bench_simulate_workload.py            # 10k, 50k, 200k and 1M ACLs, with baseline
    python tests/bench/bench_simulate_workload.py --quick    # 10k and 50k, 1M load skipped
    python tests/bench/bench_simulate_workload.py --no-baseline
    python tests/bench/bench_simulate_workload.py --baseline a657f88 --baseline-requests 20000  # against a commit
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

import gen_authorizer_benchmark as gen  # noqa: E402

JVM_US = {10_000: "120-550", 50_000: "750-2,500"}
#: Runs a command of authz under PYTHONPATH=<tree> and writes to $AUTHZ_BENCH_OUT its peak RSS (KiB), when
#: the authorizer was ready (the ACLs read, checked and indexed) and when it ended, after the last row.
MEASURE = """
import atexit, json, os, resource, sys, time
marks = {"start": time.perf_counter(), "start_cpu": time.process_time()}
from kafka_authz_cli.acl.engine import StandardAuthorizer
_init = StandardAuthorizer.__init__
def init(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    marks["ready"], marks["ready_cpu"] = time.perf_counter(), time.process_time()
StandardAuthorizer.__init__ = init
def _done():
    marks["end"], marks["end_cpu"] = time.perf_counter(), time.process_time()
    marks["rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with open(os.environ["AUTHZ_BENCH_OUT"], "w") as fh:
        json.dump(marks, fh)
atexit.register(_done)
sys.argv = ["authz"] + sys.argv[1:]
from kafka_authz_cli.cli.app import main
main()
"""


def baseline_tree(ref: str | None, into: Path) -> tuple[Path, str]:
    """This project's code before this benchmark (or at ``ref``), unpacked with git archive."""
    if ref is None:
        added = subprocess.run(["git", "log", "--diff-filter=A", "--format=%H", "--",
                                "tests/bench/gen_authorizer_benchmark.py"], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout.split()
        ref = (added[-1] + "^") if added else "HEAD"
    commit = subprocess.run(["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", commit, "kafka_authz_cli"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into, commit


def run(tree: Path, args: list[str], tmp: Path) -> dict:
    """`authz ARGS` run from ``tree``: wall seconds, seconds to the authorizer ready and from there to the
    end, peak RSS in MiB, exit code."""
    out_file = tmp / "marks.json"
    out_file.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(tree), AUTHZ_BENCH_OUT=str(out_file), COLUMNS="200")
    start = time.perf_counter()
    # cwd=tmp: `python -c` puts the working directory first on sys.path, which would win over PYTHONPATH.
    proc = subprocess.run([sys.executable, "-c", MEASURE, *args], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, cwd=tmp)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1, 3) or not out_file.exists():
        sys.stderr.write(f"exit {proc.returncode}: " + proc.stderr.decode(errors="replace")[-2000:] + "\n")
        nan = float("nan")
        return {"seconds": seconds, "load_s": nan, "decide_s": nan, "load_cpu_s": nan, "decide_cpu_s": nan,
                "rss_mib": -1, "exit": proc.returncode}
    marks = json.loads(out_file.read_text())
    ready, ready_cpu = marks.get("ready", marks["end"]), marks.get("ready_cpu", marks["end_cpu"])
    return {"seconds": seconds, "load_s": ready - marks["start"], "decide_s": marks["end"] - ready,
            "load_cpu_s": ready_cpu - marks["start_cpu"], "decide_cpu_s": marks["end_cpu"] - ready_cpu,
            "rss_mib": marks["rss_kib"] // 1024, "exit": proc.returncode}


def single(acls: Path) -> list[str]:
    return ["simulate", str(acls), "--principal", "User:test-user", "--operation", "Write", "--topic",
            gen.PREFIX + "95", "--host", "127.0.0.1", "--format", "jsonl"]


def many(acls: Path, requests: Path) -> list[str]:
    return ["simulate", str(acls), "--requests", str(requests), "--format", "jsonl"]


def head_of(requests: Path, n: int, tmp: Path) -> Path:
    head = tmp / f"head-{n}.jsonl"
    with open(requests) as src, open(head, "w") as dst:
        for _, line in zip(range(n), src):
            dst.write(line)
    return head


def measure(tree: Path, acls: Path, requests: Path, n: int, tmp: Path) -> dict:
    full = run(tree, many(acls, requests), tmp)
    return dict(full, us=full["decide_s"] / n * 1e6, cpu_us=full["decide_cpu_s"] / n * 1e6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="10k and 50k resources only, no 1M load")
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--baseline", help="git ref of the code to compare with (default: before this benchmark)")
    parser.add_argument("--baseline-requests", type=int, default=1_000)
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    ns = parser.parse_args()
    sizes = [10_000, 50_000] if ns.quick else [10_000, 50_000, 200_000]
    figures: dict = {"sizes": {}}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        base_tree = None
        if not ns.no_baseline:
            base_tree, commit = baseline_tree(ns.baseline, tmp / "baseline")
            figures["baseline"] = commit
            print(f"baseline: this project's code at {commit} (git archive), on the first "
                  f"{ns.baseline_requests:,} requests")
        print(f"{'resources':>9} {'ACLs':>10} {'load s':>7} {'cpu s':>7} {'µs/dec':>7} {'cpu µs':>7} {'dec/s':>8} "
              f"{'RSS MiB':>8} {'RSS@few':>7} | {'base load':>9} {'cpu s':>8} {'base µs':>8} {'cpu µs':>8} "
              f"{'base MiB':>8} {'x wall':>8} {'x cpu':>8} | JVM µs")
        for size in sizes:
            acls, reqs = tmp / f"acls-{size}.json", tmp / f"req-{size}.jsonl"
            count = gen.write_acls(acls, size)
            gen.write_requests(reqs, ns.requests, size)
            new = measure(ROOT, acls, reqs, ns.requests, tmp)
            few = measure(ROOT, acls, head_of(reqs, ns.baseline_requests, tmp), ns.baseline_requests, tmp)
            row = {"acls": count, "new": new, "new_few": few}
            line = (f"{size:>9,} {count:>10,} {new['load_s']:>7.1f} {new['load_cpu_s']:>7.1f} {new['us']:>7.1f} "
                    f"{new['cpu_us']:>7.1f} {1e6 / max(new['us'], 1e-9):>8,.0f} {new['rss_mib']:>8,} "
                    f"{few['rss_mib']:>7,} |")
            if base_tree is not None:
                old = measure(base_tree, acls, head_of(reqs, ns.baseline_requests, tmp), ns.baseline_requests, tmp)
                row["baseline"] = old
                line += (f" {old['load_s']:>9.1f} {old['load_cpu_s']:>8.1f} {old['us']:>8,.0f} {old['cpu_us']:>8,.0f} "
                         f"{old['rss_mib']:>8,} {old['us'] / max(few['us'], 1e-9):>8,.1f} "
                         f"{old['cpu_us'] / max(few['cpu_us'], 1e-9):>8,.1f} |")
            else:
                line += " " * 62 + "|"
            print(line + f" {JVM_US.get(size, '')}", flush=True)
            figures["sizes"][size] = row
            acls.unlink()
        if not ns.quick:
            acls = tmp / "acls-1m.json"
            count = gen.write_acls(acls, 99_010)  # 990,100 + 10 + 9,901 ACLs
            new = run(ROOT, single(acls), tmp)
            line = (f"loading {count:,} ACLs (JSON, {acls.stat().st_size / 2**20:,.0f} MiB): {new['load_s']:.1f} s "
                    f"to a ready authorizer ({new['seconds']:.1f} s for the whole command), {new['rss_mib']:,} MiB")
            figures["load_1m"] = {"acls": count, "new": new}
            if base_tree is not None:
                old = run(base_tree, single(acls), tmp)
                line += (f"; baseline {old['load_s']:.1f} s ({old['seconds']:.1f} s), {old['rss_mib']:,} MiB "
                         f"({old['load_s'] / new['load_s']:.1f}x; CPU {new['load_cpu_s']:.1f} s against "
                         f"{old['load_cpu_s']:.1f} s)")
                figures["load_1m"]["baseline"] = old
            print(line, flush=True)
    print("load s: from start-up to the authorizer ready (reading, checking, indexing the ACLs); µs/dec: from "
          "then to the end (reading the requests, deciding, writing the rows) per request, wall clock, and cpu µs "
          "the process's CPU time for the same (what a machine shared with other work still measures); "
          "RSS@few and x wall / x cpu: this code on the baseline's requests, and the baseline's µs over its µs "
          "on those same requests.")
    if ns.json:
        ns.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
