"""ACL readers and writers: exact kafka-acls text, round trips, located errors."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli._java.properties import parse_properties
from kafka_authz_cli.acl.formats import detect_format, dump_acls, parse_acls
from kafka_authz_cli.acl.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.errors import InputError

LIST_FORMAT = Path(__file__).parent.parent / "conformance" / "kafka-security" / "acl_list_format.jsonl"
SAMPLES = [json.loads(line) for line in LIST_FORMAT.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("sample", SAMPLES, ids=[s["id"] for s in SAMPLES])
def test_reads_what_kafka_acls_prints(sample):
    got = parse_acls(sample["stdout"], "list.txt")
    assert got.format == "kafka-acls"
    want = [(b["resource"]["type"], b["resource"]["name"], b["resource"]["pattern_type"], a["principal"], a["host"],
             a["operation"], a["permission"]) for b in sample["blocks"] for a in b["acls"]]
    assert [(x.resource_type.name, x.resource_name, x.pattern_type.name, x.principal, x.host, x.operation.name,
             x.permission.name) for x in got.bindings] == want


@pytest.mark.parametrize("sample", [s for s in SAMPLES if s["verb"] == "list" and not s["principal_filter"]],
                         ids=lambda s: s["id"])
def test_writes_exactly_what_kafka_acls_prints(sample):
    bindings = parse_acls(sample["stdout"], "list.txt").bindings
    assert dump_acls(bindings, "kafka-acls") == sample["stdout"]


names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
                min_size=1, max_size=12)
bindings = st.builds(
    AclBinding,
    resource_type=st.sampled_from([t for t in ResourceType.concrete()]),
    resource_name=names,
    pattern_type=st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
    principal=st.builds(lambda t, n: f"{t}:{n}", st.sampled_from(["User", "Group", "User "]), names | st.just("*")),
    host=st.sampled_from(["*", "10.0.0.1", "0:0:0:0:0:0:0:1"]),
    operation=st.sampled_from(AclOperation.concrete()),
    permission=st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]),
)


@settings(max_examples=200, deadline=None)
@given(acls=st.lists(bindings, max_size=12), fmt=st.sampled_from(["json", "kafka-acls", "csv"]))
def test_round_trip_loses_nothing(acls, fmt):
    text = dump_acls(acls, fmt)
    back = parse_acls(text, "x", fmt).bindings
    if fmt == "kafka-acls":  # kafka-acls groups entries by resource; the set and per-resource order survive
        assert sorted(map(str, back)) == sorted(map(str, acls))
    else:
        assert back == acls
    if acls:
        assert detect_format(text) == fmt


# Detection is formats.what_is's answer. A text that merely starts like a rules statement or a comment
# ("from", "allow", "//": Python, Java, a properties key) is no rules file to it; keywords in another
# case are (the proxy refuses them, and says where).
@pytest.mark.parametrize("text", ["from os import path\n", "allow.everyone.if.no.acl.found=true\n",
                                  "// Licensed to the ASF\npackage x;\nimport java.util.Map;\n"])
def test_a_text_starting_like_rules_is_no_rules_file(text):
    assert detect_format(text) != "rules"
    with pytest.raises(InputError, match="expected an ACL set"):
        parse_acls(text, "x")


def test_rules_keywords_in_another_case_are_a_rules_file():
    assert detect_format('Allow User with name = "a" to READ Topic with name = "t";\notherwise deny;\n') == "rules"


def test_an_acl_text_authz_writes_is_told_by_its_first_line_whatever_a_name_holds():
    acls = [AclBinding.of("TOPIC", "t", "LITERAL", "User:\x00", "*", "READ", "ALLOW")]
    assert detect_format(dump_acls(acls, "kafka-acls")) == "kafka-acls" and detect_format(dump_acls(acls, "csv")) == "csv"
    noisy = "Warning: support for ACL configuration directly through the authorizer is deprecated\n"
    assert detect_format(noisy + dump_acls(acls, "kafka-acls")) == "kafka-acls"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_garbage_is_an_input_error_never_a_crash(text):
    for fmt in ("json", "kafka-acls", "csv"):
        try:
            parse_acls(text, "junk", fmt)
        except InputError as exc:
            assert str(exc).startswith("junk")


def test_json_error_has_line_and_column():
    text = '{\n  "version": 1,\n  "acls": [\n    {"resource_type": "TOPIC", "resource_name": "a", "pattern_type": "LITERAL",\n     "principal": "User:x", "host": "*", "operation": "REED", "permission": "ALLOW"}\n  ]\n}\n'
    with pytest.raises(InputError) as info:
        parse_acls(text, "acls.json")
    assert str(info.value).startswith("acls.json:4:5: acls[0]: unknown operation 'REED'")


def test_json_syntax_error_is_located():
    with pytest.raises(InputError, match=r"^a.json:2:\d+: invalid JSON"):
        parse_acls('{"acls": [\n  {,}]}', "a.json")


def test_kafka_acls_bad_line_is_located():
    text = ("Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=foo, patternType=LITERAL)`: \n"
            " \t(principal=User:a, host=*, operation=READ, permissionType=ALLOW)\n\tgarbage here\n")
    with pytest.raises(InputError, match=r"^l.txt:3:1: not a kafka-acls line"):
        parse_acls(text, "l.txt")


def test_kafka_acls_principal_with_commas_and_name_with_pattern_text():
    b = AclBinding.of("TOPIC", "x, patternType=PREFIXED", "LITERAL", "User:CN=a, host=b,OU=eng", "*", "READ", "ALLOW")
    assert parse_acls(dump_acls([b], "kafka-acls"), "x").bindings == [b]


def test_csv_uses_ksm_columns_and_pascal_names():
    b = AclBinding.of("TRANSACTIONAL_ID", "tx,1", "PREFIXED", "User:alice", "*", "IDEMPOTENT_WRITE", "ALLOW")
    text = dump_acls([b], "csv")
    assert text.splitlines()[0] == "KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host"
    assert text.splitlines()[1] == 'User:alice,TransactionalId,PREFIXED,"tx,1",IdempotentWrite,Allow,*'


def test_csv_wrong_field_count_is_located():
    text = "KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\nUser:a,Topic,LITERAL,t,Read,Allow\n"
    with pytest.raises(InputError, match=r"^c.csv:2:1: expected 7 fields, found 6"):
        parse_acls(text, "c.csv")


def test_name_spellings_are_case_insensitive():
    for op in ("READ", "Read", "read"):
        assert AclOperation.parse(op) is AclOperation.READ
    for op in ("IdempotentWrite", "IDEMPOTENT_WRITE", "idempotent-write"):
        assert AclOperation.parse(op) is AclOperation.IDEMPOTENT_WRITE
    for t in ("TransactionalId", "TRANSACTIONAL_ID"):
        assert ResourceType.parse(t) is ResourceType.TRANSACTIONAL_ID
    with pytest.raises(ValueError):
        AclOperation.parse("ANY")


def test_properties_reader_follows_java_rules():
    props = parse_properties("# c\n! c\nsuper.users = User:a;\\\n   User:b\nallow.everyone.if.no.acl.found:true\nkey\\ with\\ space value\n")
    assert props["super.users"] == "User:a;User:b"
    assert props["allow.everyone.if.no.acl.found"] == "true"
    assert props["key with space"] == "value"
