"""ConfigDef's number parsing (kafka_authz_cli/_java/configdef.py) against the JVM: Long.parseLong and
Double.parseDouble recorded from OpenJDK 17 (data/java_numbers.json), and properties of the parsers."""

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_authz_cli._java import (
    ConfigException,
    NumberFormatException,
    check_range,
    java_number_string,
    java_parse_double,
    java_parse_long,
    parse_config_value,
    range_bounds,
)

CASES = json.loads((Path(__file__).parent / "data" / "java_numbers.json").read_text(encoding="utf-8"))["cases"]


def _outcome(fn, text):
    try:
        return fn(text)
    except NumberFormatException as exc:
        return "NFE:" + exc.message


def _java_double(text: str):
    return text if text.startswith("NFE:") else float(text.replace("E", "e").replace("Infinity", "inf"))


def test_agrees_with_the_jvm():
    assert len(CASES) >= 500
    for text, long_, double in CASES:
        got = _outcome(java_parse_long, text)
        assert (got if isinstance(got, str) else str(got)) == long_, text
        got, want = _outcome(java_parse_double, text), _java_double(double)
        assert got == want or (isinstance(got, float) and math.isnan(got) and math.isnan(want)), (text, got, want)


@given(st.integers(-2**63, 2**63 - 1))
def test_every_long_reads_back(n):
    assert java_parse_long(str(n)) == n
    if n >= 0:
        assert java_parse_long("+" + str(n)) == n


@given(st.one_of(st.integers(min_value=2**63), st.integers(max_value=-2**63 - 1)))
def test_longs_out_of_range_are_refused(n):
    with pytest.raises(NumberFormatException):
        java_parse_long(str(n))


@given(st.floats(allow_nan=False))
def test_every_double_reads_back_from_its_java_string(x):
    assert java_parse_double(java_number_string(x)) == x
    assert java_parse_double(repr(x).replace("inf", "Infinity")) == x


@given(st.text(max_size=12))
def test_parse_config_value_refuses_with_kafkas_message(text):
    try:
        value = parse_config_value("retention.ms", text, "LONG")
    except ConfigException as exc:
        assert exc.message == f"Invalid value {text} for configuration retention.ms: Not a number of type LONG"
    else:
        assert value == java_parse_long(text.strip("".join(map(chr, range(33)))))


def test_ranges_as_kafka_prints_and_checks_them():
    assert range_bounds("[1,...]") == (1, None) and range_bounds("[0,...,1]") == (0, 1)
    assert range_bounds("[...,9]") == (None, 9) and range_bounds("[1,...,9] or -1") is None
    with pytest.raises(ConfigException) as info:
        check_range("segment.bytes", 1, "[1048576,...]")
    assert info.value.message == "Invalid value 1 for configuration segment.bytes: Value must be at least 1048576"
    check_range("retention.ms", -1, "[-1,...]")
    assert java_number_string(1e10) == "1.0E10" and java_number_string(0.001) == "0.001"
