"""Rules-file speed: `authz lint FILE` end to end, on rules files teams really write.

Rows, each at 1k, 10k and 100k rules (tests/bench/gen_rules.py, seeded):
  * varied: the mix of statement shapes real files have (the headline);
  * same-shape: every rule one of five shapes (the old benchmark, kept as a second row).
For each: wall time of `authz lint FILE` in a fresh interpreter (start-up included, best of N),
rules/s, peak RSS, and the scaling exponent between sizes (1.0 is linear). The parse alone is
timed in-process against the full lexer + lark LALR path it accelerates (same run).
Then pathological but legal inputs: one rule with 200,000 names, 100,000 nested `/*`, 10,000
nested parentheses and braces, a 10 MB string.

The real proxy (ANTLR on the JVM) loads 10,000 rules in ~1.5 s and 100,000 in ~8.3 s, JVM start
included (issue 9); the ratios below are against those figures.

    python tests/bench/bench_rules.py [--quick] [--runs N]
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gen_rules import generate, generate_varied  # noqa: E402

from kafka_authz_cli.rules.parser import parse_rules  # noqa: E402

TYPES = ROOT / "tests" / "conformance" / "kroxylicious" / "types.json"
PROXY = {10_000: 1.5, 100_000: 8.3}


def lint_once(path: Path) -> tuple[float, int]:
    """Wall seconds and peak RSS (KB) of one `authz lint` in a fresh interpreter.

    The RSS comes from GNU time around the command: a child forked from this (big) benchmark
    process would count the parent's pages in its own peak."""
    timer = ["/usr/bin/time", "-f", "%M"] if os.path.exists("/usr/bin/time") else []
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.run([*timer, sys.executable, "-m", "kafka_authz_cli", "lint", str(path),
                               "--types", str(TYPES)], stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
        wall = time.perf_counter() - t0
        err.seek(0)
        text = err.read().decode()
        if proc.returncode not in (0, 1):
            raise SystemExit(f"authz lint failed on {path}: {text[-500:]}")
    lines = text.strip().splitlines()
    rss = int(lines[-1]) if timer and lines and lines[-1].isdigit() else 0
    return wall, rss


def lint_runs(path: Path, runs: int) -> tuple[float, int]:
    best, peak = math.inf, 0
    for _ in range(runs):
        wall, rss = lint_once(path)
        best = min(best, wall)
        peak = max(peak, rss)
    return best, peak


def parse_times(text: str) -> tuple[float, float]:
    gc.collect()
    t0 = time.perf_counter()
    parse_rules(text, fast=True)
    fast = time.perf_counter() - t0
    gc.collect()
    t0 = time.perf_counter()
    parse_rules(text, fast=False)
    full = time.perf_counter() - t0
    return fast, full


def exponent(t1: float, t2: float, n1: int, n2: int) -> float:
    return math.log(t2 / t1) / math.log(n2 / n1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="1k and 10k only")
    parser.add_argument("--runs", type=int, default=3, help="lint runs per file (best is reported)")
    args = parser.parse_args()
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    parse_rules(generate_varied(50))  # compile the statement parsers once (per process, not per file)
    tmp = Path(tempfile.mkdtemp(prefix="authz-bench-rules-"))
    print(f"{'file':<11} {'rules':>7} {'MB':>6} {'lint e2e':>9} {'rules/s':>9} {'peak RSS':>9} {'exp.':>5} "
          f"{'parse':>7} {'full parse':>10} {'x full':>6} {'vs proxy':>8}")
    for label, make in (("varied", generate_varied), ("same-shape", generate)):
        previous = None
        for n in sizes:
            text = make(n)
            path = tmp / f"{label}-{n}.acl"
            path.write_text(text, encoding="utf-8")
            wall, peak = lint_runs(path, args.runs)
            fast, full = parse_times(text)
            exp = f"{exponent(previous[1], wall, previous[0], n):.2f}" if previous else "-"
            proxy = f"{PROXY[n] / wall:.1f}x" if n in PROXY else "-"
            print(f"{label:<11} {n:>7,} {len(text) / 1e6:>6.1f} {wall:>8.2f}s {n / wall:>9,.0f} {peak / 1024:>7.0f}MB "
                  f"{exp:>5} {fast:>6.2f}s {full:>9.2f}s {full / fast:>5.1f}x {proxy:>8}")
            previous = (n, wall)
            path.unlink()
    print("exp.: log(t2/t1)/log(n2/n1) against the row above (1.0 = linear); x full: full lexer+LALR parse time /"
          " fast parse time; vs proxy: the proxy's quoted load time / authz lint's time (above 1 = faster).")
    print()
    print(f"{'pathological input':<34} {'MB':>6} {'time':>7}  result")
    names = ", ".join(f'"user-{i}"' for i in range(200_000))
    header = "from io.kroxylicious.filter.authorization import TopicResource as Topic;\n"
    cases = [
        ("one rule, 200,000 names", header + f"allow User with name in {{{names}}} to READ Topic with name *;\n"
                                             "otherwise deny;\n"),
        ("100,000 nested /*", "/*" * 100_000 + "\notherwise deny;\n"),
        ("10,000 nested parentheses", header + "allow User with name = " + "(" * 10_000 + ")" * 10_000 + ";\n"),
        ("10,000 nested braces", header + "allow User with name = " + "{" * 10_000 + "}" * 10_000 + ";\n"),
        ("a 10 MB string", header + f'allow User with name = "{"x" * 10_000_000}" to READ Topic with name *;\n'
                                    "otherwise deny;\n"),
        ("an unterminated 10 MB string", header + 'allow User with name = "' + "x" * 10_000_000),
    ]
    for label, text in cases:
        path = tmp / "pathological.acl"
        path.write_text(text, encoding="utf-8")
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "kafka_authz_cli", "lint", str(path)], capture_output=True,
                              text=True, cwd=ROOT, timeout=120)
        wall = time.perf_counter() - t0
        lines = (proc.stdout + proc.stderr).strip().splitlines()
        summary = lines[-1] if lines else ""
        first = next((x for x in lines if ": error " in x), "")
        shown = (first.split(": error ", 1)[1][:60] + " | ") if first else ""
        print(f"{label:<34} {len(text) / 1e6:>6.1f} {wall:>6.2f}s  exit {proc.returncode}: {shown}{summary[:60]}")
        path.unlink()
    tmp.rmdir()


if __name__ == "__main__":
    main()
