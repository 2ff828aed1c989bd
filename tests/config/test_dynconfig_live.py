"""`authz config resolve --bootstrap-server`: the DescribeConfigs answer (error codes, sensitive values,
synonyms) as KIP-226 sources, authz's resolution checked against the broker, drift against the file.

The broker here is a naive re-implementation of Kafka's ``ConfigHelper.createBrokerConfigEntry`` /
``configSynonyms`` (level by level, then ``dropWhile(name != key)``), written from Kafka's source
independently of authz's resolver; the real broker is in tests/live/test_config_live.py."""

import json
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from kafka.protocol.admin import DescribeConfigsResponse
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cluster.kafka_adapter import ClusterError, KafkaAclAdmin, broker_config_entries, pick_broker
from kafka_authz_cli.config.described_configs import (
    HIDDEN,
    DescribedConfig,
    DescribedSynonym,
    LiveOrigin,
    broker_sensitive,
    check_against_broker,
    compared_as_set_only,
    hide,
    sources_from_describe,
    static_drift,
)
from kafka_authz_cli.config.dynamic import ALL_DYNAMIC_CONFIGS, DEFAULTS, Located, resolve_key
from tests.fake_admin import FakeAdmin, install

runner = CliRunner()
ORIGIN = LiveOrigin("h:9092", "1")

# -- a naive broker ----------------------------------------------------------------------------

FAMILIES = [("log.roll.ms", "log.roll.hours"), ("log.roll.jitter.ms", "log.roll.jitter.hours"),
            ("log.retention.ms", "log.retention.minutes", "log.retention.hours"),
            ("log.flush.interval.ms", "log.flush.scheduler.interval.ms")]
MECHANISM_CONFIGS = ("sasl.jaas.config", "sasl.login.callback.handler.class", "sasl.login.class",
                     "sasl.server.callback.handler.class", "connections.max.reauth.ms")
PASSWORD_TYPED = {"sasl.jaas.config", "ssl.keystore.password", "ssl.key.password", "ssl.truststore.password"}


def naive_synonyms(name):
    for family in FAMILIES:
        if name in family:
            return list(family)
    m = re.fullmatch(r"listener\.name\.[^.]*\.(.*)", name)
    if m:
        base = m.group(1)
        return [name, next((c for c in MECHANISM_CONFIGS if base.endswith(c)), base)]
    return [name]


def naive_describe(static=(), default=(), broker=(), defaults=None, dynamic=ALL_DYNAMIC_CONFIGS, hidden=()):
    """What a broker answers: every key it has, each with its synonyms as configSynonyms lists them."""
    static, default, broker = dict(static), dict(default), dict(broker)
    defaults = DEFAULTS if defaults is None else defaults
    keys = set(static) | set(default) | set(broker) | set(defaults)
    keys |= {n for k in list(keys) for n in naive_synonyms(k) if not n.startswith("listener.name.") or n in keys}
    out = []
    for name in sorted(keys):
        names = naive_synonyms(name)
        base = names[-1]
        secret = name in hidden or base in PASSWORD_TYPED
        synonyms = [DescribedSynonym(n, None if secret else props[n], source)
                    for props, source in ((broker, "DYNAMIC_BROKER_CONFIG"), (default, "DYNAMIC_DEFAULT_BROKER_CONFIG"),
                                          (static, "STATIC_BROKER_CONFIG"), (defaults, "DEFAULT_CONFIG"))
                    for n in names if n in props]
        while synonyms and synonyms[0].name != name:
            synonyms.pop(0)
        source = synonyms[0].source if synonyms else "DEFAULT_CONFIG"
        value = None if secret or not synonyms else synonyms[0].value
        out.append(DescribedConfig(name, value, source, secret, name not in dynamic, tuple(synonyms)))
    return out


def check(configs):
    return check_against_broker(configs, sources_from_describe(configs, ORIGIN))


# -- the adapter: the response, its error code, the request -------------------------------------

R = DescribeConfigsResponse.DescribeConfigsResult
E = R.DescribeConfigsResourceResult
S = E.DescribeConfigsSynonym


def response(error_code=0, message=None, name="1", configs=()):
    return DescribeConfigsResponse(throttle_time_ms=0, results=[
        R(error_code=error_code, error_message=message, resource_type=4, resource_name=name, configs=list(configs))])


def entry(name, value, source, sensitive=False, read_only=True, synonyms=()):
    return E(name=name, value=value, read_only=read_only, config_source=source, is_default=source == 5,
             is_sensitive=sensitive, synonyms=[S(name=n, value=v, source=s) for n, v, s in synonyms], config_type=0,
             documentation=None)


def test_entries_map_sources_sensitive_values_and_synonyms():
    resp = response(configs=[
        entry("num.io.threads", "12", 2, read_only=False,
              synonyms=[("num.io.threads", "12", 2), ("num.io.threads", "10", 3), ("num.io.threads", "8", 5)]),
        entry("listener.name.ext.ssl.key.password", None, 4, sensitive=True,
              synonyms=[("listener.name.ext.ssl.key.password", None, 4)]),
        entry("log.retention.ms", None, 5, read_only=False),
        entry("odd", "x", 77)])
    got = {c.name: c for c in broker_config_entries(resp, 1, "User:a")}
    assert got["num.io.threads"] == DescribedConfig("num.io.threads", "12", "DYNAMIC_BROKER_CONFIG", False, False, (
        DescribedSynonym("num.io.threads", "12", "DYNAMIC_BROKER_CONFIG"),
        DescribedSynonym("num.io.threads", "10", "DYNAMIC_DEFAULT_BROKER_CONFIG"),
        DescribedSynonym("num.io.threads", "8", "DEFAULT_CONFIG")))
    pw = got["listener.name.ext.ssl.key.password"]
    assert pw.sensitive and pw.value is None and pw.synonyms[0].source == "STATIC_BROKER_CONFIG"
    assert got["log.retention.ms"].synonyms == () and got["log.retention.ms"].source == "DEFAULT_CONFIG"
    assert got["odd"].source == "UNKNOWN(77)"


def test_an_authorization_failure_is_one_line_naming_the_permission():
    # kafka-python's describe_configs() would return this as a broker without configs.
    with pytest.raises(ClusterError) as exc:
        broker_config_entries(response(error_code=31), 1, "User:bob")
    assert str(exc.value) == ("User:bob is not allowed to DESCRIBE_CONFIGS on the cluster: DescribeConfigs of a "
                              "broker needs DESCRIBE_CONFIGS on the CLUSTER resource (an ACL for kafka-cluster, or "
                              "super.users)")


def test_other_error_codes_and_wrong_resources_are_errors_too():
    with pytest.raises(ClusterError, match=r"^DescribeConfigs of broker 1 failed: InvalidRequestError: Unexpected "
                                           r"broker id, expected 2 or empty string, but received 1$"):
        broker_config_entries(response(42, "Unexpected broker id, expected 2 or empty string, but received 1"), 1, "U")
    with pytest.raises(ClusterError, match="failed: UnknownError$"):
        broker_config_entries(response(-1), 1, "U")
    with pytest.raises(ClusterError, match=r"answered for \['2'\], not for broker 1"):
        broker_config_entries(response(name="2"), 1, "U")


class _Manager:
    def __init__(self, answer):
        self.answer, self.sent = answer, []

    def send(self, request, node_id=None):
        self.sent.append((request, node_id))
        return self.answer

    def run(self, fn, *args):
        return fn(*args)


def test_the_request_asks_one_broker_for_every_key_with_synonyms():
    admin = object.__new__(KafkaAclAdmin)
    manager = _Manager(response(name="3", configs=[entry("a", "b", 4, synonyms=[("a", "b", 4)])]))
    admin._admin = type("A", (), {"_manager": manager})()
    admin.principal, admin.round_trips = "User:a", 0
    [c] = admin.describe_broker_configs(3)
    assert c.name == "a" and admin.round_trips == 1
    [(request, node)] = manager.sent
    assert node == 3 and request.include_synonyms is True
    assert [tuple(r) for r in request.resources] == [(4, "3", None)]
    manager.answer = response(31, name="3")
    with pytest.raises(ClusterError, match="^User:a is not allowed to DESCRIBE_CONFIGS"):
        admin.describe_broker_configs(3)


def test_pick_broker():
    brokers = [(1, "a", 9092), (2, "b", 9092), (3, "b", 9093)]
    assert pick_broker("b:9093", brokers, None)[0] == 3
    assert pick_broker("x:1, B:9092", brokers, None)[0] == 2
    assert pick_broker("a:9092", brokers, 3) == (3, "broker 3 (--broker-id)")
    assert pick_broker("lb:9092", [(7, "a", 9092)], None) == (7, "broker 7: the cluster's only broker")
    assert pick_broker("[::1]:9092", [(4, "::1", 9092), (5, "x", 1)], None)[0] == 4
    with pytest.raises(ClusterError, match=r"has brokers 1, 2, 3 and none is at the bootstrap address: give "
                                           r"--broker-id"):
        pick_broker("lb:9092", brokers, None)
    with pytest.raises(ClusterError, match=r"no broker 9 in the cluster at a:9092 \(its brokers: 1, 2, 3\)"):
        pick_broker("a:9092", brokers, 9)


# -- sources, resolution, the check ------------------------------------------------------------

def test_sources_come_from_the_synonyms_with_where_they_are():
    configs = naive_describe(static={"num.io.threads": "4", "listener.name.ext.ssl.key.password": "pw"},
                             default={"num.io.threads": "6", "log.retention.ms": "1000"},
                             broker={"num.io.threads": "12"})
    s = sources_from_describe(configs, ORIGIN)
    assert s.broker_id == "1"
    assert s.dynamic_broker == {"num.io.threads": Located("12", "cluster:h:9092 broker 1 (dynamic)")}
    assert s.dynamic_default == {"num.io.threads": Located("6", "cluster:h:9092 (dynamic cluster default)"),
                                 "log.retention.ms": Located("1000", "cluster:h:9092 (dynamic cluster default)")}
    assert s.static == {"num.io.threads": Located("4", "cluster:h:9092 broker 1 (static)"),
                        "listener.name.ext.ssl.key.password": Located(HIDDEN, "cluster:h:9092 broker 1 (static)")}
    r = resolve_key("num.io.threads", s)
    assert (r.value, r.source, r.where) == ("12", "DYNAMIC_BROKER_CONFIG", "cluster:h:9092 broker 1 (dynamic)")
    assert [x.source for x in r.synonyms] == ["DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG",
                                              "STATIC_BROKER_CONFIG", "DEFAULT_CONFIG"]


def test_values_the_broker_hides_stay_hidden():
    configs = naive_describe(static={"super.users": "User:admin"}, hidden={"super.users"})
    s = sources_from_describe(configs, ORIGIN)
    r = hide(resolve_key("super.users", s), broker_sensitive(configs))
    assert r.sensitive and r.value is None and all(x.value is None for x in r.synonyms)
    assert HIDDEN not in json.dumps(r.as_dict()) and r.source == "STATIC_BROKER_CONFIG"
    plain = resolve_key("num.io.threads", s)
    assert hide(plain, broker_sensitive(configs)) is plain


def test_the_brokers_own_representation_of_time_synonyms_agrees():
    # Only log.retention.hours is set: the broker reports log.retention.ms itself as DEFAULT_CONFIG
    # without a synonym (it has no default of its own), authz says the hours win: both are right.
    configs = naive_describe(static={"log.retention.hours": "2"})
    ms = next(c for c in configs if c.name == "log.retention.ms")
    assert (ms.source, ms.synonyms) == ("DEFAULT_CONFIG", ())
    assert resolve_key("log.retention.ms", sources_from_describe(configs, ORIGIN)).millis == 7_200_000
    result = check(configs)
    assert not result.disagreements and {"log.retention.ms", "log.retention.hours"} <= result.agreed


def test_a_wrong_default_in_authz_tables_is_a_disagreement():
    configs = naive_describe(defaults={**DEFAULTS, "num.io.threads": "9"})
    [d] = check(configs).disagreements
    assert d.message() == ("num.io.threads: authz resolves value '8' (DEFAULT_CONFIG), the broker reports "
                           "'9' (DEFAULT_CONFIG)")


def test_a_default_authz_has_and_the_broker_lacks_is_a_source_disagreement():
    configs = naive_describe(static={"x": "1"}, defaults={k: v for k, v in DEFAULTS.items() if k != "ssl.protocol"})
    configs.append(DescribedConfig("ssl.protocol", None, "DEFAULT_CONFIG", False, False, ()))
    [d] = check(configs).disagreements
    assert (d.key, d.what, d.authz, d.broker) == ("ssl.protocol", "property", "ssl.protocol",
                                                  "none (no value of its own)")


def test_a_wrong_precedence_is_a_disagreement():
    configs = naive_describe(default={"num.io.threads": "6"}, broker={"num.io.threads": "12"})
    wrong = [c if c.name != "num.io.threads" else DescribedConfig(c.name, "6", "DYNAMIC_DEFAULT_BROKER_CONFIG",
                                                                      False, False, c.synonyms[1:] + c.synonyms[:1])
             for c in configs]
    [d] = check(wrong).disagreements
    assert (d.what, d.authz, d.broker) == ("source", "DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG")


def test_update_mode_is_checked_against_read_only():
    configs = naive_describe(dynamic=ALL_DYNAMIC_CONFIGS - {"num.io.threads"} | {"log.retention.hours"})
    got = {(d.key, d.authz, d.broker) for d in check(configs).disagreements}
    assert got == {("num.io.threads", "cluster-wide", "read-only"),
                   ("log.retention.hours", "read-only", "dynamically updatable")}


def test_dynamic_entries_authz_thinks_ignored_but_the_broker_applied_are_disagreements():
    configs = naive_describe(default={"listener.name.ext.ssl.keystore.location": "/k.jks"})
    [d] = [d for d in check(configs).disagreements if d.what == "ignored"]
    assert d.key == "listener.name.ext.ssl.keystore.location"
    assert d.broker == "applied (DYNAMIC_DEFAULT_BROKER_CONFIG)"
    assert "Per-broker configs defined at default cluster level will be ignored" in d.authz


def test_a_dynamic_super_users_is_explained_not_a_disagreement():
    configs = naive_describe(static={"super.users": "User:a"}, default={"super.users": "User:b"},
                             hidden={"super.users"})
    result = check(configs)
    assert not result.disagreements and "super.users" not in result.agreed
    assert result.notes == ["super.users: the broker reports its stored DYNAMIC_DEFAULT_BROKER_CONFIG value; the "
                            "authorizer read the key once at start-up and uses STATIC_BROKER_CONFIG"]


def test_keys_authz_knows_nothing_of_are_counted_not_compared():
    result = check(naive_describe(defaults={**DEFAULTS, "my.plugin.setting": "2147483647"}))
    assert "my.plugin.setting" in result.unknown and "my.plugin.setting" not in result.agreed
    assert result.compared == len(result.agreed)


POOL_BROKER = ["num.io.threads", "log.retention.ms", "log.roll.ms", "max.connections", "message.max.bytes",
               "listener.name.ext.max.connections", "listener.name.ext.ssl.keystore.location",
               "listener.name.ext.sasl.enabled.mechanisms", "my.custom"]
POOL_DEFAULT = [k for k in POOL_BROKER if k not in ("listener.name.ext.ssl.keystore.location",
                                                    "listener.name.ext.sasl.enabled.mechanisms")]
POOL_STATIC = POOL_BROKER + ["log.retention.hours", "log.retention.minutes", "log.roll.hours", "ssl.keystore.location",
                             "listener.name.ext.scram-sha-256.sasl.jaas.config", "sasl.enabled.mechanisms",
                             "log.flush.scheduler.interval.ms", "node.id"]
VALUES = st.sampled_from(["1", "2", "30", "PLAIN"])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(POOL_STATIC), VALUES), st.dictionaries(st.sampled_from(POOL_DEFAULT), VALUES),
       st.dictionaries(st.sampled_from(POOL_BROKER), VALUES))
def test_authz_agrees_with_the_naive_broker_on_every_key(static, default, broker):
    configs = naive_describe(static, default, broker)
    result = check(configs)
    assert not result.disagreements, [d.message() for d in result.disagreements]
    assert result.agreed >= set(static) | set(default) | set(broker)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(POOL_STATIC), VALUES), st.sampled_from(sorted(DEFAULTS)))
@example({"log.retention.ms": "1"}, "log.retention.hours")
@example({"log.retention.hours": "1"}, "log.retention.hours")
def test_any_wrong_default_is_caught(static, key):
    configs = naive_describe(static, defaults={**DEFAULTS, key: DEFAULTS[key] + "0"})
    # The broker reports each key's own highest level: the default is hidden only by the key itself
    # (a static log.retention.ms does not hide the default of log.retention.hours).
    keys = {d.key for d in check(configs).disagreements}
    assert keys == (set() if key in static else {key}), keys


# -- drift -------------------------------------------------------------------------------------

def test_static_drift():
    f = {k: Located(v, f"server.properties:{i}") for i, (k, v) in enumerate({
        "node.id": "1", "num.io.threads": "4", "log.dirs": "/a", "ssl.key.password": "one",
        "listener.name.x.sasl.jaas.config": "secret", "only.file": "1"}.items(), 1)}
    b = {k: Located(v, "cluster") for k, v in {
        "node.id": "1", "broker.id": "1", "num.io.threads": "8", "log.dirs": "/a", "ssl.key.password": HIDDEN,
        "only.broker": "2"}.items()}
    got = static_drift(f, b, {"ssl.key.password"})
    assert [(d.kind, d.key) for d in got] == [
        ("only in file", "listener.name.x.sasl.jaas.config"), ("differs", "num.io.threads"),
        ("only on broker", "only.broker"), ("only in file", "only.file")]
    assert got[0].message() == ("listener.name.x.sasl.jaas.config: (set) in the file (server.properties:5), not in "
                                "the broker's static config")
    assert got[1].message() == "num.io.threads: '4' in the file (server.properties:2), the broker loaded '8'"
    assert "secret" not in json.dumps([d.as_dict() for d in got])
    assert compared_as_set_only(f, b, {"ssl.key.password"}) == ["ssl.key.password"]
    # broker.id is the broker's copy of node.id: drift only when the values differ
    assert [d.key for d in static_drift(f, {**b, "broker.id": Located("2", "c")}, set())][0] == "broker.id"


# -- the command, with a fake admin --------------------------------------------------------------

#: the cluster's one broker, at the bootstrap address `live` gives
AT_BOOTSTRAP = [(1, "h", 9092)]


@pytest.fixture
def fake(monkeypatch):
    return lambda admin: install(monkeypatch, admin)


def live(*args):
    return runner.invoke(app, ["config", "resolve", "--bootstrap-server", "h:9092", *map(str, args)])


def test_cli_live_json(fake):
    admin = fake(FakeAdmin(configs=naive_describe(static={"num.io.threads": "4", "ssl.key.password": "hunter2",
                                                          "my.secret.thing": "hunter3"},
                                                  default={"log.retention.ms": "1000"},
                                                  broker={"num.io.threads": "12"}), brokers=AT_BOOTSTRAP))
    res = live("-f", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert admin.described_brokers == [1] and admin.closed
    assert doc["broker_id"] == "1" and doc["bootstrap_server"] == "h:9092" and doc["drift"] is None
    rows = {r["key"]: r for r in doc["configs"]}
    assert set(rows) == {"num.io.threads", "ssl.key.password", "my.secret.thing", "log.retention.ms"}
    io = rows["num.io.threads"]
    assert (io["value"], io["source"], io["where"], io["agrees"]) == ("12", "DYNAMIC_BROKER_CONFIG",
                                                                     "cluster:h:9092 broker 1 (dynamic)", True)
    assert io["broker"]["source"] == "DYNAMIC_BROKER_CONFIG" and io["broker"]["value"] == "12"
    assert rows["log.retention.ms"]["source"] == "DYNAMIC_DEFAULT_BROKER_CONFIG"
    assert rows["ssl.key.password"]["sensitive"] and rows["my.secret.thing"]["value"] is None
    assert "hunter" not in res.output  # my.secret.thing: the broker sent it, authz counts it as secret
    assert doc["check"]["disagreements"] == [] and doc["check"]["compared"] == doc["check"]["agree"] > 50
    assert doc["notes"][0].startswith("broker 1: the one at the bootstrap address h:9092")


def test_cli_live_table_and_keys(fake):
    fake(FakeAdmin(configs=naive_describe(static={"log.retention.hours": "2"}), brokers=[(1, "a", 1), (2, "b", 2)]))
    res = runner.invoke(app, ["config", "resolve", "--bootstrap-server", "lb:9092", "--broker-id", "2", "--key",
                              "log.retention.ms"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "broker 2 (--broker-id)" in res.stdout and "agrees" in res.stdout and "7200000 ms" in res.stdout
    assert re.search(r"checked against broker 2: (\d+) of \1 keys agree", res.stdout)


def test_cli_live_disagreement_exits_1_and_says_it_is_authz(fake):
    fake(FakeAdmin(configs=naive_describe(defaults={**DEFAULTS, "num.io.threads": "9"}), brokers=AT_BOOTSTRAP))
    res = live("--key", "num.io.threads")
    assert res.exit_code == 1
    assert "DISAGREES" in res.stdout
    err = " ".join(res.stderr.split())
    assert "authz disagrees with the broker: num.io.threads: authz resolves value '8'" in err
    assert "a bug in authz's KIP-226 tables" in err


def test_cli_live_drift_exits_3(fake, tmp_path):
    fake(FakeAdmin(configs=naive_describe(static={"node.id": "1", "broker.id": "1", "num.io.threads": "4",
                                                  "ssl.key.password": "x"}), brokers=AT_BOOTSTRAP))
    props = tmp_path / "server.properties"
    props.write_text("node.id=1\nnum.io.threads=4\nssl.key.password=other\n")
    res = live("--broker-config", props)
    assert res.exit_code == 0, res.output
    assert "is what broker 1 loaded (no drift)" in res.stdout
    props.write_text("node.id=1\nnum.io.threads=5\nlog.dirs=/x\n")
    res = live("--broker-config", props, "-f", "json")
    assert res.exit_code == 3, res.output
    doc = json.loads(res.stdout)
    assert doc["drift_compared_as_set_only"] == []
    drift = doc["drift"]
    assert [(d["kind"], d["key"], d["file"], d["broker"]) for d in drift] == [
        ("only in file", "log.dirs", "'/x'", None), ("differs", "num.io.threads", "'5'", "'4'"),
        ("only on broker", "ssl.key.password", None, "(set)")]
    assert drift[1]["file_where"] == f"{props}:2"


def test_cli_live_errors(fake, tmp_path):
    fake(FakeAdmin(brokers=AT_BOOTSTRAP,
                   config_error=ClusterError("User:bob is not allowed to DESCRIBE_CONFIGS on the cluster: ...")))
    res = live()
    assert res.exit_code == 2 and res.stderr.strip().splitlines() == [
        "authz: error: User:bob is not allowed to DESCRIBE_CONFIGS on the cluster: ..."]
    fake(FakeAdmin(brokers=AT_BOOTSTRAP))
    res = live("--broker-id", "x")
    assert res.exit_code == 2 and "a broker id is a whole number, got 'x'" in res.output
    res = live("--broker-id", "5")
    assert res.exit_code == 2 and "no broker 5 in the cluster at h:9092 (its brokers: 1)" in res.output
    dyn = tmp_path / "d.json"
    dyn.write_text("{}")
    res = live("--dynamic", dyn)
    assert res.exit_code == 2 and "not both" in res.output
    res = runner.invoke(app, ["config", "resolve", "--command-config", str(dyn)])
    assert res.exit_code == 2 and "needs" in res.output and "--bootstrap-server" in res.output
    bad = tmp_path / "bad.properties"
    bad.write_bytes(b"\xff=1\n")
    res = live("--broker-config", bad)
    assert res.exit_code == 2 and str(bad) in res.output and "Traceback" not in res.output


def test_cli_live_all_lists_every_key_the_broker_reports(fake):
    configs = naive_describe(defaults={**DEFAULTS, "my.plugin.setting": "2147483647"})
    fake(FakeAdmin(configs=configs, brokers=AT_BOOTSTRAP))
    res = live("--all", "-f", "json")
    assert res.exit_code == 0, res.output
    rows = {r["key"]: r for r in json.loads(res.stdout)["configs"]}
    assert rows["my.plugin.setting"]["broker"]["value"] == "2147483647" and rows["my.plugin.setting"]["agrees"] is None
    assert "log.retention.hours" not in rows  # folded into log.retention.ms
