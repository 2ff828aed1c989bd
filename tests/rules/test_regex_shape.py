"""rules/regex_shape.py: the one use of Python's private regex parser (re._parser), held to what it returns.

If a Python release changes the parser's output for these shapes, these tests fail and say which
Python it is: adapt regex_shape._sre_items (the one function that reads re._parser) to it.
"""

import platform
import re

import pytest

from kafka_authz_cli.rules import regex_shape
from kafka_authz_cli.rules.grammar import terminal_order
from kafka_authz_cli.rules.regex_shape import (
    UNBOUNDED,
    Node,
    continuation_chars,
    first_chars,
    is_one_or_more,
    parse_shape,
)

PYTHON = f"Python {platform.python_version()} ({platform.python_implementation()})"


def _chars(text: str) -> frozenset[str]:
    return frozenset(text)


LETTERS = _chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
WORD = LETTERS | _chars("0123456789_")

#: What _sre_items must return for the shapes the lexer and the statement compiler read.
EXPECTED = {
    "a": (Node("literal", "LITERAL", _chars("a")),),
    "[A-Za-z][A-Za-z0-9_]*": (
        Node("set", "IN", LETTERS),
        Node("repeat", "MAX_REPEAT", items=(Node("set", "IN", WORD),), min=0, max=UNBOUNDED),
    ),
    "(?s:[ \t]+)": (
        Node("group", "SUBPATTERN", items=(
            Node("repeat", "MAX_REPEAT", items=(Node("set", "IN", _chars(" \t")),), min=1, max=UNBOUNDED),)),
    ),
    "x{2,5}?": (Node("repeat", "MIN_REPEAT", items=(Node("literal", "LITERAL", _chars("x")),), min=2, max=5,
                     lazy=True),),
    r"[^ab]\w": (Node("set", "IN", None), Node("set", "IN", None)),  # negated, a category: not plain characters
    "a|b.": (Node("other", "BRANCH"),),
    ".": (Node("other", "ANY"),),
}


@pytest.mark.parametrize("pattern", list(EXPECTED))
def test_python_s_regex_parser_returns_what_regex_shape_reads(pattern):
    got = parse_shape(pattern)
    assert got == EXPECTED[pattern], (
        f"re._parser of {PYTHON} changed what it returns for {pattern!r}: regex_shape._sre_items turned it "
        f"into {got!r}, expected {EXPECTED[pattern]!r}. Adapt _sre_items to this Python release.")


def test_the_private_parser_is_there():
    assert hasattr(re, "_parser") and hasattr(re._parser, "parse") and hasattr(re._parser, "MAXREPEAT"), (
        f"{PYTHON} has no re._parser.parse / MAXREPEAT: regex_shape._sre_items needs another way to parse a regex")


def test_not_a_regex_is_none():
    assert parse_shape("(") is None and first_chars("(") is None


def test_the_grammar_s_terminals():
    # What the lexer and the statement compiler read from grammars/rules.lark.
    from kafka_authz_cli.rules.parser import _parser

    _, spec = _parser()
    assert first_chars(spec.regex_sources["STRING"]) == {'"'}
    assert first_chars(spec.regex_sources["REGEX"]) == {"/"}
    assert first_chars(spec.regex_sources["LINE_COMMENT"]) == {"/"}
    assert first_chars(spec.regex_sources["BLOCK_COMMENT"]) == {"/"}
    assert first_chars(spec.regex_sources["WS"]) == set(" \t\r\n")
    assert first_chars(spec.regex_sources["IDENT"]) == set(LETTERS)
    assert continuation_chars(spec.regex_sources["IDENT"]) == set(WORD)
    assert is_one_or_more(spec.regex_sources["WS"]) and not is_one_or_more(spec.regex_sources["IDENT"])
    assert "IDENT" in terminal_order()


def test_shapes():
    assert first_chars("(?:ab)+c") == {"a"}
    assert first_chars("a?b") is None  # an optional first element: not simple to tell
    assert first_chars(r"\w") is None
    assert continuation_chars("[a-z][0-9]*?") == set()  # lazy: not an identifier's tail
    assert continuation_chars("[a-z]") == set()
    assert not is_one_or_more("[a-z]+?") and not is_one_or_more("a{2,}") and is_one_or_more("(?:(?:a+))")


def test_only_regex_shape_reads_the_private_parser():
    from pathlib import Path

    private = re.compile(r"\bre\._parser\b|from re import _parser|\bsre_(?:parse|compile|constants)\b")
    package = Path(regex_shape.__file__).parents[1]
    readers = sorted(p.relative_to(package).as_posix() for p in package.rglob("*.py")
                     if private.search(p.read_text(encoding="utf-8")))
    assert readers == ["rules/regex_shape.py"], readers
