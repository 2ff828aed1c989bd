"""kafka-acls output of every Kafka version from 1.0 to 4.x, rendered as each version's AclCommand prints it.

The templates are AclCommand's own (``println(s"Current ACLs for resource `$resource`: $Newline
${acls.map("\\t" + _).mkString(Newline)} $Newline")`` in Scala; in 4.x tools/AclCommand.java prints
``"Current ACLs for resource `%s`:%n%s%n"`` with the ACLs joined the same way), with the toString of
the classes each version prints: kafka.security.auth.Resource / Acl (1.0 to 2.4 with
--authorizer-properties; 1.x has no pattern type) and ResourcePattern / AccessControlEntry (2.1+).
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl.formats import dump_acls, parse_acls
from kafka_authz_cli.acl.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.errors import InputError

OLD_TYPES = [ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER, ResourceType.TRANSACTIONAL_ID,
             ResourceType.DELEGATION_TOKEN]
OLD_OPERATIONS = [o for o in AclOperation.concrete() if o.name not in ("CREATE_TOKENS", "DESCRIBE_TOKENS",
                                                                          "TWO_PHASE_COMMIT")]


def _blocks(bindings):
    blocks: dict[tuple, list[AclBinding]] = {}
    for b in bindings:
        blocks.setdefault((b.resource_type, b.resource_name, b.pattern_type), []).append(b)
    return blocks


def _old_entry(b: AclBinding) -> str:
    # kafka.security.auth.Acl.toString
    return f"{b.principal} has {b.permission.pascal} permission for operations: {b.operation.pascal} from hosts: {b.host}"


def render(bindings, version: str, verb: str = "Current") -> str:
    out = []
    for (rtype, name, pattern), acls in _blocks(bindings).items():
        if version == "1.x":
            resource, entries = f"{rtype.pascal}:{name}", [_old_entry(a) for a in acls]
        elif version == "2.0-zk":
            resource, entries = f"{rtype.pascal}:{pattern.name}:{name}", [_old_entry(a) for a in acls]
        else:
            resource = f"ResourcePattern(resourceType={rtype.name}, name={name}, patternType={pattern.name})"
            entries = [str(a.entry) for a in acls]
        body = "\n".join("\t" + e for e in entries)
        if version == "4.x":
            out.append(f"{verb} ACLs for resource `{resource}`:\n{body}\n\n")
        else:
            out.append(f"{verb} ACLs for resource `{resource}`: \n {body} \n\n")
    return "".join(out)


names = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\x85"),
                min_size=1, max_size=12)


def bindings_for(version: str):
    old = version in ("1.x", "2.0-zk")
    return st.builds(
        AclBinding,
        resource_type=st.sampled_from(OLD_TYPES if old else list(ResourceType.concrete())),
        resource_name=names,
        pattern_type=st.just(PatternType.LITERAL) if version == "1.x" else st.sampled_from(
            [PatternType.LITERAL, PatternType.PREFIXED]),
        principal=st.builds(lambda t, n: f"{t}:{n}", st.sampled_from(["User", "Group"]), names | st.just("*")),
        host=st.sampled_from(["*", "10.0.0.1", "0:0:0:0:0:0:0:1"]),
        operation=st.sampled_from(OLD_OPERATIONS if old else AclOperation.concrete()),
        permission=st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]),
    )


@pytest.mark.parametrize("version", ["1.x", "2.0-zk", "2.1+", "4.x"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_versions_output_round_trips(version, data):
    acls = data.draw(st.lists(bindings_for(version), max_size=8, unique=True))
    if version == "1.x":
        assume(not any(b.resource_name.startswith(("LITERAL:", "PREFIXED:")) for b in acls))
    assume(not any(" permission for operations: " in b.principal for b in acls))
    text = render(acls, version)
    got = parse_acls(text, "list.txt")
    assert got.format == ("kafka-acls" if acls else "json")
    assert sorted(map(str, got.bindings)) == sorted(map(str, acls))
    assert not got.warnings or not acls


def test_kafka_1_0_output_is_literal():
    text = ("Current ACLs for resource `Topic:test`: \n \tUser:alice has Allow permission for operations: Read from "
            "hosts: * \n\nCurrent ACLs for resource `Cluster:kafka-cluster`: \n \tUser:bob has Deny permission for "
            "operations: ClusterAction from hosts: 10.0.0.1\n\tUser:bob has Allow permission for operations: "
            "IdempotentWrite from hosts: * \n\n")
    got = parse_acls(text, "l.txt").bindings
    assert [(b.resource_type.name, b.resource_name, b.pattern_type.name, b.principal, b.host, b.operation.name,
             b.permission.name) for b in got] == [
        ("TOPIC", "test", "LITERAL", "User:alice", "*", "READ", "ALLOW"),
        ("CLUSTER", "kafka-cluster", "LITERAL", "User:bob", "10.0.0.1", "CLUSTER_ACTION", "DENY"),
        ("CLUSTER", "kafka-cluster", "LITERAL", "User:bob", "*", "IDEMPOTENT_WRITE", "ALLOW")]


def test_kafka_2_x_zookeeper_output_keeps_the_pattern_type_and_colons_in_names():
    text = "Current ACLs for resource `Group:PREFIXED:team:a`: \n \tUser:CN=x,O=y has Allow permission " \
           "for operations: Read from hosts: * \n\n"
    (b,) = parse_acls(text, "l.txt").bindings
    assert (b.resource_name, b.pattern_type.name, b.principal) == ("team:a", "PREFIXED", "User:CN=x,O=y")


@pytest.mark.parametrize("version", ["1.x", "2.0-zk", "2.1+", "4.x"])
def test_add_output_reads_the_current_blocks_once_and_says_so(version):
    added = [AclBinding.of("TOPIC", "test", "LITERAL", "User:alice", "*", op, "ALLOW") for op in ("WRITE", "DESCRIBE")]
    before = AclBinding.of("TOPIC", "test", "LITERAL", "User:old", "*", "READ", "ALLOW")
    text = render(added, version, "Adding") + render([before, *added], version)
    got = parse_acls(text, "add.txt")
    assert sorted(map(str, got.bindings)) == sorted(map(str, [before, *added]))
    (warning,) = got.warnings
    assert "read the `Current ACLs for resource` blocks (3 ACL(s)" in warning
    assert "ignored 2 ACL(s) of the `Adding ACLs for resource` blocks (first at add.txt:2)" in warning


def test_add_output_without_the_listing_reads_the_added_acls():
    added = [AclBinding.of("GROUP", "g", "LITERAL", "User:alice", "*", "READ", "ALLOW")]
    got = parse_acls(dump_acls(added, "kafka-acls").replace("Current", "Adding"), "add.txt")
    assert got.bindings == added and not got.warnings


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_byte_order_mark_and_crlf_are_accepted(newline):
    acls = [AclBinding.of("TOPIC", "t", "LITERAL", "User:a", "*", "READ", "ALLOW")]
    text = "\ufeff" + render(acls, "2.1+").replace("\n", newline)
    assert parse_acls(text, "bom.txt").bindings == acls


def test_the_deprecation_warning_pasted_with_the_output_is_skipped():
    acls = [AclBinding.of("TOPIC", "t", "LITERAL", "User:a", "*", "READ", "ALLOW")]
    text = ("Warning: support for ACL configuration directly through the authorizer is deprecated and will be removed "
            "in a future release. Please use --bootstrap-server instead to set ACLs through the admin client.\n"
            + render(acls, "2.1+"))
    assert parse_acls(text, "w.txt").bindings == acls


@pytest.mark.parametrize("text", ["", "  \n\n", "\ufeff"])
def test_an_empty_file_is_zero_acls_with_a_warning(text):
    got = parse_acls(text, "e.txt")
    assert got.bindings == []
    assert got.warnings == ["e.txt: no ACLs (the file is empty): as a desired state it means no ACLs at all, so "
                            "applying it deletes every ACL in scope"]


def test_an_unknown_old_resource_type_is_located():
    with pytest.raises(InputError, match=r"^l.txt:1:\d+: unknown resource type 'Topics'"):
        parse_acls("Current ACLs for resource `Topics:LITERAL:x`: \n \tUser:a has Allow permission for "
                   "operations: Read from hosts: * \n", "l.txt")


def test_several_runs_pasted_together_read_each_resource_from_its_last_listing():
    a, b, c = (AclBinding.of("TOPIC", "t", "LITERAL", f"User:{n}", "*", "READ", "ALLOW") for n in "abc")
    g = AclBinding.of("GROUP", "g", "LITERAL", "User:a", "*", "READ", "ALLOW")
    # run 1 lists t with a and b; run 2 removed b and added c; g is listed once
    text = render([a, b, g], "2.1+") + render([c], "2.1+", "Adding") + render([a, c], "2.1+")
    got = parse_acls(text, "runs.txt")
    assert sorted(map(str, got.bindings)) == sorted(map(str, [a, c, g]))
    assert any("1 resource block(s) list a resource again" in w and "the last listing of each is read" in w
               for w in got.warnings)


def test_principal_sections_keep_every_principals_acls():
    a = AclBinding.of("TOPIC", "t", "LITERAL", "User:a", "*", "READ", "ALLOW")
    b = AclBinding.of("TOPIC", "t", "LITERAL", "User:b", "*", "READ", "ALLOW")
    text = "ACLs for principal `User:a`\n" + render([a], "2.1+") + "ACLs for principal `User:b`\n" + render([b], "2.1+")
    got = parse_acls(text, "p.txt")
    assert got.bindings == [a, b] and not got.warnings


def test_an_empty_adding_block_is_not_a_warning():
    a = AclBinding.of("TOPIC", "t", "LITERAL", "User:a", "*", "READ", "ALLOW")
    text = "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)`: \n  \n\n" \
           + render([a], "2.1+")
    got = parse_acls(text, "e.txt")
    assert got.bindings == [a] and not got.warnings


@pytest.mark.parametrize("text,kind", [
    ("[2024-05-01 10:00:00,123] INFO Principal = User:alice is Allowed Operation = Read from host = 10.0.0.1 on "
     "resource = Topic:LITERAL:orders for request = Fetch with resourceRefCount = 1 (kafka.authorizer.logger)\n",
     "an authorizer log (log4j)"),
    ('{"name": "c", "config": {"connector.class": "FileStreamSink"}}', "a Kafka Connect connector configuration"),
    ("# Licensed to the ASF\nbroker.id=0\nlog.dirs=/tmp/kafka-logs\n", "a Kafka broker configuration"),
    ("apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\nmetadata:\n  name: u\n", "a Strimzi KafkaUser resource"),
])
def test_a_file_that_is_no_acl_set_is_named(text, kind):
    with pytest.raises(InputError) as info:
        parse_acls(text, "f")
    assert str(info.value).startswith(f"f: this looks like {kind}")
    assert "expected an ACL set (formats authz reads here: authz ACL JSON; kafka-acls --list/--add output" in str(info.value)


def test_a_forced_format_is_named_in_the_error():
    with pytest.raises(InputError, match=r"^f: this looks like an authz ACL JSON, expected an ACL set \(kafka-acls, as "
                                         r"--acls-format says\)"):
        parse_acls(dump_acls([AclBinding.of("TOPIC", "t", "LITERAL", "User:a", "*", "READ", "ALLOW")], "json"), "f",
                   "kafka-acls")
