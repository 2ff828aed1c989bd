"""Every writable ecosystem format through the commands: `cluster pull --to FORMAT` of a cluster's ACLs
then `cluster plan` of that file against the same cluster plans nothing (a fake admin client; the live
tests do it against the real broker), and `compile --to FORMAT` writes what the rules compile to."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import FORMATS, AclBinding, AclOperation
from kafka_authz_cli.cli.app import app
from tests.fake_admin import FakeAdmin, install

CLUSTER_ACLS = [AclBinding.of("TOPIC", "orders", "LITERAL", "User:orders-app", "*", "READ", "ALLOW"),
                AclBinding.of("GROUP", "orders-", "PREFIXED", "User:orders-app", "*", "READ", "ALLOW"),
                AclBinding.of("TOPIC", "orders", "LITERAL", "User:billing", "10.1.2.3", "WRITE", "DENY"),
                AclBinding.of("CLUSTER", "kafka-cluster", "LITERAL", "User:*", "*", "IDEMPOTENT_WRITE", "ALLOW")]
#: (format, extra options, file name, a check of the written text)
PULLS = [
    ("ksm-yaml", [], "acls.yml", None),
    ("jikkou", [], "acls.yaml", None),
    ("kafka-gitops", [], "state.yaml", None),
    ("terraform", [], "acls.tf", lambda text: text.count("import {") == 4),
    ("terraform", ["--terraform-provider", "confluent", "--terraform-confluent-cluster", "lkc-1"], "acls.tf",
     lambda text: text.count("import {") == 4 and "confluent_kafka_acl" in text),
]
RULES = ('from io.kroxylicious.filter.authorization import TopicResource as Topic;\n'
         'allow User with name = "orders" to READ Topic with name = "t";\notherwise deny;\n')
runner = CliRunner()


@pytest.mark.parametrize("fmt, extra, name, check", PULLS, ids=[f"{p[0]}{'-' + p[1][1] if p[1] else ''}"
                                                                for p in PULLS])
def test_pull_then_plan_plans_nothing(fmt, extra, name, check, monkeypatch, tmp_path):
    install(monkeypatch, FakeAdmin(CLUSTER_ACLS))
    out = tmp_path / name
    pulled = runner.invoke(app, ["cluster", "pull", "--bootstrap-server", "x:1", "--to", fmt, *extra, "-o", str(out)])
    assert pulled.exit_code == 0, pulled.output
    text = out.read_text()
    assert check is None or check(text)
    assert sorted(map(str, FORMATS[fmt].read(text, str(out), {}).bindings)) == sorted(map(str, CLUSTER_ACLS))
    plan = tmp_path / "plan.json"
    planned = runner.invoke(app, ["cluster", "plan", str(out), "--bootstrap-server", "x:1", "--allow-delete",
                                  "-o", str(plan)])
    assert planned.exit_code == 0, planned.output
    doc = json.loads(plan.read_text())
    assert doc["creates"] == [] and doc["deletes"] == []


@pytest.mark.parametrize("fmt, name", [("ksm-yaml", "c.yml"), ("jikkou", "c.yaml"), ("kafka-gitops", "c.yaml"),
                                       ("terraform", "c.tf")])
def test_compile_to_the_format(fmt, name, tmp_path):
    rules = tmp_path / "rules.txt"
    rules.write_text(RULES)
    result = runner.invoke(app, ["compile", str(rules), "--to", fmt])
    assert result.exit_code == 0, result.output
    got = FORMATS[fmt].read(result.stdout, name, {}).bindings
    assert {(b.principal, b.resource_name, b.operation) for b in got} == {
        ("User:orders", "t", AclOperation.READ), ("User:orders", "t", AclOperation.DESCRIBE)}
