"""authz access unused, from real authorizer log lines: counts per binding, and never 'unused' where the
logs could not show use (INFO-only logs, one silent broker, Confluent events)."""

import gzip
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclBinding, BrokerSettings, Request, StandardAuthorizer
from kafka_authz_cli.acl.model import AclOperation, ResourceType
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.review import Evidence, SourceTally, in_window, review_unused
from kafka_authz_cli.whatif import ReadStats, aggregate, parse_message
from kafka_authz_cli.whatif.auditlog import _MATCHING_ACL
from kafka_authz_cli.whatif.cloudevents import FORMAT as EVENTS_FORMAT

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "whatif"
LOGS = EXAMPLES / "logs"
KRAFT_LINES = ROOT / "tests" / "conformance" / "audit-logs" / "kraft_audit_lines.txt"
CONFLUENT_EVENTS = ROOT / "tests" / "whatif" / "corpora" / "confluent-audit" / "confluent-unit-test-createtopics.jsonl"
runner = CliRunner()

# The ACL set the example brokers ran (current.json), plus a grant nobody uses, a DENY nothing hits, and
# a DENY the logged denials of bob now fall on.
EXTRA = [
    {"resource_type": "TOPIC", "resource_name": "ghost", "pattern_type": "LITERAL", "principal": "User:ghost",
     "host": "*", "operation": "READ", "permission": "ALLOW"},
    {"resource_type": "TOPIC", "resource_name": "orders-", "pattern_type": "PREFIXED", "principal": "User:bob",
     "host": "*", "operation": "WRITE", "permission": "DENY"},
    {"resource_type": "TOPIC", "resource_name": "orders-eu", "pattern_type": "LITERAL", "principal": "User:bob",
     "host": "*", "operation": "ALL", "permission": "DENY"},
]


def key(row):
    return (row["principal"], row["operation"], row["resource_type"], row["resource_name"], row["permission"])


@pytest.fixture
def acls(tmp_path):
    doc = json.loads((EXAMPLES / "current.json").read_text())
    doc["acls"] += EXTRA
    path = tmp_path / "acls.json"
    path.write_text(json.dumps(doc))
    return str(path)


def unused_json(*args, code=0):
    res = runner.invoke(app, ["access", "unused", *args, "-f", "json"])
    assert res.exit_code == code, res.output
    return json.loads(res.stdout), res.stderr


def info_only(tmp_path, name="info.log"):
    """The example logs as a broker at the default INFO level writes them: the same real lines, DEBUG and
    TRACE ones gone."""
    lines = []
    for f in sorted(LOGS.rglob("kafka-authorizer.log*")):
        data = gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
        lines += [ln for ln in data.decode().splitlines() if "] INFO " in ln]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_debug_logs_count_each_bindings_decisions_and_call_the_rest_unused(acls):
    doc, _ = unused_json(acls, "--logs", str(LOGS))
    rows = {key(r): r for r in doc["bindings"]}
    # Counted from the files: 20 + 15 READs of orders-* by analytics, 20 + 6 WRITEs on payments (ALL).
    assert rows[("User:analytics", "READ", "TOPIC", "orders-", "ALLOW")]["requests"] == 35
    assert rows[("User:payments-svc", "ALL", "TOPIC", "payments", "ALLOW")]["requests"] == 26
    assert rows[("User:orders-svc", "IDEMPOTENT_WRITE", "CLUSTER", "kafka-cluster", "ALLOW")]["requests"] == 6
    # READ implies DESCRIBE: old-batch's TRACE Describe lines are this grant's too, but no client asked for them.
    legacy = rows[("User:old-batch", "READ", "TOPIC", "legacy-feed", "ALLOW")]
    assert (legacy["requests"], legacy["client_requests"], legacy["status"]) == (16, 1, "used")
    assert rows[("User:bob", "ALL", "TOPIC", "orders-eu", "DENY")]["requests"] == 7
    assert rows[("User:ghost", "READ", "TOPIC", "ghost", "ALLOW")]["status"] == "unused"
    assert rows[("User:bob", "WRITE", "TOPIC", "orders-", "DENY")]["status"] == "unused"
    assert doc["summary"] == {"bindings": 9, "used": 7, "unused": 2, "unknown": 0, "principals_unseen": 1}
    assert [p["principal"] for p in doc["principals"] if p["status"] == "unseen"] == ["User:ghost"]
    assert doc["visibility"]["allowed"]["shown"] and doc["visibility"]["denied"]["shown"]
    last = max(r["last_used"] for r in doc["bindings"] if r["last_used"])
    assert doc["window"]["last_seen"] == last == "2026-11-20 15:25:42,001"
    assert doc["window"]["first_seen"] == "2023-03-12 13:51:55,904"
    assert doc["logs"]["quarantined_lines"] == 3  # the forged and odd lines whatif's tests know
    assert doc["disagreements"]["count"] == 0 and doc["removal"]["changed_decisions"] == 0


def test_info_only_logs_never_call_an_allow_binding_unused(acls, tmp_path):
    log = info_only(tmp_path)
    doc, err = unused_json(acls, "--logs", str(log))
    status = {key(r): r["status"] for r in doc["bindings"]}
    assert status[("User:ghost", "READ", "TOPIC", "ghost", "ALLOW")] == "unknown"
    assert status[("User:orders-svc", "WRITE", "TOPIC", "orders-", "ALLOW")] == "unknown"
    # Denials are logged at INFO: DENY bindings are still judged.
    assert status[("User:bob", "WRITE", "TOPIC", "orders-", "DENY")] == "unused"
    assert status[("User:bob", "ALL", "TOPIC", "orders-eu", "DENY")] == "used"
    assert not doc["visibility"]["allowed"]["shown"] and "DEBUG" in doc["visibility"]["allowed"]["why"]
    assert {p["principal"]: p["status"] for p in doc["principals"]}["User:ghost"] == "unknown"
    assert "unknown" in err and "DEBUG" in err
    # The gate: 1 for an unused binding; 3 when nothing is provably unused but some are unknown.
    unused_json(acls, "--logs", str(log), "--fail-on-unused", code=1)
    allow_only = Path(acls).parent / "allow_only.json"
    doc_acls = json.loads(Path(acls).read_text())
    doc_acls["acls"] = [a for a in doc_acls["acls"] if a["permission"] == "ALLOW"]
    allow_only.write_text(json.dumps(doc_acls))
    unused_json(str(allow_only), "--logs", str(log), "--fail-on-unused", code=3)


def test_one_silent_log_among_debug_ones_makes_unused_allow_bindings_unknown(acls, tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(LOGS, logs)
    info_only(logs, "broker-2.log")  # another broker, left at INFO
    doc, _ = unused_json(acls, "--logs", str(logs))
    ghost = next(r for r in doc["bindings"] if r["principal"] == "User:ghost")
    assert ghost["status"] == "unknown" and "broker-2.log" in ghost["why"]
    assert next(r for r in doc["bindings"] if r["operation"] == "WRITE" and r["principal"] == "User:bob")[
        "status"] == "unused"


def test_a_log_with_lines_but_no_decision_is_a_broker_that_did_not_log_allowed_use(acls, tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(LOGS, logs)
    (logs / "empty.log").write_text("")  # says nothing
    doc, _ = unused_json(acls, "--logs", str(logs))
    assert doc["summary"]["unknown"] == 0
    (logs / "broker-3.log").write_text("[2026-11-20 14:00:00,000] INFO Processing something (kafka.server.KafkaApis)\n")
    doc, _ = unused_json(acls, "--logs", str(logs))
    ghost = next(r for r in doc["bindings"] if r["principal"] == "User:ghost")
    assert ghost["status"] == "unknown" and "broker-3.log" in ghost["why"]
    deny = next(r for r in doc["bindings"] if r["principal"] == "User:bob" and r["operation"] == "WRITE")
    assert deny["status"] == "unknown" and "no decision" in deny["why"]  # its node may log no denial either


def test_the_window_bounds_the_logs_and_is_reported(acls):
    doc, _ = unused_json(acls, "--logs", str(LOGS), "--since", "2026-11-20T14", "--until", "2026-11-20T15")
    rows = {key(r): r for r in doc["bindings"]}
    assert rows[("User:analytics", "READ", "TOPIC", "orders-", "ALLOW")]["requests"] == 15
    assert rows[("User:orders-svc", "WRITE", "TOPIC", "orders-", "ALLOW")]["status"] == "unused"
    assert doc["window"]["first_seen"] >= "2026-11-20 14" and doc["window"]["last_seen"] < "2026-11-20 15"
    assert doc["window"]["since"] == "2026-11-20 14" and doc["window"]["decisions_outside"] > 0
    assert not any("part they cover" in w for w in doc["warnings"])
    doc, _ = unused_json(acls, "--logs", str(LOGS), "--since", "2026-11-20T14", "--until", "2026-11-22")
    assert any("end at 2026-11-20 15:25:42,001" in w and "part they cover" in w for w in doc["warnings"])
    res = runner.invoke(app, ["access", "unused", acls, "--logs", str(LOGS), "--since", "2026-11-20T15",
                              "--until", "2026-11-20T14"])
    assert res.exit_code == 2 and "empty" in res.output


def test_an_index_answers_as_the_logs_do(acls, tmp_path):
    ix = tmp_path / "ix"
    res = runner.invoke(app, ["whatif", "index", "--logs", str(LOGS), "-o", str(ix)])
    assert res.exit_code == 0, res.output
    from_logs, _ = unused_json(acls, "--logs", str(LOGS))
    from_index, _ = unused_json(acls, "--index", str(ix))
    assert from_index["bindings"] == from_logs["bindings"]
    assert from_index["principals"] == from_logs["principals"]
    assert from_index["window"]["first_seen"] == from_logs["window"]["first_seen"]
    assert from_index["logs"]["quarantined_lines"] == 3
    hour = ["--since", "2026-11-20T14", "--until", "2026-11-20T15"]
    assert unused_json(acls, "--index", str(ix), *hour)[0]["bindings"] == \
        unused_json(acls, "--logs", str(LOGS), *hour)[0]["bindings"]


def test_confluent_events_show_only_what_the_router_routes(tmp_path):
    acls = tmp_path / "acls.json"
    acls.write_text(json.dumps({"version": 1, "acls": [
        {"resource_type": "TOPIC", "resource_name": "my_new_topic", "pattern_type": "LITERAL",
         "principal": "User:Alice", "host": "*", "operation": "CREATE", "permission": "ALLOW"},
        {"resource_type": "TOPIC", "resource_name": "payments", "pattern_type": "LITERAL",
         "principal": "User:Alice", "host": "*", "operation": "READ", "permission": "ALLOW"}]}))
    doc, _ = unused_json(str(acls), "--logs", str(CONFLUENT_EVENTS))
    status = {r["operation"]: r["status"] for r in doc["bindings"]}
    assert status == {"CREATE": "used", "READ": "unknown"}
    assert "router" in doc["visibility"]["allowed"]["why"]
    doc, _ = unused_json(str(acls), "--logs", str(CONFLUENT_EVENTS), "--assume-complete-logs")
    assert {r["operation"]: r["status"] for r in doc["bindings"]} == {"CREATE": "used", "READ": "unused"}


def test_csv_table_quarantine_and_usage_errors(acls, tmp_path):
    res = runner.invoke(app, ["access", "unused", acls, "--logs", str(LOGS), "-f", "csv"])
    assert res.exit_code == 0
    head, *rows = res.stdout.splitlines()
    assert head.startswith("resource_type,resource_name,pattern_type,principal") and "status" in head
    assert len(rows) == 9
    q = tmp_path / "q.jsonl"
    res = runner.invoke(app, ["access", "unused", acls, "--logs", str(LOGS), "--quarantine", str(q)],
                        env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "3 line(s) unreadable" in res.stdout and "unused" in res.stdout and "window covered" in res.stdout
    assert len(q.read_text().splitlines()) == 2 and all  # 3 lines, one entry holds two(json.loads(x)["reason"] for x in q.read_text().splitlines())
    for args in (["--logs", str(LOGS), "--index", str(tmp_path)], []):
        res = runner.invoke(app, ["access", "unused", acls, *args])
        assert res.exit_code == 2 and "--logs" in res.output
    res = runner.invoke(app, ["access", "unused", acls, "--logs", str(tmp_path / "none*.log")])
    assert res.exit_code == 2 and "no log files matched" in res.output


def _kraft_rule_lines():
    out = []
    for raw in KRAFT_LINES.read_text().splitlines():
        if raw.startswith("#") or "MatchingAcl(" not in raw:
            continue
        level, case, message = raw.split("\t", 2)
        out.append(pytest.param(level, message, id=case))
    return out


@pytest.mark.parametrize("level, message", _kraft_rule_lines())
def test_the_deciding_acl_is_the_one_kafkas_own_log_line_names(level, message):
    """Lines the real StandardAuthorizer wrote name the ACL that decided: with that ACL in the set (and an
    unrelated one), review credits exactly it."""
    d = parse_message(message, "kraft", level, "2024-10-25 03:33:01,123")
    m = _MATCHING_ACL.match(d.rule)
    assert m is not None
    acl = AclBinding.of(m["rtype"], m["name"], m["pattern"], m["principal"], m["host"], m["op"], m["perm"])
    other = AclBinding.of("TOPIC", "unrelated", "LITERAL", "User:nobody", "*", "READ", "ALLOW")
    ev = Evidence()
    tally = SourceTally("kraft")
    ev.sources.append(tally)
    aggs = aggregate(in_window([d], tally, ev))
    report = review_unused(aggs, [acl, other], ["a", "b"], BrokerSettings(), ev)
    by = {u.binding: u for u in report.bindings}
    assert by[acl].status == "used" and by[acl].requests == 1
    assert by[acl].client_requests == (0 if level == "TRACE" else 1)
    assert by[other].requests == 0
    engine = StandardAuthorizer([acl, other])
    assert engine.authorize(Request(d.principal, d.host, AclOperation[d.operation], ResourceType[d.resource_type],
                                    d.resource_name)).acl == acl


def test_events_format_name_is_whatifs():
    from kafka_authz_cli.review import unused

    assert unused.EVENTS_FORMAT == EVENTS_FORMAT
    assert ReadStats().balanced


def test_stdin_reads_like_the_file(acls):
    log = LOGS / "kafka-authorizer.log.2026-11-20-13"
    from_file, _ = unused_json(acls, "--logs", str(log))
    res = runner.invoke(app, ["access", "unused", acls, "--logs", "-", "-f", "json"], input=log.read_bytes())
    assert res.exit_code == 0, res.output
    from_stdin = json.loads(res.stdout)
    assert from_stdin["bindings"] == from_file["bindings"] and from_stdin["logs"]["sources"][0]["source"] == "<stdin>"
