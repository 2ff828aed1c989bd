"""kafka-gitops state files read as kafka-gitops 0.2.15 applies them: each service type's generated ACLs,
roles, custom ACLs and their defaults, the '<name>-<index>' map that lets a user replace a service's
ACLs, settings.files, Confluent Cloud's service-account ids, the EA3xx findings, located errors."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclBinding, ecosystem_format_of
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem.kafka_gitops.reader import FINDINGS, read, read_many, sniff
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import what_is

STATE = """settings:
  services:
    acls:
      describeTopicEnabled: true
services:
  orders:
    type: application
    principal: User:orders
    produces: [orders]
    consumes: [payments, orders]
  enricher:
    type: kafka-streams
    principal: User:enricher
    application-id: enrich
  sink:
    type: kafka-connect
    principal: User:connect
    group-id: connect-cluster
    storage-topics:
      offset: offsets
    connectors:
      jdbc:
        consumes: [orders]
"""


def b(*fields: str) -> str:
    return str(AclBinding.of(*fields))


def bindings(acl_set) -> list[str]:
    return [str(x) for x in acl_set.bindings]


def codes(acl_set) -> list[str]:
    return sorted({c for w in acl_set.warnings for c in re.findall(r"\bEA3\d\d\b", w)})


def test_every_service_type_expands_as_its_get_acls():
    got = bindings(read(STATE, "state.yaml"))
    assert got[:6] == [b("TOPIC", "orders", "LITERAL", "User:orders", "*", "WRITE", "ALLOW"),
                       b("TOPIC", "payments", "LITERAL", "User:orders", "*", "READ", "ALLOW"),
                       b("TOPIC", "orders", "LITERAL", "User:orders", "*", "READ", "ALLOW"),
                       b("TOPIC", "payments", "LITERAL", "User:orders", "*", "DESCRIBE", "ALLOW"),
                       b("TOPIC", "orders", "LITERAL", "User:orders", "*", "DESCRIBE", "ALLOW"),
                       b("GROUP", "orders", "LITERAL", "User:orders", "*", "READ", "ALLOW")]
    streams = [x for x in got if "User:enricher" in x]
    assert len(streams) == 12
    assert b("TOPIC", "enrich", "PREFIXED", "User:enricher", "*", "DELETE", "ALLOW") in streams
    assert b("GROUP", "enrich", "LITERAL", "User:enricher", "*", "DELETE", "ALLOW") in streams
    assert b("CLUSTER", "kafka-cluster", "LITERAL", "User:enricher", "*", "DESCRIBE_CONFIGS", "ALLOW") in streams
    connect = [x for x in got if "User:connect" in x]
    for topic in ("connect-configs-sink", "offsets", "connect-status-sink"):
        assert b("TOPIC", topic, "LITERAL", "User:connect", "*", "WRITE", "ALLOW") in connect
    assert b("GROUP", "connect-cluster", "LITERAL", "User:connect", "*", "READ", "ALLOW") in connect
    assert b("GROUP", "connect-jdbc", "LITERAL", "User:connect", "*", "READ", "ALLOW") in connect
    assert b("TOPIC", "orders", "LITERAL", "User:connect", "*", "DESCRIBE", "ALLOW") in connect


def test_origins_name_the_line_and_the_construct():
    acl_set = read(STATE, "state.yaml")
    assert acl_set.origins[0] == "state.yaml:9 (produces of application service orders)"
    assert acl_set.origins[5] == "state.yaml:6 (consumer group of application service orders)"
    assert any(o.startswith("state.yaml:14 (internal topics and group of kafka-streams service enricher")
               for o in acl_set.origins)
    assert "state.yaml:22 (consumer group of connector jdbc of kafka-connect service sink)" in acl_set.origins


@pytest.mark.parametrize("finding", FINDINGS, ids=[f.code for f in FINDINGS])
def test_each_finding_example_produces_its_code_and_no_other(finding, tmp_path):
    if isinstance(finding.example, dict):
        files = []
        for name, content in finding.example.items():
            (tmp_path / name).write_text(content)
            files.append((content, str(tmp_path / name)))
        acl_set = read(files[0][0], files[0][1])
    else:
        acl_set = read(finding.example, "example.yaml")
    assert codes(acl_set) == [finding.code], acl_set.warnings
    assert all(w.split(": ", 1)[-1].startswith(finding.code) or w.split("); ", 1)[-1].split(": ", 1)[-1]
               .startswith(finding.code) for w in acl_set.warnings)


def test_a_user_named_like_a_service_replaces_its_acls_index_by_index():
    text = ("services:\n  x:\n    type: application\n    principal: User:svc\n    produces: [a, b, c]\n"
            "users:\n  x:\n    principal: User:u\n    roles: [writer]\n")
    got = bindings(read(text, "s.yaml"))
    # x-0 (WRITE a) is replaced by the user's WRITE *, x-1 and x-2 stay
    assert got == [b("TOPIC", "*", "LITERAL", "User:u", "*", "WRITE", "ALLOW"),
                   b("TOPIC", "b", "LITERAL", "User:svc", "*", "WRITE", "ALLOW"),
                   b("TOPIC", "c", "LITERAL", "User:svc", "*", "WRITE", "ALLOW")]


def test_custom_acls_default_host_and_permission_and_keep_their_principal():
    text = ("users:\n  a:\n    principal: User:a\n    roles: []\ncustomUserAcls:\n  a:\n"
            "    x:\n      name: t\n      type: TOPIC\n      pattern: PREFIXED\n      operation: READ\n"
            "    y:\n      name: t\n      type: TRANSACTIONAL_ID\n      pattern: LITERAL\n      operation: WRITE\n"
            "      principal: User:other\n      host: 10.0.0.1\n      permission: DENY\n")
    acl_set = read(text, "c.yaml")
    assert codes(acl_set) == ["EA308"] and "c.yaml:7: EA308" in acl_set.warnings[0]
    assert bindings(acl_set) == [
        b("TOPIC", "t", "PREFIXED", "User:a", "*", "READ", "ALLOW"),
        b("TRANSACTIONAL_ID", "t", "LITERAL", "User:other", "10.0.0.1", "WRITE", "DENY")]


@pytest.mark.parametrize("text, message", [
    ("services:\n  k:\n    type: ksqldb\n    principal: User:k\n", r"3:11: service type 'ksqldb' does not exist"),
    ("services:\n  k:\n    principal: User:k\n", r"2:3: missing type id property 'type'"),
    ("users:\n  a:\n    principal: User:a\n    roles: [admin]\n", r"4:13: Role 'admin' does not exist"),
    ("users:\n  a:\n    principal: User:a\n    roles: []\nusers: {}\n", r"5:1: .*duplicate field 'users'"),
    ("services:\n  s:\n    type: application\n    principal: User:s\n    produces: t\n", r"5:15: .*must be a list"),
    ("custom:\n  x: 1\n", r"1:1: Unrecognized field: \[custom\]"),
    ("customUserAcls:\n  a:\n    r:\n      name: t\n      type: TOPIC\n      pattern: MATCH\n      operation: READ\n",
     r"6:16: .*MATCH"),
    ("customUserAcls:\n  a:\n    r:\n      name: t\n      type: topic\n      pattern: LITERAL\n      operation: READ\n",
     r"5:13: .*invalid for field 'type'"),
    ("customUserAcls:\n  a:\n    r:\n      name: t\n      type: TOPIC\n      operation: READ\n",
     r"4:7: Not set: \[pattern\]"),
    ("services:\n  s:\n    type: application\n    principal: User:s\ncustomServiceAcls:\n  s:\n    r:\n"
     "      name: t\n      type: TOPIC\n      pattern: LITERAL\n      operation: READ\n",
     r"7:5: Missing principal for custom service ACL r"),
    ("topics:\n  t:\n    partitions: 1\n", r"2:3: Not set: \[replication\]"),
    ("settings:\n  files:\n    users: nowhere.yaml\n", r"3:12: Users file 'nowhere.yaml' could not be found"),
])
def test_what_kafka_gitops_refuses_is_one_located_error(text, message):
    with pytest.raises(InputError, match=message):
        read(text, "bad.yaml")


def test_settings_files_are_merged_relative_to_the_state_file(tmp_path):
    (tmp_path / "svc.yaml").write_text("services:\n  s:\n    type: application\n    principal: User:s\n"
                                       "    produces: [t]\n")
    state = "settings:\n  files:\n    services: svc.yaml\nservices:\n  s:\n    type: application\n" \
            "    principal: User:old\n    produces: [old]\n"
    path = tmp_path / "state.yaml"
    path.write_text(state)
    acl_set = read(state, str(path))
    assert bindings(acl_set) == [b("TOPIC", "t", "LITERAL", "User:s", "*", "WRITE", "ALLOW")]
    assert acl_set.origins == [f"{tmp_path / 'svc.yaml'}:5 (produces of application service s)"]
    # a directory: the included file is read through the state file only
    again = read_many([((tmp_path / n).read_text(), str(tmp_path / n)) for n in ("state.yaml", "svc.yaml")],
                      str(tmp_path))
    assert bindings(again) == bindings(acl_set)


CCLOUD = ("settings:\n  ccloud:\n    enabled: true\nservices:\n  app:\n    type: application\n"
          "    principal: User:ignored\n    consumes: [t]\nusers:\n  ann:\n    roles: []\ncustomUserAcls:\n  ann:\n"
          "    r:\n      name: t\n      type: TOPIC\n      pattern: LITERAL\n      operation: READ\n"
          "      principal: User:ignored-too\n")


def test_confluent_cloud_principals_are_the_service_account_ids(tmp_path):
    with pytest.raises(InputError, match=r"c.yaml:3:14: .*--option ccloud-service-accounts"):
        read(CCLOUD, "c.yaml")
    with pytest.raises(InputError, match=r"c.yaml:10:3: Service account 'user-ann' was not found"):
        read(CCLOUD, "c.yaml", {"ccloud-service-accounts": "app=sa-1"})
    got = bindings(read(CCLOUD, "c.yaml", {"ccloud-service-accounts": "app=sa-1,user-ann=sa-2"}))
    assert got == [b("TOPIC", "t", "LITERAL", "User:sa-1", "*", "READ", "ALLOW"),
                   b("GROUP", "app", "LITERAL", "User:sa-1", "*", "READ", "ALLOW"),
                   b("TOPIC", "t", "LITERAL", "User:sa-2", "*", "READ", "ALLOW")]
    listed = tmp_path / "accounts.json"
    listed.write_text(json.dumps([{"id": 101, "name": "app", "description": "x"}, {"id": 102, "name": "user-ann"}]))
    assert bindings(read(CCLOUD, "c.yaml", {"ccloud-service-accounts": str(listed)}))[0] == \
        b("TOPIC", "t", "LITERAL", "User:101", "*", "READ", "ALLOW")


def test_custom_acls_of_undefined_names_are_ignored_and_warned():
    example = next(f for f in FINDINGS if f.code == "EA304").example
    acl_set = read(example, "e.yaml")
    assert len(acl_set.bindings) == 1 and "ghost" in " ".join(acl_set.warnings)


def test_sniffing_tells_kafka_gitops_from_ksm_and_other_yaml():
    assert sniff(STATE) and ecosystem_format_of(STATE).name == "kafka-gitops"
    assert sniff("users: {}\n") and sniff("# c\ntopics:\n  t: {partitions: 1, replication: 1}\n")
    assert not sniff("users:\n  alice:\n    topics:\n      t: [Read]\n")  # KSM YAML
    assert not sniff("apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\n")
    assert not sniff("context: x\nprojects: []\n")
    assert not sniff("services:\n  web:\n    image: nginx\n")  # docker compose
    assert sniff("services:\n  s:\n    type: kafka-streams\n")
    assert what_is(STATE).name == "a kafka-gitops desired state file"
    assert what_is("services:\n  web:\n    image: nginx\n").name != "a kafka-gitops desired state file"


def test_every_command_reads_it_by_content_and_by_name(tmp_path):
    path = tmp_path / "state.yaml"
    path.write_text(STATE)
    runner = CliRunner()
    for extra in ([], ["--acls-format", "kafka-gitops"]):
        result = runner.invoke(app, ["convert", str(path), "--to", "csv", *extra])
        assert result.exit_code == 0, result.output
        assert "User:orders,Group,LITERAL,orders,Read,Allow,*" in result.stdout
    other = tmp_path / "other.yml"
    other.write_text("apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\nmetadata: {name: a}\n")
    refused = runner.invoke(app, ["convert", str(other), "--to", "csv", "--acls-format", "kafka-gitops"])
    assert refused.exit_code == 2 and "KafkaUser" in refused.stderr
    simulated = runner.invoke(app, ["simulate", str(path), "--principal", "User:enricher", "--operation", "Create",
                                    "--topic", "enrichX", "--format", "jsonl"])
    assert simulated.exit_code == 0, simulated.output
    assert '"decision": "ALLOWED"' in simulated.stdout or "ALLOW" in simulated.stdout
    assert f"{path}:14 (internal topics and group of kafka-streams service enricher" in simulated.stdout


def test_several_state_files_in_a_directory_are_read_as_one_and_warned(tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(f"users:\n  {name}:\n    principal: User:{name}\n    roles: [writer]\n")
    result = CliRunner().invoke(app, ["convert", str(tmp_path), "--to", "csv"])
    assert result.exit_code == 0, result.output
    assert "User:a,Topic" in result.stdout and "User:b,Topic" in result.stdout
    assert "2 kafka-gitops state files" in " ".join(result.stderr.split())


def test_an_included_topics_file_is_checked_where_it_is(tmp_path):
    (tmp_path / "topics.yaml").write_text("topics:\n  t:\n    partitions: 1\n")
    state = "settings:\n  files:\n    topics: topics.yaml\n"
    (tmp_path / "state.yaml").write_text(state)
    with pytest.raises(InputError, match=r"topics.yaml:2:3: Not set: \[replication\]"):
        read(state, str(tmp_path / "state.yaml"))
