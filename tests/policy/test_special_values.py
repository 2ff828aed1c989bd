"""KIP-201 bounds on the values Kafka gives a special meaning: -1 (no limit), -2 (inherit),
Long.MAX_VALUE (never), an empty cleanup.policy (no cleanup); numbers read as ConfigDef reads them."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_authz_cli.config.dynamic import BrokerConfigSources, Located
from kafka_authz_cli.policy.topic import REQUEST_TYPES, ClusterState, PolicyRequest, evaluate, parse_policy

LONG_MAX = 2**63 - 1
WEEK = 604_800_000


def policy(configs):
    return parse_policy({"default": "deny", "rules": [{"principals": ["*"], "configs": configs}]})


def create(configs, broker=None, bounds=None):
    bounds = bounds or {"retention.ms": {"max": WEEK}}
    req = PolicyRequest("CreateTopics", REQUEST_TYPES["createtopics"][0], "User:a", "t", partitions=1,
                        replication_factor=1, configs=configs)
    return evaluate(policy(bounds), req, ClusterState(), broker)


@pytest.mark.parametrize("configs,bounds,fragment", [
    ({"retention.ms": "-1"}, {"retention.ms": {"max": WEEK}}, "retention.ms (request) -1 (-1: no time limit) is "
                                                              "above the maximum 604800000"),
    ({"retention.ms": " -1 "}, {"retention.ms": {"max": WEEK}}, "no time limit"),
    ({"retention.bytes": "-1"}, {"retention.bytes": {"max": 10**9}}, "-1: no size limit"),
    ({"retention.bytes": "-7"}, {"retention.bytes": {"max": 10**9}}, "-7: no size limit"),  # no validator: < 0
    ({}, {"retention.bytes": {"max": 10**9}}, "retention.bytes (broker default log.retention.bytes, Kafka's "
                                              "default) -1 (-1: no size limit)"),
    ({"retention.ms": "-1", "local.retention.ms": "-2"}, {"local.retention.ms": {"max": WEEK}},
     "-2: retention.ms's value, -1 (-1: no time limit)"),
    ({"local.retention.ms": "-1", "retention.ms": "-1"}, {"local.retention.ms": {"max": WEEK}}, "-1: no local limit"),
    ({}, {"max.compaction.lag.ms": {"max": WEEK}}, "9223372036854775807 (Long.MAX_VALUE: never)"),
    ({"flush.ms": str(LONG_MAX)}, {"flush.ms": {"max": 1000}}, "Long.MAX_VALUE: never"),
    ({"cleanup.policy": ""}, {"retention.ms": {"max": WEEK}}, "cleanup.policy is empty: no cleanup"),
    ({"cleanup.policy": " "}, {"cleanup.policy": {"allowed": ["delete", "compact"]}},
     "value empty (no cleanup: retained indefinitely) is not one of delete, compact"),
    ({"min.cleanable.dirty.ratio": "NaN"}, {"min.cleanable.dirty.ratio": {"max": 0.9}}, "NaN: compares with no bound"),
])
def test_unbounded_values_violate_a_max(configs, bounds, fragment):
    v = evaluate(policy(bounds), PolicyRequest("CreateTopics", "create", "User:a", "t", partitions=1,
                                               replication_factor=1, configs=configs), ClusterState())
    assert v.broker_error is None and not v.allowed, v
    assert any(fragment in x for x in v.violations), v.violations


@pytest.mark.parametrize("configs,bounds", [
    ({"retention.ms": "-1"}, {"retention.ms": {"min": 3_600_000}}),
    ({"retention.ms": "1000", "local.retention.ms": "-2"}, {"local.retention.ms": {"max": 1000}}),
    ({"retention.ms": "+1000"}, {"retention.ms": {"max": 1000}}),
    ({"retention.ms": "\u0661\u0660\u0660\u0660"}, {"retention.ms": {"max": 1000}}),  # Long.parseLong: Arabic-Indic
    ({"min.cleanable.dirty.ratio": "5e-1"}, {"min.cleanable.dirty.ratio": {"max": 0.5}}),
    ({"cleanup.policy": ""}, {"cleanup.policy": {"allowed": [""]}}),
])
def test_values_kafka_reads_as_within_bounds(configs, bounds):
    v = create(configs, bounds=bounds)
    assert v.allowed and v.broker_error is None, v


@pytest.mark.parametrize("configs,error", [
    ({"retention.ms": "1_000"}, "INVALID_CONFIG: Invalid value 1_000 for configuration retention.ms: Not a number of "
                                "type LONG"),
    ({"retention.ms": "-5"}, "INVALID_CONFIG: Invalid value -5 for configuration retention.ms: Value must be at "
                             "least -1"),
    ({"retention.ms": "9223372036854775808"}, "Not a number of type LONG"),
    ({"retention.ms": "1e3"}, "Not a number of type LONG"),
    ({"segment.bytes": "2147483648"}, "Invalid value 2147483648 for configuration segment.bytes: Not a number of "
                                      "type INT"),
    ({"min.cleanable.dirty.ratio": "1.5"}, "Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value "
                                           "must be no more than 1"),
    ({"preallocate": "yes"}, "Invalid value yes for configuration preallocate: Expected value to be either true or "
                             "false"),
    ({"cleanup.policy": "compact,retain"}, "Invalid value retain for configuration cleanup.policy: String must be "
                                           "one of: compact, delete"),
    ({"cleanup.policy": "Delete"}, "Invalid value Delete for configuration cleanup.policy"),
    ({"retention.hours": "1"}, "INVALID_CONFIG: Unknown topic config name: retention.hours"),
])
def test_what_kafka_refuses_is_the_controllers_error(configs, error):
    v = create(configs)
    assert not v.allowed and v.broker_error is not None and error in v.broker_error, v


def test_broker_default_hours_of_minus_one_is_unbounded():
    broker = BrokerConfigSources(static={"log.retention.hours": Located("-1", "s:1")})
    v = create({}, broker)
    assert v.violations == ("Topic 't': retention.ms (broker default log.retention.hours=-1, server.properties) -1 "
                            "(-1: no time limit) is above the maximum 604800000",)


def kafka_order(n: int) -> float:
    """How far retention.ms = n retains, as UnifiedLog reads it: a negative value has no time limit."""
    return math.inf if n < 0 or n == LONG_MAX else n


_texts = st.one_of(st.integers(-1, 10**13), st.just(LONG_MAX), st.integers(-1, 5)).flatmap(
    lambda n: st.tuples(st.just(n), st.sampled_from(["{}", " {} ", "+{}", "\t{}\n"]).map(
        lambda f: f.format(n) if n >= 0 or not f.startswith("+") else str(n))))


@given(_texts, st.integers(0, 10**13), st.sampled_from(["retention.ms", "retention.bytes"]))
def test_a_max_bound_never_passes_a_value_kafka_treats_as_larger(text, high, key):
    n, written = text
    v = create({key: written}, bounds={key: {"max": high}})
    assert v.broker_error is None
    assert v.allowed == (kafka_order(n) <= high), (written, high, v.violations)


@given(st.integers(-2, 10**12), st.integers(-1, 10**12), st.integers(0, 10**12))
def test_local_retention_inherits_or_is_bounded(local, total, high):
    v = create({"local.retention.ms": str(local), "retention.ms": str(total)},
               bounds={"local.retention.ms": {"max": high}})
    effective = kafka_order(total) if local == -2 else math.inf if local == -1 else local
    assert v.allowed == (effective <= high), (local, total, high, v.violations)


def test_cli_policy_check_refuses_infinite_retention_under_a_max(tmp_path):
    import json

    from typer.testing import CliRunner

    from kafka_authz_cli.cli.app import app

    pol = tmp_path / "policy.json"
    pol.write_text(json.dumps({"rules": [{"configs": {"retention.ms": {"max": WEEK}}}]}))
    reqs = tmp_path / "r.jsonl"
    reqs.write_text("\n".join(json.dumps({"request": "create", "principal": "User:a", "topic": t, "partitions": 1,
                                          "configs": c}) for t, c in [("a", {"retention.ms": "-1"}),
                                                                      ("b", {"retention.ms": "x"}),
                                                                      ("c", {"retention.ms": "86400000"})]) + "\n")
    res = CliRunner().invoke(app, ["policy", "check", str(reqs), "--policy", str(pol), "-f", "json",
                                   "--kafka-version", "3.9"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [r["verdict"] for r in rows] == ["DENIED", "DENIED", "ALLOWED"]
    assert rows[0]["refused_by"] == "policy" and "-1: no time limit" in rows[0]["error"]
    assert rows[1]["error"] == ("INVALID_CONFIG: Invalid value x for configuration retention.ms: Not a number of "
                                "type LONG")
    res = CliRunner().invoke(app, ["policy", "check", str(reqs), "--policy", str(pol), "--kafka-version", "1.0"])
    assert res.exit_code == 2 and "--kafka-version" in res.output


def test_a_bound_on_a_name_kafka_does_not_define_is_noted():
    v = create({}, bounds={"retention.minutes": {"max": 10}})
    assert v.allowed and any("retention.minutes: not a topic config of Kafka" in n for n in v.notes)


def test_a_compacted_only_topic_notes_that_retention_does_not_apply():
    v = create({"cleanup.policy": "compact", "retention.ms": "1000"})
    assert v.allowed and any("cleanup.policy=compact does not delete by time or size" in n for n in v.notes)
    v = create({"cleanup.policy": "compact,delete", "retention.ms": "1000"})
    assert not any("does not delete" in n for n in v.notes)
