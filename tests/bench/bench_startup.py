"""Start-up: how long `authz` takes for the commands people type most, against a bare interpreter.

Every row is a fresh process; rows are interleaved round by round, so the machine's load (other
jobs on a shared 2-core box) weighs on each alike, and the baseline `python -c pass` is measured in
the same rounds. Reported per row: median wall time, median CPU time (user+sys of the child), the
ratio of each to the baseline's, and whether the wall time meets the 0.3 s target.

Rows:
  * `authz --version`, `authz --help`, `authz scram --help`;
  * `authz lint` on varied rules files of three sizes (30, 1,000 and 10,000 rules, gen_rules.py),
    the lark parser tables cached as in normal use (~/.cache/kafka-authz-cli), and once more with an
    empty cache directory (a first run);
  * `authz simulate` of one request and `authz convert` of the example ACL set;
  * "eager": the old start-up, every command module imported before `--help` (what app.py did);
  * with `--before AUTHZ`, the same three commands run by another installed `authz` (say the main
    checkout's .venv/bin/authz), for a before/after in one run.

    python tests/bench/bench_startup.py [--rounds N] [--importtime] [--before PATH/TO/authz]

`--importtime` adds, for `--help` and the small lint, the 12 largest imports `python -X importtime`
reports (cumulative microseconds).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

from gen_rules import generate_varied  # noqa: E402

PY = sys.executable
TARGET = 0.3
EAGER = ("import sys; from typer.main import get_command; from kafka_authz_cli.cli.app import app, load_all; "
         "load_all(); sys.argv = ['authz', '--help']; get_command(app)(['--help'], prog_name='authz')")


def authz(*args: str) -> list[str]:
    return [PY, "-m", "kafka_authz_cli", *args]


def run_once(cmd: list[str], env: dict) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def importtime(cmd: list[str], env: dict, top: int = 12) -> list[tuple[int, str]]:
    proc = subprocess.run([PY, "-X", "importtime", *cmd[1:]], cwd=ROOT, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rows = []
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = (p.strip() for p in line[len("import time:"):].split("|"))
            if cumulative.isdigit() and not name.startswith(" "):
                rows.append((int(cumulative), name))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--importtime", action="store_true")
    parser.add_argument("--before", help="another authz executable to measure alongside")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="authz-startup-"))
    sizes = {"small": 30, "medium": 1_000, "large": 10_000}
    files = {}
    for label, n in sizes.items():
        files[label] = tmp / f"{label}.acl"
        files[label].write_text(generate_varied(n), encoding="utf-8")
    env = dict(os.environ, COLUMNS="80")
    env.pop("AUTHZ_CACHE_DIR", None)
    cold_dir = tmp / "cold-cache"

    rows: list[tuple[str, list[str], dict]] = [
        ("python -c pass (baseline)", [PY, "-c", "pass"], env),
        ("authz --version", authz("--version"), env),
        ("authz --help", authz("--help"), env),
        ("authz scram --help", authz("scram", "--help"), env),
    ]
    for label, n in sizes.items():
        rows.append((f"authz lint {label} ({n:,} rules)", authz("lint", str(files[label])), env))
    rows += [
        ("authz lint small, empty cache", authz("lint", str(files["small"])), dict(env, AUTHZ_CACHE_DIR=str(cold_dir))),
        ("authz simulate (one request)", authz("simulate", "examples/acls/cluster.json", "--principal",
                                                "User:analytics", "--operation", "Read", "--topic", "orders-audit"), env),
        ("authz convert --to kafka-acls", authz("convert", "examples/acls/cluster.json", "--to", "kafka-acls"), env),
        ("eager: every module, then --help", [PY, "-c", EAGER], env),
    ]
    if args.before:
        rows += [(f"before: authz {' '.join(a[:1])}", [args.before, *a], env)
                 for a in (["--version"], ["--help"], ["lint", str(files["small"])])]
    for _, cmd, e in rows:  # warm the page cache, .pyc files and the parser-table cache
        run_once(cmd, e)
    walls: dict[str, list[float]] = {name: [] for name, _, _ in rows}
    cpus: dict[str, list[float]] = {name: [] for name, _, _ in rows}
    for _ in range(args.rounds):
        for name, cmd, e in rows:
            if e.get("AUTHZ_CACHE_DIR"):
                subprocess.run(["rm", "-rf", str(cold_dir)], check=True)
            wall, cpu = run_once(cmd, e)
            walls[name].append(wall)
            cpus[name].append(cpu)

    base_wall = statistics.median(walls[rows[0][0]])
    base_cpu = statistics.median(cpus[rows[0][0]])
    print(f"{args.rounds} rounds, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"medians; target wall <= {TARGET} s")
    print(f"{'command':<36} {'wall s':>7} {'x base':>7} {'cpu s':>7} {'x base':>7}  target")
    for name, _, _ in rows:
        w, c = statistics.median(walls[name]), statistics.median(cpus[name])
        ok = "" if name.startswith(("python", "eager", "before", "authz lint medium", "authz lint large")) else \
            ("ok" if w <= TARGET else "over")
        print(f"{name:<36} {w:7.3f} {w / base_wall:7.1f} {c:7.3f} {c / max(base_cpu, 1e-3):7.1f}  {ok}")
    if args.importtime:
        for name, cmd in (("authz --help", authz("--help")), ("authz lint small", authz("lint", str(files["small"])))):
            print(f"\nlargest imports of {name} (cumulative us):")
            for us, module in importtime(cmd, env):
                print(f"  {us:>8}  {module}")
    subprocess.run(["rm", "-rf", str(tmp)], check=True)


if __name__ == "__main__":
    main()
