"""What the lexer and the statement compiler need to know about a terminal's regex, from its shape.

The lexer (lexer.py) sorts terminals by the characters they can start with; the statement compiler
(fastparse.py) needs the characters that continue an identifier and whether the ignored whitespace
is one ``[...]+``. Both are read from the grammar's own regexes, so a changed grammar changes them.

Python has no public API that parses a regular expression. ``re._parser`` (``sre_parse`` before
3.11) is the parser ``re.compile`` itself uses, and private: it is used in exactly one function
here, :func:`_sre_items`, which turns what it returns into plain :class:`Node` values; everything
else reads those. tests/rules/test_regex_shape.py fails, naming the Python version, if a release
changes what that parser returns for the shapes read here.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from re import _parser  # noqa: PLC2701 - no public API parses a regex; used only by _sre_items below

#: ``max`` of an unbounded repetition.
UNBOUNDED = None


@dataclass(frozen=True)
class Node:
    """One element of a parsed regex.

    ``kind`` is ``literal`` (``chars`` the one character), ``set`` (a class ``[...]``: ``chars`` its
    characters, or None when it is more than literals and ranges, e.g. negated or ``\\w``),
    ``group`` (``items`` the group's contents), ``repeat`` (``items`` repeated ``min`` to ``max``
    times, ``lazy`` for ``*?``, ``+?``...), or ``other`` (anything else; ``name`` says what).
    """

    kind: str
    name: str = ""
    chars: frozenset[str] | None = None
    items: tuple[Node, ...] = ()
    min: int = 0
    max: int | None = UNBOUNDED
    lazy: bool = False


def _sre_items(pattern: str) -> tuple[Node, ...]:
    """``pattern`` parsed by Python's own regex parser (``re.error`` if it is not a regex)."""

    def node(op, av) -> Node:
        name = str(op)
        if name == "LITERAL":
            return Node("literal", name, frozenset(chr(av)))
        if name == "IN":
            chars: set[str] = set()
            for iop, iav in av:
                if str(iop) == "LITERAL":
                    chars.add(chr(iav))
                elif str(iop) == "RANGE":
                    chars.update(chr(c) for c in range(iav[0], iav[1] + 1))
                else:
                    return Node("set", name, None)
            return Node("set", name, frozenset(chars))
        if name == "SUBPATTERN":
            return Node("group", name, items=tuple(node(*i) for i in av[-1]))
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            low, high, body = av
            return Node("repeat", name, items=tuple(node(*i) for i in body), min=low,
                        max=UNBOUNDED if high == _parser.MAXREPEAT else high, lazy=name == "MIN_REPEAT")
        return Node("other", name)

    return tuple(node(op, av) for op, av in _parser.parse(pattern))


@functools.lru_cache(maxsize=64)  # a grammar's few terminals, asked about again and again while compiling
def parse_shape(pattern: str) -> tuple[Node, ...] | None:
    """The elements of ``pattern``, or None when it is not a regex."""
    try:
        return _sre_items(pattern)
    except re.error:
        return None


def _ungrouped(items: tuple[Node, ...]) -> tuple[Node, ...]:
    """The contents of groups that are the whole pattern: ``(?s:X)`` is X."""
    while len(items) == 1 and items[0].kind == "group":
        items = items[0].items
    return items


def first_chars(pattern: str) -> set[str] | None:
    """Characters a match of ``pattern`` can start with, or None when that is not simple to tell."""
    items = parse_shape(pattern)
    while items:
        first = items[0]
        if first.kind == "group":
            items = first.items
        elif first.kind == "repeat" and first.min >= 1:
            items = first.items
        elif first.kind in ("literal", "set"):
            return set(first.chars) if first.chars is not None else None
        else:
            return None
    return None


def continuation_chars(pattern: str) -> set[str]:
    """Characters that can extend a match of an identifier-like pattern (its trailing ``[...]*``);
    empty when the pattern does not end so."""
    items = _ungrouped(parse_shape(pattern) or ())
    last = items[-1] if items else None
    if last is None or last.kind != "repeat" or last.lazy or len(last.items) != 1 or last.items[0].kind != "set":
        return set()
    return set(last.items[0].chars or ())


def is_one_or_more(pattern: str) -> bool:
    """Is ``pattern`` one greedy repetition of at least one, like ``[ \\t\\r\\n]+`` (within groups)?"""
    items = _ungrouped(parse_shape(pattern) or ())
    return len(items) == 1 and items[0].kind == "repeat" and not items[0].lazy and items[0].min == 1
