"""KIP-201 declarative policy: evaluation, broker-first checks, the combined ACL verdict, a naive
re-implementation, and the CLI."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.acl.engine import StandardAuthorizer
from kafka_authz_cli.acl.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.config.dynamic import BrokerConfigSources, Located
from kafka_authz_cli.policy.topic import (
    ClusterState,
    PolicyFileError,
    PolicyRequest,
    TopicState,
    decide,
    evaluate,
    parse_policy,
)

POLICY = parse_policy({
    "default": "deny",
    "rules": [
        {"name": "admins", "principals": ["User:admin"]},
        {"name": "orders", "principals": ["User:orders-*"], "topics": ["orders*"], "operations": ["create", "alter"],
         "partitions": {"min": 3, "max": 48}, "replication_factor": {"min": 3},
         "configs": {"min.insync.replicas": {"min": 2}, "retention.ms": {"max": 604800000},
                     "cleanup.policy": {"allowed": ["delete", "compact"]}, "segment.bytes": {"forbidden": True},
                     "max.message.bytes": {"required": True}}},
    ]})
CLUSTER = ClusterState({"orders": TopicState(12, 3, {"min.insync.replicas": "2", "max.message.bytes": "1000"}),
                        "__consumer_offsets": TopicState(50, 3, internal=True)}, brokers=3)


def req(request, principal="User:orders-svc", topic="orders-new", **kw):
    from kafka_authz_cli.policy.topic import REQUEST_TYPES

    return PolicyRequest(request, REQUEST_TYPES[request.lower()][0], principal, topic, **kw)


GOOD = {"min.insync.replicas": "2", "max.message.bytes": "1000"}


def test_create_within_bounds_is_allowed():
    v = evaluate(POLICY, req("CreateTopics", partitions=6, replication_factor=3, configs=GOOD), CLUSTER)
    assert v.allowed and v.rule == "rule 2 (orders)" and not v.violations


@pytest.mark.parametrize("kw,fragment", [
    ({"partitions": 64}, "partitions 64 is above the maximum 48"),
    ({"partitions": 1}, "partitions 1 is below the minimum 3"),
    ({"replica_assignments": {0: [1, 2], 1: [2, 3]}, "partitions": None}, "replication factor 2 is below"),
    ({"configs": {**GOOD, "segment.bytes": "1073741824"}}, "segment.bytes may not be set"),
    ({"configs": {"min.insync.replicas": "2"}}, "max.message.bytes must be set"),
    ({"configs": {**GOOD, "retention.ms": "604800001"}}, "retention.ms (request) 604800001 is above"),
    ({"configs": {"max.message.bytes": "1"}}, "min.insync.replicas (broker default min.insync.replicas, "
                                              "Kafka's default) 1 is below the minimum 2"),
])
def test_create_violations(kw, fragment):
    args = {"partitions": 6, "replication_factor": 3, "configs": GOOD, **kw}
    v = evaluate(POLICY, req("CreateTopics", **args), CLUSTER)
    assert not v.allowed and any(fragment in x for x in v.violations), v.violations


def test_broker_default_comes_from_server_properties_with_units():
    broker = BrokerConfigSources(static={"log.retention.hours": Located("720", "s:1"),
                                         "min.insync.replicas": Located("2", "s:2")})
    v = evaluate(POLICY, req("CreateTopics", partitions=6, replication_factor=3,
                             configs={"max.message.bytes": "1"}), CLUSTER, broker)
    assert [x for x in v.violations] == ["Topic 'orders-new': retention.ms (broker default log.retention.hours=720, "
                                         "server.properties) 2592000000 is above the maximum 604800000"]


def test_alter_uses_the_current_configs_and_legacy_alter_configs_replaces_them():
    ok = evaluate(POLICY, req("IncrementalAlterConfigs", topic="orders", configs={"retention.ms": "1000"}), CLUSTER)
    assert ok.allowed
    replaced = evaluate(POLICY, req("AlterConfigs", topic="orders", configs={"retention.ms": "1000"},
                                    replace_configs=True), CLUSTER)
    assert any("max.message.bytes must be set" in x for x in replaced.violations)
    deleted = evaluate(POLICY, req("IncrementalAlterConfigs", topic="orders", delete_configs=("min.insync.replicas",)),
                       CLUSTER)
    assert any("min.insync.replicas (broker default" in x for x in deleted.violations)


def test_the_broker_refuses_before_the_policy():
    assert evaluate(POLICY, req("CreateTopics", topic="orders", partitions=6), CLUSTER).broker_error.startswith(
        "TOPIC_ALREADY_EXISTS")
    assert evaluate(POLICY, req("CreatePartitions", topic="orders", partitions=6), CLUSTER).broker_error.startswith(
        "INVALID_PARTITIONS: Topic currently has 12 partitions")
    assert evaluate(POLICY, req("CreateTopics", partitions=6, replication_factor=5), CLUSTER).broker_error.startswith(
        "INVALID_REPLICATION_FACTOR")
    assert evaluate(POLICY, req("DeleteTopics", topic="nope"), CLUSTER).broker_error.startswith(
        "UNKNOWN_TOPIC_OR_PARTITION")


def test_operations_default_rule_and_internal_topics():
    v = evaluate(POLICY, req("DeleteTopics", topic="orders"), CLUSTER)
    assert v.violations == ("rule 2 (orders) does not let User:orders-svc delete topic 'orders' (it allows alter, "
                            "create)",)
    v = evaluate(POLICY, req("CreateTopics", principal="User:bob", topic="x", partitions=1), CLUSTER)
    assert v.rule == "default: deny"
    v = evaluate(POLICY, req("DeleteRecords", principal="User:admin", topic="__consumer_offsets"), CLUSTER)
    assert not v.allowed and v.rule == "internal_topics: deny"
    assert evaluate(POLICY, req("DeleteTopics", principal="User:admin", topic="orders"), CLUSTER).allowed


def _acls(*entries):
    return [AclBinding(ResourceType[rt], name, PatternType.LITERAL, p, "*", AclOperation[op],
                       AclPermissionType.ALLOW) for rt, name, p, op in entries]


def test_combined_verdict_acls_first_then_broker_then_policy():
    authz = StandardAuthorizer(_acls(("CLUSTER", "kafka-cluster", "User:orders-svc", "CREATE")))
    r = req("CreateTopics", partitions=64, replication_factor=3, configs=GOOD)
    c = decide(authz, POLICY, r, CLUSTER)
    assert (c.verdict, c.refused_by) == ("DENIED", "policy") and c.error.startswith("POLICY_VIOLATION: ")
    assert c.acl_checks == ("CREATE CLUSTER:kafka-cluster ALLOWED",)
    authz = StandardAuthorizer(_acls(("TOPIC", "orders-new", "User:orders-svc", "CREATE")))
    c = decide(authz, POLICY, req("CreateTopics", partitions=6, replication_factor=3, configs=GOOD), CLUSTER)
    assert c.verdict == "ALLOWED" and len(c.acl_checks) == 2
    c = decide(StandardAuthorizer([]), POLICY, r, CLUSTER)
    assert (c.refused_by, c.error) == ("acls", "TOPIC_AUTHORIZATION_FAILED: Authorization failed.")


@pytest.mark.parametrize("doc,where", [
    ({"rules": [{"operations": ["drop"]}]}, "rules[0].operations"),
    ({"rules": [{"partitions": {"min": 5, "max": 1}}]}, "rules[0].partitions"),
    ({"rules": [{"partitions": {"allowed": ["1"]}}]}, "rules[0].partitions"),
    ({"default": "maybe"}, "default"),
    ({"version": 2}, ""),
    ({"rulez": []}, ""),
])
def test_policy_file_errors(doc, where):
    with pytest.raises(PolicyFileError) as info:
        parse_policy(doc)
    assert where in info.value.where


# -- a naive reading of the same policy ---------------------------------------------------------------

def naive(rules, default, principal, topic, op, partitions):
    for r in rules:
        if (r["principal"] == "*" or principal == r["principal"] or
                (r["principal"].endswith("*") and principal.startswith(r["principal"][:-1]))) and \
                (topic.startswith(r["topic"][:-1]) if r["topic"].endswith("*") else topic == r["topic"]):
            if op not in r["ops"]:
                return False
            return r["min"] <= partitions <= r["max"] if op == "create" else True
    return default == "allow"


_rule = st.fixed_dictionaries({
    "principal": st.sampled_from(["*", "User:a", "User:a*", "User:b"]),
    "topic": st.sampled_from(["*", "t*", "t1", "u*"]),
    "ops": st.lists(st.sampled_from(["create", "alter", "delete"]), min_size=1, unique=True),
    "min": st.integers(1, 5), "max": st.integers(5, 10)})


@settings(max_examples=300, deadline=None)
@given(st.lists(_rule, max_size=4), st.sampled_from(["deny", "allow"]), st.sampled_from(["User:a", "User:ab", "User:b"]),
       st.sampled_from(["t1", "t2", "u1"]), st.sampled_from(["create", "delete"]), st.integers(1, 12))
def test_agrees_with_a_naive_reading(rules, default, principal, topic, op, partitions):
    policy = parse_policy({"default": default, "rules": [
        {"principals": [r["principal"]], "topics": [r["topic"]], "operations": r["ops"],
         "partitions": {"min": r["min"], "max": r["max"]}} for r in rules]})
    cluster = ClusterState({"t1": TopicState(1, 1), "t2": TopicState(1, 1), "u1": TopicState(1, 1)}) \
        if op == "delete" else ClusterState()
    request = req("CreateTopics" if op == "create" else "DeleteTopics", principal=principal, topic=topic,
                  partitions=partitions if op == "create" else None)
    assert evaluate(policy, request, cluster).allowed == naive(rules, default, principal, topic, op, partitions)


# -- CLI ----------------------------------------------------------------------------------------------------

runner = CliRunner()
ACLS = Path(__file__).parents[2] / "examples" / "acls" / "cluster.json"


def test_cli_policy_check(tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text('default = "deny"\n[[rules]]\nprincipals = ["User:ops"]\noperations = ["create"]\n'
                      'partitions = {max = 10}\n')
    reqs = tmp_path / "r.jsonl"
    reqs.write_text(json.dumps({"request": "create", "principal": "User:ops", "topic": "a", "partitions": 3,
                                "expect": "ALLOWED"}) + "\n" +
                    json.dumps({"request": "create", "principal": "User:ops", "topic": "b", "partitions": 30,
                                "expect": "ALLOWED"}) + "\n")
    res = runner.invoke(app, ["policy", "check", str(reqs), "--policy", str(policy), "-f", "json"])
    assert res.exit_code == 1
    rows = json.loads(res.stdout)
    assert [r["ok"] for r in rows] == [True, False]
    assert rows[1]["error"] == "POLICY_VIOLATION: Topic 'b': partitions 30 is above the maximum 10"
    res = runner.invoke(app, ["policy", "check", str(reqs), "--policy", str(policy), "--acls", str(ACLS), "-f", "json"])
    assert json.loads(res.stdout)[0]["refused_by"] == "acls"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"request": "rename", "principal": "User:a", "topic": "x"}\n')
    res = runner.invoke(app, ["policy", "check", str(bad), "--policy", str(policy)])
    assert res.exit_code == 2 and f"{bad}:1: request must be one of" in res.output


def test_simulate_topic_policy(tmp_path):
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"rules": [{"principals": ["User:admin"], "partitions": {"max": 10}}]}))
    res = runner.invoke(app, ["simulate", str(ACLS), "--super-users", "User:admin", "--principal", "User:admin",
                              "--operation", "Create", "--topic", "t", "--partitions", "20", "--topic-policy",
                              str(policy), "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)
    assert (row["verdict"], row["refused_by"], row["acl_decision"]) == ("DENIED", "policy", "ALLOWED")
    res = runner.invoke(app, ["simulate", str(ACLS), "--principal", "User:admin", "--operation", "Read", "--topic", "t",
                              "--topic-policy", str(policy)])
    assert res.exit_code == 2
