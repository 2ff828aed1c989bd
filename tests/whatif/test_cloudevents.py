"""Confluent audit-log events (CloudEvents): the real corpus, round trips, malformed input, detection."""

import copy
import gzip
import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclOperation, ResourceType, java_host_address
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.whatif import read_stream
from kafka_authz_cli.whatif.auditlog import AuditDecision, ReadStats, iter_file_lines
from kafka_authz_cli.whatif.cloudevents import FORMAT, decode_event, file_holds_events, read_event_lines, to_event

CORPUS = Path(__file__).parent / "corpora" / "confluent-audit"
CASES = json.loads((CORPUS / "cases.json").read_text())
EXAMPLES = Path(__file__).parents[2] / "examples" / "whatif"
runner = CliRunner()


def read(data: bytes, source="ev.json"):
    stats, quarantine = ReadStats(), []
    out = list(read_stream(io.BytesIO(data), source, stats, quarantine))
    assert stats.balanced, stats.as_dict()
    return out, stats, quarantine


def fields(d: AuditDecision):
    return (d.principal, d.host, d.operation, d.resource_type, d.resource_name, d.decision, d.timestamp, d.request,
            d.rule)


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_file_reads_to_the_requests_it_means(name):
    case = CASES[name]
    out, stats, quarantine = read((CORPUS / name).read_bytes(), name)
    got = [[*fields(d)[:6], d.rule, d.request, d.timestamp, int(d.source.rsplit(":", 1)[1])] for d in out]
    assert got == case["decisions"]
    assert {k: getattr(stats, k) for k in case["stats"]} == case["stats"]
    assert [[int(q.source.rsplit(":", 1)[1]), q.reason[:len(r)]] for q, (_, r) in
            zip(quarantine, case["quarantined"])] == case["quarantined"]
    assert len(quarantine) == len(case["quarantined"])
    assert [w.split(": ", 1)[1] for w in stats.warnings] == case["skipped"]
    assert all(d.format == FORMAT for d in out)


def test_corpus_has_at_least_five_real_events():
    events = sum(len(c["decisions"]) + len(c["quarantined"]) + sum(int(s.split()[0]) for s in c["skipped"])
                 for c in CASES.values())
    assert events >= 5 and (CORPUS / "SOURCES.md").is_file()


# -- round trips: any event authz writes decodes to the same request ---------------------------

_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
decisions = st.builds(
    lambda ptype, pname, ip, op, rtype, name, allowed, when, method, superuser: AuditDecision(
        f"{ptype}:{pname}", java_host_address(str(ip)), op, rtype, name, "LITERAL",
        "ALLOWED" if allowed else "DENIED", None,
        when.strftime("%Y-%m-%d %H:%M:%S,") + f"{when.microsecond // 1000:03d}" if when else None,
        method, None, "SuperUser" if superuser and allowed else None, FORMAT, ""),
    st.sampled_from(["User", "Group", "ServiceAccount"]), _text, st.ip_addresses(),
    st.sampled_from([m.name for m in AclOperation.concrete()]), st.sampled_from([m.name for m in ResourceType.concrete()]),
    _text, st.booleans(), st.none() | st.datetimes(min_value=__import__("datetime").datetime(1970, 1, 1)),
    st.from_regex(r"kafka\.[A-Za-z]{1,20}", fullmatch=True), st.booleans())


@settings(max_examples=300, deadline=None)
@given(decisions, st.sampled_from([None, 4]))
def test_any_event_authz_writes_decodes_to_the_same_request(d, indent):
    event = to_event(d)
    assert fields(decode_event(json.loads(json.dumps(event)))) == fields(d)
    text = json.dumps(event, indent=indent, ensure_ascii=indent is None) + "\n"
    out, stats, quarantine = read(("\n" + text + "\n" + text).encode())
    assert [fields(x) for x in out] == [fields(d)] * 2 and not quarantine
    assert stats.lines == 2 * len(text.splitlines()) + 2


# -- malformed input: counted, kept aside with the reason, never a traceback --------------------

BASE = json.loads((CORPUS / "cp54-superuser-consumers.json").read_text().split("\n\n")[0])


def mutated(path: str, value):
    event = copy.deepcopy(BASE)
    *parents, last = path.split(".")
    node = event
    for p in parents:
        node = node[p]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return json.dumps(event)


@pytest.mark.parametrize("line, reason", [
    ('{"type": "io.confluent.kafka.server/authorization", "data": ', "not JSON"),
    ("[1, 2]", "a JSON list, not an event object"),
    ('"just a string"', "a JSON str, not an event object"),
    ("INFO Principal = User:a is Allowed", "not JSON"),
    (mutated("data.authorizationInfo.granted", "yes"), "data.authorizationInfo.granted is missing or not true/false"),
    (mutated("data.authorizationInfo.granted", False), "superUserAuthorization but not granted"),
    (mutated("data.authorizationInfo.patternType", "PREFIXED"), "decision on a 'PREFIXED' resource"),
    (mutated("data.authorizationInfo.resourceName", KeyError), "data.authorizationInfo.resourceName is missing"),
    (mutated("data.authenticationInfo", KeyError), "data.authenticationInfo.principal is missing"),
    (mutated("data.requestMetadata.client_address", "/not-an-ip"), "client address '/not-an-ip' is not an IP"),
    (mutated("time", "2020-02-30T10:00:00Z"), "impossible time"),
    (mutated("data", KeyError), "authorization event without a 'data' object"),
    (mutated("type", KeyError), "not a CloudEvent: no 'type'"),
])
def test_malformed_events_are_quarantined_with_their_reason(line, reason):
    good = json.dumps(BASE)
    out, stats, quarantine = read(f"{good}\n{line}\n{good}\n".encode())
    assert len(out) == 2 and stats.quarantined_lines == 1
    assert quarantine[0].source == "ev.json:2" and quarantine[0].reason.startswith(reason), quarantine[0].reason


def test_an_acl_rule_that_contradicts_the_decision_is_quarantined():
    event = copy.deepcopy(BASE)
    info = event["data"]["authorizationInfo"]
    del info["superUserAuthorization"]
    info["aclAuthorization"] = {"permissionType": "DENY", "host": "*"}
    out, _, quarantine = read(json.dumps(event).encode())
    assert not out and "permissionType is DENY but granted is true" in quarantine[0].reason
    info["granted"] = False
    out, _, _ = read(json.dumps(event).encode())
    assert out[0].decision == "DENIED" and out[0].rule == "aclAuthorization(permissionType=DENY, host=*)"


def test_other_event_kinds_and_rbac_resources_are_skipped_with_a_reason():
    auth = {"type": "io.confluent.kafka.server/authentication", "data": {"methodName": "kafka.Authentication"}}
    connector = json.loads(mutated("data.authorizationInfo.resourceType", "Connector"))
    out, stats, quarantine = read("\n".join(json.dumps(e) for e in (auth, auth, connector, BASE)).encode())
    assert len(out) == 1 and stats.non_decision_lines == 3 and not quarantine
    assert any("2 event(s) skipped: io.confluent.kafka.server/authentication" in w for w in stats.warnings)
    assert any("'Connector'" in w for w in stats.warnings)


def test_hosts_from_every_address_shape_and_none():
    def host_of(meta, where="requestMetadata"):
        event = copy.deepcopy(BASE)
        del event["data"]["requestMetadata"]
        if meta is not None:
            event["data"][where] = meta
        return decode_event(event).host
    assert host_of({"callerIp": "10.1.2.3"}) == "10.1.2.3"
    assert host_of([{"ip": "::1"}], "clientAddress") == "0:0:0:0:0:0:0:1"
    assert host_of({"client_address": "broker-1/10.0.0.7"}) == "10.0.0.7"
    assert host_of(None) == "0.0.0.0"
    _, stats, _ = read(json.dumps(json.loads(mutated("data.requestMetadata", KeyError))).encode())
    assert any("no client address" in w and "0.0.0.0" in w for w in stats.warnings)


def test_a_pretty_object_that_never_closes_is_quarantined_and_the_next_one_read():
    pretty = json.dumps(BASE, indent=2)
    broken = "\n".join(pretty.splitlines()[:10])
    out, stats, quarantine = read(f"{broken}\n{pretty}\n{broken}".encode())
    assert len(out) == 1
    assert [q.reason for q in quarantine] == ["JSON object never closes before the next one starts",
                                              "JSON object never closes (the file ends inside it)"]
    assert stats.quarantined_lines == 20


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=80), st.just(json.dumps(BASE)), st.just("{"), st.just("}"),
                          st.just(json.dumps(BASE)[:50]), st.just(json.dumps(BASE, indent=1))), min_size=1, max_size=12))
def test_garbage_never_crashes_and_every_line_is_counted(chunks):
    text = "{}\n" + "\n".join(chunks)  # starts like events: read as events whatever follows
    try:
        out, stats, quarantine = read(text.encode())
    except InputError as exc:  # not one decision in it: JSON that is no audit log, refused (test_wrong_kind.py)
        assert exc.reason.startswith("this looks like ")
        stats = ReadStats()
        lines = iter_file_lines(io.BytesIO(text.encode()), "ev.json", stats)
        out = list(read_event_lines(lines, "ev.json", stats, []))
        assert not out and stats.balanced
    assert stats.lines == len(text.encode().split(b"\n")) - text.endswith("\n")  # a final LF ends, not starts, a line
    assert all(d.format == FORMAT for d in out)


# -- detection, gzip, the command -------------------------------------------------------------

def test_events_and_log4j_files_side_by_side_are_each_read_by_their_reader(tmp_path):
    (tmp_path / "events.json.gz").write_bytes(gzip.compress((CORPUS / "cp54-superuser-consumers.json").read_bytes()))
    (tmp_path / "kafka-authorizer.log").write_bytes((EXAMPLES / "logs" / "kafka-authorizer.log").read_bytes())
    assert file_holds_events(str(tmp_path / "events.json.gz"))
    assert not file_holds_events(str(tmp_path / "kafka-authorizer.log"))
    res = runner.invoke(app, ["whatif", "--logs", str(tmp_path), "--proposed", str(EXAMPLES / "proposed.json"),
                              "-f", "json"])
    assert res.exit_code == 0, res.output
    formats = json.loads(res.stdout)["lines"]["formats"]
    assert formats[FORMAT] == 5 and len(formats) > 1


def test_spark_refuses_events_before_starting(tmp_path):
    res = runner.invoke(app, ["whatif", "--logs", str(CORPUS / "cp54-superuser-consumers.json"), "--spark",
                              "--proposed", str(EXAMPLES / "proposed.json")])
    assert res.exit_code == 2
    assert "Confluent audit-log events" in res.output and "without --spark" in res.output


@pytest.mark.parametrize("args, says", [
    (["--logs-topic", "audit"], "--logs-topic and --bootstrap-server go together"),
    (["--logs-topic", "audit", "--bootstrap-server", "localhost:1"], "--until-end"),
    (["--logs-topic", "audit", "--bootstrap-server", "localhost:1", "--until-end", "--spark"], "drop --spark"),
    (["--logs", "x", "--logs-topic", "audit", "--bootstrap-server", "localhost:1"], "give either"),
    (["--logs", "x", "--max-events", "3"], "bound --logs-topic"),
])
def test_topic_options_that_cannot_work(args, says):
    res = runner.invoke(app, ["whatif", *args, "--proposed", str(EXAMPLES / "proposed.json")])
    assert res.exit_code == 2 and says in res.output, res.output


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_sniffer_names_audit_events_given_where_acls_are_expected(name):
    from kafka_authz_cli.formats.sniff import CONFLUENT_AUDIT, what_is

    assert what_is((CORPUS / name).read_text()) is CONFLUENT_AUDIT
    res = runner.invoke(app, ["simulate", str(CORPUS / name), "--principal", "User:a", "--operation", "READ",
                              "--topic", "t"])
    assert res.exit_code == 2 and "Confluent audit-log events" in res.output, res.output


def test_events_index_once_and_answer_as_the_logs_do_and_stdin_reads_them(tmp_path):
    events = CORPUS / "cp54-superuser-consumers.json"
    args = ["--proposed", str(EXAMPLES / "proposed.json"), "-f", "json"]
    res = runner.invoke(app, ["whatif", "index", "--logs", str(events), "-o", str(tmp_path / "ix"), "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["this_run"]["decisions"] == 5
    from_index = runner.invoke(app, ["whatif", "--index", str(tmp_path / "ix"), *args])
    from_logs = runner.invoke(app, ["whatif", "--logs", str(events), *args])
    from_stdin = runner.invoke(app, ["whatif", "--logs", "-", *args], input=events.read_bytes())
    assert from_index.exit_code == from_logs.exit_code == from_stdin.exit_code == 0, from_index.output
    a, b, c = (json.loads(r.stdout) for r in (from_index, from_logs, from_stdin))
    assert a["newly_denied"] == b["newly_denied"] == c["newly_denied"] and len(b["newly_denied"]) == 3


def test_index_on_spark_refuses_events_before_starting(tmp_path):
    # the corpus' events files (its cases.json is no log at all: refused as JSON, test_wrong_kind.py)
    events = ["cloud-docs-mds-authorize.json", "confluent-unit-test-createtopics.jsonl", "cp54-superuser-consumers.json"]
    res = runner.invoke(app, ["whatif", "index", *(a for e in events for a in ("--logs", str(CORPUS / e))), "--spark",
                              "-o", str(tmp_path / "ix")])
    assert res.exit_code == 2 and "Confluent audit-log events" in res.output and "(and 2 more)" in res.output, res.output
