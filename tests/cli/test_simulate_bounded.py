"""`authz simulate` output stays bounded: one warning per kind, rows streamed, memory flat in the requests."""

import csv
import io
import json
import tracemalloc
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import tests.bench.gen_authorizer_benchmark as gen
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.formats import WarningTally
from kafka_authz_cli.services.simulate import SimulateOptions, run_simulation

runner = CliRunner()


def _workload(tmp_path: Path, resources: int = 200, requests: int = 300) -> tuple[Path, Path]:
    acls, reqs = tmp_path / "acls.json", tmp_path / "requests.jsonl"
    gen.write_acls(acls, resources)
    gen.write_requests(reqs, requests, resources)
    return acls, reqs


def _invoke(*args) -> object:
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "1000"})


def test_the_tally_prints_one_line_per_kind_with_a_count_and_the_first_places():
    tally = WarningTally()
    for i in range(5000):
        tally.add("ACLs with an odd host", f"f:{i + 12}", f"host {i} is odd")
    tally.add("duplicate ACLs", "f:3", "duplicate ACL x")
    assert len(tally) == 5001 and tally.count("ACLs with an odd host") == 5000
    assert tally.lines() == ["5,000 ACLs with an odd host (f:12, f:13, f:14 and 4,997 more); f:12: host 0 is odd",
                             "f:3: duplicate ACL x"]


def test_the_benchmark_workload_warns_once_per_kind(tmp_path):
    acls, reqs = _workload(tmp_path)
    # Kafka's wildcard section has resourceCount/10 = 20 ACLs whose host never matches; add duplicates.
    doc = json.loads(acls.read_text())
    doc["acls"] += doc["acls"][:7]
    acls.write_text(json.dumps(doc, indent=1))
    res = _invoke("simulate", acls, "--requests", reqs, "--format", "jsonl")
    assert res.exit_code == 0, res.output
    # The console may wrap long lines: compare the text with its blanks normalised.
    text = " ".join(res.stderr.split())
    assert text.count("warning:") == 2, res.stderr
    assert "warning: 7 duplicate ACLs (Kafka stores each once) (" in text and " and 4 more); " in text
    assert "warning: 20 ACLs have a host that never matches a client address (not an IP address) (" in text
    assert " and 17 more); " in text and "'127.0.00' never matches" in text
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == 300
    assert max(len(r["notes"]) for r in rows) <= 6


def test_every_format_streams_the_same_rows(tmp_path):
    acls, reqs = _workload(tmp_path, requests=120)
    outs = {fmt: _invoke("simulate", acls, "--requests", reqs, "--format", fmt) for fmt in ("json", "jsonl", "csv")}
    assert all(o.exit_code == 0 for o in outs.values())
    as_json = json.loads(outs["json"].stdout)
    as_jsonl = [json.loads(line) for line in outs["jsonl"].stdout.splitlines()]
    as_csv = list(csv.DictReader(io.StringIO(outs["csv"].stdout)))
    assert as_json == as_jsonl and len(as_csv) == 120
    assert [r["decision"] for r in as_csv] == [r["decision"] for r in as_json]


def test_the_table_counts_what_it_does_not_show(tmp_path):
    acls, reqs = _workload(tmp_path, requests=260)
    res = _invoke("simulate", acls, "--requests", reqs)
    assert res.exit_code == 0
    text = " ".join(res.stdout.split())
    assert "60 more row(s) not shown" in text and "260 requests:" in text


def _peak_while_deciding(acls: Path, reqs: Path) -> int:
    result = run_simulation(SimulateOptions(acls=acls, requests=reqs))
    tracemalloc.start()
    try:
        for _row in result.rows:
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_number_of_requests(tmp_path, monkeypatch):
    # The memo of repeated requests is bounded too: small here so that both runs fill it.
    monkeypatch.setattr("kafka_authz_cli.services.simulate.MEMO_REQUESTS", 64)
    acls, reqs = _workload(tmp_path, requests=3000)
    few = tmp_path / "few.jsonl"
    few.write_text("".join(reqs.read_text().splitlines(keepends=True)[:300]))
    small, large = _peak_while_deciding(acls, few), _peak_while_deciding(acls, reqs)
    # Ten times the requests: the same peak, give or take the caches (plans, addresses) filling up.
    assert large < small * 1.5 + 512 * 1024, (small, large)


def test_a_bad_request_far_down_the_file_is_located(tmp_path):
    acls, reqs = _workload(tmp_path, requests=50)
    reqs.write_text(reqs.read_text() + '{"principal": "alice", "host": "1.2.3.4", "operation": "READ", '
                    '"resource_type": "TOPIC", "resource_name": "t"}\n')
    res = _invoke("simulate", acls, "--requests", reqs, "--format", "jsonl")
    assert res.exit_code == 2
    assert f"{reqs}:51" in res.stderr and len(res.stdout.splitlines()) == 50


def test_a_repeated_request_keeps_its_own_place_and_expectation(tmp_path):
    acls, _ = _workload(tmp_path)
    reqs = tmp_path / "twice.jsonl"
    one = {"principal": "User:test-user", "host": "127.0.0.1", "operation": "READ", "resource_type": "TOPIC",
           "resource_name": gen.PREFIX + "7"}
    reqs.write_text(json.dumps(one) + "\n" + json.dumps(dict(one, expect="DENIED")) + "\n")
    res = _invoke("simulate", acls, "--requests", reqs, "--format", "jsonl")
    first, second = (json.loads(line) for line in res.stdout.splitlines())
    assert res.exit_code == 1
    assert first["origin"].endswith(":1") and "expect" not in first
    assert second["origin"].endswith(":2") and second["expect"] == "DENIED" and second["ok"] is False
    assert {k: v for k, v in first.items() if k != "origin"} == {k: v for k, v in second.items()
                                                                 if k not in ("origin", "expect", "ok")}


def test_warning_kinds_keep_the_order_they_are_first_met_in(caplog):
    from kafka_authz_cli.acl import AclSet
    from kafka_authz_cli.acl.model import AclBinding
    from kafka_authz_cli.services.acl_sources import _warn_about

    def acl(name, host="*"):
        return AclBinding.of("TOPIC", name, "LITERAL", "User:a", host, "READ", "ALLOW")

    for acls, first in (([acl("t", "h"), acl("a"), acl("a")], "host"), ([acl("a"), acl("a"), acl("t", "h")], "dup")):
        caplog.clear()
        _warn_about(AclSet(acls, [f"f:{i}" for i in range(1, 4)], "f", "json"))
        lines = [r.getMessage() for r in caplog.records]
        assert len(lines) == 2
        dup = next(i for i, line in enumerate(lines) if "duplicate ACL" in line)
        assert dup == (0 if first == "dup" else 1), lines
        assert lines[dup] == ("f:3: duplicate ACL StandardAcl(resourceType=TOPIC, resourceName=a, patternType=LITERAL, "
                              "principal=User:a, host=*, operation=READ, permissionType=ALLOW) (Kafka stores it once)"
                              if first == "host" else lines[dup])


_NAMES = st.sampled_from(["a", "b", "", "kafka-cluster", "*"])
_HOSTS = st.sampled_from(["*", "10.0.0.1", "127.0.01", "::1", "h.example", "10.0.0.0/8"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(acls=st.lists(st.tuples(st.sampled_from(["TOPIC", "GROUP", "CLUSTER"]), _NAMES,
                               st.sampled_from(["User:a", "User:b", "nocolon"]), _HOSTS,
                               st.sampled_from(["READ", "WRITE", "ALTER", "CREATE"])), max_size=12))
def test_warnings_from_the_readers_groups_are_those_of_the_pass_over_every_acl(acls, caplog):
    from kafka_authz_cli.acl.formats import read_json, write_json
    from kafka_authz_cli.acl.model import AclBinding
    from kafka_authz_cli.services.acl_sources import _warn_about

    text = write_json(AclBinding.of(t, n, "LITERAL", p, h, o, "ALLOW") for t, n, p, h, o in acls)
    said = []
    for grouped in (True, False):
        acl_set = read_json(text, "f.json")
        assert (acl_set.groups is not None) == bool(acls)
        if not grouped:
            acl_set.groups = None
        caplog.clear()
        _warn_about(acl_set)
        said.append([r.getMessage() for r in caplog.records])
    assert said[0] == said[1]
