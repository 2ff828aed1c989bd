"""The live-cluster commands against a fake admin; conversions against kafka-python's own classes."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli import cluster as cluster_cli
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import load_acls
from kafka_authz_cli.kafka_adapter import client_config, from_kafka_acl, plan_sync, to_kafka_acl
from kafka_authz_cli.model import AclBinding, AclOperation, ResourceType

EXAMPLE = Path(__file__).parents[2] / "examples" / "acls" / "cluster.json"
runner = CliRunner()


class FakeAdmin:
    def __init__(self, acls):
        self.acls = list(acls)
        self.created, self.deleted = [], []

    def list_acls(self):
        return list(self.acls)

    def create_acls(self, bindings):
        self.created += bindings
        self.acls += bindings
        return []

    def delete_acls(self, bindings):
        self.deleted += bindings
        self.acls = [a for a in self.acls if a not in bindings]
        return []


@pytest.fixture
def fake(monkeypatch):
    admin = FakeAdmin([AclBinding.of("TOPIC", "legacy", "LITERAL", "User:old", "*", "READ", "ALLOW")])
    monkeypatch.setattr(cluster_cli, "ADMIN_FACTORY", lambda bootstrap, config: admin)
    return admin


def test_every_binding_survives_kafka_python_objects():
    for b in load_acls(EXAMPLE):
        assert from_kafka_acl(to_kafka_acl(b)) == b


def test_apply_makes_the_cluster_equal_to_the_file(fake):
    res = runner.invoke(app, ["cluster", "apply", str(EXAMPLE), "--bootstrap-server", "localhost:9092", "--yes"])
    assert res.exit_code == 0, res.output
    assert sorted(map(str, fake.acls)) == sorted(map(str, load_acls(EXAMPLE)))
    assert [b.resource_name for b in fake.deleted] == ["legacy"]


def test_apply_dry_run_and_keep_extra_change_nothing_they_should_not(fake):
    res = runner.invoke(app, ["cluster", "apply", str(EXAMPLE), "--bootstrap-server", "x:1", "--dry-run"])
    assert res.exit_code == 0 and "10 to create, 1 to delete" in res.output
    assert fake.created == [] and fake.deleted == []
    runner.invoke(app, ["cluster", "apply", str(EXAMPLE), "--bootstrap-server", "x:1", "--keep-extra", "--yes"])
    assert fake.deleted == [] and len(fake.acls) == 11


def test_apply_refuses_acls_the_broker_would_reject(fake, tmp_path):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps({"version": 1, "acls": [{"resource_type": "GROUP", "resource_name": "g",
                                                      "pattern_type": "LITERAL", "principal": "User:a", "host": "*",
                                                      "operation": "WRITE", "permission": "ALLOW"}]}))
    res = runner.invoke(app, ["cluster", "apply", str(f), "--bootstrap-server", "x:1", "--yes"])
    assert res.exit_code == 2 and "nothing was changed" in res.output
    assert fake.created == []


def test_pull_writes_kafka_acls_text(fake, tmp_path):
    out = tmp_path / "acls.txt"
    res = runner.invoke(app, ["cluster", "pull", "--bootstrap-server", "x:1", "--to", "kafka-acls", "-o", str(out)])
    assert res.exit_code == 0
    assert load_acls(out) == fake.acls


def test_plan_sync():
    a = AclBinding.of("TOPIC", "a", "LITERAL", "User:x", "*", "READ", "ALLOW")
    b = AclBinding.of("TOPIC", "b", "LITERAL", "User:x", "*", "READ", "ALLOW")
    assert plan_sync([a], [b]) == ([b], [a])


def test_client_config_from_java_properties():
    cfg = client_config({"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
                         "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                                             'username="alice" password="s3cr=t";',
                         "ssl.truststore.location": "/etc/ca.pem"})
    assert cfg == {"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512", "sasl_plain_username": "alice",
                   "sasl_plain_password": "s3cr=t", "ssl_cafile": "/etc/ca.pem"}
    with pytest.raises(InputError, match="PEM"):
        client_config({"ssl.truststore.location": "/etc/truststore.jks"})
