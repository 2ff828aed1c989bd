"""Record what java.util.regex gives for patterns with possessive quantifiers and atomic groups
around capturing groups (the class CPython's own possessive repeat gets wrong), for
tests/java/test_possessive.py: `python tests/java/tools/record_java_regex.py` (Java 17+ on PATH).

The patterns are drawn with a fixed seed from the grammar below; each is run on a few texts by
RegexOracle.java (matches() and its groups, then the spans of the find() loop)."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE.parent / "data" / "possessive_regex.jsonl"
ATOMS = ["a", "b", "c", ".", "[ab]", "[^a]", "\\w", "\\d", "x", "(?:a*)", "(?:ba*)"]
QUANTS = ["", "", "*", "+", "?", "{0,2}", "*+", "++", "?+", "{1,2}+", "*?"]
GROUPS = ["(", "(", "(?:", "(?>", "(?<n{}>"]


def pattern(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 3)):
        if depth < 3 and rng.random() < 0.45:
            head = rng.choice(GROUPS).format(rng.randint(0, 10**6))
            parts.append(head + pattern(rng, depth + 1) + ")" + rng.choice(QUANTS))
        else:
            parts.append(rng.choice(ATOMS) + rng.choice(QUANTS))
    seq = "".join(parts)
    if depth < 3 and rng.random() < 0.3:
        seq += "|" + pattern(rng, depth + 1)
    return seq


def cases(n: int, seed: int = 20) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        p = pattern(rng)
        if "+" not in p.replace("++", "+") and "(?>" not in p:
            continue
        for _ in range(3):
            out.append((p, "".join(rng.choice("abcx1_") for _ in range(rng.randint(0, 7)))))
    return out


def decode(value: str) -> str | None:
    return None if value == "-" else base64.b64decode(value).decode("utf-8")


def main() -> None:
    todo = cases(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["javac", "-d", tmp, str(HERE / "RegexOracle.java")], check=True)
        lines = "".join(f"{base64.b64encode(p.encode()).decode()} {base64.b64encode(t.encode()).decode()}\n"
                        for p, t in todo)
        res = subprocess.run(["java", "-cp", tmp, "RegexOracle"], input=lines, capture_output=True, text=True,
                             check=True)
    with open(OUT, "w", encoding="utf-8") as fh:
        for (p, t), line in zip(todo, res.stdout.splitlines(), strict=True):
            if line in ("error", "overflow"):
                continue
            head, _, spans = line.partition(" |")
            ok, *groups = head.split(" ")
            fh.write(json.dumps({"pattern": p, "text": t, "matches": ok == "true",
                                 "groups": [decode(g) for g in groups],
                                 "finds": [[int(x) for x in s.split(",")] for s in spans.split()]},
                                ensure_ascii=False) + "\n")
    print(f"{OUT}: {sum(1 for _ in open(OUT))} cases")


if __name__ == "__main__":
    main()
