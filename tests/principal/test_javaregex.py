"""Java regex semantics: the translation agrees with Python where the languages agree, and with Java
where they differ."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli._java.lang import (
    IllegalArgumentException,
    IndexOutOfBoundsException,
    NumberFormatException,
    java_parse_int,
    java_trim,
    utf16_length,
)
from kafka_authz_cli._java.regex import JavaRegexUnsupported, PatternSyntaxException, compile_java

# -- where Java and Python agree: random greedy patterns over a small alphabet ----------------------

_atom = st.sampled_from(["a", "b", "c", ".", "[ab]", "[^a]", "[a-c]", "\\w", "\\d", "x"])
# No possessive quantifiers here: CPython's own possessive repeat is not Java's (tests/java/test_possessive.py).
_quant = st.sampled_from(["", "", "*", "+", "?", "{0,2}", "{1}", "{2,}"])


@st.composite
def patterns(draw, depth=0, alternation=True):
    n = draw(st.integers(1, 4))
    parts = []
    for _ in range(n):
        if depth < 2 and draw(st.integers(0, 4)) == 0:
            inner = draw(patterns(depth + 1, alternation))
            kind = draw(st.sampled_from(["(", "(?:"]))
            parts.append(kind + inner + ")" + draw(_quant))
        else:
            parts.append(draw(_atom) + draw(_quant))
    seq = "".join(parts)
    if alternation and depth < 2 and draw(st.integers(0, 5)) == 0:
        seq += "|" + draw(patterns(depth + 1))
    return seq


_text = st.text(alphabet="abcx1_", max_size=7)


def _python_repl(template):
    def repl(m):
        out, i = [], 0
        while i < len(template):
            if template[i] == "$":
                out.append(m.group(int(template[i + 1])) or "")
                i += 2
            else:
                out.append(template[i])
                i += 1
        return "".join(out)
    return repl


@settings(max_examples=400, deadline=None)
@given(patterns(), _text)
def test_matches_and_groups_agree_with_python(pattern, text):
    jp = compile_java(pattern)
    py = re.compile(pattern, re.ASCII)
    pm = py.fullmatch(text)
    jm = jp.matches(text)
    assert (jm is None) == (pm is None)
    if jm is not None:
        assert jm.groups() == pm.groups()
    assert jp.group_count == py.groups


@settings(max_examples=300, deadline=None)
@given(patterns(alternation=False), _text, st.sampled_from(["X", "<$0>", "[$1]", "$0$0", ""]))
def test_replace_all_agrees_with_python_for_greedy_patterns(pattern, text, template):
    # Without lazy quantifiers or alternations the find loops agree: an empty match is only ever
    # found where no longer match starts (see the test below for where they differ).
    jp = compile_java(pattern)
    if "$1" in template and jp.group_count < 1:
        template = template.replace("$1", "$0")
    expected = re.sub(re.compile(pattern, re.ASCII), _python_repl(template), text)
    assert jp.replace_all(text, template) == expected


@settings(max_examples=200, deadline=None)
@given(patterns(), _text)
def test_case_insensitive_is_ascii_only(pattern, text):
    jp = compile_java("(?i)" + pattern)
    py = re.compile(pattern, re.ASCII | re.IGNORECASE)
    assert (jp.matches(text.upper()) is None) == (py.fullmatch(text.upper()) is None)


# -- where Java differs from Python -----------------------------------------------------------------

@pytest.mark.parametrize("pattern,text,matches", [
    (".", "\r", False),            # Java's . excludes every line terminator
    (".", "\u2028", False),
    ("(?s).", "\n", True),
    ("(?d).", "\r", True),           # UNIX_LINES: only \n ends a line
    ("a$", "a\r\n", False),         # matches() needs the whole input ...
    ("\\w", "é", False),            # \w is ASCII
    ("\\d", "٣", False),
    ("(?i)é", "É", False),          # case-insensitive is ASCII-only ...
    ("(?iu)é", "É", True),          # ... unless UNICODE_CASE
    ("[a-z&&[^aeiou]]", "e", False),  # intersection
    ("[a-z&&[^aeiou]]", "f", True),
    ("[a[0-9]]", "5", True),        # union
    ("\\Qa.b\\E", "a.b", True),
    ("\\Qa.b\\E", "axb", False),
    ("a(?i)b|c", "C", True),        # a mid-pattern flag reaches later alternatives
    ("a(?i)b|c", "AB", False),
    ("(a)\\2", "a", False),         # a reference to a group that does not exist never matches
    ("\\p{Upper}+", "ABC", True),
    ("\\p{Lu}", "É", True),
    ("\\h", "\u00a0", True),
    ("\\x{1F600}", "😀", True),
    ("\\uD83D\\uDE00", "😀", True),  # a surrogate pair written as two escapes
    ("[]a]+", "]a", True),          # ']' first in a class is a literal
])
def test_java_semantics(pattern, text, matches):
    assert (compile_java(pattern).matches(text) is not None) == matches


def test_dollar_before_final_line_terminator():
    p = compile_java("a$")
    assert p.find("a\r\n") is not None and p.find("a\n") is not None and p.find("a\u2028") is not None
    assert p.find("a\nb") is None


def test_multiline_caret_does_not_match_at_end_of_input():
    assert [m.start() for m in compile_java("(?m)^").find_all("a\nb\n")] == [0, 2]


def test_find_loop_moves_one_character_after_an_empty_match():
    # Python's re.sub would give "XXX" here: after an empty match it retries the same position.
    assert compile_java("a??").replace_all("a", "X") == "XaX"
    assert compile_java(".*").replace_all("abc", "X") == "XX"
    assert compile_java("x*").replace_all("abxd", "-") == "-a-b--d-"
    assert compile_java("a*|.").replace_all("1", "X") == "X1X"


@pytest.mark.parametrize("replacement,expected", [
    ("$1", "b"), ("$12", "b2"), ("$0", "ab"), ("\\$1", "$1"), ("${g}", "b"), ("$01", "b"), ("a\\\\b", "a\\b"),
])
def test_replacement_syntax(replacement, expected):
    assert compile_java("a(?<g>b)").replace_all("ab", replacement) == expected


@pytest.mark.parametrize("replacement,exc,message", [
    ("$", IllegalArgumentException, "Illegal group reference: group index is missing"),
    ("\\", IllegalArgumentException, "character to be escaped is missing"),
    ("$x", IllegalArgumentException, "Illegal group reference"),
    ("$2", IndexOutOfBoundsException, "No group 2"),
    ("${}", IllegalArgumentException, "named capturing group has 0 length name"),
    ("${g", IllegalArgumentException, "named capturing group is missing trailing '}'"),
    ("${1g}", IllegalArgumentException, "capturing group name {1g} starts with digit character"),
    ("${h}", IllegalArgumentException, "No group with name {h}"),
])
def test_replacement_errors(replacement, exc, message):
    with pytest.raises(exc) as info:
        compile_java("a(?<g>b)").replace_all("ab", replacement)
    assert info.value.message == message


def test_no_match_leaves_the_replacement_unparsed():
    assert compile_java("z").replace_all("ab", "$9") == "ab"


@pytest.mark.parametrize("pattern,description,index", [
    ("(abc", "Unclosed group", 4),
    ("*a", "Dangling meta character '*'", 0),
    ("a**", "Dangling meta character '*'", 2),
    ("{1}", "Illegal repetition", 0),
    ("a{x}", "Illegal repetition", 1),
    ("[abc", "Unclosed character class", 3),
    ("a)", "Unmatched closing ')'", 0),
    ("\\y", "Illegal/unsupported escape sequence", 1),
    ("[z-a]", "Illegal character range", 3),
])
def test_syntax_errors(pattern, description, index):
    with pytest.raises(PatternSyntaxException) as info:
        compile_java(pattern)
    assert info.value.description == description
    assert info.value.index == index
    assert info.value.message.startswith(f"{description} near index {index}\n{pattern}")


@pytest.mark.parametrize("pattern", ["\\G", "\\X", "\\p{IsLatin}", "(?U)\\w", "(a\\1)"])
def test_unsupported_constructs_are_refused(pattern):
    with pytest.raises(JavaRegexUnsupported):
        compile_java(pattern)


def test_java_helpers():
    assert java_parse_int("+42") == 42 and java_parse_int("-7") == -7 and java_parse_int("٤٢") == 42
    for bad, msg in [(None, "Cannot parse null string"), ("", 'For input string: ""'),
                     ("1_000", 'For input string: "1_000"'), (" 1", 'For input string: " 1"'),
                     ("2147483648", 'For input string: "2147483648"')]:
        with pytest.raises(NumberFormatException) as info:
            java_parse_int(bad)
        assert info.value.message == msg
    assert java_trim("\x00\x1f a b \t\x7f") == "a b \t\x7f"
    assert utf16_length("a😀") == 3


def test_a_pattern_pythons_own_possessive_fails_on_is_javas_answer():
    # Found by the property test above: CPython 3.11's possessive repeat raises SystemError ("The
    # span of capturing group is wrong") on this; written as an atomic group it is Java 17's answer
    # (java.util.regex: groups "", "", null, null; find() gives [0, 2]).
    jp = compile_java("((a*)+aa*|a*)*+((a)|a)*.")
    assert jp.matches("a1").groups() == ("", "", None, None)
    assert jp.replace_all("a1", "x") == "x"
