"""The reader of JSON as authz writes it (one regular expression over the ACL lines) against the careful
reader: the same bindings and places for every text, or the same error."""


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import formats
from kafka_authz_cli.acl.formats import LineOrigins, read_json, write_json
from kafka_authz_cli.acl.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.errors import InputError


def _careful(text: str):
    saved = formats._read_canonical
    formats._read_canonical = lambda text, path: None
    try:
        return read_json(text, "f.json")
    finally:
        formats._read_canonical = saved


def _outcome(read, text: str):
    try:
        acl_set = read(text)
    except InputError as exc:
        return ("error", str(exc))
    return (acl_set.bindings, list(acl_set.origins))


def _acl(name="t", principal="User:a", host="*", rtype="TOPIC"):
    return AclBinding(ResourceType[rtype], name, PatternType.LITERAL, principal, host, AclOperation.READ,
                      AclPermissionType.ALLOW)


def test_the_canonical_reader_reads_what_authz_writes():
    acls = [_acl(), _acl("u", "User:é"), _acl("t", host="127.0.01", rtype="GROUP")]
    text = write_json(acls)
    assert formats._read_canonical(text, "f.json") is not None
    got = read_json(text, "f.json")
    assert isinstance(got.origins, LineOrigins)
    assert got.bindings == acls and list(got.origins) == ["f.json:4", "f.json:5", "f.json:6"]
    assert _outcome(_careful, text) == _outcome(lambda t: read_json(t, "f.json"), text)


VARIANTS = {
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "missing comma": lambda t: t.replace("},\n", "}\n", 1),
    "blank after comma": lambda t: t.replace("},\n", "}, \n", 1),
    "comma on its own line": lambda t: t.replace("},\n", "}\n,\n", 1),
    "trailing comma": lambda t: t.replace("}\n  ]", "},\n  ]"),
    "duplicate top key": lambda t: t.replace('"version": 1,', '"version": 1, "version": 1,'),
    "duplicate key after": lambda t: t.replace("\n}\n", ', "comment": "a", "comment": "b"\n}\n'),
    "comment object": lambda t: t.replace('"version": 1,', '"comment": {"acls": []}, "version": 1,'),
    "acls nested": lambda t: t.replace('"acls": [', '"comment": 1, "x": {"acls": ['),
    "version 2": lambda t: t.replace('"version": 1', '"version": 2'),
    "unknown key": lambda t: t.replace('"version": 1', '"versio": 1'),
    "escape in name": lambda t: t.replace('"resource_name": "u"', '"resource_name": "\\u0075"'),
    "tab in name": lambda t: t.replace('"resource_name": "u"', '"resource_name": "u\tv"'),
    "lower enum": lambda t: t.replace('"READ"', '"read"', 1),
    "unknown enum": lambda t: t.replace('"TOPIC"', '"TOPICS"', 1),
    "extra field": lambda t: t.replace('"ALLOW"}', '"ALLOW", "id": 1}', 1),
    "top-level list": lambda t: "[\n" + t[t.index("[\n") + 2:t.rindex("]")] + "]\n",
    "bom": lambda t: "\ufeff" + t,
    "nothing after": lambda t: t[:t.rindex("]")],
    "two per line": lambda t: t.replace("},\n    {", "}, {", 1),
    "bracket in name": lambda t: t.replace('"resource_name": "u"', '"resource_name": "]"'),
    "NaN after": lambda t: t.replace("\n}\n", ', "comment": NaN\n}\n'),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_any_other_text_reads_as_the_careful_reader_reads_it(variant):
    text = VARIANTS[variant](write_json([_acl(), _acl("u", "User:é"), _acl("v", host="::1")]))
    assert _outcome(lambda t: read_json(t, "f.json"), text) == _outcome(_careful, text)


TEXT = st.text(st.sampled_from(list('ab*-é😀"\\\t\n\r\x00\x1f ]}[{,:') + ["\u2028"]), max_size=6)


@settings(max_examples=150, deadline=None)
@given(acls=st.lists(st.builds(_acl, name=TEXT, principal=TEXT.map(lambda p: "User:" + p), host=TEXT,
                               rtype=st.sampled_from(["TOPIC", "GROUP"])), max_size=6),
       edit=st.sampled_from(sorted(VARIANTS) + ["none"]))
def test_random_names_and_edits_read_alike(acls, edit):
    text = write_json(acls)
    if edit != "none" and acls:
        text = VARIANTS[edit](text)
    assert _outcome(lambda t: read_json(t, "f.json"), text) == _outcome(_careful, text)
