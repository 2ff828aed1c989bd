"""`authz app check|acls|list` and `authz simulate --api` from the command line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

runner = CliRunner()

ACL = {"resource_type": "TOPIC", "resource_name": "orders", "pattern_type": "LITERAL", "principal": "User:alice",
       "host": "*", "operation": "READ", "permission": "ALLOW"}


def invoke(*args, **kw):
    return runner.invoke(app, [str(a) for a in args], **kw)


@pytest.fixture
def acls(tmp_path):
    def write(*entries) -> str:
        path = tmp_path / "acls.json"
        path.write_text(json.dumps({"version": 1, "acls": [dict(ACL, **e) for e in entries]}))
        return str(path)
    return write


REQUIRED_KINDS = ["producer", "consumer", "share-consumer", "consume-transform-produce", "streams",
                  "admin-create-topics", "admin-describe-configs", "admin-list-groups"]


def test_the_list_has_the_required_kinds():
    res = invoke("app", "list", "--format", "json")
    assert res.exit_code == 0
    kinds = {r["kind"]: r for r in json.loads(res.stdout)}
    assert set(REQUIRED_KINDS) <= set(kinds)
    assert "group.protocol" in kinds["consumer"]["reads"] and kinds["producer"]["kafka_versions"] == "3.0 to 4.1"
    assert invoke("app", "list").exit_code == 0


def test_a_consumer_without_its_group_fails_at_poll(acls):
    path = acls({}, {"resource_type": "GROUP", "resource_name": "billing", "operation": "DESCRIBE"})
    res = invoke("app", "check", path, "consumer", "--principal", "User:alice", "--topic", "orders",
                 "--config", "group.id=billing", "--format", "json")
    assert res.exit_code == 1, res.output
    out = json.loads(res.stdout)
    assert (out["works"], out["exception"], out["step"]) == (False, "GroupAuthorizationException", "poll")
    assert [c["api"] for c in out["calls"]] == ["Metadata", "FindCoordinator", "JoinGroup"]
    assert out["calls"][-1]["checks"][0]["decision"] == "DENIED"
    assert out["missing"] == [dict(ACL, resource_type="GROUP", resource_name="billing", operation="READ")]
    assert "cannot join group billing" in out["message"]
    table = invoke("app", "check", path, "consumer", "--principal", "User:alice", "--topic", "orders", "--config",
                   "group.id=billing")
    assert "cannot join group billing: READ on GROUP billing is missing" in table.stdout
    assert "kafka-acls --bootstrap-server BROKER --add --allow-principal User:alice --operation Read --group billing" \
        in table.stdout


def test_it_works_exit_0(acls):
    res = invoke("app", "check", acls({}), "consumer", "--principal", "User:alice", "--topic", "orders",
                 "--format", "json")
    assert res.exit_code == 0 and json.loads(res.stdout)["works"] is True and json.loads(res.stdout)["missing"] == []


def test_the_principal_comes_from_the_client_config(acls, tmp_path):
    props = tmp_path / "app.properties"
    props.write_text("security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
                     'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required '
                     'username="alice" password="x";\n')
    res = invoke("app", "check", acls({}), "consumer", "--client-config", props, "--topic", "orders", "--format", "json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["principal"] == "User:alice" and "app.properties" in out["principal_source"]


def test_the_principal_from_a_certificate_mapped_by_the_broker_rules(acls, tmp_path):
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Acme"), x509.NameAttribute(NameOID.COMMON_NAME, "alice")])
    now = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    pem = tmp_path / "alice.pem"
    pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    props = tmp_path / "app.properties"
    props.write_text(f"security.protocol=SSL\nssl.keystore.type=PEM\nssl.keystore.location={pem}\n")
    broker = tmp_path / "server.properties"
    broker.write_text("ssl.principal.mapping.rules=RULE:^CN=(.*?),O=.*$/$1/,DEFAULT\n")
    res = invoke("app", "check", acls({}), "consumer", "--client-config", props, "--broker-config", broker,
                 "--topic", "orders", "--format", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["principal"] == "User:alice"


@pytest.mark.parametrize("args, fragment", [
    (["consumer", "--topic", "orders"], "--principal"),
    (["bogus", "--principal", "User:a", "--topic", "t"], "unknown application kind"),
    (["consumer", "--principal", "User:a", "--topic", "t", "--config", "novalue"], "KEY=VALUE"),
    (["consumer", "--principal", "User:a", "--topic", "t", "--kafka-version", "2.7"], "3.0 to 4.1"),
    (["consumer", "--principal", "alice", "--topic", "t"], "principalType:principalName"),
    (["consumer", "--principal", "User:a"], "--topic"),
    (["consumer", "--principal", "User:a", "--topic", "t", "--host", "example.com"], "not an IP address"),
])
def test_usage_errors_are_one_line_exit_2(acls, args, fragment):
    res = invoke("app", "check", acls({}), *args)
    assert res.exit_code == 2, res.output
    assert fragment in res.output and "Traceback" not in res.output


def test_a_missing_topic_with_auto_creation_off_times_out(acls, tmp_path):
    broker = tmp_path / "server.properties"
    broker.write_text("auto.create.topics.enable=false\n")
    res = invoke("app", "check", acls({"operation": "WRITE"}), "producer", "--principal", "User:alice", "--topic",
                 "orders", "--topic-absent", "--broker-config", broker, "--format", "json")
    out = json.loads(res.stdout)
    assert res.exit_code == 1 and (out["exception"], out["step"]) == ("TimeoutException", "send")
    assert "does not exist" in out["blocked"]


def test_app_acls_prints_the_set_and_its_proof():
    res = invoke("app", "acls", "consume-transform-produce", "--principal", "User:alice", "--input", "in",
                 "--output", "out", "--config", "group.id=g", "--config", "transactional.id=tx")
    assert res.exit_code == 0, res.output
    assert res.stdout.count("Current ACLs for resource") == 4
    assert "proof: with these 4 ACL(s)" in res.stderr
    assert "without ALLOW WRITE on TRANSACTIONAL_ID tx for User:alice: TransactionalIdAuthorizationException at " \
           "initTransactions()" in res.stderr
    js = json.loads(invoke("app", "acls", "producer", "--principal", "User:alice", "--topic", "t", "--format", "json",
                           "--to", "terraform").stdout)
    assert js["works_with_them"] and "kafka_acl" in js["text"]
    assert js["proof"] == [{"acl": dict(ACL, resource_name="t", operation="WRITE"), "without_it": {
        "works": False, "exception": "TopicAuthorizationException", "step": "send", "phase": None, "silent": None}}]


def test_app_acls_exits_1_when_no_set_makes_it_work():
    res = invoke("app", "acls", "producer", "--principal", "User:alice", "--topic", "t", "--config",
                 "transactional.id=tx", "--config", "enable.idempotence=false")
    assert res.exit_code == 1 and "Cannot set a transactional.id without also enabling idempotence" in res.output


def test_simulate_api_shows_each_check_and_the_answer(acls):
    path = acls({}, {"resource_type": "GROUP", "resource_name": "g", "operation": "READ"})
    res = invoke("simulate", path, "--api", "OffsetCommit", "--principal", "User:alice", "--group", "g",
                 "--topic", "orders", "--topic", "other", "--format", "json")
    assert res.exit_code == 1, res.output
    out = json.loads(res.stdout)
    assert [(c["operation"], c["resource_name"], c["decision"]) for c in out["checks"]] == [
        ("READ", "g", "ALLOWED"), ("READ", "orders", "ALLOWED"), ("READ", "other", "DENIED")]
    assert out["resource_errors"] == {"other": "TOPIC_AUTHORIZATION_FAILED"}
    ok = invoke("simulate", path, "--api", "offsetcommit", "--principal", "User:alice", "--group", "g", "--topic", "orders")
    assert ok.exit_code == 0 and "answer: no error" in ok.stdout


@pytest.mark.parametrize("args, fragment", [
    (["--api", "Produce", "--principal", "User:a"], "--topic"),
    (["--api", "Nope", "--principal", "User:a"], "no client request named"),
    (["--api", "Produce", "--topic", "t"], "--principal"),
    (["--api", "Produce", "--principal", "User:a", "--topic", "t", "--operation", "Read"], "--api"),
    (["--principal", "User:a", "--operation", "Read", "--topic", "t", "--topic", "u"], "one --topic"),
    (["--api", "ConsumerGroupHeartbeat", "--principal", "User:a", "--group", "g", "--kafka-version", "3.6"],
     "from Kafka 3.7"),
])
def test_simulate_api_usage_errors(acls, args, fragment):
    res = invoke("simulate", acls({}), *args)
    assert res.exit_code == 2, res.output
    assert fragment in res.output
