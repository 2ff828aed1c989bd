"""JulieOps topologies read as JulieOps 4.4.1's default ACL provider applies them: prefixes, the
built-in roles, the options that change them, directories, custom roles, and the EA4xx findings."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclOperation as Op
from kafka_authz_cli.acl import PatternType, ResourceType, ecosystem_format_of
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem import read_directory
from kafka_authz_cli.ecosystem.julieops.reader import FINDINGS, read, sniff
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.formats import what_is

T, G, C, X = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER, ResourceType.TRANSACTIONAL_ID
LIT, PRE = PatternType.LITERAL, PatternType.PREFIXED

BASE = """context: "ctx"
company: "co"
projects:
  - name: "p"
"""


def rows(acl_set):
    return {(b.principal, b.resource_type, b.resource_name, b.pattern_type, b.operation) for b in acl_set.bindings}


def codes(acl_set):
    return {w.split("EA", 1)[1][:3] for w in acl_set.warnings if "EA4" in w}


def test_project_users_get_literal_acls_on_every_full_topic_name_with_the_trailing_separator_prefix():
    text = BASE + """    consumers:
      - principal: "User:c"
        group: "g*"
    producers:
      - principal: "User:p"
        transactionId: "tx"
    topics:
      - name: "a"
      - name: "b"
        dataType: "avro"
"""
    got = rows(read(text, "t.yaml"))
    for topic in ("ctx.co.p.a", "ctx.co.p.b.avro"):
        assert ("User:c", T, topic, LIT, Op.DESCRIBE) in got and ("User:c", T, topic, LIT, Op.READ) in got
        assert ("User:p", T, topic, LIT, Op.WRITE) in got
    assert ("User:c", G, "g", PRE, Op.READ) in got  # evaluateResourcePattern: 'g*' is PREFIXED 'g'
    assert ("User:p", X, "tx", LIT, Op.WRITE) in got and ("User:p", C, "kafka-cluster", LIT, Op.IDEMPOTENT_WRITE) in got
    assert len(got) == 2 * 2 + 1 + 2 * 2 + 3


def test_origins_name_the_line_and_the_construct():
    text = BASE + '    consumers:\n      - principal: "User:c"\n        group: "g"\n    topics:\n      - name: "a"\n'
    acl_set = read(text, "topology.yaml")
    assert set(acl_set.origins) == {"topology.yaml:6 (consumers entry of project p)"}


def test_topic_level_users_and_special_topics():
    text = BASE + """    topics:
      - name: "a"
        consumers:
          - principal: "User:c"
            group: "g"
special_topics:
  - name: "raw"
    producers:
      - principal: "User:s"
"""
    acl_set = read(text, "t.yaml")
    got = rows(acl_set)
    assert ("User:c", T, "ctx.co.p.a", LIT, Op.READ) in got
    assert ("User:s", T, "raw", LIT, Op.WRITE) in got  # special topics: the name as written
    assert "t.yaml:13 (producers entry of special topic raw)" in acl_set.origins


def test_producers_are_a_set_by_principal_the_first_entry_counts():
    text = BASE + """    producers:
      - principal: "User:p"
      - principal: "User:p"
        transactionId: "tx"
    topics:
      - name: "a"
"""
    got = rows(read(text, "t.yaml"))
    assert not any(r[1] is X for r in got)  # Producer.equals compares principals only


def test_streams_ksql_and_connectors():
    text = BASE + """    streams:
      - principal: "User:s"
        applicationId: "app"
        exactlyOnce: true
        topics:
          read: ["in"]
          write: ["out"]
    ksql:
      access_control:
        - principal: "User:k"
          topics:
            read: ["in"]
    connectors:
      - principal: "User:c"
        topics:
          write: ["sink"]
    topics:
      - name: "a"
"""
    acl_set = read(text, "t.yaml")
    got = rows(acl_set)
    assert {("User:s", T, "in", LIT, Op.READ), ("User:s", T, "out", LIT, Op.WRITE), ("User:s", T, "app", PRE, Op.ALL),
            ("User:s", G, "app", PRE, Op.READ), ("User:s", X, "app", PRE, Op.WRITE)} <= got
    assert {("User:k", T, "ctx.co.p.", PRE, Op.ALL), ("User:k", G, "ctx.co.p.", PRE, Op.ALL)} <= got
    assert {("User:c", T, "connect-status", LIT, Op.WRITE), ("User:c", C, "kafka-cluster", LIT, Op.CREATE),
            ("User:c", G, "connect-cluster", LIT, Op.READ), ("User:c", T, "sink", LIT, Op.WRITE)} <= got
    assert codes(acl_set) == {"402", "404", "405", "408"}


def test_options_change_the_bindings():
    text = BASE + """    consumers:
      - principal: "User:c"
        group: "g"
    connectors:
      - principal: "User:k"
        group: "kg"
        status_topic: "s"
        offset_topic: "o"
        configs_topic: "f"
    topics:
      - name: "a"
"""
    got = rows(read(text, "t.yaml", {"topology.topic.prefix.separator": "_", "topology.acls.optimized": "true",
                                     "topology.connector.allow.topic.create": "false"}))
    assert ("User:c", T, "ctx_co_p_", PRE, Op.READ) in got
    assert not any(r[2] == "ctx_co_p_a" for r in got)
    assert ("User:k", C, "kafka-cluster", LIT, Op.CREATE) not in got
    jinja = {"topology.topic.prefix.format": "{{context}}-{{project}}-{{topic}}",
             "topology.project.prefix.format": "{{context}}-{{project}}"}
    assert ("User:c", T, "ctx-p-a", LIT, Op.READ) in rows(read(text, "t.yaml", jinja))
    with pytest.raises(OptionError, match="defined together"):
        read(text, "t.yaml", {"topology.topic.prefix.format": "{{topic}}"})


def test_dead_letter_topics_share_the_topic_users():
    text = BASE + '    consumers:\n      - principal: "User:c"\n        group: "g"\n    topics:\n      - name: "a"\n'
    got = rows(read(text, "t.yaml", {"topology.dlq.topics.generate": "true"}))
    assert ("User:c", T, "ctx.co.p.a.dlq", LIT, Op.READ) in got


def test_managed_prefixes_drop_what_julieops_does_not_manage():
    text = BASE + '    consumers:\n      - principal: "User:c"\n    topics:\n      - name: "a"\n'
    acl_set = read(text, "t.yaml", {"topology.service.accounts.managed.prefixes": "User:x"})
    assert not acl_set.bindings
    assert any("managed.prefixes" in w for w in acl_set.warnings)


ROLES = """roles:
  - name: "app"
    acls:
      - resourceType: "Topic"
        resourceName: "{{topic}}"
        patternType: "PREFIXED"
        host: "10.0.0.1"
        operation: "ALL"
        permissionType: "DENY"
"""


def test_custom_roles_need_the_roles_file_and_deny_is_created_as_allow(tmp_path):
    roles = tmp_path / "roles.yaml"
    roles.write_text(ROLES)
    text = BASE + '    app:\n      - principal: "User:r"\n        topic: "t."\n'
    with pytest.raises(InputError, match="julie.roles"):
        read(text, "t.yaml")
    acl_set = read(text, "t.yaml", {"julie.roles": str(roles)})
    (binding,) = acl_set.bindings
    assert (binding.resource_name, binding.pattern_type, binding.host, binding.permission.name) == \
        ("t.", PRE, "10.0.0.1", "ALLOW")
    assert codes(acl_set) == {"403"}
    assert "custom role app" in acl_set.origins[0]


def test_a_directory_merges_files_of_one_context(tmp_path):
    (tmp_path / "a.yaml").write_text(BASE + '    consumers:\n      - principal: "User:c"\n        group: "g"\n'
                                     '    topics:\n      - name: "a"\n')
    (tmp_path / "b.yaml").write_text('context: "ctx"\nprojects:\n  - name: "q"\n    streams:\n'
                                     '      - principal: "User:s"\n        topics:\n          read: ["x"]\n'
                                     '    topics:\n      - name: "b"\n')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.yaml").write_text(BASE.replace('"p"', '"r"'))
    acl_set = read_directory(tmp_path, "julieops")
    got = rows(acl_set)
    assert ("User:c", T, "ctx.co.p.a", LIT, Op.READ) in got
    # project q's streams prefix comes from the first file's context and keys (TopologyObjectBuilder)
    assert ("User:s", T, "ctx.co.q.", PRE, Op.ALL) in got
    assert any("subdirectories skipped" in w for w in acl_set.warnings)
    (tmp_path / "c.yaml").write_text('context: "ctx"\nenv: "e"\nprojects: []\n')
    # a key the first file lacks joins the shared order, absent from each project's copied context
    acl_set = read_directory(tmp_path, "julieops")
    assert ("User:s", T, "ctx.co.null.q.", PRE, Op.ALL) in rows(acl_set)
    assert any("hold 'null'" in w for w in acl_set.warnings)
    (tmp_path / "c.yaml").write_text('context: "other"\nprojects: []\n')
    with pytest.raises(InputError, match="different contexts"):
        read_directory(tmp_path, "julieops")


@pytest.mark.parametrize("text, message", [
    ('projects: []\n', None),
    (BASE + '    consumers:\n      - principal: "c"\n', "has no type"),
    (BASE + '    consumers:\n      - principal: "User:c"\n        grop: "g"\n', "unknown field 'grop'"),
    (BASE + '    streams:\n      - principal: "User:s"\n        topics:\n          write: ["x"]\n', "without read topics"),
    (BASE + '    topics:\n      - name: "caf\u00e9"\n', "illegal"),
])
def test_errors_are_one_located_line(text, message):
    if message is None:
        assert not sniff(text)
        return
    with pytest.raises(InputError, match=message) as info:
        read(text, "t.yaml")
    assert info.value.line is not None


def test_detected_by_content_and_named_when_wrong():
    text = BASE + '    topics:\n      - name: "a"\n'
    assert sniff(text) and ecosystem_format_of(text).name == "julieops"
    assert str(what_is(text)) == "a JulieOps topology"
    assert str(what_is('{"context": "c", "projects": []}')) == "a JulieOps topology"
    result = CliRunner().invoke(app, ["convert", "-", "--to", "json", "--acls-format", "ksm-yaml"], input=text)
    assert result.exit_code == 2 and "JulieOps topology" in result.stderr


@pytest.mark.parametrize("finding", FINDINGS, ids=[f.code for f in FINDINGS])
def test_each_findings_example_produces_exactly_its_code(finding, tmp_path):
    options = {}
    text = finding.example
    if finding.code == "EA403":
        roles = tmp_path / "roles.yaml"
        roles.write_text(ROLES)
        options = {"julie.roles": str(roles)}
    if finding.code == "EA407":
        options = {"topology.acls.optimized": "true"}
    if finding.code == "EA405":
        options = {"topology.connector.allow.topic.create": "false"}
    acl_set = read(text, "t.yaml", options)
    assert codes(acl_set) == {finding.code[2:]}
    (line,) = [w for w in acl_set.warnings if "EA4" in w]
    assert f" {finding.code} " in f" {line}"


def test_artefact_only_sections_create_no_acl_and_rbac_only_constructs_are_told():
    text = BASE + """    connectors:
      artefacts:
        - path: "c.json"
          server: "connect"
          name: "c"
    ksql:
      artefacts:
        streams: []
    schemas:
      - principal: "App2"
        subjects: ["s"]
    rbac:
      - ResourceOwner:
          - principal: "User:Foo"
    topics:
      - name: "a"
        plan: "gold"
"""
    acl_set = read(text, "t.yaml")
    assert not acl_set.bindings
    joined = " ".join(acl_set.warnings)
    assert "RBAC" in joined and "plan 'gold'" in joined


def test_jinja_beyond_substitutions_is_refused_not_guessed():
    text = BASE + '    topics:\n      - name: "a"\n'
    with pytest.raises(InputError, match="only"):
        read(text, "t.yaml", {"topology.topic.prefix.format": "{{context|upper}}.{{topic}}",
                              "topology.project.prefix.format": "{{context|upper}}"})


def test_the_rbac_provider_creates_no_acl_and_is_refused():
    with pytest.raises(OptionError, match="RBAC"):
        read(BASE, "t.yaml", {"topology.builder.access.control.class": "com.purbon.kafka.topology.roles.RBACProvider"})


def test_a_json_topology_through_the_cli(tmp_path):
    path = tmp_path / "topology.json"
    path.write_text('{"context": "c", "projects": [{"name": "p", "producers": [{"principal": "User:p", '
                    '"idempotence": "true"}], "topics": [{"name": "t"}]}]}')
    result = CliRunner().invoke(app, ["convert", str(path), "--to", "kafka-acls"])
    assert result.exit_code == 0, result.output
    assert "c.p.t" in result.stdout and "IDEMPOTENT_WRITE" in result.stdout


def test_a_key_given_twice_reads_as_jacksons_tree_does_the_last_one():
    text = BASE + '    consumers:\n      - principal: "User:c"\n        group: "a"\n        group: "b"\n' \
                  '    topics:\n      - name: "a"\n'
    acl_set = read(text, "t.yaml")
    assert ("User:c", G, "b", LIT, Op.READ) in rows(acl_set) and ("User:c", G, "a", LIT, Op.READ) not in rows(acl_set)
    assert any("given again" in w for w in acl_set.warnings)


def test_only_the_first_yaml_document_is_read_as_jackson_reads_one_value():
    text = BASE + '    producers:\n      - principal: "User:p"\n    topics:\n      - name: "a"\n---\n' + \
        BASE.replace('"p"', '"q"') + '    producers:\n      - principal: "User:q"\n    topics:\n      - name: "a"\n'
    acl_set = read(text, "t.yaml")
    assert {b.principal for b in acl_set.bindings} == {"User:p"}
    assert any("JulieOps ignores them" in w for w in acl_set.warnings)
