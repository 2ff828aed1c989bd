"""cli.common.write_json: orjson under the two outer levels laid out by hand, the same bytes as
json.dumps(indent=2, ensure_ascii=False) for every document authz writes (floats aside)."""

import json

from hypothesis import given
from hypothesis import strategies as st

from kafka_authz_cli.cli.common import write_json

# Any text a value or key may hold, control characters, quotes, U+2028 and astral characters
# included; never a lone surrogate (which no UTF-8 file can hold, whoever encodes it).
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
SCALARS = st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70) | TEXT
DOCS = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(TEXT | st.integers(-5, 5) | st.booleans(), inner, max_size=4),
                    max_leaves=40)


@given(DOCS)
def test_the_bytes_of_json_dumps_with_indent_2(tmp_path_factory, doc):
    out = tmp_path_factory.mktemp("w") / "doc.json"
    write_json(doc, out)
    assert out.read_bytes() == (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()


def test_a_diff_sized_document_is_the_same_bytes(tmp_path):
    doc = {"verdict": "both", "gained": 2**65, "findings": [], "changes": [
        {"description": f"User:ü{i} can now READ topic `a\"b\\n{i}`", "hosts": ["*"], "witness": {"host": "::1"},
         "old_acl": None, "operations": ["READ", "DESCRIBE"], "nested": [[], {}, [{"x": [1, 2]}]]}
        for i in range(3000)]}
    write_json(doc, tmp_path / "d.json")
    assert (tmp_path / "d.json").read_bytes() == (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_read_back_as_written(tmp_path_factory, x):
    out = tmp_path_factory.mktemp("f") / "doc.json"
    write_json({"ratio": [x]}, out)
    assert json.loads(out.read_text()) == {"ratio": [x]}


def test_an_iterator_in_the_two_outer_levels_is_written_as_the_list_it_makes(tmp_path):
    items = [{"acl": {"resource_name": f"t{i}"}, "by": [i, "é"]} for i in range(5)]
    for value in (items, []):
        write_json({"before": 3, "removals": iter(value), "after": 1}, tmp_path / "it.json")
        expected = json.dumps({"before": 3, "removals": value, "after": 1}, indent=2, ensure_ascii=False)
        assert (tmp_path / "it.json").read_text() == expected + "\n"
