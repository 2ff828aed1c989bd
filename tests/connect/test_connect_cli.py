"""`authz connect check-overrides` as a user runs it."""

import csv
import json
from pathlib import Path

import pytest

from kafka_authz_cli._java import JaasError, parse_jaas_config
from kafka_authz_cli.connect.overrides import check_connector, clients_used, identity, parse_topics_list
from tests.cli_runner import run

ACLS = Path(__file__).parents[2] / "examples" / "acls" / "cluster.json"
SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="orders-sink" password="s3cret";'


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


def test_jaas_parser_is_kafkas():
    # connect reads sasl.jaas.config with Kafka's own JaasConfig (_java.jaas, checked against 1,033 texts recorded
    # from Kafka in tests/conformance/kafka-security/jaas_config.jsonl): StreamTokenizer reads an unquoted 1 as a
    # number, which is not a value, and the octal escape \101 as A.
    [e] = parse_jaas_config('a.B required k="v \\"q\\"" /* c */ y=\'z\' o="\\101";')
    assert (e.login_module, e.control_flag, e.options) == ("a.B", "REQUIRED", {"k": 'v "q"', "y": "z", "o": "A"})
    for bad, message in [('a.B required k="v" x=1;', "Value not specified for key 'x' in JAAS config"),
                         ("a.B", "Login module control flag not specified in JAAS config"),
                         ("a.B maybe;", "Invalid login module control flag 'maybe' in JAAS config"),
                         ("a.B required k=;", "Value not specified for key 'k' in JAAS config"),
                         ("a.B required k=v", "JAAS config entry not terminated by semi-colon")]:
        with pytest.raises(JaasError) as info:
            parse_jaas_config(bad)
        assert str(info.value) == message


def _plain_sink(tmp_path, jaas: str) -> Path:
    path = tmp_path / "plain-sink.json"
    path.write_text(json.dumps({"name": "plain-sink", "config": {
        "connector.class": "io.example.JdbcSinkConnector", "topics": "orders",
        "consumer.override.security.protocol": "SASL_SSL", "consumer.override.sasl.mechanism": "PLAIN",
        "consumer.override.sasl.jaas.config": jaas}}))
    return path


def test_check_overrides_refuses_an_unquoted_number_as_kafka_does(tmp_path):
    path = _plain_sink(tmp_path, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                                 'username="orders" password=123;')
    res = run("connect", "check-overrides", path, "-f", "json")
    consumer = json.loads(res.stdout)["clients"][0]
    assert consumer["principal"] is None
    assert consumer["principal_how"] == ("sasl.jaas.config is invalid: Value not specified for key 'password' in "
                                         "JAAS config (the client fails to start)")
    table = run("connect", "check-overrides", path)
    assert "Value not specified for key 'password' in JAAS config" in " ".join(table.stdout.split())
    assert "123" not in res.stdout + table.stdout  # still hidden


def test_check_overrides_reads_octal_escapes_as_kafka_does(tmp_path):
    path = _plain_sink(tmp_path, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                                 'username="\\101lice" password="p";')
    res = run("connect", "check-overrides", path, "-f", "json")
    assert json.loads(res.stdout)["clients"][0]["principal"] == "User:Alice"


@pytest.mark.parametrize("value, topics", [
    ("orders, orders-eu", ["orders", "orders-eu"]),
    (" b ,, a ,b, ", ["b", "a"]),  # empty names dropped, duplicates removed, first occurrence's order kept
    ("", []), (None, []), (" \t", []),
    ("a\u00a0,b", ["a\u00a0", "b"]),  # ConfigDef splits at \s only: a Unicode space is part of the name
])
def test_sink_topics_are_read_as_sink_connector_config_does(value, topics):
    assert parse_topics_list(value) == topics


def test_each_topic_of_a_sink_needs_read_once(tmp_path):
    path = _sink(tmp_path, topics="orders, ,orders-eu,orders")
    doc = json.loads(run("connect", "check-overrides", path, "-f", "json").stdout)
    reads = [a["resource_name"] for a in doc["needed_acls"] if a["resource_type"] == "TOPIC"]
    assert reads == ["orders", "orders-eu"]
