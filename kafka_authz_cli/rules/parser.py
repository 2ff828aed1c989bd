"""Parse rules files with the lark grammar, building the typed AST during the parse (LALR).

Syntax errors are reported as the proxy does: every lexer error, and the first parser error, at
ANTLR's line and column, with ANTLR-style wording (`extraneous input`, `missing`, `mismatched
input`). The proxy refuses a file with any syntax error before it checks anything else.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from kafka_authz_cli.formats.bulk import paused_gc
from kafka_authz_cli.rules.ast import Import, ImportItem, Name, NamePredicate, Pos, Rule, RulesFile
from kafka_authz_cli.rules.grammar import grammar_text
from kafka_authz_cli.rules.lexer import LexerSpec, LexResult, ProxyLexer, tokenize
from kafka_authz_cli.rules.parser_cache import lark_cache

# How ANTLR shows each terminal in "expecting" sets (literals quoted, named tokens bare), in
# the proxy's token numbering order.
_DISPLAY_ORDER = ["SEMI", "DOT", "COMMA", "STAR", "EQUALS", "LBRACE", "RBRACE", "DENY", "ALLOW", "OTHERWISE",
                  "IN", "TO", "AS", "LIKE", "MATCHING", "FROM", "IMPORT", "NAME", "WITH", "STRING", "REGEX", "IDENT"]


@dataclass
class SyntaxProblem:
    line: int
    col: int
    message: str
    offset: int = 0

    def __str__(self) -> str:
        return f"{self.line}:{self.col}: {self.message}"


class RulesSyntaxError(Exception):
    def __init__(self, problems: list[SyntaxProblem]):
        self.problems = problems
        super().__init__(f"Found {len(problems)} syntax errors\n" + "\n".join(f"{p}." if not p.message.endswith(".")
                                                                              else str(p) for p in problems))


_tuple_new = tuple.__new__


def _pos(token: Token) -> Pos:
    # tuple.__new__ skips the NamedTuple's Python-level constructor: this runs once per token.
    return _tuple_new(Pos, (token.line, token.column, token.start_pos))


@v_args(inline=True)
class _AstBuilder(Transformer):
    """Runs inside the LALR parser: each rule's node is built as soon as it is reduced."""

    def ident(self, token):
        return _tuple_new(Name, (str(token), _tuple_new(Pos, (token.line, token.column, token.start_pos))))

    def qualified_name(self, *names):
        return tuple(names)

    def import_item(self, class_name, alias=None):
        return ImportItem(class_name, alias)

    def import_stmt(self, from_kw, package, *items):
        return Import(package, items, _pos(from_kw))

    def name_equals(self, string):
        pos = _pos(string)
        return NamePredicate("equals", (string[1:-1],), pos, None, (pos,))

    def name_in(self, *strings):
        positions = tuple(map(_pos, strings))
        return NamePredicate("in", tuple([s[1:-1] for s in strings]), positions[0], None, positions)

    def name_like(self, string):
        pos = _pos(string)
        return NamePredicate("like", (string[1:-1],), pos, None, (pos,))

    def name_any(self, star):
        return NamePredicate("any", (), _pos(star))

    def name_matching(self, kw, regex):
        return NamePredicate("matching", (regex[1:-1],), _pos(regex), _pos(kw), (_pos(regex),))

    def all_operations(self, star):
        return (None, _pos(star))

    def one_operation(self, name):
        return ((name,), name.pos)

    def operation_set(self, *names):
        return (names, names[0].pos)

    def deny_rule(self, kw, ptype, principal, operations, rtype, resource):
        return Rule("deny", ptype, principal, operations[0], operations[1], rtype, resource, _pos(kw))

    def allow_rule(self, kw, ptype, principal, operations, rtype, resource):
        return Rule("allow", ptype, principal, operations[0], operations[1], rtype, resource, _pos(kw))

    def end_rule(self, kw):
        return _pos(kw)

    def start(self, *items):
        imports = [i for i in items if isinstance(i, Import)]
        rules = [i for i in items if isinstance(i, Rule)]
        end = items[-1] if items and isinstance(items[-1], Pos) else None
        return imports, rules, end


@functools.lru_cache(maxsize=1)
def _fast_parser():
    from kafka_authz_cli.rules.fastparse import FastParser

    lark, spec = _parser()
    return FastParser(lark, spec, _AstBuilder)


@functools.lru_cache(maxsize=1)
def _parser() -> tuple[Lark, LexerSpec]:
    """One LALR parser for the whole file and for single statements, and the lexer tables from its
    terminals. Its tables are cached per user (kafka_authz_cli/rules/parser_cache.py): building them dominates a
    small file's start-up."""
    lark = Lark(grammar_text(), parser="lalr", lexer=ProxyLexer, transformer=_AstBuilder(),
                start=["start", "import_stmt", "deny_rule", "allow_rule", "end_rule"],
                maybe_placeholders=False, propagate_positions=False, cache=lark_cache("rules"))
    return lark, LexerSpec(lark)


def _display(terminal: str, value: str | None = None) -> str:
    literal = {"SEMI": ";", "DOT": ".", "COMMA": ",", "STAR": "*", "EQUALS": "=", "LBRACE": "{", "RBRACE": "}"}
    if terminal in literal:
        return f"'{literal[terminal]}'"
    if terminal in ("STRING", "REGEX", "IDENT"):
        return terminal
    if terminal == "$END":
        return "<EOF>"
    return f"'{terminal.lower()}'"


def _expecting(names) -> str:
    ordered = [n for n in _DISPLAY_ORDER if n in names]
    shown = [_display(n) for n in ordered]
    return shown[0] if len(shown) == 1 else "{" + ", ".join(shown) + "}"


def _shown(token: Token | None) -> str:
    if token is None or token.type == "$END":
        return "<EOF>"
    return str(token).replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def _describe(error: UnexpectedInput, lexed: LexResult) -> SyntaxProblem:
    """ANTLR's wording for the first parser error: a token to delete, a token to insert, or neither."""
    token = getattr(error, "token", None)
    expected = set(getattr(error, "expected", ()) or getattr(error, "accepts", ()) or ())
    expected.discard("$END")
    if token is None or token.type == "$END":
        line, col, offset = lexed.eof_line, lexed.eof_col, len(lexed.text)
    else:
        line, col, offset = token.line, token.column, token.start_pos
    ip = getattr(error, "interactive_parser", None)
    tokens = lexed.tokens
    if token is None or token.type == "$END":
        index = len(tokens)
    else:
        index = next((i for i, t in enumerate(tokens) if t.start_pos == token.start_pos), len(tokens))
    shown = f"'{_shown(token)}'"
    if index > 0 and tokens[index - 1].type == "SEMI":
        # Between statements ANTLR is in a `stmt*` loop it has already gone round: it always
        # reports the token as extraneous.
        return SyntaxProblem(line, col, f"extraneous input {shown} expecting {_expecting(expected)}", offset)
    if ip is not None and token is not None and token.type != "$END":
        nxt = tokens[index + 1] if index + 1 < len(tokens) else Token("$END", "")
        # Single-token deletion: the token after the offending one fits.
        if nxt.type in ip.accepts():
            return SyntaxProblem(line, col, f"extraneous input {shown} expecting {_expecting(expected)}", offset)
        if index > 0:
            # Single-token insertion: one expected token would let the offending one through.
            for candidate in sorted(expected, key=lambda n: _DISPLAY_ORDER.index(n) if n in _DISPLAY_ORDER else 99):
                trial = ip.copy()
                try:
                    trial.feed_token(Token(candidate, ""))
                    if token.type in trial.accepts():
                        return SyntaxProblem(line, col, f"missing {_display(candidate)} at {shown}", offset)
                except UnexpectedInput:
                    continue
    return SyntaxProblem(line, col, f"mismatched input {shown} expecting {_expecting(expected)}", offset)


def parse_rules(text: str, path: str = "<rules>", fast: bool = True) -> RulesFile:
    # Big rules files make millions of small acyclic objects: the one GC pause of the package
    # (formats.bulk) keeps the cyclic collector from walking them again and again while they are built.
    with paused_gc():
        return _parse_rules(text, path, fast)


def _parse_rules(text: str, path: str, fast: bool) -> RulesFile:
    """Parse a rules file; raises :class:`RulesSyntaxError` as the proxy would refuse it.

    ``fast`` parses statement by statement with regexes compiled from the grammar (see fastparse);
    a file with any error goes through the full lexer and LALR parser, which report it exactly.
    """
    from kafka_authz_cli.rules.fastparse import STATS, Fallback

    if fast:
        try:
            (imports, rules, end), end_offset = _fast_parser().parse(text)
        except Fallback:
            pass
        else:
            return _rules_file(text, path, imports, rules, end, end_offset)
    STATS["full_parses"] += 1
    lark, spec = _parser()
    lexed = tokenize(text, spec)
    problems = [SyntaxProblem(e.line, e.col, e.message, e.offset) for e in lexed.errors]
    result: Any = None  # the transformer's (imports, rules, end): lark types parse() as returning a Tree
    try:
        result = lark.parse(lexed, start="start")
    except (UnexpectedToken, UnexpectedEOF) as exc:
        problems.append(_describe(exc, lexed))
    except UnexpectedCharacters as exc:  # pragma: no cover - the lexer reports these itself
        problems.append(SyntaxProblem(exc.line, exc.column, str(exc)))
    if problems:
        problems.sort(key=lambda p: p.offset)
        raise RulesSyntaxError(problems)
    imports, rules, end = result
    return _rules_file(text, path, imports, rules, end, lexed.end_offset)


def _rules_file(text, path, imports, rules, end, end_offset) -> RulesFile:
    trailing = text[end_offset:] if end_offset is not None else ""
    trailing_pos = None
    if end_offset is not None:
        before = text[:end_offset]
        trailing_pos = Pos(before.count("\n") + 1, end_offset - (before.rfind("\n") + 1), end_offset)
    return RulesFile(imports, rules, end, path, trailing, trailing_pos, text)
