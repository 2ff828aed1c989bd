"""`authz connect check-overrides` as a user runs it."""

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.connect.overrides import JaasError, check_connector, clients_used, identity, parse_jaas

runner = CliRunner()
ACLS = Path(__file__).parents[2] / "examples" / "acls" / "cluster.json"
SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="orders-sink" password="s3cret";'


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _sink(tmp_path, **extra):
    config = {"connector.class": "io.example.JdbcSinkConnector", "topics": "orders, orders-eu",
              "consumer.override.sasl.jaas.config": SCRAM, "consumer.override.sasl.mechanism": "SCRAM-SHA-512",
              "consumer.override.security.protocol": "SASL_SSL", **extra}
    path = tmp_path / "sink.json"
    path.write_text(json.dumps({"name": "orders-sink", "config": config}))
    return path


def test_principal_policy_allows_the_identity_and_nothing_else(tmp_path):
    path = _sink(tmp_path, **{"consumer.override.max.poll.records": "100"})
    res = run("connect", "check-overrides", path, "--policy", "Principal", "-f", "json")
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    consumer = next(c for c in doc["clients"] if c["client"] == "CONSUMER")
    assert [o["allowed"] for o in consumer["overrides"]] == [True, True, True, False]
    assert consumer["overrides"][3]["error_messages"] == [
        "The 'Principal' policy does not allow 'max.poll.records' to be overridden in the connector configuration."]
    assert consumer["principal"] == "User:orders-sink"
    assert doc["error_count"] == 1
    assert "s3cret" not in res.stdout  # the JAAS line is hidden everywhere, to_string included
    assert consumer["effective_config"]["group.id"] == "connect-orders-sink"


def test_policy_from_worker_default_all_and_class_names(tmp_path):
    path = _sink(tmp_path, **{"consumer.override.group.id": "other"})
    worker = tmp_path / "worker.properties"
    worker.write_text("bootstrap.servers=b:9092\nconnector.client.config.override.policy="
                      "org.apache.kafka.connect.connector.policy.NoneConnectorClientConfigOverridePolicy\n")
    res = run("connect", "check-overrides", path, "--worker", worker, "-f", "json")
    doc = json.loads(res.stdout)
    assert doc["policy"] == "None" and doc["error_count"] == 4 and res.exit_code == 1
    res = run("connect", "check-overrides", path, "-f", "json")
    doc = json.loads(res.stdout)
    assert doc["policy"] == "All" and res.exit_code == 0
    consumer = next(c for c in doc["clients"] if c["client"] == "CONSUMER")
    assert consumer["effective_config"]["group.id"] == "other"
    bad = run("connect", "check-overrides", path, "--policy", "Nope")
    assert bad.exit_code == 2 and "connector.client.config.override.policy" in bad.output


def test_overrides_for_unused_clients_are_never_applied(tmp_path):
    path = _sink(tmp_path, **{"producer.override.acks": "0"})
    res = run("connect", "check-overrides", path, "--policy", "None", "-f", "json")
    doc = json.loads(res.stdout)
    producer = next(c for c in doc["clients"] if c["client"] == "PRODUCER")
    assert producer["used"] is False and producer["worker_exception"] is None


def test_acls_the_connector_needs_and_emitted_requests(tmp_path):
    path = _sink(tmp_path, **{"errors.deadletterqueue.topic.name": "dlq"})
    out = tmp_path / "needs.csv"
    res = run("connect", "check-overrides", path, "--acls", ACLS, "--emit-requests", out, "-f", "json")
    doc = json.loads(res.stdout)
    needed = {(a["client"], a["operation"], a["resource_type"], a["resource_name"]) for a in doc["needed_acls"]}
    assert {("CONSUMER", "READ", "TOPIC", "orders"), ("CONSUMER", "READ", "GROUP", "connect-orders-sink"),
            ("PRODUCER", "WRITE", "TOPIC", "dlq"), ("ADMIN", "CREATE", "TOPIC", "dlq")} <= needed
    assert res.exit_code == 1 and all(a["decision"] in ("ALLOWED", "DENIED", None) for a in doc["needed_acls"])
    rows = list(csv.DictReader(out.open()))
    assert rows and all(r["expect"] == "ALLOWED" for r in rows)
    sim = run("simulate", ACLS, "--requests", out)
    assert sim.exit_code == 1  # the same checks, as an ACL test suite


def test_worker_security_does_not_reach_the_producer(tmp_path):
    worker = {"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
              "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required username="w" '
                                  'password="p";'}
    check = check_connector({"connector.class": "x.SourceConnector", "topic.creation.default.partitions": "3"},
                            worker, "All")
    by = {c.client: c for c in check.clients}
    assert by["PRODUCER"].identity.principal == "User:ANONYMOUS"  # no producer.* settings
    assert by["ADMIN"].identity.principal == "User:w"  # the admin client inherits top-level settings
    assert clients_used("source", {}) == ["PRODUCER"]
    assert clients_used("sink", {"errors.deadletterqueue.topic.name": " "}) == ["CONSUMER"]


@pytest.mark.parametrize("config,expected", [
    ({"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI",
      "sasl.jaas.config": 'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true '
                          'principal="connect/host1@EXAMPLE.COM";'}, None),
    ({"security.protocol": "SASL_SSL", "sasl.mechanism": "OAUTHBEARER",
      "sasl.jaas.config": "x.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub='svc';"}, "User:svc"),
    ({"security.protocol": "SSL"}, "User:ANONYMOUS"),
])
def test_identities(config, expected):
    assert identity(config).principal == expected


def test_kerberos_identity_is_mapped_with_the_brokers_rules(tmp_path):
    path = tmp_path / "src.properties"
    path.write_text("name=src\nconnector.class=x.FileSourceConnector\nproducer.override.security.protocol=SASL_SSL\n"
                    "producer.override.sasl.mechanism=GSSAPI\nproducer.override.sasl.jaas.config="
                    "com.sun.security.auth.module.Krb5LoginModule required principal=\"connect/h1@EXAMPLE.COM\";\n")
    res = run("connect", "check-overrides", path, "--kerberos-realm", "EXAMPLE.COM", "--topic", "t", "-f", "json")
    doc = json.loads(res.stdout)
    assert doc["clients"][0]["principal"] == "User:connect"
    assert doc["needed_acls"][0]["principal"] == "User:connect"


def test_jaas_parser():
    [e] = parse_jaas('a.B required k="v \\"q\\"" x=1 /* c */ y=\'z\';')
    assert (e.module, e.flag, e.options) == ("a.B", "required", {"k": 'v "q"', "x": "1", "y": "z"})
    for bad in ["a.B", "a.B maybe;", "a.B required k=;", "a.B required k=v"]:
        with pytest.raises(JaasError):
            parse_jaas(bad)
