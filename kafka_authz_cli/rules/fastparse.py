"""Rules files parsed at regex speed by a recognizer compiled from grammars/rules.lark.

Each statement of the rules language is regular (the grammar's only repetition is ``x*``, and no
rule is recursive), so every statement rule of the lark grammar compiles into one regular
expression, once per process:

* a terminal becomes its own pattern from the grammar, inside an atomic group (the lexer never
  gives back characters to suit the next token); keywords are the literals the identifier pattern
  matches whole, so they carry a "no identifier character follows" guard and the identifier pattern
  excludes them, which is the lexer's maximal munch with first-declared-wins;
* between tokens goes the grammar's ignored whitespace (atomic: the lexer takes it all);
* a rule's alternatives become an alternation, ``x*`` a repetition.

The same walk of the grammar writes a Python builder for each statement rule that hands the
matched tokens to the transformer lark itself uses (parser._AstBuilder), in the shape lark's tree
would have (filtered anonymous tokens, inlined ``_``/``__`` rules, aliases). A repetition is
captured as one span and walked element by element with the element's own regex, so a set of
200,000 names costs 200,000 small matches, not a regex per shape.

Cost is one regex match per statement plus the builder's calls: linear in the file whatever the
mix of statement shapes; nothing is learned or compiled per file (``STATS`` counts both, and a
test holds them at zero).

Exactness is kept by handing anything unusual to the real lexer and lark's LALR parser:

* a token whose first character several terminals share (``/``: REGEX or a comment) is re-lexed by
  the lexer's own maximal munch, and the statement takes the slow path if that disagrees;
* a statement the regex does not match (a comment inside it, say) is lexed by the ANTLR-faithful
  lexer and parsed by lark, for that statement only;
* the order of statements is checked against ``start`` compiled to a regex over statement kinds;
* any lexer or parser error at all: the whole file goes to the full parser, which reports errors
  exactly as the proxy does.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from types import MethodType

from lark import Token
from lark.exceptions import UnexpectedInput

from kafka_authz_cli.rules.lexer import LexerSpec, _longest, accelerated, tokenize
from kafka_authz_cli.rules.regex_shape import continuation_chars, first_chars, is_one_or_more

#: Work done per parse that must not grow with the file's variety (tests/rules/test_fastparse.py holds them at zero).
STATS = {"regex_compiles": 0, "statement_lark_parses": 0, "full_parses": 0, "statements": 0}


class Fallback(Exception):
    """Use the full parser (it reports errors exactly)."""


class _Slow(Exception):
    """This statement goes through the lexer and lark."""


class GrammarNotRegular(Exception):
    """The grammar uses something the statement compiler does not translate (caught by the tests)."""


class _Tokens:
    """Lets lark's parser take a prepared token list (see lexer.ProxyLexer)."""

    __slots__ = ("tokens",)

    def __init__(self, tokens):
        self.tokens = tokens


def _char_class(chars: set[str]) -> str:
    return "[" + "".join(re.escape(c) for c in sorted(chars)) + "]"


def _continuation_chars(pattern: str) -> set[str]:
    """Characters that can extend a match of an identifier-like pattern (its trailing ``[...]*``)."""
    chars = continuation_chars(pattern)
    if not chars:
        raise GrammarNotRegular(f"cannot tell which characters continue {pattern!r}")
    return chars


def _gap_regex(patterns: list[str]) -> str:
    """Any run of the ignored terminals no other terminal competes with, taken whole (atomic)."""
    if len(patterns) == 1 and is_one_or_more(patterns[0]):
        # `[ \t\r\n]+` repeated is `[ \t\r\n]*`, possessive: the same text, without the nested loop.
        inner = re.sub(r"^\(\?[a-z]*:(.*)\)$", r"\1", patterns[0], flags=re.S)
        if inner.endswith("+") and not inner.endswith("\\+"):
            return "(?:" + inner[:-1] + "*+)"
    return "(?>(?:" + "|".join(patterns) + ")*)"


class _Counter:
    def __init__(self):
        self.groups = 0
        self.names = 0

    def group(self) -> int:
        self.groups += 1
        return self.groups

    def name(self, prefix: str) -> str:
        self.names += 1
        return f"{prefix}{self.names}"


class StatementCompiler:
    """Translates the lark grammar's statement rules into regexes and AST builders."""

    def __init__(self, lark, spec: LexerSpec, builder, start: str = "start"):
        self.spec = spec
        self.rules: dict[str, list] = defaultdict(list)
        for rule in lark.rules:
            if rule.options.keep_all_tokens or getattr(rule.options, "template_source", None):
                raise GrammarNotRegular(f"rule {rule.origin.name}: !rule and templates are not compiled")
            self.rules[rule.origin.name].append(rule)
        self.builder = builder
        self.env: dict[str, object] = {"Token": Token, "_new": str.__new__, "_Slow": _Slow, "_bisect": bisect_right,
                                       "_classify": spec.keywords.get, "_HOST": spec.keyword_host}
        self.names = _Counter()
        literals = spec.literals
        plain = [v for v in literals.values() if v not in spec.keywords]
        for a in plain:
            for b in plain:
                if a != b and b.startswith(a):
                    raise GrammarNotRegular(f"literal {a!r} is a prefix of {b!r}: needs maximal munch among literals")
        host = spec.keyword_host
        self.keyword_guard = ""
        if host is not None:
            self.keyword_guard = "(?!" + _char_class(_continuation_chars(spec.regex_sources[host])) + ")"
        self.all_keyword_names = frozenset(spec.keywords.values())
        self._regex_cache: dict[str, str] = {}
        self.gap = _gap_regex([spec.regex_sources[n] for n in sorted(spec.ignored) if not self._is_contested(n)])
        self.start = start
        self.kinds, self.final_kinds, self.start_regex = self._statement_kinds(start)

    # -- terminals ------------------------------------------------------------------------------

    def _is_contested(self, name: str) -> bool:
        spec = self.spec
        if name in spec.literals:
            return spec.literals[name][0] in spec.contested
        chars = first_chars(spec.regex_sources[name])
        return chars is None or bool(chars & set(spec.contested))

    def terminal(self, name: str) -> str:
        """Regex text for one token of terminal ``name``, as the lexer would cut it."""
        spec = self.spec
        if name in spec.literals:
            value = spec.literals[name]
            return re.escape(value) + (self.keyword_guard if value in spec.keywords else "")
        body = spec.regex_sources[name]
        if re.compile(body).groups:
            raise GrammarNotRegular(f"terminal {name} has capturing groups")
        body = accelerated(body)
        if name == spec.keyword_host and spec.keywords:
            words = "|".join(re.escape(k) for k in sorted(spec.keywords, key=len, reverse=True))
            body = f"(?!(?:{words}){self.keyword_guard}){body}"
        return f"(?>{body})"

    def _terminal_union(self, names: list[str]) -> str:
        host = self.spec.keyword_host
        if host in names and set(names) - {host} == self.all_keyword_names:
            # An identifier or any keyword: exactly the identifier pattern.
            return f"(?>{self.spec.regex_sources[host]})"
        return "(?:" + "|".join(self.terminal(n) for n in names) + ")"

    # -- grammar shapes ---------------------------------------------------------------------------

    def _star_element(self, name: str):
        """For lark's ``__x_star_N: X | __x_star_N X``: the symbols of X (else None)."""
        expansions = self.rules.get(name, [])
        if not name.startswith("_") or len(expansions) != 2:
            return None
        a, b = sorted((r.expansion for r in expansions), key=len)
        if b and not b[0].is_term and b[0].name == name and list(b[1:]) == list(a):
            return list(a)
        return None

    def _single_terminals(self, name: str) -> list[str] | None:
        expansions = self.rules[name]
        if len(expansions) > 1 and all(len(r.expansion) == 1 and r.expansion[0].is_term and r.alias is None
                                       for r in expansions):
            return [r.expansion[0].name for r in expansions]
        return None

    def regex(self, symbol) -> str:
        """Regex text for a symbol, without capturing groups (used inside repetitions)."""
        if symbol.is_term:
            return self.gap + self.terminal(symbol.name)
        name = symbol.name
        if name in self._regex_cache:
            return self._regex_cache[name]
        element = self._star_element(name)
        if element is not None:
            out = "(?:" + "".join(self.regex(s) for s in element) + ")+"
        elif (single := self._single_terminals(name)) is not None:
            out = self.gap + self._terminal_union(single)
        else:
            alts = ["".join(self.regex(s) for s in r.expansion) for r in self.rules[name]]
            out = alts[0] if len(alts) == 1 else "(?:" + "|".join(f"(?:{a})" for a in alts) + ")"
        self._regex_cache[name] = out
        return out

    def _check_not_recursive(self, name: str, stack: tuple = ()) -> None:
        if name in stack:
            raise GrammarNotRegular(f"rule {name} is recursive")
        if self._star_element(name) is not None:
            children = self._star_element(name)
        else:
            children = [s for r in self.rules[name] for s in r.expansion]
        for s in children:
            if not s.is_term:
                self._check_not_recursive(s.name, stack + (name,))

    # -- code generation --------------------------------------------------------------------------

    def _method(self, name: str) -> str:
        key = f"f_{name}"
        if key not in self.env:
            attr = getattr(type(self.builder), name)
            base = getattr(attr, "base_func", None)  # lark's v_args wrapper, unwrapped
            self.env[key] = MethodType(base, self.builder) if base is not None else getattr(self.builder, name)
        return key

    def _emit_token(self, kind: str | None, m: str, g: int, lines: list[str], ind: str) -> str:
        """Lines that make the lark Token of group ``g`` (the type from the lexer's keyword table when
        ``kind`` is None); ``@POS`` becomes line/column code for one-line or multi-line statements."""
        t, s = self.names.name("t"), self.names.name("s")
        lines.append(f"{ind}{t} = _new(Token, {m}.group({g})); {t}.start_pos = {s} = {m}.start({g})")
        lines.append(f"{ind}{t}.type = " + (kind if kind is not None else f"_classify({t}, _HOST)"))
        lines.append(f"{ind}@POS {t} {s}")
        return t

    def _emit_sequence(self, symbols, counter: _Counter, m: str, lines: list[str], ind: str) -> tuple[str, list[str]]:
        regex, args = [], []
        for s in symbols:
            if s.is_term:
                contested = self._is_contested(s.name)
                if s.filter_out and not contested:
                    regex.append(self.gap + self.terminal(s.name))
                    continue
                g = counter.group()
                regex.append(f"{self.gap}({self.terminal(s.name)})")
                if contested:
                    lines.append(f"{ind}verify({s.name!r}, {m}, {g})")
                if not s.filter_out:
                    args.append(self._emit_token(repr(s.name), m, g, lines, ind))
            else:
                r, expr, splice = self._emit_nt(s.name, counter, m, lines, ind)
                regex.append(r)
                if splice == "args":
                    args.extend(expr)
                elif expr is not None:
                    args.append(("*" if splice else "") + expr)
        return "".join(regex), args

    def _emit_nt(self, name: str, counter: _Counter, m: str, lines: list[str], ind: str):
        """(regex with groups, expression for the node, whether to splice it into the parent)."""
        element = self._star_element(name)
        if element is not None:
            return self._emit_star(name, element, counter, m, lines, ind)
        single = self._single_terminals(name)
        var = self.names.name("v")
        g: int | None  # None: the expansion is the rule's only one, without a group of its own
        if single is not None:
            g = counter.group()
            token = self._emit_token(None, m, g, lines, ind)
            lines.append(f"{ind}{var} = {self._method(name)}({token})")
            return f"{self.gap}({self._terminal_union(single)})", var, False
        expansions = self.rules[name]
        inline = name.startswith("_")
        if inline and len(expansions) == 1:
            # An inlined rule with one expansion: its children go straight into the parent's call.
            regex, args = self._emit_sequence(expansions[0].expansion, counter, m, lines, ind)
            return regex, args, "args"
        alts = []
        for i, rule in enumerate(expansions):
            if len(expansions) > 1:
                g = counter.group()
                keyword = "if" if i == 0 else "elif"
                if i == len(expansions) - 1:
                    lines.append(f"{ind}else:")
                else:
                    lines.append(f"{ind}{keyword} {m}.start({g}) >= 0:")
                body_ind = ind + "    "
            else:
                g, body_ind = None, ind
            regex, args = self._emit_sequence(rule.expansion, counter, m, lines, body_ind)
            if rule.options.expand1 and len(args) == 1 and not args[0].startswith("*"):
                lines.append(f"{body_ind}{var} = {args[0]}")  # ?rule with one child: the child itself
            elif inline:
                lines.append(f"{body_ind}{var} = [{', '.join(args)}]")
            else:
                method = self._method(rule.alias or name)
                lines.append(f"{body_ind}{var} = {method}({', '.join(args)})")
            alts.append(f"({regex})" if g is not None else regex)
        regex = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return regex, var, inline

    def _emit_star(self, name: str, element, counter: _Counter, m: str, lines: list[str], ind: str):
        g = counter.group()
        span_regex = f"((?:{''.join(self.regex(s) for s in element)})+)"
        # The element on its own, with groups of its own, walked over the captured span.
        sub = _Counter()
        sub_lines: list[str] = []
        mm = self.names.name("m")
        elem_regex, args = self._emit_sequence(element, sub, mm, sub_lines, ind + "    ")
        rx = self.names.name("rx")
        self.env[rx] = re.compile(elem_regex).match
        STATS["regex_compiles"] += 1
        out, p, e = self.names.name("l"), self.names.name("p"), self.names.name("e")
        lines.append(f"{ind}{out} = []")
        lines.append(f"{ind}{p}, {e} = {m}.span({g})")
        lines.append(f"{ind}while {p} < {e}:")
        lines.append(f"{ind}    {mm} = {rx}(text, {p})")
        lines.append(f"{ind}    if {mm} is None or {mm}.end() > {e}:")
        lines.append(f"{ind}        raise _Slow()")
        lines.extend(sub_lines)
        lines.append(f"{ind}    {out}.extend(({', '.join(args)},))" if args else f"{ind}    pass")
        lines.append(f"{ind}    {p} = {mm}.end()")
        return span_regex, out, True

    def statement_parsers(self) -> dict[str, tuple]:
        """{statement kind: (its regex's match, one-line builder, builder)}.

        One regex per kind, groups numbered from 1: the regex engine saves the groups set so far at
        every step of a lazy repetition, so fewer groups keep a long string literal cheap.
        """
        parsers = {}
        for kind in self.kinds:
            self._check_not_recursive(kind)
            counter = _Counter()
            lines: list[str] = []
            regex, expr, splice = self._emit_nt(kind, counter, "m", lines, "    ")
            if splice:
                raise GrammarNotRegular(f"statement rule {kind} must not be inlined")
            body = "\n".join(lines)
            variants = []
            for pos_code in ("{t}.line = line; {t}.column = {s} - line_start",
                             "ln = _bisect(line_starts, {s}); {t}.line = ln; {t}.column = {s} - line_starts[ln - 1]"):
                fname = self.names.name("build_")
                code = re.sub(r"@POS (\w+) (\w+)", lambda mo: pos_code.format(t=mo.group(1), s=mo.group(2)), body)
                source = (f"def {fname}(m, text, line, line_start, line_starts, verify):\n{code}\n"
                          f"    return {expr}\n")
                exec(source, self.env)  # noqa: S102 - code written from the grammar, not from input text
                variants.append(self.env[fname])
            # One builder for statements on one line (every token shares the line), one for the rest.
            parsers[kind] = (re.compile(regex).match, variants[0], variants[1])
            STATS["regex_compiles"] += 1
        return parsers

    # -- the file level ---------------------------------------------------------------------------

    def _statement_kinds(self, start: str):
        """Statement rules, the ones that end a file, and ``start`` as a regex over kind letters."""
        kinds: list[str] = []

        def leaves(sym_name):
            element = self._star_element(sym_name)
            if element is not None:
                for s in element:
                    yield from leaves(s.name)
            else:
                yield sym_name

        finals = set()
        for rule in self.rules[start]:
            for s in rule.expansion:
                if s.is_term:
                    raise GrammarNotRegular("start must be made of statement rules")
                for leaf in leaves(s.name):
                    if leaf not in kinds:
                        kinds.append(leaf)
            last = rule.expansion[-1]
            if self._star_element(last.name) is not None:
                raise GrammarNotRegular("start must end with one statement")
            finals.add(last.name)
        letters = {k: chr(ord("a") + i) for i, k in enumerate(kinds)}

        def kind_regex(sym_name) -> str:
            element = self._star_element(sym_name)
            if element is not None:
                return "(?:" + "".join(kind_regex(s.name) for s in element) + ")+"
            return letters[sym_name]

        alts = ["".join(kind_regex(s.name) for s in rule.expansion) for rule in self.rules[start]]
        self.letters = letters
        return kinds, finals, re.compile("|".join(f"(?:{a})" for a in alts))

    def first_terminals(self, name: str, seen: frozenset = frozenset()) -> set[str]:
        if name in seen:
            return set()
        out: set[str] = set()
        element = self._star_element(name)
        expansions = [element] if element is not None else [r.expansion for r in self.rules[name]]
        for symbols in expansions:
            if not symbols:
                continue
            s = symbols[0]
            out |= {s.name} if s.is_term else self.first_terminals(s.name, seen | {name})
        return out


class FastParser:
    """Parses a whole rules file with the compiled statement regexes (see the module docstring)."""

    def __init__(self, statement_lark, spec: LexerSpec, builder_cls, statement_end: str = "SEMI"):
        self.lark = statement_lark  # LALR with the AST builder, one start symbol per statement kind
        self.spec = spec
        self.builder = builder_cls()
        compiler = StatementCompiler(statement_lark, spec, self.builder)
        self.kinds = compiler.kinds
        self.letters = compiler.letters
        self.final_kinds = compiler.final_kinds
        self.start_regex = compiler.start_regex
        self.start_method = self.builder_method(compiler, compiler.start)
        self.parsers = compiler.statement_parsers()
        self.kind_of_first: dict[str | None, list[str]] = defaultdict(list)
        for kind in self.kinds:
            for t in compiler.first_terminals(kind):
                self.kind_of_first[t].append(kind)
        self.statement_end = statement_end
        self.gap = re.compile(compiler.gap)
        self.classify = self._classifier()

    @staticmethod
    def builder_method(compiler: StatementCompiler, name: str):
        return compiler.env[compiler._method(name)]

    def _classifier(self):
        spec = self.spec
        keywords, host = spec.keywords, spec.keyword_host

        def classify(value: str) -> str | None:
            return keywords.get(value, host)

        return classify

    def parse(self, text: str):
        """(result of the grammar's start rule, offset just past the final statement), or Fallback."""
        spec = self.spec
        n = len(text)
        line_starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            line_starts.append(i + 1)
            i = find("\n", i + 1)
        def verify(kind, match, g):
            got, _value, end = _longest(text, match.start(g), spec)
            if got != kind or end != match.end(g):
                raise _Slow()

        parsers = self.parsers
        kinds_of_first = self.kind_of_first
        first_token = self.spec.master.match
        keywords = self.spec.keywords
        host = self.spec.keyword_host
        letters = self.letters
        finals = self.final_kinds
        skip = self._skip
        nodes: list = []
        kinds: list[str] = []
        pos = 0
        while True:
            pos = skip(text, pos, n)
            if pos >= n:
                raise Fallback("no final statement")
            node = None
            first = first_token(text, pos)
            if first is not None:
                ftype = first.lastgroup
                if ftype == host:
                    ftype = keywords.get(first.group(), ftype)
                for kind in kinds_of_first.get(ftype, ()):
                    match, one_line, multi_line = parsers[kind]
                    m = match(text, pos)
                    if m is None:
                        continue
                    end = m.end()
                    line = bisect_right(line_starts, pos)
                    build = one_line if find("\n", pos, end) < 0 else multi_line
                    try:
                        node = build(m, text, line, line_starts[line - 1], line_starts, verify)
                    except _Slow:
                        node = None
                    break
            if node is None:
                kind, node, end = self._slow_statement(text, pos, line_starts)
            nodes.append(node)
            kinds.append(letters[kind])
            pos = end
            if kind in finals:
                self._check_lookahead(text, end, line_starts)
                break
        STATS["statements"] += len(nodes)
        if self.start_regex.fullmatch("".join(kinds)) is None:
            raise Fallback("statement order")
        return self.start_method(*nodes), pos

    def _skip(self, text: str, pos: int, n: int) -> int:
        """Past whitespace and comments, exactly as the lexer skips them."""
        gap = self.gap.match
        contested = self.spec.contested
        ignored = self.spec.ignored
        while pos < n:
            skipped = gap(text, pos)
            assert skipped is not None  # the gap regex matches the empty string too
            pos = skipped.end()
            if pos < n and text[pos] in contested:
                kind, _value, end = _longest(text, pos, self.spec)
                if kind in ignored:
                    pos = end
                    continue
            break
        return pos

    def _check_lookahead(self, text: str, end: int, line_starts: list[int]) -> None:
        # The proxy's lexer reads one more token after the final statement: an error there still
        # fails the file.
        line = bisect_right(line_starts, end)
        rest = tokenize(text, self.spec, max_statements=1, start=end, line=line, line_start=line_starts[line - 1],
                        max_tokens=1)
        first = rest.tokens[0].start_pos if rest.tokens else None
        if rest.errors and (first is None or rest.errors[0].offset < first):
            raise Fallback("lexer error right after the final statement")

    def _slow_statement(self, text: str, pos: int, line_starts: list[int]):
        line = bisect_right(line_starts, pos)
        lexed = tokenize(text, self.spec, max_statements=1, start=pos, line=line, line_start=line_starts[line - 1])
        if lexed.errors:
            raise Fallback("lexer error")
        tokens = lexed.tokens
        if not tokens or tokens[-1].type != self.statement_end:
            raise Fallback("unterminated statement")
        for kind in self.kind_of_first.get(tokens[0].type, ()):
            STATS["statement_lark_parses"] += 1
            try:
                node = self.lark.parse(_Tokens(tokens), start=kind)
            except UnexpectedInput:
                continue
            return kind, node, tokens[-1].end_pos
        raise Fallback("statement does not parse")
