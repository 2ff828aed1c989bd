"""KIP-226 resolution: precedence, synonyms, listener prefixes, ignored dynamic entries, the CLI."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.config.definitions import kafka_configs
from kafka_authz_cli.config.dynamic import (
    BrokerConfigSources,
    Located,
    broker_config_synonyms,
    keys_to_resolve,
    resolve_key,
    update_mode,
    validate_dynamic,
)

runner = CliRunner()


def L(value, where="x"):
    return Located(value, where)


def test_precedence_broker_over_default_over_static_over_default():
    s = BrokerConfigSources(static={"num.io.threads": L("4")}, dynamic_default={"num.io.threads": L("16")},
                            dynamic_broker={"num.io.threads": L("12")})
    r = resolve_key("num.io.threads", s)
    assert (r.value, r.source) == ("12", "DYNAMIC_BROKER_CONFIG")
    assert [x.source for x in r.synonyms] == ["DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG",
                                              "STATIC_BROKER_CONFIG", "DEFAULT_CONFIG"]
    assert resolve_key("num.io.threads", BrokerConfigSources()).value == "8"


def test_time_synonyms_level_first_then_name():
    s = BrokerConfigSources(static={"log.retention.hours": L("168"), "log.retention.minutes": L("30")},
                            dynamic_default={"log.retention.ms": L("1000")})
    r = resolve_key("log.retention.ms", s)
    assert (r.name, r.value, r.source) == ("log.retention.ms", "1000", "DYNAMIC_DEFAULT_BROKER_CONFIG")
    r = resolve_key("log.retention.ms", BrokerConfigSources(static={"log.retention.hours": L("2"),
                                                                    "log.retention.minutes": L("30")}))
    assert (r.name, r.millis) == ("log.retention.minutes", 1_800_000)
    assert resolve_key("log.retention.ms", BrokerConfigSources()).millis == 168 * 3_600_000


def test_listener_prefix_beats_base_at_any_level():
    s = BrokerConfigSources(static={"listener.name.ext.ssl.keystore.location": L("/ext.jks")},
                            dynamic_default={"max.connections": L("100")},
                            dynamic_broker={})
    r = resolve_key("listener.name.ext.ssl.keystore.location", s)
    assert (r.value, r.source) == ("/ext.jks", "STATIC_BROKER_CONFIG")
    s.static["listener.name.ext.max.connections"] = L("7")
    r = resolve_key("listener.name.ext.max.connections", s)
    assert (r.value, r.source) == ("7", "STATIC_BROKER_CONFIG")
    r = resolve_key("listener.name.int.max.connections", s)
    assert (r.value, r.name) == ("100", "max.connections")


def test_mechanism_configs_keep_their_name_and_are_hidden():
    assert broker_config_synonyms("listener.name.sasl.scram-sha-256.sasl.jaas.config", True) == [
        "listener.name.sasl.scram-sha-256.sasl.jaas.config", "sasl.jaas.config"]
    s = BrokerConfigSources(static={"listener.name.sasl.scram-sha-256.sasl.jaas.config": L("secret stuff")})
    r = resolve_key("listener.name.sasl.scram-sha-256.sasl.jaas.config", s)
    assert r.sensitive and r.value is None and r.source == "STATIC_BROKER_CONFIG"
    assert "secret stuff" not in json.dumps(r.as_dict())


@pytest.mark.parametrize("version,shown", [("4.1", "Set({})"), ("3.9", "Set({})"), ("4.4", "[{}]")])
def test_ignored_dynamic_entries_use_the_brokers_messages(version, shown):
    """Scala's DynamicBrokerConfig prints Set(a, b); from Kafka 4.3 it is Java and prints [a, b]."""
    kafka = kafka_configs(version)
    kept, ignored = validate_dynamic({"log.retention.hours": L("1"), "ssl.keystore.location": L("/a"),
                                      "listener.name.x.ssl.key.password": L("p"),
                                      "listener.name.x.max.connections": L("5"), "my.custom": L("1")},
                                     per_broker=False, kafka=kafka)
    assert set(kept) == {"listener.name.x.max.connections", "my.custom"}
    assert [i.message for i in ignored] == [
        "Non-dynamic configs will be ignored: " + shown.format("log.retention.hours"),
        "Security configs can be dynamically updated only using listener prefix, base configs will be ignored: "
        + shown.format("ssl.keystore.location"),
        "Per-broker configs defined at default cluster level will be ignored: "
        + shown.format("listener.name.x.ssl.key.password")]
    kept, ignored = validate_dynamic({"listener.name.x.ssl.key.password": L("p")}, per_broker=True)
    assert kept and not ignored


def test_update_modes():
    assert update_mode("ssl.keystore.location") == "per-listener only"
    assert update_mode("listener.name.a.ssl.keystore.location") == "per-broker"
    assert update_mode("sasl.enabled.mechanisms") == "per-broker"
    assert update_mode("num.network.threads") == "cluster-wide"
    assert update_mode("log.retention.ms") == "cluster-wide"
    assert update_mode("log.retention.hours") == "read-only"
    assert update_mode("super.users").startswith("read-only")
    assert update_mode("my.reporter.setting") == "custom"


def test_super_users_dynamic_value_is_never_used():
    s = BrokerConfigSources(static={"super.users": L("User:a")}, dynamic_default={"super.users": L("User:b")})
    r = resolve_key("super.users", s)
    assert r.value == "User:a" and "never used" in r.notes[0]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["num.io.threads", "log.cleaner.threads", "message.max.bytes"]),
                       st.integers(1, 99).map(str)),
       st.dictionaries(st.sampled_from(["num.io.threads", "log.cleaner.threads", "message.max.bytes"]),
                       st.integers(1, 99).map(str)),
       st.dictionaries(st.sampled_from(["num.io.threads", "log.cleaner.threads", "message.max.bytes"]),
                       st.integers(1, 99).map(str)))
def test_effective_value_is_the_overlay_of_the_levels(static, default, broker):
    """A naive reading of the KIP: start from defaults, overlay static, then default, then broker."""
    s = BrokerConfigSources({k: L(v) for k, v in static.items()}, {k: L(v) for k, v in default.items()},
                            {k: L(v) for k, v in broker.items()})
    from kafka_authz_cli.config.dynamic import DEFAULTS

    for key in ("num.io.threads", "log.cleaner.threads", "message.max.bytes"):
        naive = {**{key: DEFAULTS[key]}, **static, **default, **broker}
        assert resolve_key(key, s).value == naive[key]


def test_cli_resolve(tmp_path):
    props = tmp_path / "server.properties"
    props.write_text("node.id=2\nlog.retention.hours=24\nssl.keystore.password=hunter2\n"
                     "listener.name.ext.ssl.keystore.location=/ext.jks\n")
    dyn = tmp_path / "dyn.json"
    dyn.write_text(json.dumps({"cluster_default": {"log.retention.ms": 5000, "log.roll.hours": 1},
                               "brokers": {"2": {"listener.name.ext.ssl.keystore.location": "/new.jks"},
                                           "3": {"num.io.threads": "1"}}}))
    res = runner.invoke(app, ["config", "resolve", "--broker-config", str(props), "--dynamic", str(dyn), "-f", "json",
                              "--kafka-version", "4.1"])
    assert res.exit_code == 1, res.output  # log.roll.hours is not dynamic
    doc = json.loads(res.stdout)
    by_key = {c["key"]: c for c in doc["configs"]}
    assert by_key["log.retention.ms"]["value"] == "5000" and by_key["log.retention.ms"]["from"] == "log.retention.ms"
    assert by_key["listener.name.ext.ssl.keystore.location"]["value"] == "/new.jks"
    assert by_key["ssl.keystore.password"]["value"] is None
    assert "hunter2" not in res.stdout
    assert doc["ignored"][0]["broker_log"] == "Non-dynamic configs will be ignored: Set(log.roll.hours)"
    assert doc["broker_id"] == "2"


def test_cli_resolve_kafka_configs_describe_text(tmp_path):
    text = tmp_path / "describe.txt"
    text.write_text("Dynamic configs for broker 0 are:\n"
                    "  listener.name.ext.ssl.keystore.password=null sensitive=true synonyms={DYNAMIC_BROKER_CONFIG:"
                    "listener.name.ext.ssl.keystore.password=null}\n"
                    "  num.io.threads=12 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:num.io.threads=12, "
                    "DEFAULT_CONFIG:num.io.threads=8}\n"
                    "Default configs for brokers in the cluster are:\n"
                    "  num.io.threads=10 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:num.io.threads=10}\n")
    res = runner.invoke(app, ["config", "resolve", "--dynamic", str(text), "--broker-id", "0", "--key",
                              "num.io.threads", "-f", "json"])
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)["configs"]
    assert row["value"] == "12" and row["where"] == f"{text}:3"
    assert [s["value"] for s in row["synonyms"]] == ["12", "10", "8"]
    bad = tmp_path / "bad.txt"
    bad.write_text("hello\n")
    res = runner.invoke(app, ["config", "resolve", "--dynamic", str(bad)])
    assert res.exit_code == 2 and f"{bad}:1:" in res.output


def test_keys_to_resolve_folds_synonyms_and_scopes_listeners():
    s = BrokerConfigSources(static={"log.retention.hours": L("1"), "ssl.keystore.location": L("/a"),
                                    "listener.name.b.ssl.key.password": L("x")})
    assert keys_to_resolve(s, False) == ["listener.name.b.ssl.key.password", "log.retention.ms",
                                         "ssl.keystore.location"]
    assert keys_to_resolve(s, False, "A") == ["listener.name.a.ssl.keystore.location", "log.retention.ms"]


def test_malformed_dynamic_files_are_located_input_errors(tmp_path):
    for text, msg in [('{"cluster_default": 5}', "cluster_default must be an object"),
                      ('[1]', "expected {"), ('{"brokers": {"1": [1]}}', "brokers.1 must be an object"),
                      ('{"cluster_default": {"a": [1]}}', "cluster_default.a: a config value must be")]:
        f = tmp_path / "d.json"
        f.write_text(text)
        res = runner.invoke(app, ["config", "resolve", "--dynamic", str(f)])
        assert res.exit_code == 2 and msg in res.output and "Traceback" not in res.output, res.output
