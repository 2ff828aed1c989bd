"""The registry of Kafka's config definitions, and config resolve interpreting every key with it."""

import json

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.config.definitions import kafka_configs, kafka_versions, pick_version, span, versions_defining
from kafka_authz_cli.config.dynamic import BrokerConfigSources, Located, resolve_key, update_mode, validate_dynamic

runner = CliRunner()

#: Real broker keys the hand-written tables called "custom" (issue 20), with the mode Kafka gives them.
REAL_KEYS = {"log.retention.check.interval.ms": "read-only", "offsets.retention.minutes": "read-only",
             "replica.lag.time.max.ms": "read-only", "transaction.max.timeout.ms": "read-only",
             "leader.replication.throttled.rate": "cluster-wide", "follower.replication.throttled.rate": "cluster-wide",
             "replica.alter.log.dirs.io.max.bytes.per.second": "cluster-wide",
             "share.coordinator.state.topic.replication.factor": "read-only",
             "share.coordinator.state.topic.min.isr": "read-only"}


def test_the_versions_the_issue_asks_for_were_read():
    versions = kafka_versions()
    for wanted in ("2.8", "3.0", "3.5", "3.7", "3.9", "4.0", "4.1.1"):
        assert pick_version(wanted) in versions
    assert versions == tuple(sorted(versions, key=lambda v: tuple(map(int, v.split(".")))))


@pytest.mark.parametrize("key,mode", sorted(REAL_KEYS.items()))
def test_real_broker_keys_have_kafkas_update_mode(key, mode):
    assert update_mode(key, kafka_configs("4.1")) == mode


def test_keys_of_other_versions_say_so():
    r = resolve_key("share.coordinator.state.topic.min.isr", BrokerConfigSources(), kafka_configs("3.9"))
    assert r.mode == "custom" and any("defined in Kafka 4.0.2 to" in n for n in r.notes)
    r = resolve_key("zookeeper.connect", BrokerConfigSources({"zookeeper.connect": Located("zk:2181", "s:1")}),
                    kafka_configs("4.1"))
    assert r.notes == ("not a broker config of Kafka 4.1.1: defined in Kafka 2.8.2 to 3.9.2",)
    assert update_mode("zookeeper.connect", kafka_configs("3.9")) == "read-only"
    assert span(["2.8.2", "3.0.2", "4.1.1"]) == "2.8.2 to 3.0.2, 4.1.1"


def test_pick_version():
    assert pick_version(None) == kafka_versions()[-1]
    assert pick_version("4.1") == pick_version("4.1.0") == "4.1.1"
    for bad in ("2.7", "four", "4", "4.1.1.1", "٤.١"):
        with pytest.raises(ValueError):
            pick_version(bad)


def test_the_sets_keep_dynamic_broker_configs_invariants():
    for v in kafka_versions():
        k = kafka_configs(v)
        assert k.per_broker <= k.all_dynamic and not (k.read_only & k.all_dynamic)
        assert k.dynamic_security <= k.per_broker  # PerBrokerConfigs = (DynamicSecurityConfigs ++ listener) -- cluster
        assert not (k.cluster_level_listener & k.per_broker)
        assert k.family("log.retention.hours") == ("log.retention.ms", "log.retention.minutes", "log.retention.hours")
        assert k.family("log.flush.scheduler.interval.ms") == ("log.flush.scheduler.interval.ms",)
        assert k.unit("log.retention.hours") == 3_600_000 and k.unit("log.retention.minutes") == 60_000
        assert k.topic["retention.ms"].synonyms[0] == ("log.retention.ms", 1)
    assert versions_defining("log.retention.ms", "broker")[0] == "2.8.2"


@pytest.mark.parametrize("key", ["log.retention.check.interval.ms", "offsets.retention.minutes",
                                 "replica.lag.time.max.ms", "transaction.max.timeout.ms"])
def test_non_dynamic_keys_set_dynamically_are_ignored(key):
    for per_broker in (False, True):
        kept, ignored = validate_dynamic({key: Located("5", "d")}, per_broker, kafka_configs("4.1"))
        assert not kept and ignored[0].message == f"Non-dynamic configs will be ignored: Set({key})"


def test_throttled_rates_are_dynamic_only():
    k = kafka_configs("4.1")
    s = BrokerConfigSources(static={"leader.replication.throttled.rate": Located("100", "s:3")},
                            dynamic_default={"follower.replication.throttled.rate": Located("200", "d")})
    kept, ignored = validate_dynamic(s.dynamic_default, False, k)
    assert kept and not ignored
    r = resolve_key("leader.replication.throttled.rate", s, k)
    assert r.source is None  # the file's value is not used
    assert any("never reads it from server.properties" in n for n in r.notes)
    assert resolve_key("follower.replication.throttled.rate", s, k).value == "200"


@pytest.mark.parametrize("static,value,from_value", [
    ({"log.retention.hours": "168"}, "604800000", "168"),
    ({"log.retention.hours": " 2 "}, "7200000", " 2 "),
    ({"log.retention.minutes": "30", "log.retention.hours": "1"}, "1800000", "30"),
    ({"log.retention.hours": "-1"}, "-1", "-1"),  # KafkaConfig.logRetentionTimeMillis: negative is -1
    ({}, "604800000", "168"),
])
def test_log_retention_ms_is_reported_in_ms(static, value, from_value):
    s = BrokerConfigSources(static={k: Located(v, "s:1") for k, v in static.items()})
    r = resolve_key("log.retention.ms", s, kafka_configs("4.1"))
    assert (r.value, r.from_value, r.millis) == (value, from_value, int(value))
    assert r.name in ("log.retention.hours", "log.retention.minutes")


def test_an_unparsable_retention_is_what_kafka_refuses():
    s = BrokerConfigSources(static={"log.retention.hours": Located("1_000", "s:1")})
    r = resolve_key("log.retention.ms", s, kafka_configs("4.1"))
    assert r.millis is None and any("Not a number of type INT" in n for n in r.notes)


def test_cli_log_retention_ms_json_and_ignored_cluster_default(tmp_path):
    props = tmp_path / "server.properties"
    props.write_text("log.retention.hours=168\nlog.retention.check.interval.ms=300000\n")
    dyn = tmp_path / "dyn.json"
    dyn.write_text(json.dumps({"cluster_default": {"offsets.retention.minutes": "1", "num.io.threads": "4"}}))
    res = runner.invoke(app, ["config", "resolve", "--broker-config", str(props), "--dynamic", str(dyn),
                              "--kafka-version", "4.1", "-f", "json"])
    assert res.exit_code == 1, res.output
    doc = json.loads(res.stdout)
    rows = {c["key"]: c for c in doc["configs"]}
    assert doc["kafka_version"] == "4.1.1"
    assert (rows["log.retention.ms"]["value"], rows["log.retention.ms"]["from"],
            rows["log.retention.ms"]["from_value"]) == ("604800000", "log.retention.hours", "168")
    assert rows["log.retention.check.interval.ms"]["update_mode"] == "read-only"
    assert rows["num.io.threads"]["value"] == "4"
    assert "offsets.retention.minutes" not in rows or rows["offsets.retention.minutes"]["source"] != \
        "DYNAMIC_DEFAULT_BROKER_CONFIG"
    assert doc["ignored"] == [{"level": "default cluster", "keys": ["offsets.retention.minutes"],
                               "broker_log": "Non-dynamic configs will be ignored: Set(offsets.retention.minutes)",
                               "alter_configs": "Cannot update these configs dynamically: "
                                                "Set(offsets.retention.minutes)"}]
    res = runner.invoke(app, ["config", "resolve", "--broker-config", str(props), "--kafka-version", "2.7"])
    assert res.exit_code == 2 and "--kafka-version" in res.output and "2.8.2" in res.output


def test_a_live_brokers_version_is_the_one_its_keys_match():
    from kafka_authz_cli.config.definitions import match_version

    for v in kafka_versions():
        reported = list(kafka_configs(v).broker) + ["listener.name.ext.ssl.keystore.location", "my.plugin.key"]
        assert match_version(reported) == v


def test_values_kafka_refuses_at_start_up(tmp_path):
    props = tmp_path / "server.properties"
    props.write_text("num.io.threads=eight\nlog.segment.bytes=10\nlog.retention.hours= 24 \n"
                     "auto.create.topics.enable=yes\nmy.plugin.count=x\nnum.network.threads=${env:THREADS}\n")
    res = runner.invoke(app, ["config", "resolve", "--broker-config", str(props), "--kafka-version", "4.1", "-f",
                              "json"])
    assert res.exit_code == 1, res.output
    refused = {r["key"]: r for r in json.loads(res.stdout)["refused"]}
    assert refused["num.io.threads"] == {
        "key": "num.io.threads", "where": f"{props}:1",
        "error": "org.apache.kafka.common.config.ConfigException: Invalid value eight for configuration "
                 "num.io.threads: Not a number of type INT"}
    assert refused["log.segment.bytes"]["error"].endswith("log.segment.bytes: Value must be at least 1048576")
    assert refused["auto.create.topics.enable"]["error"].endswith("Expected value to be either true or false")
    assert set(refused) == {"num.io.threads", "log.segment.bytes", "auto.create.topics.enable"}
    assert "the broker does not start" in res.stderr


def test_the_throttles_read_only_flag_is_no_disagreement():
    from kafka_authz_cli.config.described_configs import DescribedConfig, compare_mode

    throttle = DescribedConfig("leader.replication.throttled.rate", "100", "DYNAMIC_BROKER_CONFIG", False, True)
    assert compare_mode(throttle, kafka_configs("4.1")) == []
    wrong = DescribedConfig("num.io.threads", "8", "DEFAULT_CONFIG", False, True)
    assert compare_mode(wrong, kafka_configs("4.1"))[0].what == "update mode"


def test_a_topic_config_asked_of_the_broker_says_so():
    r = resolve_key("retention.ms", BrokerConfigSources(), kafka_configs("4.1"))
    assert r.mode == "custom" and "a topic config of Kafka 4.1.1 (LogConfig), not a broker config: its broker " \
                                  "default is log.retention.ms" in r.notes
