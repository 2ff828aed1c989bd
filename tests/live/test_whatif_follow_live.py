"""Shadow mode on the real broker: `authz whatif --follow` follows the broker's authorizer log while
clients make requests, reports exactly the requests the proposal would deny, each within a couple of
seconds, and keeps following across a real log4j2 rotation in the middle.

The rotation: the broker writes the authorizer log twice (kafka_broker.py, LOG4J2): kafka-authorizer.log,
which other live tests read whole and which never rotates, and kafka-authorizer-rolling.log, a log4j2
RollingFile rotated by size (renamed to .1, a new file created: what production log4j setups do).
Renaming the file from the test would not be a rotation: the broker's appender keeps writing the old
inode. So the test makes the broker log enough (super-user lookups of topics with long names, which
the proposal leaves alone) for log4j2 to roll the file itself, and checks it did (the inode changed).
"""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from kafka_authz_cli.acl.model import AclBinding
from kafka_authz_cli.whatif.auditlog import parse_message

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
USERS = {"sam": "SCRAM-SHA-512", "tess": "SCRAM-SHA-256"}
SOON = 2.5  # seconds from a client's request returning to its change being reported


def cfg(kafka, user):
    return kafka.client_config(user, f"{user}-shadow-pw", USERS[user])


def produce(kafka, topic):
    from kafka import KafkaProducer

    p = KafkaProducer(**cfg(kafka, "sam"), max_block_ms=10000)
    try:
        p.send(topic, b"hello").get(timeout=10)
    finally:
        p.close(timeout=3)


def read(kafka, topic):
    """tess reads the topic without a group: Metadata and ListOffsets (DESCRIBE) and Fetch (READ)."""
    from kafka import KafkaConsumer, TopicPartition

    c = KafkaConsumer(**cfg(kafka, "tess"), group_id=None, enable_auto_commit=False, consumer_timeout_ms=5000)
    try:
        tp = TopicPartition(topic, 0)
        c.assign([tp])
        c.seek_to_beginning(tp)
        return sum(len(v) for v in c.poll(timeout_ms=5000).values())
    finally:
        c.close()


class Follow:
    """`authz whatif --follow ... --format jsonl` in a subprocess; each change with the time it arrived."""

    def __init__(self, *args):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, "-m", "kafka_authz_cli", "whatif", *map(str, args)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        self.got = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.got.put((time.monotonic(), json.loads(line)))

    def wait_open(self, path: Path, timeout=20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.proc.stderr.read()
            fds = f"/proc/{self.proc.pid}/fd"
            if any(os.path.realpath(os.path.join(fds, fd)) == str(path) for fd in os.listdir(fds)):
                return
            time.sleep(0.05)
        raise AssertionError(f"authz never opened {path}")

    def stop(self) -> tuple[list[tuple[float, dict]], dict, str]:
        self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(timeout=20)
        err = self.proc.stderr.read()
        assert code == 0, err
        time.sleep(0.1)
        out = []
        while not self.got.empty():
            out.append(self.got.get())
        assert out and out[-1][1]["type"] == "summary", (out, err)
        return out[:-1], out[-1][1], err


def rotate(kafka, kadmin, timeout=20.0):
    """Make log4j2 roll the rolling authorizer log: super-user config lookups of topics with 16 KB names,
    until the path names a new file. (Not group lookups: they create __consumer_offsets, which changes
    what later live tests see the broker log.)"""
    from kafka.admin import ConfigResource, ConfigResourceType

    path = kafka.rolling_audit_log
    before = os.stat(path).st_ino
    deadline = time.monotonic() + timeout
    i = 0
    while os.stat(path).st_ino == before:
        assert time.monotonic() < deadline, "log4j2 never rotated the authorizer log"
        try:  # the broker logs the authorization of the lookup whatever the answer (no such topic here)
            kadmin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, f"shadow-pad-{i}-" + "x" * 16_000)])
        except Exception:  # noqa: BLE001 - the line is logged all the same
            pass
        i += 1
        time.sleep(0.05)
    return i


@pytest.fixture
def topics(kadmin):
    """`topics(n1, n2, ...)` creates topics (one partition) that are deleted after the test: other live tests
    list the broker's topics."""
    from kafka.admin import NewTopic

    made = []

    def create(*names, partitions=1):
        kadmin.create_topics([NewTopic(n, partitions, 1) for n in names])
        made.extend(names)

    yield create
    if made:
        kadmin.delete_topics(made)


def test_shadow_mode_reports_exactly_the_requests_a_proposal_denies(authz, clean, kafka, kadmin, topics, tmp_path):
    users = tmp_path / "users.csv"
    users.write_text("user,mechanism,password\n" + "".join(f"{u},{m},{u}-shadow-pw\n" for u, m in USERS.items()))
    assert authz("scram", "apply", users, *authz.live, "--password-column", "password", "--yes").exit_code == 0
    run = uuid.uuid4().hex[:8]
    first, second = f"shadow-a-{run}", f"shadow-b-{run}"
    topics(first, second)
    keep = [AclBinding.of("TOPIC", "shadow-", "PREFIXED", "User:sam", "*", "WRITE", "ALLOW")]
    dropped = [AclBinding.of("TOPIC", t, "LITERAL", "User:tess", "*", "READ", "ALLOW") for t in (first, second)]
    clean.put(keep + dropped)
    current, proposed = tmp_path / "current.json", tmp_path / "proposed.json"
    current.write_text(json.dumps({"version": 1, "acls": [b.as_dict() for b in keep + dropped]}))
    proposed.write_text(json.dumps({"version": 1, "acls": [b.as_dict() for b in keep]}))
    start = kafka.audit_log.stat().st_size

    follow = Follow("--follow", kafka.rolling_audit_log, "--current", current, "--proposed", proposed,
                    "--super-users", kafka.super_users, "--format", "jsonl", "--max-seconds", "120")
    follow.wait_open(kafka.rolling_audit_log)
    windows = {}
    for topic in (first, second):
        if topic == second:
            assert rotate(kafka, kadmin) >= 1
        t0 = time.monotonic()
        produce(kafka, topic)  # sam: allowed before and after
        assert read(kafka, topic) == 1  # tess: allowed today, denied by the proposal
        windows[topic] = (t0, time.monotonic())
    time.sleep(SOON)
    changes, summary, err = follow.stop()

    # What the proposal denies, from the broker's own (never rotated) log: every request tess made on the
    # two topics that the broker allowed (her READ on them is what the proposal drops; nothing else changes).
    segment = kafka.audit_log.read_bytes()[start:].decode()
    expected = set()
    for line in segment.splitlines():
        d = parse_message(line.split("] ", 1)[1].split(" ", 1)[1].removesuffix(" (kafka.authorizer.logger)"))
        assert not isinstance(d, str), line
        if d.principal == "User:tess" and d.resource_name in (first, second) and d.decision == "ALLOWED":
            expected.add((d.principal, d.host, d.operation, d.resource_type, d.resource_name))
    assert {("READ", first), ("READ", second), ("DESCRIBE", first)} <= {(k[2], k[4]) for k in expected}
    reported = [(c["principal"], c["host"], c["operation"], c["resource_type"], c["resource_name"])
                for _, c in changes]
    assert set(reported) == expected and len(reported) == len(expected), (reported, expected, err)
    print(f"shadow mode reported {len(changes)} change(s), each {max(at - windows[c['resource_name']][1] for at, c in changes):+.2f} s "
          f"at most from its client call returning; {summary['rotations']} rotation(s); {sorted(expected)}")
    for at, c in changes:
        assert (c["kind"], c["before"], c["after"]) == ("newly_denied", "ALLOWED", "DENIED")
        assert c["cause"] == f"removing ALLOW READ on TOPIC {c['resource_name']} (LITERAL) for User:tess"
        t0, t1 = windows[c["resource_name"]]
        assert t0 <= at <= t1 + SOON, (c, at - t1)
    assert summary["rotations"] >= 1 and summary["files"] >= 2 and summary["quarantined_lines"] == 0
    assert summary["newly_denied_requests"] == len(expected) and summary["newly_allowed"] == 0
    assert summary["stopped"] == "interrupted"


def test_follow_topic_reports_events_as_they_are_produced(kafka, admin_config, topics, tmp_path):
    from kafka import KafkaProducer

    from kafka_authz_cli.whatif.auditlog import AuditDecision
    from kafka_authz_cli.whatif.cloudevents import FORMAT, to_event

    def event(principal, op, name, i):
        return json.dumps(to_event(AuditDecision(principal, "10.0.0.1", op, "TOPIC", name, "LITERAL", "ALLOWED", None,
                                                 "2026-11-20 10:00:00,000", "kafka.Fetch", None, None, FORMAT, ""),
                                   str(i))).encode()

    topic = f"shadow-audit-events-{uuid.uuid4().hex[:8]}"
    topics(topic, partitions=2)
    producer = KafkaProducer(**kafka.client_config(), max_block_ms=20000)
    producer.send(topic, event("User:carol", "READ", "payments", 1), partition=0).get(timeout=20)
    proposed = tmp_path / "proposed.json"
    proposed.write_text(json.dumps({"version": 1, "acls": [AclBinding.of("TOPIC", "orders", "LITERAL", "User:alice",
                                                                         "*", "READ", "ALLOW").as_dict()]}))
    follow = Follow("--follow-topic", topic, "--from-start", "--bootstrap-server", kafka.bootstrap,
                    "--command-config", admin_config, "--proposed", proposed, "-f", "jsonl", "--max-seconds", "60")
    at, first = follow.got.get(timeout=30)  # produced before: read with --from-start
    assert (first["principal"], first["kind"], first["source"]) == ("User:carol", "newly_denied", f"{topic}:0:0")
    producer.send(topic, event("User:alice", "READ", "orders", 2), partition=1).get(timeout=20)
    producer.send(topic, event("User:dave", "WRITE", "orders", 3), partition=1).get(timeout=20)
    producer.send(topic, b'{"type": "io.confluent.kafka.server/authorization", "data": {', partition=0).get(timeout=20)
    producer.send(topic, json.dumps({"type": "io.confluent.kafka.server/authentication",
                                     "data": {"methodName": "kafka.Authentication"}}).encode(), partition=0).get(timeout=20)
    sent = time.monotonic()
    at, second = follow.got.get(timeout=10)
    assert second["principal"] == "User:dave" and at - sent < SOON
    producer.close()
    time.sleep(1.0)
    changes, summary, err = follow.stop()
    assert not changes, changes
    assert (summary["decisions"], summary["newly_denied_requests"], summary["quarantined_lines"], summary["lines"],
            summary["non_decision_lines"]) == (3, 2, 1, 5, 1), err
    assert [w for w in summary["warnings"] if "1 event(s) skipped" in w], summary["warnings"]
