"""The shared readers every input goes through: strict UTF-8, strict JSON, CSV of any field size."""

import csv
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats.strict_input import (
    brief,
    csv_rows,
    csv_table,
    decode_utf8,
    json_lines,
    loads,
    locate,
    read_text,
)

# JSON values as authz's formats hold them (no floats: they do not round-trip through text exactly).
json_scalars = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.text(max_size=12)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=25,
)


def test_deep_nesting_is_one_located_error_not_a_recursion_error():
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000,
                 "[1,\n" * 200_000 + "]" * 200_000):
        with pytest.raises(InputError) as exc:
            loads(text, "deep.json")
        assert "nested too deeply" in str(exc.value) and exc.value.line is not None


def test_duplicate_keys_are_an_error_at_the_second_occurrence():
    text = '{\n  "acls": [\n    {"host": "*",\n     "host": "10.0.0.1"}\n  ]\n}'
    with pytest.raises(InputError, match=r"^a.json:4:6: duplicate key 'host'"):
        loads(text, "a.json")
    # Keys equal after unescaping are the same key.
    with pytest.raises(InputError, match="duplicate key 'a'"):
        loads('{"a": 1, "\\u0061": 2}', "a.json")
    # The same key in different objects is fine.
    assert loads('[{"a": 1}, {"a": 2}]', "a.json") == [{"a": 1}, {"a": 2}]


def test_not_json_numbers_and_huge_integers_are_refused():
    with pytest.raises(InputError, match=r"^n.json:1:7: invalid JSON: NaN is not JSON"):
        loads('{"a": NaN}', "n.json")
    with pytest.raises(InputError, match="Infinity is not JSON"):
        loads('[-Infinity]', "n.json")
    with pytest.raises(InputError, match=r"^n.json:2:6: invalid JSON: integer with 5,000 digits"):
        loads('{\n"a": ' + "9" * 5000 + "}", "n.json")
    # "NaN" inside a string is just text.
    assert loads('{"NaN": "Infinity"}', "n.json") == {"NaN": "Infinity"}


def test_lone_surrogate_escapes_are_refused_and_pairs_accepted():
    with pytest.raises(InputError, match=r"^s.json:1:10: invalid JSON: a \\u escape of a lone UTF-16 surrogate"):
        loads('{"a": 1, "\\ud800x": 2}', "s.json")
    assert loads('["\\ud83d\\ude00"]', "s.json") == ["\U0001F600"]
    # An escaped backslash followed by "ud800" is plain text, not an escape.
    assert loads('["\\\\ud800"]', "s.json") == ["\\ud800"]


def test_invalid_json_keeps_the_decoders_line_and_column():
    with pytest.raises(InputError, match=r"^x.json:2:3: invalid JSON: Expecting value"):
        loads('{"a":\n  ]', "x.json")


def test_json_lines_report_the_file_line():
    text = '{"a": 1}\n\n# comment\n{"a": 1, "a": 2}\n'
    with pytest.raises(InputError, match=r"^r.jsonl:4:10: duplicate key"):
        list(json_lines(text, "r.jsonl"))
    assert list(json_lines('{"a": 1}\n{"b": "\u2028"}\n', "r.jsonl")) == [(1, {"a": 1}), (2, {"b": "\u2028"})]


def test_utf8_errors_name_line_and_column():
    with pytest.raises(InputError, match=r"^f:2:3: not UTF-8 text \(byte 0xff\)"):
        decode_utf8(b"ok\nab\xffc", "f")
    assert decode_utf8("\ufeffé".encode(), "f") == "\ufeffé"  # the BOM is the caller's business


def test_read_text_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_text(tmp_path / "missing")
    with pytest.raises(InputError, match="is a directory"):
        read_text(tmp_path)


def test_csv_fields_of_any_size_and_csv_errors_located():
    big = "x" * 300_000
    text = f'a,b\n1,"{big}"\n'
    assert list(csv_rows(text, "f.csv")) == [(1, ["a", "b"]), (2, ["1", big])]
    assert csv.field_size_limit() == 131072  # restored for everyone else
    rows = list(csv_rows('a,b\n"multi\nline",x\n3,4\n', "f.csv"))
    assert rows == [(1, ["a", "b"]), (2, ["multi\nline", "x"]), (4, ["3", "4"])]


def test_csv_table_checks_columns():
    with pytest.raises(InputError, match=r"^f.csv:1:1: CSV header lacks column\(s\) b"):
        list(csv_table("a\n1\n", "f.csv", ["a", "b"]))
    with pytest.raises(InputError, match=r"^f.csv:1:1: CSV header has unknown column\(s\) zz"):
        list(csv_table("a,zz\n1,2\n", "f.csv", ["a"]))
    with pytest.raises(InputError, match=r"^f.csv:1:1: CSV header names column\(s\) a more than once"):
        list(csv_table("a,a\n1,2\n", "f.csv", ["a"]))
    with pytest.raises(InputError, match=r"^f.csv:3:1: expected 2 fields, found 3"):
        list(csv_table("a,b\n1,2\n1,2,3\n", "f.csv", ["a", "b"]))
    with pytest.raises(InputError, match=r"^f.csv: empty CSV file"):
        list(csv_table("\n\n", "f.csv", ["a"]))
    assert list(csv_table("\ufeffA , b\n\n1,2\n", "f.csv", ["a", "b"])) == [(3, {"a": "1", "b": "2"})]


def test_brief_never_returns_a_huge_value():
    assert brief("x" * 10_000_000).endswith("... (10,000,000 characters)")
    assert brief([[[]]]) == "a list" and brief(None) == "null"


# -- properties -----------------------------------------------------------------------------------

@given(json_values)
def test_loads_agrees_with_json_on_valid_documents(value):
    for text in (json.dumps(value), json.dumps(value, indent=2, ensure_ascii=False)):
        assert loads(text, "v.json") == json.loads(text)


@given(st.binary(max_size=300))
@settings(max_examples=300)
def test_random_bytes_give_a_value_or_an_input_error(data):
    try:
        text = decode_utf8(data, "r")
        loads(text, "r")
        list(json_lines(text, "r"))
        list(csv_rows(text, "r"))
    except InputError as exc:
        assert str(exc).startswith("r")


@given(st.text(alphabet='{}[]",:\\ u0123456789abcdefDtrunlsNI\n-', max_size=200))
@settings(max_examples=500)
def test_json_like_text_gives_a_value_or_an_input_error(text):
    try:
        loads(text, "r")
    except InputError as exc:
        assert str(exc).startswith("r")


def _paths(value, prefix=()):
    yield list(prefix)
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


@given(json_values, st.booleans())
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_locate_points_at_the_value(value, indent):
    text = json.dumps(value, indent=2 if indent else None, ensure_ascii=False)
    lines = text.split("\n")
    for path in _paths(value):
        where = locate(text, path)
        assert where is not None
        line, col = where
        offset = sum(len(l) + 1 for l in lines[:line - 1]) + col - 1
        got, _ = json.JSONDecoder().raw_decode(text, offset)
        expect = value
        for step in path:
            expect = expect[step]
        assert got == expect


@given(st.lists(st.lists(st.text(max_size=8), min_size=1, max_size=4), max_size=6))
def test_csv_rows_agree_with_the_csv_module(rows):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    got = [r for _, r in csv_rows(buf.getvalue(), "f.csv")]
    assert got == list(csv.reader(io.StringIO(buf.getvalue(), newline="")))


_KEYS = st.sampled_from(["a", "b", "a:b", ":", "é", ""])
_VALUES = st.one_of(st.text(st.sampled_from(list('a:"\\é\u2028 ')), max_size=4), st.integers(-5, 5), st.booleans(),
                    st.none(), st.floats(allow_nan=True, allow_infinity=True), st.lists(st.integers(), max_size=2),
                    st.dictionaries(_KEYS, st.integers(), max_size=2))


@settings(max_examples=200, deadline=None)
@given(pairs=st.lists(st.tuples(_KEYS, _VALUES), max_size=5))
def test_json_lines_fast_path_reads_as_the_strict_reader(pairs):
    """Flat objects go through the C decoder without hooks; the outcome is the strict reader's,
    duplicate keys and NaN included."""
    text = "{" + ", ".join(json.dumps(k) + ": " + json.dumps(v) for k, v in pairs) + "}"

    def outcome(read):
        try:
            return ("ok", read())
        except InputError as exc:
            return ("error", str(exc))

    strict = outcome(lambda: loads(text, "f"))
    fast = outcome(lambda: list(json_lines(text + "\n", "f"))[0][1])
    assert repr(fast) == repr(strict)
