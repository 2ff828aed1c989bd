"""Java's own string and number semantics, the one definition every package uses (_java/lang.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_authz_cli._java.lang import (
    NumberFormatException,
    is_blank,
    java_parse_int,
    java_trim,
    kafka_list,
    split_at_commas,
)
from kafka_authz_cli.scram.credential import ScramError, parse_add_scram


@pytest.mark.parametrize("text, value", [
    ("4096", 4096), ("+12", 12), ("-0", 0), ("2147483647", 2**31 - 1), ("-2147483648", -2**31),
    ("٤٠٩٦", 4096),        # Arabic-Indic digits: Character.digit accepts every Nd character
    ("４０９６", 4096),     # fullwidth digits
    ("0004096", 4096),
])
def test_parse_int_accepts_what_integer_parse_int_accepts(text, value):
    assert java_parse_int(text) == value


@pytest.mark.parametrize("text", ["", "+", "-", " 1", "1 ", "1_000", "2147483648", "-2147483649", "0x10", "1.0",
                                  "Ⅳ", "²"])  # a Roman numeral and a superscript are not decimal digits
def test_parse_int_refuses_what_integer_parse_int_refuses(text):
    with pytest.raises(NumberFormatException, match="For input string"):
        java_parse_int(text)


def test_parse_int_of_null_is_javas_message():
    with pytest.raises(NumberFormatException, match="Cannot parse null string"):
        java_parse_int(None)


def test_trim_strips_controls_but_no_unicode_space():
    assert java_trim("\x00\x1f a b \t\n") == "a b"
    assert java_trim("\u00a0x\u2003") == "\u00a0x\u2003"  # NBSP and EM SPACE are above U+0020


@given(st.text())
def test_trim_is_what_strip_of_every_char_up_to_space_does(text):
    assert java_trim(text) == text.strip("".join(map(chr, range(0x21))))


@pytest.mark.parametrize("text, items", [
    ("", []), ("   ", []), ("a", ["a"]), ("a , b", ["a", "b"]), ("a,,b", ["a", "", "b"]), ("a,b,", ["a", "b", ""]),
    (" a ,\tb ", ["a", "b"]), (",", ["", ""]), ("a\u00a0,b", ["a\u00a0", "b"]),
])
def test_kafka_list_is_configdef_list_parsing(text, items):
    # ConfigDef.parseType(LIST): trim, then COMMA_WITH_WHITESPACE.split(trimmed, -1) (empty items kept)
    assert kafka_list(text) == items


@pytest.mark.parametrize("text, items", [
    ("", [""]), (",", []), (",,", []), ("a,b,", ["a", "b"]), (",a", ["", "a"]), ("a ,,  ", ["a"]),
])
def test_split_at_commas_is_string_split(text, items):
    # String.split("\\s*,\\s*") drops trailing empty items; an all-empty result is empty
    assert split_at_commas(text) == items


def test_add_scram_reads_iterations_with_integer_parse_int():
    # Kafka's ScramParser calls Integer.parseInt: non-ASCII decimal digits are a number to it.
    parsed = parse_add_scram("SCRAM-SHA-256=[name=alice,password=alice-secret,iterations=٤٠٩٦]")
    assert parsed.credential.iterations == 4096
    with pytest.raises(ScramError, match="Failed to parse iterations count: 4_096"):
        parse_add_scram("SCRAM-SHA-256=[name=alice,password=alice-secret,iterations=4_096]")


@pytest.mark.parametrize("text, blank", [(None, True), ("", True), (" \t\n", True), ("\x01\x1f", True),
                                         ("\u00a0", False), ("\u2003", False), (" a ", False)])
def test_is_blank_is_kafkas_utils_is_blank(text, blank):
    # Utils.isBlank: null or String.trim() empty; trim strips every character up to U+0020, no Unicode space.
    assert is_blank(text) is blank


@pytest.mark.parametrize("text, items", [
    ("", [""]), ("a", ["a"]), (",", []), (",,", []), ("a,", ["a"]), (",a", ["", "a"]), ("a,,b,,", ["a", "", "b"]),
])
def test_java_split_is_string_split(text, items):
    from kafka_authz_cli._java.lang import java_split

    assert java_split(text, ",") == items
    assert java_split(text, ",", keep_trailing_empty=True) == text.split(",")


def test_add_scram_with_only_empty_components_needs_a_name_as_kafka_says():
    # "[,]".split(",") is an empty array in Java: no component, so no name (was "No equals sign")
    with pytest.raises(ScramError, match="You must supply 'name' to add-scram"):
        parse_add_scram("SCRAM-SHA-256=[,]")
    with pytest.raises(ScramError, match="No equals sign found in SCRAM component: $"):
        parse_add_scram("SCRAM-SHA-256=[]")


def test_a_password_with_a_real_replacement_character_and_a_lone_surrogate_keeps_the_replacement_character():
    # getBytes(UTF_8): only the unpaired surrogate becomes '?'; U+FFFD stays EF BF BD
    from kafka_authz_cli._java.lang import java_utf8
    from kafka_authz_cli.scram.credential import ScramCredential, ScramMechanism

    assert java_utf8("\ufffd\ud800") == b"\xef\xbf\xbd?"
    mech = ScramMechanism.parse("SCRAM-SHA-256")
    cred = ScramCredential.from_password(mech, "\ufffd\ud800", b"salt", 4096)
    assert cred.verify(b"\xef\xbf\xbd?") and not cred.verify(b"??")
