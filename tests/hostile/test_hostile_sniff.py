"""The content sniffer (`formats.what_is`) sees every input a command refuses, so it must stay fast on what
an attacker writes, its script detection included: lines that almost open a Python `def`, `class`, `import`
or `#!` line, 10 MB of them, and what makes a regex backtrack. Each answer within a time and memory limit."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from kafka_authz_cli.formats import what_is

MB = 1 << 20
HOSTILE = {
    "def with colons": "def f(" + ":x" * 500_000 + "\n",
    "def with colon-hash runs": "def f(" + ":#" * 500_000 + "\n",
    "def with blanks after colons": "def f(" + ": \t" * 300_000 + "x\n",
    "class with open parens": "class A(" + "(" * MB + "\n",
    # found so: the first `from` pattern (dots, then words or dots) backtracked quadratically on dots: 2.7 s
    "from with dots": "from " + "." * MB + " import x\n",
    "import with many names": "import a" + ", b" * 300_000 + " x\n",
    "shebang with many env options": "#! /usr/bin/env " + "-x " * 300_000 + "\n",
    "shebang with one long option": "#!/usr/bin/env " + "-" * MB + "\n",
    "from with dots and words": "from " + "a." * 500_000 + " import x\n",
    "the same, 10 MB": "from " + "a." * (5 * MB) + " import x\n",
    "10 MB def line": "def f(" + ":" * (10 * MB),
    "def lines only": "def f(a):\n" * 500_000,
    "a python shebang then 10 MB": "#!/usr/bin/python3\n" + "x" * (10 * MB),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_sniffer_answers_hostile_text_within_limits(name):
    text = HOSTILE[name]
    tracemalloc.start()
    started = time.perf_counter()
    try:
        kind = what_is(text)
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kind is None or kind.key and kind.name
    assert seconds < 1.0, (name, seconds)  # it reads the head only: milliseconds, whatever the size
    # bounded by the head, not the text: a rules file's first statement of 32,000 dotted names costs the
    # regex engine 8 MB of backtracking state over its 64 KB head, whatever the text's size
    assert peak < 16 * MB, (name, peak)


def test_python_is_told_from_the_head_only():
    assert what_is("def f(a):\n" * 500_000).key == "python"
    assert what_is("#!/usr/bin/python3\n" + "x" * (10 * MB)).key == "python"
