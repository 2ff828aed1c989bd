"""Jikkou resources read as Jikkou 1.1.0 applies them: roles, MATCH rules against a topics file, the
annotations it follows, its enum spellings; everything it refuses is one located error; each finding
code's example produces that code and no other."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import FORMATS, AclBinding
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem import read_directory
from kafka_authz_cli.ecosystem.jikkou.reader import EXAMPLE_TOPICS, FINDINGS, read, sniff
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.formats import what_is

ROLE = """---
apiVersion: kafka.jikkou.io/v1
kind: KafkaPrincipalRole
metadata:
  name: readers
spec:
  acls:
    - resource: {type: Topic, pattern: orders-, patternType: prefixed}
      type: allow
      operations: [read, Describe]
      host: "*"
"""
ALICE = """---
apiVersion: "kafka.jikkou.io/v1"
kind: "KafkaPrincipalAuthorization"
metadata:
  name: "User:alice"
spec:
  roles: [readers]
  acls:
    - resource:
        type: GROUP
        pattern: app-
        patternType: PREFIXED
      type: DENY
      operations: [READ]
      host: 10.0.0.1
"""


@pytest.fixture
def topics(tmp_path):
    path = tmp_path / "topics.txt"
    path.write_text("# kafka-topics --list\n" + "\n".join(EXAMPLE_TOPICS) + "\n")
    return str(path)


def strs(acl_set):
    return sorted(map(str, acl_set.bindings))


def b(*args):
    return str(AclBinding.of(*args))


def test_sniff_and_what_is_tell_jikkou_by_content():
    assert sniff(ALICE) and sniff(ROLE)
    assert not sniff(ALICE.replace("jikkou.io", "strimzi.io"))
    assert what_is(ALICE).key == "jikkou" and what_is(ROLE).key == "jikkou"
    assert what_is("apiVersion: kafka.jikkou.io/v1\nkind: KafkaTopic\n").key != "jikkou"
    assert FORMATS["jikkou"].follows.startswith("Jikkou 1.1.0")


def test_roles_are_appended_to_the_principals_own_acls_with_their_origin():
    got = read(ROLE + ALICE, "a.yaml")
    assert strs(got) == sorted([b("GROUP", "app-", "PREFIXED", "User:alice", "10.0.0.1", "READ", "DENY"),
                                b("TOPIC", "orders-", "PREFIXED", "User:alice", "*", "READ", "ALLOW"),
                                b("TOPIC", "orders-", "PREFIXED", "User:alice", "*", "DESCRIBE", "ALLOW")])
    origins = dict(zip(map(str, got.bindings), got.origins))
    assert origins[b("GROUP", "app-", "PREFIXED", "User:alice", "10.0.0.1", "READ", "DENY")] == \
        "a.yaml:20 (KafkaPrincipalAuthorization User:alice)"
    assert origins[b("TOPIC", "orders-", "PREFIXED", "User:alice", "*", "READ", "ALLOW")] == \
        "a.yaml:8 (KafkaPrincipalRole readers at a.yaml:2, granted to User:alice at a.yaml:13)"
    assert not got.warnings


def test_a_role_may_be_defined_in_another_file_of_the_directory(tmp_path):
    (tmp_path / "alice.yaml").write_text(ALICE)
    (tmp_path / "roles.yml").write_text(ROLE)
    (tmp_path / "notes.txt").write_text("not read")
    got = read_directory(tmp_path)
    assert got.format == "jikkou" and len(got.bindings) == 3


def test_a_list_resource_is_read_item_by_item():
    listed = """apiVersion: kafka.jikkou.io/v1
kind: KafkaPrincipalAuthorizationList
items:
  - apiVersion: kafka.jikkou.io/v1
    kind: KafkaPrincipalAuthorization
    metadata: {name: "User:bob"}
    spec:
      acls:
        - resource: {type: TRANSACTIONAL_ID, pattern: tx, patternType: LITERAL}
          type: ALLOW
          operations: [WRITE, DESCRIBE]
          host: "*"
"""
    got = read(listed, "l.yaml")
    assert strs(got) == sorted([b("TRANSACTIONAL_ID", "tx", "LITERAL", "User:bob", "*", op, "ALLOW")
                                for op in ("WRITE", "DESCRIBE")])
    assert got.origins[0] == "l.yaml:9 (KafkaPrincipalAuthorization User:bob)"


@pytest.mark.parametrize("text, where, message", [
    (ALICE, "a.yaml:7:11", "role 'readers' of User:alice: no KafkaPrincipalRole of that name"),
    (ROLE + ALICE + ALICE.replace("---\n", "---\n", 1), "a.yaml:31:9",
     "KafkaPrincipalAuthorization User:alice is defined again (first at a.yaml:13)"),
    (ROLE + ALICE.replace("pattern: app-", "pattern: '{{ values.prefix }}'"), "a.yaml:22:19",
     "'{{': Jikkou renders every resource file as a Jinja template"),
    (ROLE + ALICE.replace("      host: 10.0.0.1\n", ""), "a.yaml:20:7", "acl has no host: Jikkou 1.1.0 passes null"),
    (ROLE + ALICE.replace("      type: DENY\n", ""), "a.yaml:20:7", "acl.type is missing"),
    (ROLE + ALICE.replace("        patternType: PREFIXED\n", ""), "a.yaml:21:9", "resource.patternType is missing"),
    (ROLE + ALICE.replace("patternType: PREFIXED", "patternType: PREFIX"), "a.yaml:23:22",
     "'PREFIX' is not one of LITERAL, PREFIXED, MATCH"),
    (ROLE + ALICE.replace("operations: [READ]", "operations: [ANY]"), "a.yaml:25:20",
     "'ANY' is not one of ALL, READ"),
    (ROLE + ALICE.replace("type: GROUP", "type: 3"), "a.yaml:21:15", "Jackson reads a number as the position"),
    (ROLE + ALICE.replace('"User:alice"', '"alice"'), "a.yaml:13:1", "metadata.name 'alice' is no principal"),
    (ROLE + ALICE.replace("patternType: PREFIXED", "patternType: MATCH").replace("type: GROUP", "type: TOPIC"),
     "a.yaml:22:18", "patternType MATCH is a regex Jikkou matches against the cluster's topics when it plans; give "
                     "them with --option topics=FILE"),
])
def test_what_jikkou_refuses_is_one_located_error(text, where, message):
    with pytest.raises(InputError) as info:
        read(text, "a.yaml")
    assert str(info.value).startswith(f"{where}: "), str(info.value)
    assert message in str(info.value)


@pytest.mark.parametrize("regex", [r"\p{Alpha}+", r"\Qa.b\E", r"[a-z&&[^b]]", r"(?<name>x)", r"\z", "(unclosed",
                                   "(?P<n>x)", "a{", "a{,2}"])
def test_a_match_regex_python_would_read_otherwise_is_refused(regex, topics):
    text = ROLE + ALICE.replace("pattern: app-", f"pattern: '{regex}'").replace(
        "patternType: PREFIXED", "patternType: MATCH").replace("type: GROUP", "type: TOPIC")
    with pytest.raises(InputError, match="java.util.regex") as info:
        read(text, "a.yaml", {"topics": topics})
    assert str(info.value).startswith("a.yaml:22:18: MATCH pattern")


def test_match_expands_to_a_literal_binding_per_matching_topic_and_is_warned(topics):
    text = ROLE + ALICE.replace("pattern: app-", r"pattern: 'orders-\w+'").replace(
        "patternType: PREFIXED", "patternType: match").replace("type: GROUP", "type: topic")
    got = read(text, "a.yaml", {"topics": topics})
    denied = [x for x in got.bindings if x.permission.name == "DENY"]
    assert sorted(str(x) for x in denied) == sorted(
        b("TOPIC", t, "LITERAL", "User:alice", "10.0.0.1", "READ", "DENY") for t in ("orders-eu", "orders-us"))
    assert len(got.warnings) == 1 and got.warnings[0].startswith("a.yaml:20: EA601 ")
    assert "matches 2 of the 3 topics" in got.warnings[0]


def test_the_topics_file_is_checked(tmp_path):
    bad = tmp_path / "t.txt"
    bad.write_text("ok\nnot a topic\n")
    with pytest.raises(InputError, match=r"t.txt:2:1: 'not a topic' is not a Kafka topic name"):
        read(ALICE, "a.yaml", {"topics": str(bad)})
    with pytest.raises(OptionError, match="cannot read it"):
        read(ALICE, "a.yaml", {"topics": str(tmp_path / "missing.txt")})
    with pytest.raises(OptionError, match="jikkou has no reading option cluster"):
        FORMATS["jikkou"].check_options({"cluster": "x"})


def test_finding_codes_are_ea6xx_and_each_example_produces_its_code_only(topics):
    codes = [f.code for f in FINDINGS]
    assert len(set(codes)) == len(codes) and all(re.fullmatch(r"EA6\d\d", c) for c in codes)
    for finding in FINDINGS:
        assert finding.severity == "warning" and finding.example and finding.explanation
        got = read(finding.example, "example.yaml", {"topics": topics})
        found = set(re.findall(r"\bEA\d{3}\b", " ".join(got.warnings)))
        assert found == {finding.code}, (finding.code, got.warnings)
        assert any(w.startswith("example.yaml:") and finding.code in w for w in got.warnings)


def test_case_and_empty_acls_and_only_roles():
    assert not read(ROLE, "r.yaml").bindings
    assert "no KafkaPrincipalAuthorization resources" in read(ROLE, "r.yaml").warnings[0]
    empty = ALICE.replace("  roles: [readers]\n", "").split("  acls:")[0] + "  acls: []\n"
    assert not read(empty, "e.yaml").bindings and not read(empty, "e.yaml").warnings


def test_cli_reads_with_the_option_and_refuses_without_it(tmp_path, topics):
    src = tmp_path / "acls.yaml"
    src.write_text(FINDINGS[0].example)
    runner = CliRunner()
    refused = runner.invoke(app, ["convert", str(src), "--to", "json"])
    assert refused.exit_code == 2 and "--option topics=FILE" in " ".join(refused.stderr.split())
    done = runner.invoke(app, ["convert", str(src), "--to", "json", "--option", f"topics={topics}"])
    assert done.exit_code == 0, done.output
    assert '"orders-eu"' in done.stdout and '"payments"' not in done.stdout and "EA601" in done.stderr
    wrong = runner.invoke(app, ["convert", str(src), "--acls-format", "strimzi", "--to", "json"])
    assert wrong.exit_code == 2 and "Jikkou" in wrong.stderr


def test_unknown_keys_and_acls_without_operations_are_warned():
    text = ROLE + ALICE.replace("operations: [READ]", "operation: READ")
    got = read(text, "a.yaml")
    assert len(got.bindings) == 2
    joined = " ".join(got.warnings)
    assert "acl.operation is not read by Jikkou" in joined and "this acl has no operations" in joined


def test_any_version_of_the_group_is_read_as_v1_with_a_warning():
    got = read(ROLE.replace("kafka.jikkou.io/v1", "kafka.jikkou.io/v1beta2") + ALICE.replace(
        '"kafka.jikkou.io/v1"', "kafka.jikkou.io/v2"), "a.yaml")
    assert len(got.bindings) == 3
    assert got.warnings[0].startswith("a.yaml:2: apiVersion kafka.jikkou.io/v1beta2: Jikkou 1.1.0 serves only")
    assert "LatestApiVersionResourceTypeResolver" in got.warnings[1]
