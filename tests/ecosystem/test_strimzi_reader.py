"""Strimzi KafkaUser reading: principals, expansion, located errors and the warnings for what the
User Operator does differently from what the file seems to say."""

from __future__ import annotations

import logging
import re
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem.strimzi.reader import read
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.services.acl_sources import load_acl_set, load_source, parse_acl_source


def user(name="app", auth="tls", acls="", api="kafka.strimzi.io/v1", cluster="my-cluster", extra=""):
    labels = f"\n  labels:\n    strimzi.io/cluster: {cluster}" if cluster else ""
    authentication = f"\n  authentication:\n    type: {auth}" if auth else ""
    authorization = f"\n  authorization:\n    type: simple\n    acls:\n{textwrap.indent(acls, '      ')}" if acls else ""
    return f"apiVersion: {api}\nkind: KafkaUser\nmetadata:\n  name: {name}{labels}\nspec:{authentication}" \
           f"{authorization}{extra}\n"


READ_TOPIC = "- resource:\n    type: topic\n    name: t\n  operations: [Read]\n"


def strs(acl_set):
    return [f"{b.permission.name} {b.principal} {b.operation.name} {b.resource_type.name}:{b.pattern_type.name}:"
            f"{b.resource_name} {b.host}" for b in acl_set.bindings]


@pytest.mark.parametrize("auth,principal", [("tls", "User:CN=app"), ("tls-external", "User:CN=app"),
                                            ("scram-sha-512", "User:app"), (None, "User:app")])
def test_the_principal_follows_the_authentication_type(auth, principal):
    assert strs(read(user(auth=auth, acls=READ_TOPIC), "u.yaml")) == [f"ALLOW {principal} READ TOPIC:LITERAL:t *"]


def test_defaults_operations_cluster_and_deny():
    acls = ("- resource: {type: cluster, name: ignored}\n  operations: [Describe, All]\n"
            "- resource: {type: group, name: g-, patternType: prefix}\n  operations: [Read]\n  host: 10.0.0.1\n"
            "  type: deny\n"
            "- resource: {type: transactionalId, name: tx}\n  operations: [Write, Describe, IdempotentWrite]\n")
    acl_set = read(user(acls=acls), "u.yaml")
    assert strs(acl_set) == [
        "ALLOW User:CN=app DESCRIBE CLUSTER:LITERAL:kafka-cluster *", "ALLOW User:CN=app ALL CLUSTER:LITERAL:kafka-cluster *",
        "DENY User:CN=app READ GROUP:PREFIXED:g- 10.0.0.1", "ALLOW User:CN=app WRITE TRANSACTIONAL_ID:LITERAL:tx *",
        "ALLOW User:CN=app DESCRIBE TRANSACTIONAL_ID:LITERAL:tx *",
        "ALLOW User:CN=app IDEMPOTENT_WRITE TRANSACTIONAL_ID:LITERAL:tx *"]
    assert acl_set.origins[0] == "u.yaml:13 (KafkaUser app, cluster my-cluster)"
    assert any("always LITERAL kafka-cluster" in w for w in acl_set.warnings)


def test_no_authorization_is_no_acls():
    assert read(user(), "u.yaml").bindings == []


def test_duplicates_collapse_as_the_operators_set_does():
    assert len(read(user(acls=READ_TOPIC * 3), "u.yaml").bindings) == 1


def test_v1beta2_operation_is_one_binding_and_both_fields_are_refused():
    one = "- resource: {type: topic, name: t}\n  operation: Write\n"
    assert strs(read(user(acls=one, api="kafka.strimzi.io/v1beta2"), "u.yaml")) == ["ALLOW User:CN=app WRITE TOPIC:LITERAL:t *"]
    both = "- resource: {type: topic, name: t}\n  operation: Write\n  operations: [Read]\n"
    with pytest.raises(InputError, match=r"u.yaml:13:9: acls\[0\]: both operations and operation"):
        read(user(acls=both, api="kafka.strimzi.io/v1beta2"), "u.yaml")


def test_v1_drops_operation_and_a_rule_without_operations_grants_nothing():
    acl_set = read(user(acls="- resource: {type: topic, name: t}\n  operation: Write\n"), "u.yaml")
    assert acl_set.bindings == []
    assert any("API server drops it" in w for w in acl_set.warnings)
    assert any("creates no ACL" in w for w in acl_set.warnings)


@pytest.mark.parametrize("acls,message", [
    ("- resource: {type: topic, name: t}\n  operations: [read]\n", "u.yaml:14:22: acls[0].operations: 'read' is not one of"),
    ("- resource: {type: Topic, name: t}\n  operations: [Read]\n", "acls[0].resource.type: 'Topic' is not one of"),
    ("- resource: {type: topic}\n  operations: [Read]\n", "acls[0].resource has no name"),
    ("- resource: {type: topic, name: 7}\n  operations: [Read]\n", "acls[0].resource.name must be a string, got a number"),
    ("- resource: {type: topic, name: t}\n  operations: [Read]\n  type: Allow\n", "acls[0].type: 'Allow'"),
    ("- resource: {type: topic, name: t, patternType: prefixed}\n  operations: [Read]\n", "'prefixed' is not one of"),
    ("- operations: [Read]\n", "acls[0] has no resource"),
    ("- resource: {type: topic, name: t}\n  operations: [~]\n", "u.yaml:14:22: acls[0].operations is required"),
])
def test_errors_are_located_and_say_what_the_crd_allows(acls, message):
    with pytest.raises(InputError) as info:
        read(user(acls=acls), "u.yaml")
    assert message in str(info.value)
    assert str(info.value).startswith("u.yaml:1")


def test_bad_names_authentication_and_yaml_are_located():
    with pytest.raises(InputError, match=r"u.yaml:4:9: KafkaUser name 'My_User' is not a Kubernetes object name"):
        read(user(name="My_User"), "u.yaml")
    with pytest.raises(InputError, match="authentication type 'scram-sha-256'"):
        read(user(auth="scram-sha-256"), "u.yaml")
    with pytest.raises(InputError, match="at most 64"):
        read(user(name="a" * 65), "u.yaml")
    with pytest.raises(InputError, match=r"u.yaml:4:1: not valid YAML"):
        read("apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\nmetadata: [\n", "u.yaml")


def test_ambiguous_constructs_warn():
    acls = ("- resource: {type: topic, name: '*', patternType: prefix}\n  operations: [Read]\n"
            "- resource: {type: topic, name: 'orders-*'}\n  operations: [Read]\n")
    text = user(acls=acls, auth="tls-external") + "---\n" + user(acls=READ_TOPIC, auth="tls-external")
    warnings = " | ".join(read(text, "u.yaml").warnings)
    assert "matches only names that begin with '*'" in warnings
    assert "Kafka has no glob" in warnings
    assert "ssl.principal.mapping.rules" in warnings
    assert "KafkaUser app is defined again (first at u.yaml:1)" in warnings


def test_several_clusters_and_super_users_are_told():
    kafka = ("apiVersion: kafka.strimzi.io/v1\nkind: Kafka\nmetadata: {name: a}\nspec:\n  kafka:\n"
             "    authorization:\n      type: simple\n      superUsers: [CN=admin, bob]\n")
    text = "---\n".join([kafka, user(name="x", acls=READ_TOPIC, cluster="a"), user(name="y", acls=READ_TOPIC, cluster="b")])
    acl_set = read(text, "u.yaml")
    assert len(acl_set.bindings) == 2
    warnings = " | ".join(acl_set.warnings)
    assert "KafkaUsers of 2 clusters (a, b" in warnings
    assert "--super-users: User:CN=admin,User:bob" in warnings
    assert acl_set.origins[1].endswith("(KafkaUser y, cluster b)")


def test_a_kind_list_and_an_unlabelled_user():
    items = textwrap.indent(user(acls=READ_TOPIC, cluster=None), "    ").replace("    apiVersion", "  - apiVersion", 1)
    acl_set = read(f"apiVersion: v1\nkind: List\nitems:\n{items}", "list.yaml")
    assert strs(acl_set) == ["ALLOW User:CN=app READ TOPIC:LITERAL:t *"]
    assert any("no strimzi.io/cluster label" in w for w in acl_set.warnings)


def test_json_kafka_user_is_read_too():
    text = ('{"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaUser", "metadata": {"name": "j"}, '
            '"spec": {"authorization": {"type": "simple", "acls": [{"resource": {"type": "topic", "name": "t"}, '
            '"operations": ["Read"]}]}}}')
    assert strs(parse_acl_source(text, "u.json")) == ["ALLOW User:j READ TOPIC:LITERAL:t *"]


def test_a_directory_is_read_recursively_by_content(tmp_path):
    (tmp_path / "team-a").mkdir()
    (tmp_path / "team-a" / "users.yaml").write_text(user(name="a", acls=READ_TOPIC) + "---\n" + user(name="b"))
    (tmp_path / "b.yml").write_text(user(name="c", auth="scram-sha-512", acls=READ_TOPIC))
    (tmp_path / "kafka.yaml").write_text("apiVersion: kafka.strimzi.io/v1\nkind: Kafka\nmetadata: {name: k}\n")
    (tmp_path / "README.md").write_text("kind: KafkaUser\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.yaml").write_text(user(name="hidden", acls=READ_TOPIC))
    acl_set = load_acl_set(tmp_path)
    assert [b.principal for b in acl_set.bindings] == ["User:c", "User:CN=a"]
    assert acl_set.origins[0].startswith(f"{tmp_path / 'b.yml'}:")
    assert any("1 file(s) are not Strimzi KafkaUser resources" in w for w in acl_set.warnings)


def test_a_directory_without_kafka_users_is_refused(tmp_path):
    (tmp_path / "a.yaml").write_text("a: 1\n")
    with pytest.raises(InputError, match="no file here is in a format authz reads from a directory"):
        load_acl_set(tmp_path)


def test_acls_format_strimzi_on_another_format_says_what_it_is(tmp_path):
    path = tmp_path / "acls.csv"
    path.write_text("KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n")
    with pytest.raises(InputError, match="this looks like a Kafka Security Manager CSV, expected Strimzi KafkaUser"):
        load_acl_set(path, "strimzi")


def test_warnings_reach_the_user(tmp_path, caplog):
    path = tmp_path / "u.yaml"
    path.write_text(user(acls="- resource: {type: topic, name: '*', patternType: prefix}\n  operations: [Read]\n"))
    with caplog.at_level(logging.WARNING):
        load_source(path)
    assert "begin with '*'" in caplog.text


def test_simulate_explains_a_decision_by_the_kafka_user_and_line(tmp_path):
    path = tmp_path / "users.yaml"
    path.write_text(user(name="orders", auth="scram-sha-512", acls=READ_TOPIC))
    result = CliRunner().invoke(app, ["simulate", str(path), "--principal", "User:orders", "--operation", "Read",
                                      "--topic", "t", "--format", "jsonl"])
    assert result.exit_code == 0, result.output
    assert '"acl_origin": "' + f"{path}:13 (KafkaUser orders, cluster my-cluster)" in result.stdout


def test_whatif_and_cluster_plan_take_kafka_users_through_the_sources(tmp_path):
    # every command reads ACL files through services/acl_sources.py: the detection is there, once
    path = tmp_path / "users.yaml"
    path.write_text(user(acls=READ_TOPIC))
    assert load_source(path, "strimzi").format == "strimzi"
    result = CliRunner().invoke(app, ["diff", str(path), str(path)])
    assert result.exit_code == 0 and "equivalent" in result.stdout


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
       | st.sampled_from(["yes", "No", "on", "~", "null", "1e3", "0x1F", ".inf", "2024-01-01", "<<", "=", "-1"]))
def test_the_fast_resolver_types_every_plain_scalar_as_pyyaml_does(value):
    import yaml

    from kafka_authz_cli.ecosystem.yamlnodes import _loader

    text = f"k: {value}\n"
    try:
        expected = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return
    got = yaml.compose(text, Loader=_loader())
    assert [(k.tag, v.tag) for k, v in got.value] == [(k.tag, v.tag) for k, v in expected.value]


def test_a_directory_is_one_source_for_warnings(tmp_path):
    for i in range(5):
        (tmp_path / f"u{i}.yaml").write_text(user(name=f"u{i}", auth="tls-external", acls=READ_TOPIC))
    (tmp_path / "again.yaml").write_text(user(name="u1", acls=READ_TOPIC))
    (tmp_path / "other.yaml").write_text(user(name="o", acls=READ_TOPIC, cluster="other"))
    warnings = load_acl_set(tmp_path).warnings
    assert sum("tls-external" in w for w in warnings) == 1 and any(w.startswith("5 tls-external") for w in warnings)
    assert any(f"KafkaUser u1 is defined again (first at {tmp_path / 'again.yaml'}:1)" in w for w in warnings)
    assert any(w.startswith(f"{tmp_path}: KafkaUsers of 2 clusters") for w in warnings)


def test_option_cluster_reads_one_clusters_users_in_every_command(tmp_path):
    path = tmp_path / "users.yaml"
    path.write_text(user(name="x", acls=READ_TOPIC, cluster="a") + "---\n" + user(name="y", acls=READ_TOPIC, cluster="b"))
    acl_set = load_acl_set(path, options={"cluster": "b"})
    assert [b.principal for b in acl_set.bindings] == ["User:CN=y"]
    assert any("1 KafkaUser(s) of other clusters" in w for w in acl_set.warnings)
    assert not any("clusters (a, b" in w for w in acl_set.warnings)
    runner = CliRunner()
    denied = runner.invoke(app, ["simulate", str(path), "--option", "cluster=b", "--principal", "User:CN=x",
                                 "--operation", "Read", "--topic", "t", "--format", "jsonl"])
    assert denied.exit_code == 0 and '"decision": "DENIED"' in denied.stdout
    same = runner.invoke(app, ["diff", str(path), str(path), "--option", "cluster=a"])
    assert same.exit_code == 0 and "equivalent" in same.stdout
    bad = runner.invoke(app, ["convert", str(path), "--to", "json", "--option", "team=x"])
    assert bad.exit_code == 2 and "strimzi has no reading option team" in bad.stderr
    not_eco = tmp_path / "a.csv"
    not_eco.write_text("KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n")
    refused = runner.invoke(app, ["convert", str(not_eco), "--to", "json", "--option", "cluster=a"])
    assert refused.exit_code == 2 and "reading options are for the ecosystem's formats" in refused.stderr


_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8),
                     st.sampled_from(["topic", "group", "cluster", "prefix", "literal", "Read", "allow", "deny",
                                      "tls", "simple", "app", "*"]))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["type", "name", "resource", "operations", "operation", "host", "patternType", "acls",
                     "authorization", "authentication", "labels", "x"]), inner, max_size=4), max_leaves=12)


@given(_values | st.lists(_values, max_size=4).map(lambda acls: {"authorization": {"type": "simple", "acls": acls}}),
       st.sampled_from(["v1", "v1beta2"]))
def test_any_spec_reads_or_fails_in_one_located_line(spec, version):
    import yaml

    text = yaml.safe_dump({"apiVersion": f"kafka.strimzi.io/{version}", "kind": "KafkaUser",
                           "metadata": {"name": "app"}, "spec": spec})
    try:
        read(text, "u.yaml")
    except InputError as exc:
        assert "\n" not in str(exc) and re.match(r"u.yaml:\d+:\d+: ", str(exc)), str(exc)
