"""`authz config resolve --bootstrap-server` against the real broker: dynamic configs set through the
broker's own API, read back through DescribeConfigs, resolved by authz and checked against the broker.

The broker is shared by the whole session: every test deletes the dynamic configs it set (and the
users and ACLs it made), and waits until the broker no longer reports them."""

import json

import pytest

from kafka_authz_cli.acl.model import CLUSTER_NAME, AclBinding

pytestmark = pytest.mark.live

SET, DELETE = 0, 1  # IncrementalAlterConfigs operations


def alter(kadmin, resource: str, entries: list[tuple[str, int, str | None]]):
    """IncrementalAlterConfigs of one BROKER resource (``""``: the cluster-wide default, which
    kafka-python's alter_configs() cannot name); the broker's error code is checked."""
    from kafka.protocol.admin import IncrementalAlterConfigsRequest

    manager = kadmin._manager
    response = manager.run(manager.send, IncrementalAlterConfigsRequest(resources=[(4, resource, entries)],
                                                                        validate_only=False))
    assert [(r.error_code, r.error_message) for r in response.responses] == [(0, None)]


def broker_reports(kadmin, broker_id: str) -> dict:
    """The broker's own answer through kafka-python's public describe_configs (the independent reader)."""
    from kafka.admin import ConfigResource, ConfigResourceType

    result = kadmin.describe_configs([ConfigResource(ConfigResourceType.BROKER, broker_id)], include_synonyms=True,
                                     config_filter="all")
    return result["broker"][broker_id]


@pytest.fixture
def broker_id(kadmin):
    [(node, _host, _port)] = [(b.node_id, b.host, b.port) for b in kadmin._manager.cluster.brokers()]
    return str(node)


@pytest.fixture
def dynamic(kadmin, broker_id, eventually):
    """``dynamic(resource, {key: value})``: set dynamic broker configs; all deleted again at the end."""
    done: list[tuple[str, str]] = []

    def set_configs(resource, configs):
        alter(kadmin, resource, [(k, SET, v) for k, v in configs.items()])
        done.extend((resource, k) for k in configs)

    yield set_configs
    for resource in {r for r, _ in done}:
        alter(kadmin, resource, [(k, DELETE, None) for r, k in done if r == resource])

    def restored():
        reported = broker_reports(kadmin, broker_id)
        for _resource, key in done:
            assert not any(s["source"].startswith("DYNAMIC") for s in reported.get(key, {}).get("synonyms", [])), key

    eventually(restored)


def resolve(authz, *args):
    res = authz("config", "resolve", *authz.live, *args, "-f", "json")
    return res, (json.loads(res.stdout) if res.stdout.strip().startswith("{") else None)


def test_dynamic_per_broker_and_cluster_default_configs_resolve_as_the_broker_reports(
        authz, kafka, kadmin, broker_id, dynamic, eventually):
    dynamic("", {"log.cleaner.backoff.ms": "20000", "log.retention.ms": "7200000"})
    dynamic(broker_id, {"log.cleaner.backoff.ms": "16000", "listener.name.sasl_plaintext.max.connections": "1000"})
    where = f"cluster:{kafka.bootstrap}"

    def shows_them():
        res, doc = resolve(authz)
        assert res.exit_code == 0, res.output
        rows = {r["key"]: r for r in doc["configs"]}
        backoff = rows["log.cleaner.backoff.ms"]
        assert (backoff["value"], backoff["source"], backoff["where"]) == (
            "16000", "DYNAMIC_BROKER_CONFIG", f"{where} broker {broker_id} (dynamic)")
        assert [(s["value"], s["source"]) for s in backoff["synonyms"]] == [
            ("16000", "DYNAMIC_BROKER_CONFIG"), ("20000", "DYNAMIC_DEFAULT_BROKER_CONFIG"), ("15000", "DEFAULT_CONFIG")]
        retention = rows["log.retention.ms"]
        assert (retention["value"], retention["source"], retention["where"]) == (
            "7200000", "DYNAMIC_DEFAULT_BROKER_CONFIG", f"{where} (dynamic cluster default)")
        assert [s["name"] for s in retention["synonyms"]] == ["log.retention.ms", "log.retention.hours"]
        conns = rows["listener.name.sasl_plaintext.max.connections"]
        assert (conns["value"], conns["source"]) == ("1000", "DYNAMIC_BROKER_CONFIG")
        assert all(rows[k]["agrees"] is True for k in ("log.cleaner.backoff.ms", "log.retention.ms",
                                                       "listener.name.sasl_plaintext.max.connections"))
        assert doc["check"]["disagreements"] == []
        return doc

    doc = eventually(shows_them)
    assert doc["broker_id"] == broker_id and doc["notes"][0].startswith(f"broker {broker_id}: the one at the bootstrap")
    # The broker, read independently through kafka-python's own describe_configs, says the same.
    reported = broker_reports(kadmin, broker_id)
    assert (reported["log.cleaner.backoff.ms"]["value"], reported["log.cleaner.backoff.ms"]["config_source"]) == (
        "16000", "DYNAMIC_BROKER_CONFIG")
    assert reported["log.retention.ms"]["config_source"] == "DYNAMIC_DEFAULT_BROKER_CONFIG"
    # --listener shows that listener's view (and the other listener's its own); the table has the verdict.
    for listener, value, source in (("SASL_PLAINTEXT", "1000", "DYNAMIC_BROKER_CONFIG"),
                                    ("CONTROLLER", "2147483647", "DEFAULT_CONFIG")):
        res, doc = resolve(authz, "--listener", listener, "--key", "max.connections")
        [row] = doc["configs"]
        assert (row["key"], row["value"], row["source"]) == (
            f"listener.name.{listener.lower()}.max.connections", value, source)
    res = authz("config", "resolve", *authz.live, "--key", "log.cleaner.backoff.ms")
    assert res.exit_code == 0 and "agrees" in res.stdout and "DISAGREES" not in res.stdout, res.output


def test_authz_agrees_with_the_broker_on_every_key_and_never_shows_a_secret(authz, kafka, broker_id):
    res, doc = resolve(authz, "--all")
    assert res.exit_code == 0, res.output
    check = doc["check"]
    assert check["disagreements"] == [] and check["compared"] == check["agree"] > 300, check
    rows = {r["key"]: r for r in doc["configs"]}
    jaas = rows["listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config"]
    assert jaas["sensitive"] and jaas["value"] is None and jaas["source"] == "STATIC_BROKER_CONFIG"
    # super.users has no type the broker knows, so the broker hides it: authz does too.
    assert rows["super.users"]["sensitive"] and rows["super.users"]["value"] is None
    assert rows["node.id"]["value"] == broker_id
    # log.retention.hours is Kafka's default; the broker reports log.retention.ms with no value of its own;
    # authz reports the value the broker uses, in ms, and the hours key's text it comes from.
    assert (rows["log.retention.ms"]["value"], rows["log.retention.ms"]["from"],
            rows["log.retention.ms"]["from_value"]) == ("604800000", "log.retention.hours", "168")
    # without --kafka-version, the registry's version is the one whose keys the broker reports
    assert doc["kafka_version"] == "4.1.1" and check["unknown_to_authz"] == [], check["unknown_to_authz"]
    assert (rows["log.retention.ms"]["broker"]["source"], rows["log.retention.ms"]["broker"]["value"]) == (
        "DEFAULT_CONFIG", None)
    for secret in ("admin-secret", "controller-secret"):
        assert secret not in res.output


def test_drift_between_server_properties_and_what_the_broker_loaded(authz, kafka, tmp_path):
    real = kafka.workdir / "server.properties"
    res = authz("config", "resolve", *authz.live, "--broker-config", real, "--key", "num.io.threads")
    assert res.exit_code == 0, res.output
    assert "is what broker 1 loaded (no drift)" in " ".join(res.stdout.split())
    changed = tmp_path / "server.properties"
    lines = [ln for ln in real.read_text().splitlines() if not ln.startswith("num.partitions=")]
    lines = [("num.io.threads=7" if ln.startswith("num.io.threads=") else ln) for ln in lines]
    lines = [(ln.replace('password="controller-secret"', 'password="other"') if "plain.sasl.jaas" in ln else ln)
             for ln in lines]
    changed.write_text("\n".join(lines + ["log.cleaner.enable=false"]) + "\n")
    res, doc = resolve(authz, "--broker-config", changed, "--key", "num.io.threads")
    assert res.exit_code == 3, res.output
    assert [(d["kind"], d["key"], d["file"], d["broker"]) for d in doc["drift"]] == [
        ("only in file", "log.cleaner.enable", "'false'", None),
        ("differs", "num.io.threads", "'7'", "'2'"),
        ("only on broker", "num.partitions", None, "'1'")]  # the changed JAAS password: both set, not compared
    assert "controller-secret" not in res.output and "other" not in json.dumps(doc["drift"])
    assert doc["drift_compared_as_set_only"] == [
        "allow.everyone.if.no.acl.found", "listener.name.controller.plain.sasl.jaas.config",
        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config",
        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config", "super.users"]


def test_a_user_without_describe_configs_gets_one_line(authz, kafka, kadmin, eventually):
    from kafka.admin import UserScramCredentialDeletion, UserScramCredentialUpsertion

    from kafka_authz_cli.cluster.kafka_adapter import to_kafka_acl

    user = "config-reader"
    kadmin.alter_user_scram_credentials([UserScramCredentialUpsertion(user, "SCRAM-SHA-512", b"reader secret")])
    login = kafka.command_config(user, "reader secret", name="config-reader.properties")
    grant = AclBinding.of("CLUSTER", CLUSTER_NAME, "LITERAL", f"User:{user}", "*", "DESCRIBE_CONFIGS", "ALLOW")
    try:
        def refused():
            res = authz("config", "resolve", "--bootstrap-server", kafka.bootstrap, "--command-config", login)
            assert res.exit_code == 2, res.output
            return res

        res = eventually(refused)  # the new credential reaches the broker asynchronously
        assert res.stderr.strip().splitlines() == [
            f"authz: error: User:{user} is not allowed to DESCRIBE_CONFIGS on the cluster: DescribeConfigs of a "
            "broker needs DESCRIBE_CONFIGS on the CLUSTER resource (an ACL for kafka-cluster, or super.users)"]
        assert not kadmin.create_acls([to_kafka_acl(grant)])["failed"]

        def allowed():
            res = authz("config", "resolve", "--bootstrap-server", kafka.bootstrap, "--command-config", login,
                        "--key", "num.io.threads", "-f", "json")
            assert res.exit_code == 0, res.output
            return json.loads(res.stdout)

        [row] = eventually(allowed)["configs"]
        assert (row["value"], row["source"]) == ("2", "STATIC_BROKER_CONFIG")
    finally:
        from kafka_authz_cli.acl.filter import AclFilter
        from kafka_authz_cli.cluster.kafka_adapter import to_kafka_filter

        kadmin.delete_acls([to_kafka_filter(AclFilter.exact(grant))])
        kadmin.alter_user_scram_credentials([UserScramCredentialDeletion(user, "SCRAM-SHA-512")])
