"""Large rules files parsed at regex speed, with lark still the judge of the syntax.

A 100,000-rule file holds a handful of statement *shapes* (sequences of token types). The first
statement of each shape goes through the ANTLR-faithful lexer and lark's LALR parser, which also
records the AST-building calls it makes. From the shape's token types a statement regex is derived
from the grammar's own terminal patterns (whitespace between tokens, no comments); every later
statement of that shape is recognised by one regex match and its AST is built by replaying the
recorded calls with the new token values. The order of statements is checked by lark on a skeleton
(one statement per run of the same kind). Anything unusual (comments, a regex literal that could be
a comment, an error) falls back to the full parser, which reports errors exactly.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from lark import Token

from kafka_authz_cli.rules.ast import RulesFile
from kafka_authz_cli.rules.lexer import LexerSpec, tokenize

_KIND_OF_FIRST = {"FROM": "import_stmt", "DENY": "deny_rule", "ALLOW": "allow_rule", "OTHERWISE": "end_rule"}


class Fallback(Exception):
    """Use the full parser (it reports errors exactly)."""


class _Recorder:
    """Wraps the AST builder during a shape's first parse, logging each call and its arguments."""

    def __init__(self, builder, tokens: list[Token]):
        self.builder = builder
        self.token_index = {id(t): i for i, t in enumerate(tokens)}
        self.results: dict[int, int] = {}
        self.program: list[tuple[str, tuple]] = []

    def __getattr__(self, name):
        method = getattr(self.builder, name)

        def call(*args):
            refs = []
            for a in args:
                if id(a) in self.token_index:
                    refs.append(("t", self.token_index[id(a)]))
                elif id(a) in self.results:
                    refs.append(("r", self.results[id(a)]))
                else:
                    raise Fallback(f"unrecorded argument in {name}")
            result = method(*args)
            self.results[id(result)] = len(self.program)
            self.program.append((name, tuple(refs)))
            return result

        return call


class _Shape:
    __slots__ = ("kind", "types", "regex", "program", "group_of", "needed")

    def __init__(self, kind: str, types: tuple[str, ...], regex: re.Pattern, program):
        self.group_of: tuple[int, ...] = ()
        self.kind = kind
        self.types = types
        self.regex = regex
        self.program = program


def _terminal_regex(spec: LexerSpec, name: str) -> str:
    if name in spec.literals:
        lit = re.escape(spec.literals[name])
        if spec.literals[name] in spec.keywords:
            return lit + r"(?![A-Za-z0-9_])"
        return lit
    pattern = spec.master.pattern
    m = re.search(r"\(\?P<%s>(.*?)\)\|\(\?P<" % name, pattern + "|(?P<", re.S)
    if m is None:
        raise Fallback(name)
    body = m.group(1)
    if name == spec.keyword_host:
        body += r"(?![A-Za-z0-9_])"
    return body


class FastParser:
    def __init__(self, tree_lark, spec: LexerSpec, builder_cls):
        self.lark = tree_lark
        self.spec = spec
        self.builder_cls = builder_cls
        self.shapes: dict[tuple[str, ...], _Shape] = {}
        self.order: list[_Shape] = []
        self._combined: re.Pattern | None = None
        self._group_base: dict[str, tuple[_Shape, int]] = {}
        self._terminal_cache: dict[str, str] = {}
        self.builder = builder_cls()

    def _regex_for(self, types: tuple[str, ...]) -> re.Pattern:
        parts = []
        for t in types:
            if t not in self._terminal_cache:
                self._terminal_cache[t] = _terminal_regex(self.spec, t)
            # Atomic groups: like the lexer, a token's match is never revised to suit what follows.
            parts.append("[ \\t\\r\\n]*((?>" + self._terminal_cache[t] + "))")
        return re.compile("".join(parts), re.S)

    def _learn(self, tokens: list[Token]) -> _Shape:
        types = tuple(t.type for t in tokens)
        kind = _KIND_OF_FIRST.get(types[0])
        if kind is None:
            raise Fallback("statement does not start with a keyword")
        recorder = _Recorder(self.builder_cls(), tokens)
        from lark.exceptions import UnexpectedInput

        try:
            tree = self.lark.parse(_Tokens(tokens), start=kind)
        except UnexpectedInput:
            raise Fallback("statement does not parse") from None
        # Replay the reductions over the tree bottom-up through the recorder (same calls, same order).
        _replay_tree(tree, recorder)
        shape = _Shape(kind, types, self._regex_for(types), recorder.program)
        shape.group_of = tuple(i + 1 for i, t in enumerate(types) if t == "REGEX")
        # Bind each call once (lark's v_args wrappers are rebuilt on every attribute access).
        shape.program = _compile_program([(_raw_method(self.builder, name), refs) for name, refs in recorder.program])
        shape.needed = sorted({i for _, refs in recorder.program for kind, i in refs if kind == "t"})
        self.shapes[types] = shape
        self.order.insert(0, shape)
        self._rebuild()
        return shape

    def _rebuild(self) -> None:
        """One alternation of every known shape: the regex engine tries them all in C."""
        parts, base = [], {}
        group = 1
        for k, shape in enumerate(self.order):
            if shape.kind == "end_rule":
                continue
            parts.append(f"(?P<s{k}>{shape.regex.pattern})")
            base[f"s{k}"] = (shape, group)
            group += 1 + len(shape.types)
        self._combined = re.compile("|".join(parts), re.S) if parts else None
        self._group_base = base

    def parse(self, text: str) -> tuple[list, list, object, int]:
        """(imports, rules, end position, end offset) or raise Fallback."""
        spec = self.spec
        n = len(text)
        line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        ws = re.compile(r"[ \t\r\n]*")
        pos = 0
        built: list = []
        kinds: list[tuple[str, list]] = []  # (kind, tokens of the first statement of each run)
        end_offset = None
        while True:
            pos = ws.match(text, pos).end()
            if pos >= n:
                raise Fallback("no `otherwise deny;`")
            match = None
            shape = None
            offset = 0
            if text[pos] != "/" and self._combined is not None:
                match = self._combined.match(text, pos)
                if match is not None:
                    shape, offset = self._group_base[match.lastgroup]
            if shape is not None and \
                    not any(match.group(g + offset).startswith(("/*", "//")) for g in shape.group_of):
                tokens = [None] * len(shape.types)
                end = match.end()
                if text.find("\n", pos, end) < 0:
                    # One line: every token shares the line; only columns differ.
                    line = bisect_right(line_starts, pos)
                    line_start = line_starts[line - 1]
                    for i in shape.needed:
                        g = i + 1 + offset
                        start = match.start(g)
                        tok = str.__new__(Token, match.group(g))
                        tok.type = shape.types[i]
                        tok.start_pos = start
                        tok.line = line
                        tok.column = start - line_start
                        tokens[i] = tok
                else:
                    for i in shape.needed:
                        tokens[i] = _token(shape.types[i], match, i + 1 + offset, line_starts)
            else:
                lexed = tokenize(text[pos:], spec, max_statements=1)
                if lexed.errors:
                    raise Fallback("lexer error")
                stmt = []
                for t in lexed.tokens:
                    stmt.append(t)
                    if t.type == "SEMI":
                        break
                if not stmt or stmt[-1].type != "SEMI":
                    raise Fallback("unterminated statement")
                tokens = [_shift(t, pos, line_starts) for t in stmt]
                types = tuple(t.type for t in tokens)
                shape = self.shapes.get(types)
                if shape is None:
                    shape = self._learn(tokens)
                end = pos + stmt[-1].end_pos
                if shape.kind == "end_rule":
                    # The proxy's lexer reads one more token: an error there still fails the file.
                    rest = tokenize(text[end:], spec, max_statements=1)
                    if rest.errors and (not rest.tokens or rest.errors[0].offset < rest.tokens[0].start_pos):
                        raise Fallback("lexer error right after otherwise deny;")
            node = _run(shape.program, tokens)
            if not kinds or kinds[-1][0] != shape.kind:
                if None in tokens:  # the skeleton needs every token, punctuation included
                    tokens = [_token(shape.types[i], match, i + 1 + offset, line_starts)
                              for i in range(len(shape.types))]
                kinds.append((shape.kind, tokens))
            built.append((shape.kind, node))
            pos = end
            if shape.kind == "end_rule":
                end_offset = end
                break
        # The order of statements, judged by lark on one statement per run.
        skeleton = [t for _, toks in kinds for t in toks]
        try:
            self.lark.parse(_Tokens(skeleton), start="start")
        except Exception:
            raise Fallback("statement order") from None
        imports = [node for kind, node in built if kind == "import_stmt"]
        rules = [node for kind, node in built if kind in ("deny_rule", "allow_rule")]
        end_pos = built[-1][1]
        return imports, rules, end_pos, end_offset


class _Tokens:
    """Lets lark's parser take a prepared token list (see ProxyLexer)."""

    __slots__ = ("tokens",)

    def __init__(self, tokens):
        self.tokens = tokens


def _token(kind: str, match: re.Match, group: int, line_starts: list[int]) -> Token:
    start = match.start(group)
    line = bisect_right(line_starts, start)
    # Token's own constructor handles deprecated arguments; set the fields directly.
    value = match.group(group)
    tok = str.__new__(Token, value)
    tok.type = kind
    tok.value = value
    tok.start_pos = start
    tok.line = line
    tok.column = start - line_starts[line - 1]
    tok.end_pos = match.end(group)
    return tok


def _shift(token: Token, base: int, line_starts: list[int]) -> Token:
    start = token.start_pos + base
    line = bisect_right(line_starts, start)
    return Token(token.type, str(token), start, line, start - line_starts[line - 1], end_pos=token.end_pos + base)


def _raw_method(builder, name: str):
    """The builder's method without lark's per-access v_args wrapper."""
    from functools import partial

    attr = getattr(type(builder), name)
    base = getattr(attr, "base_func", None)
    return partial(base, builder) if base is not None else getattr(builder, name)


def _compile_program(program):
    """Turn a recorded call list into one Python function (no per-statement interpretation)."""
    lines = ["def build(t):"]
    env = {}
    for n, (method, refs) in enumerate(program):
        env[f"f{n}"] = method
        args = ", ".join(f"t[{i}]" if kind == "t" else f"r{i}" for kind, i in refs)
        lines.append(f"    r{n} = f{n}({args})")
    lines.append(f"    return r{len(program) - 1}")
    exec("\n".join(lines), env)  # noqa: S102 - code built from our own call log, no input text
    return env["build"]


def _run(program, tokens):
    return program(tokens)


def _replay_tree(tree, recorder) -> object:
    from lark import Tree

    args = []
    for child in tree.children:
        args.append(_replay_tree(child, recorder) if isinstance(child, Tree) else child)
    return getattr(recorder, tree.data)(*args)
