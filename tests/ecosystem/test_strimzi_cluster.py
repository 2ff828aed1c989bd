"""`cluster pull --to strimzi`, then `cluster plan` of that output against the same cluster: no change
(a fake admin client; tests/live does it against the real broker)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclBinding
from kafka_authz_cli.cli.app import app
from tests.fake_admin import FakeAdmin, install


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch, FakeAdmin([
        AclBinding.of("TOPIC", "orders", "LITERAL", "User:CN=orders-app", "*", "READ", "ALLOW"),
        AclBinding.of("GROUP", "orders-", "PREFIXED", "User:CN=orders-app", "*", "READ", "ALLOW"),
        AclBinding.of("TOPIC", "orders", "LITERAL", "User:billing", "10.1.2.3", "WRITE", "DENY"),
        AclBinding.of("CLUSTER", "kafka-cluster", "LITERAL", "User:billing", "*", "IDEMPOTENT_WRITE", "ALLOW"),
    ]))


def test_pull_to_strimzi_then_plan_plans_nothing(fake, tmp_path):
    runner = CliRunner()
    users = tmp_path / "users.yaml"
    pulled = runner.invoke(app, ["cluster", "pull", "--bootstrap-server", "x:1", "--to", "strimzi",
                                 "--strimzi-cluster", "prod", "-o", str(users)])
    assert pulled.exit_code == 0, pulled.output
    text = users.read_text()
    assert text.count("kind: KafkaUser") == 2 and "type: scram-sha-512" in text and "type: tls" in text
    plan = tmp_path / "plan.json"
    planned = runner.invoke(app, ["cluster", "plan", str(users), "--bootstrap-server", "x:1", "--allow-delete",
                                  "-o", str(plan)])
    assert planned.exit_code == 0, planned.output
    doc = json.loads(plan.read_text())
    assert doc["creates"] == [] and doc["deletes"] == []


def test_pull_to_strimzi_refuses_what_a_kafka_user_cannot_hold(fake):
    fake.acls.append(AclBinding.of("TOPIC", "x", "LITERAL", "User:*", "*", "READ", "ALLOW"))
    result = CliRunner().invoke(app, ["cluster", "pull", "--bootstrap-server", "x:1", "--to", "strimzi"])
    assert result.exit_code == 2 and "User:* (every user) is no KafkaUser" in result.stderr


def test_compile_to_strimzi(tmp_path):
    rules = tmp_path / "rules.txt"
    rules.write_text('from io.kroxylicious.filter.authorization import TopicResource as Topic;\n'
                     'allow User with name = "orders" to READ Topic with name = "t";\notherwise deny;\n')
    result = CliRunner().invoke(app, ["compile", str(rules), "--to", "strimzi", "--strimzi-authentication",
                                      "scram-sha-512"])
    assert result.exit_code == 0, result.output
    assert "name: orders" in result.stdout and "operations: [Read, Describe]" in result.stdout


def test_pull_to_strimzi_is_the_same_text_whatever_order_the_cluster_lists(fake):
    runner = CliRunner()
    first = runner.invoke(app, ["cluster", "pull", "--bootstrap-server", "x:1", "--to", "strimzi"])
    fake.acls.reverse()
    second = runner.invoke(app, ["cluster", "pull", "--bootstrap-server", "x:1", "--to", "strimzi"])
    assert first.exit_code == second.exit_code == 0, first.output + second.output
    assert first.stdout == second.stdout
    # users by name: billing before orders-app
    assert first.stdout.index("name: billing") < first.stdout.index("name: orders-app")
