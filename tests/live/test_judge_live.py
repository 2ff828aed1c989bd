"""The real broker as judge: ACLs applied by authz, real requests from several SCRAM users, and every
authorize() the broker logged decided identically (decision, rule text, audit line) by `authz simulate`;
`authz whatif` reads that audit log with every line accounted for and nothing quarantined."""

import json
import re
import time

import pytest

from kafka_authz_cli.acl.model import CLUSTER_NAME, AclBinding

pytestmark = pytest.mark.live

ACLS = [
    ("TOPIC", "orders", "LITERAL", "User:alice", "WRITE", "ALLOW"),
    ("TOPIC", "orders", "LITERAL", "User:alice", "READ", "ALLOW"),
    ("TOPIC", "orders", "LITERAL", "User:alice", "DESCRIBE_CONFIGS", "ALLOW"),
    ("TOPIC", "new-", "PREFIXED", "User:alice", "CREATE", "ALLOW"),
    ("GROUP", "app-", "PREFIXED", "User:alice", "READ", "ALLOW"),
    ("TRANSACTIONAL_ID", "tx-", "PREFIXED", "User:alice", "WRITE", "ALLOW"),
    ("CLUSTER", CLUSTER_NAME, "LITERAL", "User:alice", "IDEMPOTENT_WRITE", "ALLOW"),
    ("TOPIC", "*", "LITERAL", "User:bob", "ALL", "ALLOW"),
    ("TOPIC", "orders", "LITERAL", "User:bob", "WRITE", "DENY"),
    ("GROUP", "app-", "PREFIXED", "User:bob", "READ", "DENY"),
]
USERS = {"alice": "SCRAM-SHA-512", "bob": "SCRAM-SHA-256", "dave": "SCRAM-SHA-512"}
LINE = re.compile(r"^\[(?P<ts>[^\]]+)\] (?P<level>[A-Z]+) (?P<message>.*) \(kafka\.authorizer\.logger\)$")


def cfg(kafka, user):
    return kafka.client_config(user, f"{user}-pw", USERS[user])


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as exc:  # noqa: BLE001 - the error class is what is judged
        return ("error", type(exc).__name__)


def produce(kafka, user, **extra):
    from kafka import KafkaProducer

    p = KafkaProducer(**cfg(kafka, user), max_block_ms=8000, **extra)
    try:
        if "transactional_id" in extra:
            p.init_transactions()
            p.begin_transaction()
            p.send("orders", b"in a transaction").get(timeout=10)
            p.commit_transaction()
            return "committed"
        return p.send("orders", b"hello").get(timeout=10).offset
    finally:
        p.close(timeout=3)


def consume(kafka, user, group):
    from kafka import KafkaConsumer

    c = KafkaConsumer("orders", **cfg(kafka, user), group_id=group, auto_offset_reset="earliest",
                      enable_auto_commit=False, consumer_timeout_ms=4000)
    try:
        records = 0
        for _ in c:
            records += 1
            break
        c.commit()
        return records
    finally:
        c.close()


def with_admin(kafka, user, fn):
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(**cfg(kafka, user))
    try:
        return fn(admin)
    finally:
        admin.close()


def describe_configs(admin, topic):
    from kafka.admin import ConfigResource, ConfigResourceType

    result = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)], config_filter="all")
    return len(result["topic"][topic])  # kafka-python answers a refused resource with no configs


def create_topic(admin, name):
    from kafka.admin import NewTopic

    admin.create_topics([NewTopic(name, 1, 1)])
    return name


def test_every_logged_decision_is_authzs_decision(authz, clean, settled, kafka, tmp_path):
    from kafka.admin import NewTopic

    users = tmp_path / "users.csv"
    users.write_text("user,mechanism,password\n" + "".join(f"{u},{m},{u}-pw\n" for u, m in USERS.items()))
    res = authz("scram", "apply", users, *authz.live, "--password-column", "password", "--yes")
    assert res.exit_code == 0, res.output
    for t in ("orders", "secret"):
        if t not in clean.list_topics():
            clean.create_topics([NewTopic(t, 1, 1)])
    desired = [AclBinding.of(rt, n, pt, p, "*", op, perm) for rt, n, pt, p, op, perm in ACLS]
    acl_file = tmp_path / "acls.json"
    acl_file.write_text(json.dumps({"version": 1, "acls": [b.as_dict() for b in desired]}))
    res = authz("cluster", "apply", acl_file, *authz.live, "--yes")
    assert res.exit_code == 0, res.output
    assert settled(desired) == set(desired)  # the broker's authorizer applies committed ACLs asynchronously
    start = kafka.audit_log.stat().st_size

    results = {
        "alice idempotent produce": outcome(lambda: produce(kafka, "alice", enable_idempotence=True, acks="all")),
        "alice transactional produce": outcome(lambda: produce(kafka, "alice", transactional_id="tx-1")),
        "alice consume and commit": outcome(lambda: consume(kafka, "alice", "app-1")),
        "alice describe configs orders": outcome(lambda: with_admin(kafka, "alice",
                                                                    lambda a: describe_configs(a, "orders"))),
        "alice describe configs secret": outcome(lambda: with_admin(kafka, "alice",
                                                                    lambda a: describe_configs(a, "secret"))),
        "alice create new-x": outcome(lambda: with_admin(kafka, "alice", lambda a: create_topic(a, "new-x"))),
        "alice create other": outcome(lambda: with_admin(kafka, "alice", lambda a: create_topic(a, "other"))),
        "alice transactional id not hers": outcome(lambda: produce(kafka, "alice", transactional_id="nope-1")),
        "bob produce": outcome(lambda: produce(kafka, "bob")),
        "bob consume": outcome(lambda: consume(kafka, "bob", "app-2")),
        "bob describe topics": outcome(lambda: with_admin(kafka, "bob", lambda a: sorted(
            t for t in a.list_topics() if not t.startswith("__")))),
        "dave list topics": outcome(lambda: with_admin(kafka, "dave", lambda a: a.list_topics())),
        "dave produce": outcome(lambda: produce(kafka, "dave")),
    }
    # Clients that were refused got the error the decision implies.
    assert results["alice idempotent produce"][0] == "ok"
    assert results["alice transactional produce"] == ("ok", "committed")
    assert results["alice consume and commit"] == ("ok", 1)
    assert results["alice describe configs orders"][0] == "ok" and results["alice describe configs orders"][1] > 0
    assert results["alice describe configs secret"] == ("ok", 0)
    assert results["alice create new-x"] == ("ok", "new-x")
    assert results["alice create other"] == ("error", "TopicAuthorizationFailedError")
    assert results["alice transactional id not hers"] == ("error", "TransactionalIdAuthorizationFailedError")
    assert results["bob produce"] == ("error", "TopicAuthorizationFailedError")
    assert results["bob consume"] == ("error", "GroupAuthorizationFailedError")
    assert results["bob describe topics"] == ("ok", ["new-x", "orders", "secret"])
    assert results["dave list topics"] == ("ok", [])
    assert results["dave produce"] == ("error", "TopicAuthorizationFailedError")

    time.sleep(0.5)
    segment = kafka.audit_log.read_bytes()[start:].decode("utf-8")
    lines = [ln for ln in segment.splitlines() if ln]
    log_file = tmp_path / "kafka-authorizer.log"
    log_file.write_text(segment)
    pulled = tmp_path / "pulled.json"
    assert authz("cluster", "pull", *authz.live, "-o", pulled).exit_code == 0
    assert {b for b in json.loads(pulled.read_text())["acls"] for b in [AclBinding.of(**b)]} == set(desired)

    # Every authorize() the broker logged, replayed through `authz simulate`.
    from kafka_authz_cli.whatif.auditlog import parse_message

    requests, expected = [], []
    for line in lines:
        m = LINE.match(line)
        assert m, line
        d = parse_message(m["message"])
        assert not isinstance(d, str), (line, d)
        requests.append({"principal": d.principal, "host": d.host, "operation": d.operation,
                         "resource_type": d.resource_type, "resource_name": d.resource_name,
                         "request": d.request, "resource_ref_count": d.resource_ref_count})
        expected.append((m["level"], d.decision, d.rule, m["message"]))
    req_file = tmp_path / "requests.jsonl"
    req_file.write_text("".join(json.dumps(r) + "\n" for r in requests))
    res = authz("simulate", pulled, "--requests", req_file, "--super-users", kafka.super_users, "--format", "json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    # Over 40 lines: 52 on a fresh broker, fewer when earlier tests of the session already made the
    # internal topics (__consumer_offsets, __transaction_state: the controller's CreateTopics, Envelope
    # and the coordinators' lookups of them are not logged again), as test_apps_live.py does.
    assert len(rows) == len(lines) > 40
    print(f"judged {len(lines)} logged decisions: " + str(sorted({(r["principal"], r["request"], row["decision"]) for r, row in zip(requests, rows)})))
    for row, (level, decision, rule, message) in zip(rows, expected):
        assert (row["audit_level"], row["decision"], row["rule"], row["audit"]) == (level, decision, rule, message)
    users_seen = {r["principal"] for r in requests}
    assert {"User:alice", "User:bob", "User:dave"} <= users_seen
    decisions = {(r["principal"], row["decision"]) for r, row in zip(requests, rows)}
    assert ("User:bob", "DENIED") in decisions and ("User:alice", "ALLOWED") in decisions
    assert any(r["request"] == "InitProducerId" and r["resource_type"] == "TRANSACTIONAL_ID" for r in requests)
    assert any(r["request"] == "OffsetCommit" for r in requests)

    # `authz whatif` on the broker's own log: every line accounted for, nothing quarantined, and the
    # ACL set the broker ran (read live) reproduces every logged decision.
    for logs in (log_file, kafka.audit_log):
        res = authz("whatif", "--logs", logs, "--proposed", pulled, "--current", f"cluster:{kafka.bootstrap}",
                    "--command-config", kafka.command_config(), "--super-users", kafka.super_users, "-f", "json")
        assert res.exit_code == 0, res.output
        doc = json.loads(res.stdout)
        counts = doc["lines"]
        assert counts["quarantined_lines"] == 0
        assert counts["total"] == counts["decision_lines"] + counts["non_decision_lines"]
        if logs == log_file:
            assert counts["total"] == counts["decision_lines"] == len(lines)
            assert doc["current_reproduces"]["reproduced"] == doc["current_reproduces"]["comparable"] > 0
            assert not doc["newly_denied"] and not doc["newly_allowed"]
