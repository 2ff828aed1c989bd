"""`authz simulate` on Kafka's own AuthorizerBenchmark workload: per-decision cost, peak memory, load time.

The workload is tests/bench/gen_authorizer_benchmark.py's (resourceCount x aclCount=10 ACLs, its
PREFIXED section and its resourceCount/10 wildcard ACLs whose hosts never match), at 10k, 50k and
200k resources, with 20,000 random requests; then loading 1M ACLs. Every figure is the real command in
a fresh process (`authz simulate ACLS --requests FILE --format jsonl`):

- load: the same command with one request from flags (reading, checking and indexing the ACLs);
- µs per decision: (time with N requests - load time) / N, so start-up and loading are not counted;
- peak memory: the process's maximum resident set (getrusage ru_maxrss), with 20,000 requests and
  with 2,000 (flat if the decisions stream);
- the baseline, measured in the same run: the same commands on this project's code as it was before
  this benchmark was added (`git archive` of the parent of the commit that added
  gen_authorizer_benchmark.py, or --baseline REF), on the first --baseline-requests requests only (that
  code holds every decision and notes each of the wildcard ACLs on each: 20,000 requests do not fit).

Kafka's own StandardAuthorizer on this workload, as this project records it (README "Speed"): 120-550 µs
per decision at 10k resources, 750-2,500 µs at 50k.

    python tests/bench/bench_simulate_workload.py            # 10k, 50k, 200k and 1M ACLs, with baseline
    python tests/bench/bench_simulate_workload.py --quick    # 10k and 50k, 1M load skipped
    python tests/bench/bench_simulate_workload.py --no-baseline
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen_authorizer_benchmark as gen  # noqa: E402

JVM_US = {10_000: "120-550", 50_000: "750-2,500"}
#: Runs a command of authz under PYTHONPATH=<tree> and writes its peak RSS (KiB) to $AUTHZ_BENCH_RSS.
MEASURE = """
import atexit, os, resource, sys
def _rss():
    with open(os.environ["AUTHZ_BENCH_RSS"], "w") as fh:
        fh.write(str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
atexit.register(_rss)
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


def run(tree: Path, args: list[str], tmp: Path) -> tuple[float, int, int]:
    """Seconds, peak RSS in MiB, exit code of `authz ARGS` run from ``tree``."""
    rss_file = tmp / "rss"
    env = dict(os.environ, PYTHONPATH=str(tree), AUTHZ_BENCH_RSS=str(rss_file), COLUMNS="200")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", MEASURE, *args], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1, 3):
        sys.stderr.write(proc.stderr.decode(errors="replace")[-2000:])
    rss = int(rss_file.read_text()) // 1024 if rss_file.exists() else -1
    return seconds, rss, proc.returncode


def single(acls: Path) -> list[str]:
    return ["simulate", str(acls), "--principal", "User:test-user", "--operation", "Write", "--topic",
            gen.PREFIX + "95", "--host", "127.0.0.1", "--format", "jsonl"]


def many(acls: Path, requests: Path) -> list[str]:
    return ["simulate", str(acls), "--requests", str(requests), "--format", "jsonl"]


def measure(tree: Path, acls: Path, requests: Path, n: int, tmp: Path, small: int) -> dict:
    load, load_rss, _ = run(tree, single(acls), tmp)
    full, rss, code = run(tree, many(acls, requests), tmp)
    out = {"load_s": load, "total_s": full, "rss_mib": rss, "load_rss_mib": load_rss, "exit": code,
           "us": max(full - load, 0.0) / n * 1e6}
    if small:
        head = tmp / "small.jsonl"
        with open(requests) as src, open(head, "w") as dst:
            for _, line in zip(range(small), src):
                dst.write(line)
        _, out["rss_small_mib"], _ = run(tree, many(acls, head), tmp)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="10k and 50k resources only, no 1M load")
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--baseline", help="git ref of the code to compare with (default: before this benchmark)")
    parser.add_argument("--baseline-requests", type=int, default=300)
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
        print(f"{'resources':>9} {'ACLs':>10} {'load s':>7} {'µs/dec':>7} {'dec/s':>8} {'RSS MiB':>8} "
              f"{'RSS@2k':>7} | {'base load':>9} {'base µs':>8} {'base MiB':>8} {'x faster':>8} | JVM µs")
        for size in sizes:
            acls, reqs = tmp / f"acls-{size}.json", tmp / f"req-{size}.jsonl"
            count = gen.write_acls(acls, size)
            gen.write_requests(reqs, ns.requests, size)
            new = measure(ROOT, acls, reqs, ns.requests, tmp, small=2_000)
            row = {"acls": count, "new": new}
            line = (f"{size:>9,} {count:>10,} {new['load_s']:>7.1f} {new['us']:>7.1f} {1e6 / max(new['us'], 1e-9):>8,.0f} "
                    f"{new['rss_mib']:>8,} {new['rss_small_mib']:>7,} |")
            if base_tree is not None:
                head = tmp / f"base-{size}.jsonl"
                with open(reqs) as src, open(head, "w") as dst:
                    for _, text in zip(range(ns.baseline_requests), src):
                        dst.write(text)
                old = measure(base_tree, acls, head, ns.baseline_requests, tmp, small=0)
                row["baseline"] = old
                line += (f" {old['load_s']:>9.1f} {old['us']:>8,.0f} {old['rss_mib']:>8,} "
                         f"{old['us'] / max(new['us'], 1e-9):>8,.0f} |")
            else:
                line += f" {'':>9} {'':>8} {'':>8} {'':>8} |"
            print(line + f" {JVM_US.get(size, '')}", flush=True)
            figures["sizes"][size] = row
            acls.unlink()
        if not ns.quick:
            acls = tmp / "acls-1m.json"
            count = gen.write_acls(acls, 99_010)  # 990,100 + 10 + 9,901 ACLs
            load, rss, _ = run(ROOT, single(acls), tmp)
            line = f"loading {count:,} ACLs (JSON, {acls.stat().st_size / 2**20:,.0f} MiB): {load:.1f} s, {rss:,} MiB"
            figures["load_1m"] = {"acls": count, "seconds": load, "rss_mib": rss}
            if base_tree is not None:
                old, old_rss, _ = run(base_tree, single(acls), tmp)
                line += f"; baseline {old:.1f} s, {old_rss:,} MiB ({old / load:.1f}x)"
                figures["load_1m"]["baseline_seconds"] = old
            print(line, flush=True)
    print("µs/dec: (seconds with all requests - seconds with one) / requests; load s: a run with one request "
          "(start-up, reading, checking, indexing); RSS@2k: peak memory with 2,000 requests.")
    if ns.json:
        ns.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
