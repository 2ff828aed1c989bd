"""`authz whatif --logs-topic`: Confluent audit-log events produced to the real broker with kafka-python,
then consumed by authz (bounded: end offsets at the start, --max-events) and replayed exactly as the
same events read from a file are."""

import json
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.whatif.auditlog import AuditDecision
from kafka_authz_cli.whatif.cloudevents import FORMAT, to_event

pytestmark = pytest.mark.live
runner = CliRunner()
CORPUS = Path(__file__).parents[1] / "whatif" / "corpora" / "confluent-audit" / "cp54-superuser-consumers.json"


def decision(principal, op, name, allowed, host="10.0.0.1"):
    return AuditDecision(principal, host, op, "TOPIC", name, "LITERAL", "ALLOWED" if allowed else "DENIED", None,
                         "2026-11-20 10:00:00,000", "kafka.FetchConsumer", None, None, FORMAT, "")


DECISIONS = [decision("User:alice", "READ", "orders", True), decision("User:alice", "READ", "orders", True),
             decision("User:bob", "WRITE", "orders", False), decision("User:carol", "READ", "payments", True)]
OTHER = {"type": "io.confluent.kafka.server/authentication", "data": {"methodName": "kafka.Authentication"}}


@pytest.fixture(scope="module")
def events_topic(kafka, tmp_path_factory):
    """A topic of 3 partitions holding the events (plus one authentication event and one broken record),
    and the same values written one a line to a file."""
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic

    topic = f"confluent-audit-log-events-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(**kafka.client_config(), request_timeout_ms=30000)
    admin.create_topics([NewTopic(topic, 3, 1)])
    admin.close()
    values = [json.dumps(to_event(d, str(i))) for i, d in enumerate(DECISIONS)]
    values += [json.dumps(OTHER), '{"type": "io.confluent.kafka.server/authorization", "data": {']
    producer = KafkaProducer(**kafka.client_config(), max_block_ms=20000)
    for i, v in enumerate(values):
        producer.send(topic, v.encode(), partition=i % 3).get(timeout=20)
    producer.close()
    file = tmp_path_factory.mktemp("events") / "events.jsonl"
    file.write_text("\n".join(values) + "\n")
    return topic, file, len(values)


def proposed(tmp_path) -> str:
    path = tmp_path / "proposed.json"
    path.write_text(json.dumps({"version": 1, "acls": [
        {"resource_type": "TOPIC", "resource_name": "orders", "pattern_type": "LITERAL", "principal": "User:alice",
         "host": "*", "operation": "READ", "permission": "ALLOW"}]}))
    return str(path)


def whatif(*args):
    res = runner.invoke(app, ["whatif", *args, "-f", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_events_from_the_topic_replay_as_the_same_events_from_a_file(kafka, admin_config, events_topic, tmp_path):
    topic, file, n = events_topic
    acls = proposed(tmp_path)
    live = whatif("--logs-topic", topic, "--bootstrap-server", kafka.bootstrap, "--command-config", str(admin_config),
                  "--until-end", "--timeout", "20", "--proposed", acls)
    lines = live["lines"]
    assert (lines["total"], lines["decisions"], lines["non_decision_lines"], lines["quarantined_lines"]) == (n, 4, 1, 1)
    assert lines["formats"] == {FORMAT: 4}
    # carol's READ on payments was allowed and the proposed set drops it; bob's WRITE stays denied
    assert [(c["principal"], c["operation"], c["resource_name"]) for c in live["newly_denied"]] == \
        [("User:carol", "READ", "payments")]
    from_file = whatif("--logs", str(file), "--proposed", acls)
    for key in ("newly_denied", "newly_allowed", "distinct_requests", "logged_allowed", "logged_denied"):
        assert live[key] == from_file[key], key


def test_max_events_bounds_the_read(kafka, admin_config, events_topic, tmp_path):
    topic, _, _ = events_topic
    out = whatif("--logs-topic", topic, "--bootstrap-server", kafka.bootstrap, "--command-config", str(admin_config),
                 "--max-events", "2", "--timeout", "20", "--proposed", proposed(tmp_path))
    assert out["lines"]["total"] == 2


def test_a_real_corpus_file_produced_pretty_printed_one_event_a_record(kafka, admin_config, tmp_path):
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic

    topic = f"confluent-audit-log-events-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(**kafka.client_config(), request_timeout_ms=30000)
    admin.create_topics([NewTopic(topic, 1, 1)])
    admin.close()
    producer = KafkaProducer(**kafka.client_config(), max_block_ms=20000)
    for chunk in CORPUS.read_text().split("\n\n"):
        producer.send(topic, chunk.encode()).get(timeout=20)
    producer.close()
    out = whatif("--logs-topic", topic, "--bootstrap-server", kafka.bootstrap, "--command-config", str(admin_config),
                 "--until-end", "--timeout", "20", "--proposed", proposed(tmp_path))
    assert (out["lines"]["total"], out["lines"]["decisions"]) == (5, 5)


def test_a_missing_topic_is_one_line(kafka, admin_config, tmp_path):
    res = runner.invoke(app, ["whatif", "--logs-topic", "no-such-audit-topic", "--bootstrap-server", kafka.bootstrap,
                              "--command-config", str(admin_config), "--until-end", "--timeout", "5",
                              "--proposed", proposed(tmp_path)])
    assert res.exit_code == 2 and "does not exist" in res.output and "Traceback" not in res.output, res.output
