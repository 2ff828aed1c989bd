"""The checked-in definitions are what Kafka's own classes say: the 4.1.1 slice is regenerated from the
jars the live tests' broker runs (tests/live/pom.xml) and compared with kafka_configs.json.

One JVM run of tools/KafkaConfigDefinitions.java (compiled once per source into ~/.cache): a few seconds.
Like the live tests, it fails (never skips) without Java or Maven, with one line saying what to install.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_checked_in_definitions_are_what_kafka_4_1_1_says():
    broker = _load("authz_definitions_kafka_broker", ROOT / "tests" / "live" / "kafka_broker.py")
    gen = _load("authz_gen_config_definitions", ROOT / "tools" / "gen_config_definitions.py")
    version = broker.kafka_version()
    try:
        cp = broker.classpath()
    except broker.BrokerError as exc:
        pytest.fail(str(exc), pytrace=False)
    fresh = gen.read_version(version, cp, topic_docs=True)
    docs = fresh.pop("topic_docs")
    data = json.loads(gen.OUTPUT.read_text())
    assert version in data["versions"], f"the live tests' Kafka {version} is not in the definitions: regenerate them"
    stored = gen.slice_of(data, version)
    for section in ("broker", "topic"):
        missing = sorted(set(fresh[section]) - set(stored[section]))
        extra = sorted(set(stored[section]) - set(fresh[section]))
        changed = sorted(k for k in set(fresh[section]) & set(stored[section])
                         if fresh[section][k] != stored[section][k])
        assert not (missing or extra or changed), (section, missing, extra, changed[:5])
    assert fresh["rules"] == stored["rules"]
    assert len(fresh["broker"]) > 300 and len(fresh["topic"]) > 30
    _special_values_are_what_kafkas_docs_say(docs)


def _special_values_are_what_kafkas_docs_say(docs: dict[str, str]) -> None:
    """policy/values.py's table of special values, against TopicConfig's documentation of the version."""
    from kafka_authz_cli.policy.values import INHERITS, NEGATIVE_IS_UNBOUNDED

    assert "If set to -1, no time limit is applied" in docs["retention.ms"]
    assert "By default there is no size limit" in docs["retention.bytes"]
    assert set(NEGATIVE_IS_UNBOUNDED) == {"retention.ms", "retention.bytes"}
    for local, total in INHERITS.items():
        assert f"Default value is -2, it represents `{total}` value" in docs[local], docs[local]
