"""KSM YAML files read as KSM's YamlAclParser applies them: principals, prefixes, the helpers (and the
CLUSTER CREATE that Produce adds), Java's split, the sections KSM silently ignores, located errors."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclOperation, AclPermissionType, PatternType, ResourceType, ecosystem_format_of
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem.ksm.reader import read, sniff
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import what_is

# KSM's own test text (YamlAclParserTest), which its tests decode to these bindings
KSM_TEST = """#Ignore comments
users:
  alice: # Ignore comments
    groups:
      mygroup-*:
        - Write,Deny,12.34.56.78
    topics:
      topic1: [ Consume, Produce ]
  bob:
    groups:
      group1: [ Read, Write ]
      group2:
        - Describe,Allow,*
        - Read
  peter:
    transactional_ids:
      'tr1*':
        - All
    clusters:
      '*':
        - Create,Allow,*
"""


def triples(acl_set):
    return {(b.principal, b.resource_type, b.resource_name, b.pattern_type, b.operation, b.permission, b.host)
            for b in acl_set.bindings}


def test_ksms_own_test_file_reads_to_the_bindings_its_tests_assert():
    got = triples(read(KSM_TEST, "t.yml"))
    a, al, d, pre, lit = "User:alice", AclPermissionType.ALLOW, AclPermissionType.DENY, PatternType.PREFIXED, \
        PatternType.LITERAL
    assert (a, ResourceType.GROUP, "mygroup-", pre, AclOperation.WRITE, d, "12.34.56.78") in got
    for op in (AclOperation.READ, AclOperation.DESCRIBE, AclOperation.WRITE, AclOperation.CREATE):
        assert (a, ResourceType.TOPIC, "topic1", lit, op, al, "*") in got
    assert (a, ResourceType.CLUSTER, "*", lit, AclOperation.CREATE, al, "*") in got
    assert ("User:peter", ResourceType.TRANSACTIONAL_ID, "tr1", pre, AclOperation.ALL, al, "*") in got
    assert ("User:bob", ResourceType.GROUP, "group1", lit, AclOperation.WRITE, al, "*") in got
    # Consume + Produce share DESCRIBE: KSM keeps a set
    assert len(got) == (1 + 4 + 1) + 4 + 2


def test_origins_name_the_entry_line_and_the_user():
    acl_set = read(KSM_TEST, "t.yml")
    by = dict(zip(map(str, acl_set.bindings), acl_set.origins))
    assert any(o == "t.yml:6 (KSM user alice)" for o in by.values())
    assert all(" (KSM user " in o for o in acl_set.origins)


def test_produce_warns_that_it_grants_cluster_create():
    acl_set = read(KSM_TEST, "t.yml")
    assert any("Produce" in w and "CLUSTER" in w and "t.yml:8" in w for w in acl_set.warnings)


def test_a_misspelt_section_is_dropped_as_ksm_does_and_warned():
    acl_set = read("users:\n  a:\n    cluster:\n      kafka-cluster: [Create]\n    transactionalids:\n"
                   "      x: [All]\n", "m.yml")
    assert acl_set.bindings == []
    assert any("'cluster' is not a section KSM reads" in w and "m.yml:3" in w for w in acl_set.warnings)


def test_names_are_trimmed_entries_are_not():
    acl_set = read("users:\n  a:\n    topics:\n      ' t* ':\n        - 'Read,'\n", "t.yml")
    [b] = acl_set.bindings
    assert (b.resource_name, b.pattern_type, b.operation) == ("t", PatternType.PREFIXED, AclOperation.READ)
    with pytest.raises(InputError, match=r"t.yml:5:11: .*' Deny' is not Allow or Deny"):
        read("users:\n  a:\n    topics:\n      t:\n        - Write, Deny,*\n", "t.yml")


@pytest.mark.parametrize("entry, message", [
    ("Read,Allow", "pattern not supported"),
    ("Consume", "Consume and Produce only on topics"),
    ("Reed", "'Reed' is not an operation"),
])
def test_bad_entries_are_located_errors(entry, message):
    with pytest.raises(InputError, match=message) as exc:
        read(f"users:\n  a:\n    groups:\n      g:\n        - '{entry}'\n", "g.yml")
    assert exc.value.line == 5


def test_a_user_key_with_the_type_is_user_user_and_warned():
    acl_set = read("users:\n  User:alice:\n    topics:\n      t: [Read]\n", "u.yml")
    assert acl_set.bindings[0].principal == "User:User:alice"
    assert any("User:User:alice" in w for w in acl_set.warnings)


def test_a_cluster_entry_other_than_kafka_cluster_is_warned():
    acl_set = read("users:\n  a:\n    clusters:\n      my-cluster: [Create]\n", "c.yml")
    assert acl_set.bindings[0].resource_name == "my-cluster"
    assert any("grant nothing" in w for w in acl_set.warnings)


def test_sniffing_tells_ksm_yaml_from_other_yaml():
    assert sniff(KSM_TEST) and ecosystem_format_of(KSM_TEST).name == "ksm-yaml"
    assert not sniff("users:\n  alice:\n    password: x\n")
    assert not sniff("settings: {}\nusers:\n  a:\n    topics: {}\n")
    assert not sniff("apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\n")
    # the house sniffer names it too (for refusals elsewhere)
    assert what_is(KSM_TEST).name == "a Kafka Security Manager YAML file"


def test_every_command_reads_it_by_content_and_by_name(tmp_path):
    path = tmp_path / "acls.yml"
    path.write_text(KSM_TEST)
    runner = CliRunner()
    for extra in ([], ["--acls-format", "ksm-yaml"]):
        result = runner.invoke(app, ["convert", str(path), "--to", "csv", *extra])
        assert result.exit_code == 0, result.output
        assert "User:alice,Cluster,LITERAL,*,Create,Allow,*" in result.stdout
    other = tmp_path / "other.yml"
    other.write_text("apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\nmetadata: {name: a}\n")
    refused = runner.invoke(app, ["convert", str(other), "--to", "csv", "--acls-format", "ksm-yaml"])
    assert refused.exit_code == 2 and "KafkaUser" in refused.stderr


def test_a_second_document_is_refused_as_ksm_refuses_it():
    with pytest.raises(InputError, match=r"d.yml:5:1: .*one document"):
        read("users:\n  a:\n    topics: {t: [Read]}\n---\nusers:\n  b: {}\n", "d.yml")


def test_an_empty_file_warns_that_ksm_would_delete_every_acl():
    acl_set = read("users:\n  a: {}\n", "e.yml")
    assert acl_set.bindings == [] and any("deletes every ACL" in w for w in acl_set.warnings)
    with pytest.raises(InputError, match="merge keys"):
        read("users:\n  a:\n    <<: {topics: {t: [Read]}}\n", "m.yml")
