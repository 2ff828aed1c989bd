"""Possessive quantifiers and atomic groups around capturing groups: the answer is Java's.

CPython's own possessive repeat loses captures (``((a)|b)*+`` on "ab" leaves group 2 empty where
Java has "a") or stops with ``SystemError: The span of capturing group is wrong``; the translation
writes ``X*+`` as ``(?>X*)``, which Java defines it to be. data/possessive_regex.jsonl is Java 17's
java.util.regex on patterns of this class (tools/record_java_regex.py)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli._java.regex import JavaRegexUnsupported, compile_java
from kafka_authz_cli.principal import SslPrincipalMapper

DATA = Path(__file__).parent / "data" / "possessive_regex.jsonl"
CASES = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]


def _outcome(case):
    """"java" (authz gives Java's groups and find() spans), "refused" (one line), or "wrong"."""
    try:
        jp = compile_java(case["pattern"])
        m = jp.matches(case["text"])
        got = None if m is None else [m.group(0), *m.groups()]
        spans = [[f.start(), f.end()] for f in jp.find_all(case["text"])]
    except JavaRegexUnsupported as exc:
        assert "possessive quantifier or atomic group" in str(exc)
        return "refused"
    want = case["groups"] if case["matches"] else None
    return "java" if (got, spans) == (want, case["finds"]) else "wrong"


def test_every_recorded_case_is_javas_answer_or_refused():
    outcomes = [_outcome(c) for c in CASES]
    assert [(c["pattern"], c["text"]) for c, o in zip(CASES, outcomes) if o == "wrong"] == []
    # The refusals are the patterns whose captures Java keeps from abandoned attempts; most are answered.
    answered = [c for c, o in zip(CASES, outcomes) if o == "java"]
    assert len(answered) > 1400
    assert sum(c["matches"] and any(g is not None for g in c["groups"][1:]) for c in answered) > 150


@pytest.mark.parametrize("pattern,text,java", [
    # Java keeps what an abandoned attempt captured inside an atomic region: refused, not Python's None.
    ("(?>(a)|b)c", "a bc", "find() gives 'bc' with group 1 = 'a'"),
    ("(?:(?>(a))b|a)c", "ac", "matches() with group 1 = 'a'"),
    ("(?:(a)++b|a)c", "ac", "matches() with group 1 = 'a'"),
])
def test_captures_java_keeps_from_abandoned_attempts_are_refused(pattern, text, java):
    with pytest.raises(JavaRegexUnsupported, match="possessive quantifier or atomic group"):
        jp = compile_java(pattern)
        jp.matches(text)
        list(jp.find_all(text))


def test_the_issue_case_is_javas_answer():
    # authz principal tls --rules 'RULE:^CN=(((ba*a*)|.)*+)$/$1/' 'CN=b11': Java maps it to "b11"
    # (groups 1..3 = "b11", "1", "b"); CPython's possessive repeat raised SystemError here.
    m = compile_java("^CN=(((ba*a*)|.)*+)$").matches("CN=b11")
    assert m is not None and m.groups() == ("b11", "1", "b")
    mapping = SslPrincipalMapper.from_rules("RULE:^CN=(((ba*a*)|.)*+)$/$1/").map("CN=b11")
    assert mapping.ok and mapping.name == "b11"
    assert compile_java("((a)|b)*+").matches("ab").groups() == ("b", "a")  # Java's; CPython's own gives ""


# -- hypothesis over the class: the translation against an independent Python form of the same
# semantics. Java defines X*+ as the atomic group (?>X*), and (?=(?P<k>X*))(?P=k) is that atomic
# group written with a lookahead and a back reference (a lookahead is never re-entered), captures
# and all. Java's groups are named g1.. in the emulation, in the order of their opening parentheses.

_ATOMS = ["a", "b", ".", "[ab]", "x", "\\d", "a*"]
_QUANTS = ["*", "+", "?", "{0,2}", "{1,2}"]


@st.composite
def _possessive(draw, counters, depth=0):
    java, emul = "", ""
    for _ in range(draw(st.integers(1, 3))):
        if depth < 3 and draw(st.booleans()):
            capture = draw(st.booleans())
            if capture:
                counters[0] += 1
                head = f"(?P<g{counters[0]}>"
            ij, ie = draw(_possessive(counters, depth + 1))
            if draw(st.integers(0, 3)) == 0:
                alt = draw(st.sampled_from(_ATOMS))
                ij, ie = f"{ij}|{alt}", f"{ie}|{alt}"
            j, e = ("(" if capture else "(?:") + ij + ")", (head if capture else "(?:") + ie + ")"
        else:
            j = e = "(?:" + draw(st.sampled_from(_ATOMS)) + ")"
        kind = draw(st.sampled_from(["", "greedy", "possessive", "possessive"]))
        if kind:
            q = draw(st.sampled_from(_QUANTS))
            if kind == "possessive":
                counters[1] += 1
                k = f"k{counters[1]}"
                j, e = j + q + "+", f"(?=(?P<{k}>{e}{q}))(?P={k})"
            else:
                j, e = j + q, e + q
        java, emul = java + j, emul + e
    return java, emul


@st.composite
def possessive_patterns(draw):
    counters = [0, 0]
    java, emul = draw(_possessive(counters))
    return java, re.compile(emul, re.ASCII), counters[0]


@settings(max_examples=300, deadline=None)
@given(possessive_patterns(), st.text(alphabet="abx1_", max_size=8))
def test_possessive_and_atomic_captures_agree_with_the_lookahead_form(case, text):
    java, emulation, groups = case
    try:
        jp = compile_java(java)
    except JavaRegexUnsupported as exc:  # captures Java may keep from abandoned attempts
        assert "possessive quantifier or atomic group" in str(exc)
        return
    assert jp.group_count == groups
    for java_run, python_run in ((jp.matches, emulation.fullmatch), (jp.find, emulation.search)):
        try:
            jm, em = java_run(text), python_run(text)
        except JavaRegexUnsupported as exc:  # find() past its first start position, a group unset
            assert "earlier start position" in str(exc)
            continue
        assert (jm is None) == (em is None)
        if jm is not None:
            assert jm.span() == em.span()
            assert jm.groups() == tuple(em.group(f"g{n}") for n in range(1, groups + 1))


def test_the_engines_own_failures_are_one_line_refusals():
    # Last resort at the regex boundary: an engine failure is refused, never a traceback.
    class Failing:
        def fullmatch(self, text):
            raise SystemError("The span of capturing group is wrong, please report a bug for the re module.")

    jp = dataclasses.replace(compile_java("(a)"), regex=Failing())  # not the cached pattern itself
    with pytest.raises(JavaRegexUnsupported, match="Python's regex engine failed"):
        jp.matches("a")
