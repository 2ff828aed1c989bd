"""The statement compiler (rules/fastparse.py) against the lexer + lark LALR path it accelerates.

Whatever the input, the fast path must give the same AST (every position included) or the same
syntax errors as the full parser; its terminal accelerators must match what the grammar's own
patterns match; and its work must not grow with the variety of a file (counted, not timed).
"""

from __future__ import annotations

import re
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.rules import fastparse
from kafka_authz_cli.rules.fastparse import accelerated
from kafka_authz_cli.rules.parser import RulesSyntaxError, _parser, parse_rules
from tests.bench.gen_rules import generate_varied


def outcome(text: str, fast: bool):
    try:
        return parse_rules(text, "f.acl", fast=fast)
    except RulesSyntaxError as exc:
        return ("syntax error", str(exc))


def assert_same(text: str) -> None:
    assert outcome(text, True) == outcome(text, False)


@contextmanager
def deadline(seconds: int):
    """Fail instead of hanging (the inputs below must finish in a few seconds)."""
    def expired(signum, frame):
        raise AssertionError(f"took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# -- terminal accelerators ---------------------------------------------------------------------------

def _grammar_patterns():
    _lark, spec = _parser()
    return {name: spec.regex_sources[name] for name in ("STRING", "REGEX")}


@pytest.mark.parametrize("name", ["STRING", "REGEX"])
def test_accelerated_terminals_are_recognised(name):
    pattern = _grammar_patterns()[name]
    assert accelerated(pattern) != pattern


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet='"/\\ab*\n', max_size=14), st.sampled_from(["STRING", "REGEX"]))
def test_accelerated_terminal_matches_exactly_what_the_grammar_pattern_matches(text, name):
    pattern = _grammar_patterns()[name]
    delimiter = '"' if name == "STRING" else "/"
    text = delimiter + text
    plain = re.compile(pattern).match(text)
    fast = re.compile(f"(?>{accelerated(pattern)})").match(text)
    assert (plain and plain.group()) == (fast and fast.group())


def test_ordinary_patterns_are_left_alone():
    assert accelerated(r"[A-Za-z][A-Za-z0-9_]*") == r"[A-Za-z][A-Za-z0-9_]*"


# -- fast path == full path ----------------------------------------------------------------------------

HEADER = "from io.kroxylicious.filter.authorization import TopicResource as Topic, GroupResource as Group;\n"


def test_conformance_and_example_files_parse_identically():
    base = Path(__file__).parents[1] / "conformance" / "kroxylicious"
    files = sorted(base.glob("*/*.acl")) + sorted((Path(__file__).parents[2] / "examples").rglob("*.acl"))
    assert len(files) > 100
    for f in files:
        assert_same(f.read_text(encoding="utf-8"))


@pytest.mark.parametrize("text", [
    HEADER + 'allow User with name = "a" to READ Topic with name *;\notherwise deny;',
    HEADER + 'allow User with name = "a" /* c/ */ to READ Topic with name *;\notherwise deny;',
    HEADER + 'allow User with name = "a" // c\n to READ Topic with name *;\notherwise deny;',
    HEADER + 'allow User with name = "a" /* no slash */ to READ Topic with name *;\notherwise deny;',
    HEADER + 'allow User with name in {"a",\n"b" , "c"} to {READ,WRITE} Topic with name matching /x\\/y/;\notherwise deny;',
    HEADER + 'allow User with name = "a" to READ Topic with name matching //;\notherwise deny;',
    HEADER + 'allow User with name = "a" to READ Topic with name matching /* x */;\notherwise deny;',
    HEADER + 'allow User with name = "a\\"b" to READ Topic with name = "q\\\\";\notherwise deny;',
    HEADER + 'allow User with name = "abc\\" to READ Topic with name *;\notherwise deny;',
    HEADER + 'allow allow with name = "x" to READ name with name *;\notherwise deny;',
    'from a.allow import X as name;\nallow User with name="x"to READ X with name *;otherwise deny;',
    HEADER + 'allow User with name = "a" to READ Topic with name *;\notherwise deny;@',
    HEADER + 'allow User with name = "a" to READ Topic with name *;\notherwise deny; garbage @@@',
    HEADER + 'allow User with name = "a" to READ Topic with name *;\notherwise deny',
    HEADER + 'deny User with name = "a" to READ Topic with name *;\nallow User with name = "a" to READ Topic '
             'with name *;\ndeny User with name = "b" to READ Topic with name *;\notherwise deny;',
    HEADER + 'allow User with name = "a" to READTopic with name *;\notherwise deny;',
    HEADER + 'allow User with name = "é😀" to READ Topic with name like "x*";\r\notherwise deny;',
    HEADER + 'allow User with name matching /a/ to READ Topic with name *;\notherwise deny;',
    "",
    "otherwise deny;",
    "from a import B, C as D, E;\notherwise deny;",
])
def test_hand_picked_corners_parse_identically(text):
    assert_same(text)


_PIECES = [
    "allow", "deny", "otherwise", "from", "import", "as", "in", "to", "with", "name", "like", "matching",
    "User", "Topic", "Group", "READ", "WRITE", "x", "ALLOW",
    "*", "=", ";", ",", "{", "}", ".",
    '"a"', '"a-b*"', '"\\""', '"\\\\"', '"x\ny"', '"é"', "/a+/", "/\\//", "/x\\\\/",
    "/* c/ */", "/* c */", "// c\n", "@", "'", "",
]


@st.composite
def rule_statement(draw):
    ws = st.sampled_from([" ", "  ", "\n", "\t", " \r\n ", ""])
    effect = draw(st.sampled_from(["allow", "deny"]))
    ptype = draw(st.sampled_from(["User", "allow", "name", "X"]))
    strings = st.sampled_from(['"a"', '"b*"', '"\\"q"', '"\\\\"', '"x\ny"', '"é😀"', '"c\\\\d"'])
    ppred = draw(st.one_of(st.just("*"), strings.map(lambda s: "= " + s), strings.map(lambda s: "like " + s),
                           st.lists(strings, min_size=1, max_size=4).map(lambda xs: "in {" + ", ".join(xs) + "}")))
    ops = draw(st.one_of(st.just("*"), st.sampled_from(["READ", "WRITE", "to"]),
                         st.lists(st.sampled_from(["READ", "WRITE", "DESCRIBE"]), min_size=1, max_size=3)
                         .map(lambda xs: "{" + ",".join(xs) + "}")))
    rpred = draw(st.one_of(st.just("*"), strings.map(lambda s: "= " + s),
                           st.sampled_from(["/a.b/", "/\\//", "/x\\\\y/", "/[a-z]+/"]).map(lambda r: "matching " + r)))
    parts = [effect, ptype, "with", "name", ppred, "to", ops, draw(st.sampled_from(["Topic", "Group"])), "with",
             "name", rpred, ";"]
    out = ""
    for p in parts:
        out += draw(ws) + p
        if draw(st.integers(0, 30)) == 0:
            out += draw(st.sampled_from([" /* c/ */ ", " // c\n", " /* c */ "]))
    return out


@st.composite
def rules_file(draw):
    stmts = draw(st.lists(rule_statement(), max_size=6))
    if draw(st.booleans()):
        stmts.sort(key=lambda s: not s.lstrip().startswith("deny"))
    text = HEADER + "\n".join(stmts) + "\notherwise deny;" + draw(st.sampled_from(["", "\n", "@", " x y", "\n//"]))
    # Now and then, damage it.
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(_PIECES)) + text[at + draw(st.integers(0, 3)):]
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_file())
def test_generated_files_parse_identically(text):
    assert_same(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES + [" ", "\n"]), max_size=40).map(" ".join))
def test_token_soup_parses_identically(text):
    assert_same(text)
    assert_same(text + " otherwise deny;")


# -- cost that does not grow with variety ----------------------------------------------------------

def test_work_per_file_does_not_grow_with_the_number_of_statement_shapes():
    """A few thousand rules with hundreds of distinct token-type shapes: no regex is compiled, lark
    never runs, and the file is never handed to the full parser. (The old shape learner compiled one
    alternation per new shape: quadratic.)"""
    text = generate_varied(3000, seed=11)
    lines = [line for line in text.splitlines() if line.startswith(("allow", "deny"))]
    shapes = {tuple(re.sub(r'"[^"]*"', "S", line).split()) for line in lines}
    assert len(shapes) > 300
    parse_rules(text)  # the statement regexes are compiled on first use, once per process
    before = dict(fastparse.STATS)
    parsed = parse_rules(text)
    after = fastparse.STATS
    assert len(parsed.rules) == 3000
    assert after["regex_compiles"] == before["regex_compiles"]
    assert after["statement_lark_parses"] == before["statement_lark_parses"]
    assert after["full_parses"] == before["full_parses"]
    assert after["statements"] - before["statements"] >= 3000


def test_a_comment_inside_a_statement_costs_one_statement_parse_not_the_file():
    body = 'allow User with name = "u{0}" to READ Topic with name = "t{0}";\n'
    text = HEADER + "".join(body.format(i) for i in range(200))
    text += 'allow User with name = "x" // why\n to READ Topic with name *;\notherwise deny;\n'
    before = dict(fastparse.STATS)
    parsed = parse_rules(text)
    assert len(parsed.rules) == 201
    assert fastparse.STATS["statement_lark_parses"] - before["statement_lark_parses"] == 1
    assert fastparse.STATS["full_parses"] == before["full_parses"]


# -- pathological but legal inputs ------------------------------------------------------------------

def test_one_rule_with_200000_names():
    names = ", ".join(f'"user-{i}"' for i in range(200_000))
    text = HEADER + f"allow User with name in {{{names}}} to READ Topic with name *;\notherwise deny;\n"
    with deadline(30):
        parsed = parse_rules(text)
    pred = parsed.rules[0].principal
    assert len(pred.raw) == 200_000 and pred.raw[-1] == "user-199999"
    assert pred.literal_pos[-1].col == text.splitlines()[1].index('"user-199999"')


def test_100000_nested_block_comment_openers_fail_with_a_located_error():
    text = "/*" * 100_000 + "\notherwise deny;"
    with deadline(30), pytest.raises(RulesSyntaxError) as info:
        parse_rules(text)
    assert info.value.problems[0].line == 1


@pytest.mark.parametrize("opener,closer", [("(", ")"), ("{", "}")])
def test_10000_nested_brackets_fail_with_a_located_error(opener, closer):
    text = HEADER + "allow User with name = " + opener * 10_000 + closer * 10_000 + ";\notherwise deny;"
    with deadline(30), pytest.raises(RulesSyntaxError) as info:
        parse_rules(text)
    assert info.value.problems[0].line == 2


def test_a_10_mb_string_is_a_name():
    big = "x" * 10_000_000
    text = HEADER + f'allow User with name = "{big}" to READ Topic with name *;\notherwise deny;'
    with deadline(30):
        parsed = parse_rules(text)
    assert parsed.rules[0].principal.raw == (big,)


def test_an_unterminated_10_mb_string_is_a_located_error():
    text = HEADER + 'allow User with name = "' + "x" * 10_000_000
    with deadline(30), pytest.raises(RulesSyntaxError) as info:
        parse_rules(text)
    assert (info.value.problems[0].line, info.value.problems[0].col) == (2, 23)


def test_lint_quotes_a_runaway_token_briefly():
    from kafka_authz_cli.rules.lint import lint_text

    text = HEADER + 'allow User with name = "' + "x" * 1_000_000
    with deadline(30):
        findings = lint_text(text, "f.acl").findings
    first = findings[0]
    assert (first.code, first.line, first.col) == ("AZ001", 2, 23)
    assert first.message.startswith("token recognition error at: '\"xxx") and len(first.message) < 400
    assert "999,7" in first.message  # says how much was left out


def test_lint_lists_the_first_100_syntax_errors_and_counts_the_rest():
    from kafka_authz_cli.rules.lint import lint_text

    findings = lint_text(HEADER + "(" * 500 + "\notherwise deny;\n", "f.acl").findings
    assert len(findings) == 101 and all(f.code == "AZ001" for f in findings)
    assert findings[-1].message.startswith("... and 400 more syntax errors")


# -- derived from the grammar, not a second grammar -------------------------------------------------

def _variant_parsers(grammar: str):
    from lark import Lark, v_args

    from kafka_authz_cli.rules.fastparse import FastParser
    from kafka_authz_cli.rules.lexer import LexerSpec, ProxyLexer
    from kafka_authz_cli.rules.parser import _AstBuilder

    @v_args(inline=True)
    class Builder(_AstBuilder):
        def name_ends(self, string):
            return ("ends", str(string))

    lark = Lark(grammar, parser="lalr", lexer=ProxyLexer, transformer=Builder(),
                start=["start", "import_stmt", "deny_rule", "allow_rule", "end_rule"], maybe_placeholders=False)
    spec = LexerSpec(lark)
    return lark, spec, FastParser(lark, spec, Builder)


def test_a_changed_grammar_changes_the_fast_parser_with_it(monkeypatch):
    """Add a resource predicate and a keyword to the grammar text: the statement compiler picks both
    up, and parses exactly as lark does with the new grammar."""
    from kafka_authz_cli.rules import grammar as grammar_module
    from kafka_authz_cli.rules.lexer import tokenize

    text = grammar_module.grammar_text()
    variant = text.replace("| name_matching\n", "| name_matching | name_ends\n")
    variant = variant.replace('name_matching: MATCHING REGEX\n',
                              'name_matching: MATCHING REGEX\nname_ends: "endswith" STRING\n')
    variant = variant.replace('WITH: "with"\n', 'WITH: "with"\nENDSWITH: "endswith"\n')
    variant = variant.replace("| NAME | WITH\n", "| NAME | WITH | ENDSWITH\n")
    assert variant.count("endswith") == 2 and "name_ends" in variant
    grammar_module.grammar_text.cache_clear()
    grammar_module.terminal_order.cache_clear()
    monkeypatch.setattr(grammar_module, "grammar_text", lambda: variant)
    monkeypatch.setattr(grammar_module, "terminal_order",
                        lambda: tuple(re.findall(r"^([A-Z_]+)\s*:", variant, re.M)))
    import kafka_authz_cli.rules.lexer as lexer_module
    monkeypatch.setattr(lexer_module, "terminal_order", grammar_module.terminal_order)
    lark, spec, fast = _variant_parsers(variant)
    source = (HEADER + 'allow User with name = "a" to READ Topic with name endswith "-dlq";\n'
              'allow endswith with name = "b" to {READ, endswith} Topic with name *;\notherwise deny;\n')
    (imports, rules, end), _offset = fast.parse(source)
    assert rules[0].resource == ("ends", '"-dlq"')
    assert rules[1].principal_type.text == "endswith"
    assert [op.text for op in rules[1].operations] == ["READ", "endswith"]
    assert (imports, rules, end) == lark.parse(tokenize(source, spec), start="start")


def test_a_recursive_rule_is_refused_rather_than_approximated():
    from kafka_authz_cli.rules import grammar as grammar_module
    from kafka_authz_cli.rules.fastparse import GrammarNotRegular

    variant = grammar_module.grammar_text().replace(
        'name_equals: "=" STRING\n', 'name_equals: "=" STRING | "=" "{" name_equals "}"\n')
    with pytest.raises(GrammarNotRegular, match="recursive"):
        _variant_parsers(variant)
