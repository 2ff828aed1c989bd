"""Rules-file parsing speed: the parser choices, measured on 10k and 100k generated rules.

Compared in one run:
  * lark LALR, lark's contextual lexer, full parse tree (the plain baseline);
  * lark LALR with authz's ANTLR-faithful lexer, AST built by a Transformer during the parse;
  * the same plus shape reuse (fastparse): the production path;
  * `authz lint` end to end in a fresh interpreter (start-up included), the target being 4 s
    for 100k rules. The real proxy (ANTLR on the JVM) is quoted at ~1.5 s / 10k and 8.3 s / 100k.

    python tests/bench/bench_rules.py [--quick]
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from gen_rules import generate  # noqa: E402
from lark import Lark  # noqa: E402

from kafka_authz_cli.rules.grammar import grammar_text  # noqa: E402
from kafka_authz_cli.rules.parser import parse_rules  # noqa: E402


def timed(fn) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sizes = [10_000] if args.quick else [10_000, 100_000]
    plain = Lark(grammar_text(), parser="lalr", lexer="contextual")
    parse_rules(generate(50))  # build the parsers once
    print(f"{'rules':>8} {'plain lark tree':>16} {'ANTLR lexer+AST':>16} {'shape reuse':>12} {'lint e2e':>9} "
          f"{'rules/s (lint)':>15} {'x plain':>8}")
    for n in sizes:
        text = generate(n)
        t_plain = timed(lambda: plain.parse(text))
        t_full = timed(lambda: parse_rules(text, fast=False))
        t_fast = timed(lambda: parse_rules(text, fast=True))
        with tempfile.NamedTemporaryFile("w", suffix=".acl", delete=False) as fh:
            fh.write(text)
        try:
            runs = []
            for _ in range(3):  # best of three: this machine's timings are noisy
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "kafka_authz_cli", "lint", fh.name],
                               stdout=subprocess.DEVNULL, check=False, cwd=ROOT)
                runs.append(time.perf_counter() - t0)
            t_lint = min(runs)
        finally:
            os.unlink(fh.name)
        print(f"{n:>8} {t_plain:>15.2f}s {t_full:>15.2f}s {t_fast:>11.2f}s {t_lint:>8.2f}s {n / t_lint:>15,.0f} "
              f"{t_plain / t_fast:>8.1f}")
    print("plain lark tree: no AST and lark's own lexer (which does not reproduce ANTLR's maximal munch); "
          "x plain: plain-tree time / shape-reuse time, the parse alone.")


if __name__ == "__main__":
    main()
