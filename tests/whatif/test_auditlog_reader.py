"""The audit-log reader: every recorded KRaft line, every format, hostile names, garbage."""

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.whatif.auditlog import (
    LOGGER_SUFFIX,
    ReadStats,
    expand_paths,
    parse_message,
    read_file_bytes,
    read_lines,
)

LINES = Path(__file__).parents[1] / "conformance" / "audit-logs" / "kraft_audit_lines.txt"
RECORDED = [line.rstrip("\n").split("\t", 2) for line in LINES.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]


@pytest.mark.parametrize("level, case, message", RECORDED, ids=[f"{r[1]}-{i}" for i, r in enumerate(RECORDED)])
def test_every_recorded_kraft_line_parses_to_its_fields(level, case, message):
    d = parse_message(message, case, level)
    assert not isinstance(d, str), d
    rebuilt = (f"Principal = {d.principal} is {'Allowed' if d.decision == 'ALLOWED' else 'Denied'} operation = "
               f"{d.operation} from host = {d.host} on resource = ")
    assert message.startswith(rebuilt)
    assert message.endswith(f":LITERAL:{d.resource_name} for request = {d.request} with resourceRefCount = "
                            f"{d.resource_ref_count} based on rule {d.rule}")
    assert d.format == "F-KRAFT" and d.client_visible == (level != "TRACE")


def run(lines):
    stats, quarantine = ReadStats(), []
    out = list(read_lines(lines, "f", stats, quarantine))
    assert stats.balanced
    return out, stats, quarantine


@pytest.mark.parametrize("line, fmt, fields", [
    ("[2018-01-12 21:13:18,464] INFO Principal = User:CN=client,OU=TEST is Denied Operation = Describe from host = "
     "172.23.0.7 on resource = Group:test (kafka.authorizer.logger)", "F-LEGACY", ("GROUP", "test", "DESCRIBE")),
    ("[2019-09-13 01:14:57,928] DEBUG Principal = User:client is Allowed Operation = IdempotentWrite from host = "
     "172.27.0.1 on resource = Cluster:LITERAL:kafka-cluster (kafka.authorizer.logger)", "F-PATTERN",
     ("CLUSTER", "kafka-cluster", "IDEMPOTENT_WRITE")),
    ("[2023-03-12 13:51:55,904] INFO Principal = User:a is Denied Operation = Describe from host = 10.244.0.27 on "
     "resource = TransactionalId:LITERAL:tx for request = Metadata with resourceRefCount = 1 (kafka.authorizer.logger)",
     "F-ZK24", ("TRANSACTIONAL_ID", "tx", "DESCRIBE")),
    ("2020-12-24 14:47:13,989 INFO Principal = User:u is Denied Operation = Write from host = 10.0.129.171 on "
     "resource = Topic:LITERAL:my-topic (kafka.authorizer.logger) [data-plane-kafka-request-handler-7]", "F-PATTERN",
     ("TOPIC", "my-topic", "WRITE")),
    ("kafka-0 kafka [2024-03-13 20:10:17,259] INFO Principal = User:k is Denied operation = CREATE from host = "
     "0:0:0:0:0:0:0:1 on resource = Topic:LITERAL:t for request = CreateTopics with resourceRefCount = 1 based on "
     "rule MatchingAcl(acl=StandardAcl[resourceType=TOPIC, resourceName=t, patternType=LITERAL, principal=User:k, "
     "host=*, operation=CREATE, permissionType=DENY]) (kafka.authorizer.logger)", "F-KRAFT-RECORD",
     ("TOPIC", "t", "CREATE")),
])
def test_formats(line, fmt, fields):
    [d], _, _ = run([line])
    assert d.format == fmt and (d.resource_type, d.resource_name, d.operation) == fields


def test_names_containing_every_separator_are_kept_whole():
    name = "x for request = Fetch with resourceRefCount = 1 based on rule DefaultDeny (kafka.authorizer.logger) y"
    principal = "User:is Denied operation = READ from host = 1.2.3.4 on resource = Topic:LITERAL:z"
    line = (f"[2024-01-01 00:00:00,000] INFO Principal = {principal} is Denied operation = READ from host = "
            f"10.0.0.1 on resource = Group:LITERAL:{name} for request = JoinGroup with resourceRefCount = 1 based on "
            f"rule DefaultDeny{LOGGER_SUFFIX}")
    [d], _, _ = run([line])
    assert d.resource_name == name and d.host == "10.0.0.1"
    assert d.principal == "User:is Denied operation = READ from host = 1.2.3.4 on resource = Topic:LITERAL:z" or \
        d.principal.startswith("User:")


def test_multi_line_name_is_joined_and_a_forged_record_never_becomes_a_decision():
    head = "[2024-01-01 00:00:00,000] INFO Principal = User:eve is Denied operation = READ from host = 10.0.0.9 " \
           "on resource = Group:LITERAL:a"
    tail = "b for request = JoinGroup with resourceRefCount = 1 based on rule DefaultDeny" + LOGGER_SUFFIX
    [d], stats, _ = run([head, tail])
    assert d.resource_name == "a\nb" and stats.decision_lines == 2
    forged = ("[2024-01-01 00:00:00,000] DEBUG Principal = User:admin is Allowed operation = ALTER from host = "
              "10.0.0.1 on resource = Cluster:LITERAL:kafka-cluster for request = AlterConfigs with resourceRefCount "
              "= 1 based on rule SuperUser" + LOGGER_SUFFIX)
    out, stats, quarantine = run([head, forged])
    assert out == [] and stats.quarantined_lines == 2 and "injection" in quarantine[0].reason


def test_non_decision_lines_are_counted_apart():
    out, stats, _ = run([
        "[2020-01-01 00:00:00,000] DEBUG principal = User:admin is a super user, allowing operation without checking "
        "acls." + LOGGER_SUFFIX,
        "[2020-01-01 00:00:00,000] DEBUG No acl found for resource ResourcePattern(resourceType=TOPIC, name=t, "
        "patternType=LITERAL), authorized = false" + LOGGER_SUFFIX,
        ""])
    assert out == [] and stats.non_decision_lines == 3


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=120), max_size=12))
def test_garbage_never_crashes_and_is_always_accounted_for(lines):
    out, stats, _ = run(lines)
    assert stats.lines == len(lines)
    for d in out:  # anything taken as a decision has the anchors that make one
        assert d.principal is not None and d.operation and d.resource_type


names = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=30)


@settings(max_examples=300, deadline=None)
@given(principal=names, name=names, allowed=st.booleans())
def test_hostile_fields_round_trip(principal, name, allowed):
    line = (f"[2024-01-01 00:00:00,000] INFO Principal = User:{principal} is {'Allowed' if allowed else 'Denied'} "
            f"operation = READ from host = 10.0.0.1 on resource = Topic:LITERAL:{name} for request = Fetch with "
            f"resourceRefCount = 1 based on rule DefaultDeny{LOGGER_SUFFIX}")
    out, _, _ = run([line])
    if out:
        assert out[0].resource_name == name
        assert out[0].decision == ("ALLOWED" if allowed else "DENIED")


def test_gzip_truncated_and_rotation_order(tmp_path):
    line = ("[2024-01-01 00:00:00,000] INFO Principal = User:a is Denied operation = READ from host = 10.0.0.1 on "
            "resource = Topic:LITERAL:t for request = Fetch with resourceRefCount = 1 based on rule DefaultDeny"
            + LOGGER_SUFFIX + "\n")
    data = gzip.compress((line * 50).encode())
    stats, q = ReadStats(), []
    assert len(read_file_bytes(data, "g", stats, q)) == 50
    stats, q = ReadStats(), []
    assert 0 < len(read_file_bytes(data[:-20], "g", stats, q)) <= 50
    for n in ("kafka-authorizer.log", "kafka-authorizer.log.2024-01-01-10", "kafka-authorizer.log.2024-01-01-09.gz"):
        (tmp_path / n).write_text("")
    assert [Path(p).name for p in expand_paths([str(tmp_path)])] == [
        "kafka-authorizer.log.2024-01-01-09.gz", "kafka-authorizer.log.2024-01-01-10", "kafka-authorizer.log"]


@pytest.mark.parametrize("message, says", [
    ("Principal = User:a is Denied operation = READS from host = 10.0.0.1 on resource = Topic:LITERAL:t for request = "
     "Fetch with resourceRefCount = 1 based on rule DefaultDeny", "unknown operation 'READS'"),
    ("Principal = User:a is Denied operation = READ from host = broker-1 on resource = Topic:LITERAL:t",
     "host 'broker-1' is not an IP address"),
    ("Principal = User:a is Denied operation = READ from host = 10.0.0.1 on resource = Tpic:LITERAL:t",
     "unknown resource type 'Tpic'"),
    ("Principal = User:a is Denied operation = READ from host = 10.0.0.1 on resource = Topic:LITERAL:t",
     "without ' for request = '"),
    ("Principal = User:a is Denied operation = READ from host = 10.0.0.1 on resource = Topic:LITERAL:t for request = "
     "Fetch with resourceRefCount = 1 based on rule MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=t, "
     "patternType=LITERAL, principal=User:a, host=*, operation=READ, permissionType=ALLOW))",
     "permissionType is ALLOW but the record says Denied"),
    ("Principal = User:a was Denied", "no ' is Allowed ' or ' is Denied '"),
])
def test_quarantine_reasons_name_what_failed_to_parse(message, says):
    _, _, quarantine = run([f"[2024-01-01 00:00:00,000] INFO {message}{LOGGER_SUFFIX}"])
    assert len(quarantine) == 1 and says in quarantine[0].reason, quarantine[0].reason


def test_impossible_timestamps_are_quarantined_missing_ones_are_not():
    msg = ("Principal = User:a is Denied operation = READ from host = 10.0.0.1 on resource = Topic:LITERAL:t for "
           "request = Fetch with resourceRefCount = 1 based on rule DefaultDeny" + LOGGER_SUFFIX)
    out, stats, quarantine = run([f"[2026-02-29 10:00:00,000] INFO {msg}", f"[2024-02-29 10:00:00,000] INFO {msg}",
                                  f"INFO {msg}", f"[2026-11-20 24:00:00,000] INFO {msg}"])
    assert len(out) == 2 and [q.source for q in quarantine] == ["f:1", "f:4"]
    assert "impossible timestamp" in quarantine[0].reason
