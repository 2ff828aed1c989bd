"""Incremental answers from an index (issue 23): a proposal re-decides only the requests its changed ACLs
can touch, against a stored baseline, and the answer is byte for byte the one a full evaluation gives;
a full evaluation in slices of bounded size gives the answer of deciding the whole index at once."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.acl import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    BrokerSettings,
    PatternType,
    ResourceType,
    StandardAuthorizer,
)
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.whatif import ReadStats, incremental, report_dict
from kafka_authz_cli.whatif.parquet_index import (
    aggregates_from_table,
    commit_run,
    fill_hours,
    new_run_id,
    open_index,
    read_hourly_local,
    staging_dir,
    write_hourly_local,
)
from kafka_authz_cli.whatif.replay import Aggregate, Summary, build_report, classify, decide
from tests.whatif.logs_strategy import prefix_granted_reads

runner = CliRunner()
NAMES = ["orders", "orders-eu", "orders-eu-1", "orders.x", "pay", "pay-1", "p", "*", "*x", "a!b", "team1.a",
         "team1.b", "team1.ü", "team10.c", "ünï", "z" * 40]
PRINCIPALS = ["User:alice", "User:bob", "User:svc7", "Group:ops", "User:*", "bad-principal"]
HOSTS = ["10.0.0.1", "10.0.0.2", "*", "::1"]
TYPES = ["TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "Topic"]
OPS = ["READ", "WRITE", "DESCRIBE", "ALL", "ALTER_CONFIGS", "DESCRIBE_CONFIGS", "READS"]
HOURS = ["2026-11-20 10", "2026-11-20 11", "2026-11-21 09", "2026-11-22 23", None]

keys = st.tuples(st.sampled_from(PRINCIPALS[:4] + ["User:carol"]), st.sampled_from(["10.0.0.1", "10.0.0.2", "::1"]),
                 st.sampled_from(OPS), st.sampled_from(TYPES), st.sampled_from(NAMES))


@st.composite
def rows(draw) -> list[tuple]:
    """(request, hour, allowed, denied, rule) rows of one indexing run."""
    out = []
    for key in draw(st.lists(keys, min_size=1, max_size=25)):
        for hour in draw(st.lists(st.sampled_from(HOURS), min_size=1, max_size=3, unique=True)):
            allowed, denied = draw(st.sampled_from([(3, 0), (0, 2), (1, 1), (5, 0)]))
            out.append((key, hour, allowed, denied, draw(st.sampled_from([None, "DefaultDeny", "SuperUser"]))))
    return out


acl_names = st.sampled_from(NAMES + ["orders-", "team1.", "team", "", "!a"])
bindings = st.builds(AclBinding, st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER]),
                     acl_names, st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
                     st.sampled_from(PRINCIPALS), st.sampled_from(HOSTS),
                     st.sampled_from([AclOperation.READ, AclOperation.WRITE, AclOperation.ALL, AclOperation.DESCRIBE,
                                      AclOperation.ALTER_CONFIGS]),
                     st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.ALLOW, AclPermissionType.DENY]))


def _build(root: Path, runs: list[list[tuple]]):
    ix = open_index(root, create=True)
    for run in runs:
        hourly: dict = {}
        for key, hour, allowed, denied, rule in run:
            agg = hourly.setdefault((key, hour), Aggregate())
            stamp = f"{hour}:15:00,000" if hour else None
            agg.count += allowed + denied
            agg.visible += allowed + denied
            agg.allowed += allowed
            agg.denied += denied
            agg.first_seen = min(filter(None, [agg.first_seen, stamp]), default=None)
            agg.last_seen = max(filter(None, [agg.last_seen, stamp]), default=None)
            if rule is not None and (agg.rule is None or (stamp or "", rule) > (agg.rule_at, agg.rule)):
                agg.rule, agg.rule_at = rule, stamp or ""
        run_id = new_run_id() + f"{len(ix.runs)}"
        staged = staging_dir(ix, run_id)
        write_hourly_local(staged, hourly)
        commit_run(ix, run_id, staged, [], ReadStats(), [])
    return open_index(root)


def _whole(ix, since, until, proposed_acls, current_acls, config):
    """The answer of deciding the whole window at once (the path before slices and baselines)."""
    table = read_hourly_local([ix], since, until)
    aggs = aggregates_from_table(table)
    after = decide(aggs, StandardAuthorizer(proposed_acls, config))
    before = decide(aggs, StandardAuthorizer(current_acls, config)) if current_acls is not None else None
    changed = [k for k, a in aggs.items() if classify(a, after[k], before[k] if before else None)[0] is not None]
    fill_hours(table, aggs, changed)
    return build_report(aggs, after, proposed_acls, before)


def _answer(ix, since, until, proposed_acls, current_acls, config, cache, full=False, rows=None):
    proposed = StandardAuthorizer(proposed_acls, config)
    current = StandardAuthorizer(current_acls, config) if current_acls is not None else None
    return incremental.answer_from_index([ix], since, until, proposed, current, full=full, cache_dir=cache)


def _json(report) -> str:
    return json.dumps(report_dict(report, ReadStats()), indent=2, sort_keys=False)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(runs=st.lists(rows(), min_size=1, max_size=2), current=st.lists(bindings, max_size=12),
       removed=st.lists(st.integers(0, 11), max_size=4), added=st.lists(bindings, max_size=5),
       super_users=st.sampled_from(["", "User:bob", "User:alice;User:svc7"]), allow_everyone=st.booleans(),
       window=st.sampled_from([(None, None), ("2026-11-20 11", None), (None, "2026-11-22 00")]),
       slice_rows=st.sampled_from([1, 3, 10_000]), in_memory=st.sampled_from([0, 2_000_000]))
def test_incremental_answers_are_byte_identical_to_full_ones(tmp_path_factory, monkeypatch, runs, current, removed,
                                                             added, super_users, allow_everyone, window, slice_rows,
                                                             in_memory):
    # Random proposals (adds, removes, DENYs, prefixed, the LITERAL '*', User:*, malformed principals, names
    # below '*' and empty ones that force a full pass) under random settings, against random two-run indexes.
    tmp = tmp_path_factory.mktemp("ix")
    ix = _build(tmp / "index", runs)
    monkeypatch.setattr(incremental, "SLICE_ROWS", slice_rows)
    # baseline rows streamed to the file in resource order only, or kept and sorted by principal too
    monkeypatch.setattr(incremental.BaselineWriter, "IN_MEMORY_ROWS", in_memory)
    gone = {current[i] for i in removed if i < len(current)}
    proposed = [b for b in current if b not in gone] + added
    config = BrokerSettings(super_users=super_users, allow_everyone_if_no_acl_found=allow_everyone)
    since, until = window
    cache = tmp / "cache"
    full = _answer(ix, since, until, proposed, current, config, cache, full=True)
    assert full.mode == "full"
    whole = _whole(ix, since, until, proposed, current, config)
    first = _answer(ix, since, until, proposed, current, config, cache)  # computes and keeps the baseline
    again = _answer(ix, since, until, proposed, current, config, cache)  # answers from it
    assert _json(full.report) == _json(whole)
    assert _json(first.report) == _json(whole) and _json(again.report) == _json(whole)
    assert full.untimed == first.untimed == again.untimed
    needs_full = any(b.resource_name == "" or (b.resource_name[0] < "*") for b in current + added)
    if not needs_full:
        assert again.mode == "incremental", again.note
    # without --current, the logged decisions are the baseline: always a full pass, the same answer
    logged = _answer(ix, since, until, proposed, None, config, cache)
    assert logged.mode == "full" and _json(logged.report) == _json(_whole(ix, since, until, proposed, None, config))


def _index_of(tmp_path: Path, runs) -> Path:
    _build(tmp_path / "index", runs)
    return tmp_path / "index"


def test_a_proposal_reads_only_the_row_groups_of_the_resources_it_changes(tmp_path, monkeypatch):
    # 60,000 requests on 3,000 topics: a proposal adding a DENY on a prefix for one principal re-decides
    # that principal's one request under the prefix, read from one row group of the baseline's rows.
    monkeypatch.setattr(incremental.BaselineWriter, "ROW_GROUP_ROWS", 1000)
    run = [((f"User:u{i}", "10.0.0.1", "READ", "TOPIC", f"team{t}.t{i % 20}"), "2026-11-20 10", 1, 0, None)
           for t in range(150) for i in range(400)]
    ix = _build(tmp_path / "index", [run])
    grant = AclBinding(ResourceType.TOPIC, "team", PatternType.PREFIXED, "User:*", "*", AclOperation.READ,
                       AclPermissionType.ALLOW)
    narrow = AclBinding(ResourceType.TOPIC, "team7.", PatternType.PREFIXED, "User:u3", "*", AclOperation.READ,
                        AclPermissionType.DENY)
    config = BrokerSettings()
    cache = tmp_path / "cache"
    first = _answer(ix, None, None, [grant, narrow], [grant], config, cache)
    assert first.mode == "full" and "60,000 distinct requests" in first.note
    reads = Counter()
    real_read = incremental.IndexScan.read

    def counting(self, where=None, columns=None, window=True):
        t = real_read(self, where, columns, window)
        reads["rows"] += t.num_rows
        return t

    monkeypatch.setattr(incremental.IndexScan, "read", counting)
    real_mask = incremental.Touched.mask

    def counting_mask(self, table):  # the rows of the row groups read
        reads["scanned"] += table.num_rows
        return real_mask(self, table)

    monkeypatch.setattr(incremental.Touched, "mask", counting_mask)
    again = _answer(ix, None, None, [grant, narrow], [grant], config, cache)
    assert again.mode == "incremental"
    assert again.note.startswith("incremental: 1 of 60,000 distinct requests re-decided")
    # the index is not read at all: the touched request comes from the baseline's rows, of which only the
    # row groups holding team7. names (400 rows: at most two groups of 1,000) are read
    assert reads["rows"] == 0 and reads["scanned"] <= 2 * 1000
    assert [(c.principal, c.resource_name) for c in again.report.newly_denied] == [("User:u3", "team7.t3")]
    assert again.report.distinct_requests == 60_000


def test_slices_keep_memory_bounded_and_the_answer_whole(tmp_path, monkeypatch):
    monkeypatch.setattr("kafka_authz_cli.whatif.parquet_index.ROW_GROUP_ROWS", 100)
    run = [((f"User:u{i % 7}", "10.0.0.1", "WRITE", "TOPIC", f"t{t:04d}"), h, 1, 0, None)
           for t in range(300) for i in range(5) for h in ("2026-11-20 10", "2026-11-21 10")]
    ix = _build(tmp_path / "index", [run, run[:500]])
    scan = incremental.IndexScan([ix], None, None)
    slices = scan.slices(400)
    assert len(slices) >= 6
    sizes = [scan.read(w).num_rows for w in slices]
    assert sum(sizes) == 3500 and max(sizes) <= 400 + 2 * 100  # a row group crossing a cut is read by both
    config = BrokerSettings()
    monkeypatch.setattr(incremental, "SLICE_ROWS", 400)
    done = _answer(ix, None, None, [], None, config, None)
    assert _json(done.report) == _json(_whole(ix, None, None, [], None, config))


def test_a_stale_or_damaged_baseline_is_never_used(tmp_path):
    run = [(("User:alice", "10.0.0.1", "READ", "TOPIC", "orders"), "2026-11-20 10", 2, 0, None)]
    root = _index_of(tmp_path, [run])
    ix = open_index(root)
    grant = AclBinding(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice", "*", AclOperation.READ,
                       AclPermissionType.ALLOW)
    config = BrokerSettings()
    cache = tmp_path / "cache"
    assert _answer(ix, None, None, [], [grant], config, cache).mode == "full"
    [stored] = list(cache.glob("*.json"))
    rows, by_principal = stored.with_suffix(".parquet"), stored.with_suffix(".by-principal.parquet")
    assert all(f.stat().st_mode & 0o777 == 0o600 for f in (stored, rows, by_principal))
    assert _answer(ix, None, None, [], [grant], config, cache).mode == "incremental"
    by_principal.write_bytes(by_principal.read_bytes()[:50])  # its rows damaged: computed again, stored again
    assert _answer(ix, None, None, [], [grant], config, cache).mode == "full"
    assert _answer(ix, None, None, [], [grant], config, cache).mode == "incremental"
    everyone = AclBinding(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:*", "*", AclOperation.READ,
                          AclPermissionType.DENY)  # read from the rows in resource order
    rows.write_bytes(rows.read_bytes()[:50])
    assert _answer(ix, None, None, [grant, everyone], [grant], config, cache).mode == "full"
    assert _answer(ix, None, None, [grant, everyone], [grant], config, cache).mode == "incremental"
    rows.unlink()
    assert _answer(ix, None, None, [], [grant], config, cache).mode == "full"
    stored.write_text("{not json")
    assert _answer(ix, None, None, [], [grant], config, cache).mode == "full"
    # another current set, other settings, another window, a new run: another baseline
    assert _answer(ix, None, None, [], [grant], replace(config, super_users="User:bob"), cache).mode == "full"
    assert _answer(ix, "2026-11-20 10", None, [], [grant], config, cache).mode == "full"
    _build(root, [run])
    assert _answer(open_index(root), None, None, [], [grant], config, cache).mode == "full"


def test_whatif_full_flag_and_note(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTHZ_CACHE_DIR", str(tmp_path / "cache"))
    log = tmp_path / "kafka-authorizer.log"
    log.write_text(prefix_granted_reads(5, users=5, topics=5))
    assert runner.invoke(app, ["whatif", "index", "--logs", str(log), "-o", str(tmp_path / "ix")]).exit_code == 0
    def acls(n: int) -> str:
        return json.dumps({"version": 1, "acls": [
            {"resource_type": "TOPIC", "resource_name": "orders-", "pattern_type": "PREFIXED", "principal": f"User:u{i}",
             "host": "*", "operation": "READ", "permission": "ALLOW"} for i in range(n)]})

    current, proposed = tmp_path / "current.json", tmp_path / "proposed.json"
    current.write_text(acls(5))
    proposed.write_text(acls(4))
    args = ["whatif", "--index", str(tmp_path / "ix"), "--current", str(current), "--proposed", str(proposed),
            "-f", "json"]
    outs = []
    for extra in ([], [], ["--full"]):
        res = runner.invoke(app, args + extra)
        assert res.exit_code == 0, res.output
        outs.append(res)
    assert "note: full:" in outs[0].stderr and "note: incremental: 1 of 5" in outs[1].stderr
    assert "note: full:" in outs[2].stderr and "(--full)" in outs[2].stderr
    assert outs[0].stdout == outs[1].stdout == outs[2].stdout
    assert [c["principal"] for c in json.loads(outs[1].stdout)["newly_denied"]] == ["User:u4"]


@pytest.mark.parametrize("name, expect", [("team1.", ["team1.a", "team1.b", "team1.ü"]), ("ü", ["ünï"]), ("*", None)])
def test_prefix_ranges_are_exactly_the_names_starting_with_the_prefix(tmp_path, name, expect):
    run = [(("User:alice", "10.0.0.1", "READ", "TOPIC", n), "2026-11-20 10", 1, 0, None) for n in NAMES]
    ix = _build(tmp_path / "index", [run])
    b = AclBinding(ResourceType.TOPIC, name, PatternType.PREFIXED, "User:alice", "*", AclOperation.READ,
                   AclPermissionType.ALLOW)
    touched, _, why = incremental.touched_requests(StandardAuthorizer([]), StandardAuthorizer([b]))
    assert why is None
    whole = incremental.Baseline(Summary(), {}, 0, 0, incremental.rollup(incremental.IndexScan([ix], None, None).read()))
    got = sorted(whole.touched_rows(touched)["resource_name"].to_pylist())
    assert got == sorted(n for n in NAMES if n.startswith(name)) and (expect is None or got == expect)
