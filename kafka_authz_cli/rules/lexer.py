"""Tokens exactly as the proxy's ANTLR lexer makes them, from the terminals of grammars/rules.lark.

ANTLR picks the longest match at each position and, on equal length, the terminal declared first.
Python's regex alternation picks the first alternative instead, so the lexer is built here from
the grammar's terminal definitions:

* terminals whose first characters no other terminal shares go into one master regex;
* a literal terminal that the IDENT-like regex matches entirely (a keyword) is retyped after the
  regex match, which is maximal munch with first-declared-wins (keywords are declared first);
* where several terminals can start with the same character (``/``: REGEX, both comments), every
  candidate is tried and the longest, earliest-declared wins.

Errors follow ANTLR's recovery: an unrecognised character is reported and skipped; an
unterminated string or regex swallows the rest of the input. After ``otherwise deny;`` exactly one
more token is read (so a recognition error there is still reported) and the rest is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lark import Lark
from lark.lexer import Lexer, Token

from kafka_authz_cli.rules.grammar import terminal_order
from kafka_authz_cli.rules.regex_shape import first_chars

_LINE_TERMINATORS = "\n\r\u0085\u2028\u2029"


@dataclass
class LexError:
    line: int
    col: int
    offset: int
    text: str

    @property
    def message(self) -> str:
        shown = self.text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
        return f"token recognition error at: '{shown}'"


@dataclass
class LexResult:
    tokens: list[Token]
    errors: list[LexError]
    #: Offset just past ``otherwise deny;`` (None when the file never reaches it).
    end_offset: int | None
    #: Where the end-of-file token stands, as ANTLR reports it.
    eof_line: int
    eof_col: int
    text: str = field(repr=False, default="")


# A delimited literal with escapes, as the grammar writes STRING and REGEX: Q(?:\\Q|\\\\|.)*?Q.
_DELIMITED = re.compile(r"\(\?s:(\\?)(.)\(\?:\\\\\1\2\|\\\\\\\\\|\.\)\*\?\1\2\)")


def accelerated(pattern: str) -> str:
    """The same terminal, matched faster where that is easy to prove.

    For a delimited literal ``Q(?:\\\\Q|\\\\\\\\|.)*?Q`` the regex engine's depth-first search first
    reads the body left to right taking ``\\Q`` and ``\\\\`` as pairs; the first Q not taken by a pair
    ends the match. So: a body without Q or backslash, then that same scan with pairs (possessive),
    are complete matches, and the only ones. Only when that scan finds no closing Q (the last Q
    was escaped) does the grammar's own lazy pattern run, and only if some Q follows at all.
    tests/rules/test_fastparse.py checks they agree on every input it generates.
    """
    m = _DELIMITED.fullmatch(pattern)
    if m is None:
        return pattern
    q = m.group(1) + m.group(2)
    c = re.escape(m.group(2))
    return (f"(?:{q}[^{c}\\\\]*{q}"
            f"|{q}(?:[^{c}\\\\]|\\\\[{c}\\\\]?)*+{q}"
            f"|(?={q}[^{c}]*{q}){pattern})")


class LexerSpec:
    """The lexer tables derived from the grammar's terminals."""

    def __init__(self, lark: Lark):
        order = terminal_order()
        defs = {t.name: t for t in lark.terminals}
        ignored = set(lark.lexer_conf.ignore)  # (a Lark loaded from cache has no .ignore_tokens)
        self.ignored = ignored
        self.literals: dict[str, str] = {}
        regexes: list[tuple[str, re.Pattern]] = []
        #: Regex text of each non-literal terminal, flags inline (what the statement compiler reads).
        self.regex_sources: dict[str, str] = {}
        for name in order:
            pattern = defs[name].pattern
            if pattern.type == "str":
                self.literals[name] = pattern.value
            else:
                self.regex_sources[name] = pattern.to_regexp()
                # Same matches as the grammar's pattern, without its per-character cost (see accelerated).
                regexes.append((name, re.compile(accelerated(self.regex_sources[name]))))
        self.declared = {name: i for i, name in enumerate(order)}
        # Keywords: literals that an identifier-like regex matches entirely; retyped after the match.
        self.keywords: dict[str, str] = {}
        self.keyword_host: str | None = None
        for lit_name, value in self.literals.items():
            for rx_name, rx in regexes:
                if rx.fullmatch(value) and self.declared[lit_name] < self.declared[rx_name]:
                    self.keywords[value] = lit_name
                    self.keyword_host = rx_name
        starts: dict[str, list[str]] = {}
        for name, rx in regexes:
            chars = first_chars(self.regex_sources[name])
            if chars is None:
                raise ValueError(f"terminal {name}: cannot tell its first characters; keep its regex simple")
            for c in chars:
                starts.setdefault(c, []).append(name)
        single = {name for name, _ in regexes}
        self.contested: dict[str, list[tuple[str, re.Pattern]]] = {}
        by_name = dict(regexes)
        for c, names in starts.items():
            lit_here = [n for n, v in self.literals.items() if v.startswith(c) and v not in self.keywords]
            if len(names) > 1 or lit_here and names:
                self.contested[c] = [(n, by_name[n]) for n in sorted(names, key=self.declared.__getitem__)]
                single.difference_update(names)
        plain_literals = [(n, v) for n, v in self.literals.items() if v not in self.keywords]
        alternatives = [f"(?P<{name}>{by_name[name].pattern})" for name, _ in regexes if name in single]
        alternatives += [f"(?P<{n}>{re.escape(v)})" for n, v in sorted(plain_literals, key=lambda t: -len(t[1]))
                         if v[0] not in self.contested]
        self.master = re.compile("|".join(alternatives))
        self.contested_literals = {c: [(n, v) for n, v in plain_literals if v.startswith(c)] for c in self.contested}


def tokenize(text: str, spec: LexerSpec, end_sequence: tuple[str, ...] = ("OTHERWISE", "DENY", "SEMI"),
             statement_end: str = "SEMI", max_statements: int | None = None,
             start: int = 0, line: int = 1, line_start: int = 0, max_tokens: int | None = None) -> LexResult:
    """Tokens of ``text`` from offset ``start`` (at ``line``, whose first character is at
    ``line_start``), positions relative to the whole text."""
    tokens: list[Token] = []
    errors: list[LexError] = []
    master_match = spec.master.match
    keywords = spec.keywords
    ignored = spec.ignored
    contested = spec.contested
    n = len(text)
    pos = start
    statement_start = 0  # index in `tokens` where the current statement began
    end_offset = None
    stop_after_next = False
    while pos < n:
        m = None if text[pos] in contested else master_match(text, pos)
        if m is not None:
            kind = m.lastgroup
            value = m.group()
            end = m.end()
            if kind == spec.keyword_host:
                kind = keywords.get(value, kind)
        else:
            kind, value, end = _longest(text, pos, spec) if text[pos] in contested else (None, "", pos)
        if kind is None:  # (never from the master regex: each of its alternatives is a named group)
            # ANTLR: an unterminated string/regex runs to the end; a stray character is skipped.
            bad_end = n if text[pos] in contested or text[pos] in '"' else pos + 1
            errors.append(LexError(line, pos - line_start, pos, text[pos:bad_end]))
            line, line_start = _advance(text, pos, bad_end, line, line_start)
            pos = bad_end
            if stop_after_next:
                break
            continue
        if kind not in ignored:
            if stop_after_next:
                break  # the one look-ahead token after `otherwise deny;` is read, then ignored
            tokens.append(Token(kind, value, pos, line, pos - line_start, end_pos=end))
            if max_tokens is not None and len(tokens) >= max_tokens:
                break
            if kind == statement_end:
                if max_statements is not None:
                    max_statements -= 1
                    if max_statements == 0:
                        break
                if len(tokens) - statement_start == len(end_sequence) and \
                        tuple(t.type for t in tokens[statement_start:]) == end_sequence:
                    end_offset = end
                    stop_after_next = True
                statement_start = len(tokens)
        if "\n" in value or "\r" in value:
            line, line_start = _advance(text, pos, end, line, line_start)
        pos = end
    eof_line = text.count("\n") + 1
    eof_col = n - (text.rfind("\n") + 1)
    return LexResult(tokens, errors, end_offset, eof_line, eof_col, text)


def _longest(text: str, pos: int, spec: LexerSpec):
    """Maximal munch among the terminals that can start with ``text[pos]``."""
    c = text[pos]
    best_kind, best_value, best_end = None, None, pos
    for name, value in spec.contested_literals.get(c, ()):
        if text.startswith(value, pos) and pos + len(value) > best_end:
            best_kind, best_value, best_end = name, value, pos + len(value)
    for name, rx in spec.contested[c]:
        m = rx.match(text, pos)
        if m is not None and m.end() > best_end:  # strictly longer: the earlier declaration wins ties
            best_kind, best_value, best_end = name, m.group(), m.end()
    return best_kind, best_value, best_end


def _advance(text: str, start: int, end: int, line: int, line_start: int) -> tuple[int, int]:
    # ANTLR counts '\n' as the line break ('\r\n' is one break, a lone '\r' is not).
    count = text.count("\n", start, end)
    if count:
        line += count
        line_start = text.rindex("\n", start, end) + 1
    return line, line_start


def unquote(text: str) -> str:
    """Java ``replaceAll("\\\\(.)", "$1")``: every backslash escapes the next character, except a
    line terminator (Java's '.' does not match one)."""
    if "\\" not in text:
        return text
    return re.sub(r"\\([^\n\r\u0085\u2028\u2029])", r"\1", text)


class ProxyLexer(Lexer):
    """Hands lark the tokens `tokenize` made (lark calls this with the LexResult as its input)."""

    def __init__(self, lexer_conf):
        pass

    def lex(self, data):  # type: ignore[override]
        return iter(data.tokens)
