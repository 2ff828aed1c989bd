"""whatif from the command line: stdin, the index (runs merge, hours), outputs, progress, table size."""

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.services.whatif import read_logs_local
from tests.whatif.logs_strategy import SUFFIX

EXAMPLES = Path(__file__).parents[2] / "examples" / "whatif"
LOGS = EXAMPLES / "logs"
PROPOSED = str(EXAMPLES / "proposed.json")
runner = CliRunner()


def line(hour, principal, name, allowed=True, op="READ"):
    word = "Allowed" if allowed else "Denied"
    return (f"[2026-11-20 {hour:02d}:00:00,000] {'DEBUG' if allowed else 'INFO'} Principal = {principal} is {word} "
            f"operation = {op} from host = 10.0.0.1 on resource = Topic:LITERAL:{name} for request = Fetch with "
            f"resourceRefCount = 1 based on rule {'SuperUser' if allowed else 'DefaultDeny'}{SUFFIX}")


def whatif_json(*args, input=None):
    res = runner.invoke(app, ["whatif", *args, "--proposed", PROPOSED, "-f", "json"], input=input)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_stdin_is_read_like_a_file():
    log = LOGS / "kafka-authorizer.log"
    from_file = whatif_json("--logs", str(log))
    from_stdin = whatif_json("--logs", "-", input=log.read_bytes())
    assert from_stdin == from_file and from_file["lines"]["total"] > 0


def test_progress_counts_bytes_not_files(tmp_path):
    big = tmp_path / "kafka-authorizer.log"
    big.write_text("\n".join(line(10, "User:a", f"t{i}") for i in range(60000)) + "\n")
    seen = []
    read = read_logs_local([str(big), str(LOGS / "kafka-authorizer.log")], {}, seen.append)
    assert sum(1 for _ in read.decisions) == read.stats.decisions
    assert sum(seen) == big.stat().st_size + (LOGS / "kafka-authorizer.log").stat().st_size
    assert len([n for n in seen if n]) > 2  # a big file advances in chunks, not once per file


def test_table_says_top_30_of_n_and_how_to_get_all(tmp_path):
    log = tmp_path / "kafka-authorizer.log"
    log.write_text("\n".join(line(10, f"User:svc{i}", "orders") for i in range(35)) + "\n")
    acls = tmp_path / "none.json"
    acls.write_text('{"version": 1, "acls": []}')
    res = runner.invoke(app, ["whatif", "--logs", str(log), "--proposed", str(acls)])
    assert res.exit_code == 0, res.output
    assert "top 30 of 35" in res.output and "--format json" in res.output


def test_out_parquet_times_are_timestamps_and_out_is_written_atomically(tmp_path, monkeypatch):
    out = tmp_path / "out"
    res = runner.invoke(app, ["whatif", "--logs", str(LOGS), "--proposed", PROPOSED, "--out", str(out)])
    assert res.exit_code == 0, res.output
    table = pq.read_table(out / "newly_denied.parquet")
    assert pa.types.is_timestamp(table.schema.field("first_seen").type)
    assert pa.types.is_timestamp(table.schema.field("last_seen").type)
    assert table.column("first_seen")[0].as_py().year == 2026
    # a failure half-way leaves the previous output as it was, and no half-written directory
    from kafka_authz_cli.whatif import report_files as whatif_out

    def boom(*a):
        raise OSError("disk full")
    monkeypatch.setattr(whatif_out, "_write_files", boom)
    before = sorted(p.name for p in out.iterdir())
    res = runner.invoke(app, ["whatif", "--logs", str(LOGS), "--proposed", PROPOSED, "--out", str(out)])
    assert res.exit_code != 0
    assert sorted(p.name for p in out.iterdir()) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    fresh = tmp_path / "fresh"
    res = runner.invoke(app, ["whatif", "--logs", str(LOGS), "--proposed", PROPOSED, "--out", str(fresh)])
    assert res.exit_code != 0 and not fresh.exists()
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    monkeypatch.undo()
    res = runner.invoke(app, ["whatif", "--logs", str(LOGS), "--proposed", PROPOSED, "--out", str(other)])
    assert res.exit_code == 2 and "not an authz whatif output" in res.output


def test_index_runs_merge_hours_filter_and_files_are_never_counted_twice(tmp_path):
    day1, day2 = tmp_path / "d1", tmp_path / "d2"
    day1.mkdir(), day2.mkdir()
    (day1 / "kafka-authorizer.log.2026-11-20-10").write_text(
        "\n".join([line(10, "User:analytics", "orders-audit")] * 3 + [line(10, "User:bob", "orders-eu", False)]) + "\n")
    (day2 / "kafka-authorizer.log.2026-11-20-11").write_text(
        "\n".join([line(11, "User:analytics", "orders-audit")] * 2 + ["garbage"]) + "\n")
    index = tmp_path / "index"
    for d in (day1, day2):
        res = runner.invoke(app, ["whatif", "index", "--logs", str(d), "-o", str(index)])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["whatif", "index", "--logs", str(day1), "-o", str(index)])
    assert res.exit_code == 2 and "already in this index" in res.output
    both = whatif_json("--logs", str(day1), "--logs", str(day2))
    assert whatif_json("--index", str(index)) == both
    only_11 = whatif_json("--index", str(index), "--since", "2026-11-20T11", "--until", "2026-11-21")
    assert only_11["newly_denied"] == whatif_json("--logs", str(day2))["newly_denied"]
    assert only_11["newly_denied"][0]["count"] == 2
    res = runner.invoke(app, ["whatif", "--index", str(index), "--proposed", PROPOSED, "--since", "2026-11-20T11:30"])
    assert res.exit_code == 2 and "hour" in res.output
    manifest = json.loads((index / "manifest.json").read_text())
    assert len(manifest["runs"]) == 2 and manifest["runs"][1]["stats"]["quarantined_lines"] == 1
    table = pq.read_table(index / "requests")
    assert pa.types.is_timestamp(table.schema.field("hour").type)


def test_a_damaged_index_is_refused_not_answered_from(tmp_path):
    """A missing, cut or stray Parquet file in an index changed the answers without a word (a deleted
    file: fewer requests), and a corrupt one was an ArrowInvalid traceback."""
    import shutil

    index = tmp_path / "index"
    assert runner.invoke(app, ["whatif", "index", "--logs", str(LOGS), "-o", str(index)]).exit_code == 0
    good = whatif_json("--index", str(index))
    run = json.loads((index / "manifest.json").read_text())["runs"][0]
    part = index / run["parts"][-1]["path"]
    kept = part.read_bytes()

    def refused(says):
        res = runner.invoke(app, ["whatif", "--index", str(index), "--proposed", PROPOSED])
        assert res.exit_code == 2 and says in res.output and "Traceback" not in res.output, res.output

    part.write_bytes(kept[:100])
    refused("has 100 bytes")
    part.unlink()
    refused("is missing")
    part.write_bytes(kept)
    shutil.copy(part, part.with_name("part-copy.parquet"))
    refused("part-copy.parquet is not a file run")
    part.with_name("part-copy.parquet").unlink()
    part.write_bytes(kept[:-12] + b"\xff\xff\xff\x7f" + kept[-8:])  # same size, a footer nobody can read
    refused("unreadable index data")
    part.write_bytes(kept)
    assert whatif_json("--index", str(index)) == good
    quarantine = index / "quarantine" / f"{run['id']}.jsonl"
    assert run["parts"][0]["path"] == f"quarantine/{run['id']}.jsonl" and quarantine.stat().st_size > 0
    set_aside = quarantine.read_bytes()
    quarantine.write_bytes(b"")  # what was set aside must not vanish either
    refused("has 0 bytes")
    quarantine.write_bytes(set_aside)
    assert whatif_json("--index", str(index)) == good
    manifest = json.loads((index / "manifest.json").read_text())
    manifest["runs"][0]["parts"] = [{"path": 3}]
    (index / "manifest.json").write_text(json.dumps(manifest))
    refused("malformed index manifest")
    # an index written before runs listed their files is read as it is
    del manifest["runs"][0]["parts"]
    (index / "manifest.json").write_text(json.dumps(manifest))
    assert whatif_json("--index", str(index)) == good

def test_index_and_logs_are_exclusive_and_a_non_index_is_refused(tmp_path):
    res = runner.invoke(app, ["whatif", "--logs", str(LOGS), "--index", str(tmp_path), "--proposed", PROPOSED])
    assert res.exit_code == 2 and "either --logs" in res.output
    res = runner.invoke(app, ["whatif", "--index", str(tmp_path), "--proposed", PROPOSED])
    assert res.exit_code == 2 and "not an authz whatif index" in res.output



def test_outputs_that_cannot_be_written_are_refused_before_the_replay(tmp_path):
    """--report into a missing directory was a FileNotFoundError traceback, after the whole replay."""
    out, report = tmp_path / "out", tmp_path / "r.html"
    cases = [(["--out", str(out), "--report", str(tmp_path / "no" / "r.html")], "no such directory"),
             (["--out", str(out), "--report", str(tmp_path)], "is a directory"),
             (["--out", PROPOSED, "--report", str(report)], "not an authz whatif output directory")]
    for args, says in cases:
        res = runner.invoke(app, ["whatif", "--logs", str(LOGS), "--proposed", PROPOSED, *args])
        assert res.exit_code == 2 and says in res.output and "Traceback" not in res.output, res.output
        assert not out.exists() and not report.exists()
    res = runner.invoke(app, ["whatif", "--logs", str(LOGS), "--proposed", PROPOSED, "--report", str(report)])
    assert res.exit_code == 0 and "<h1>authz whatif: " in report.read_text(encoding="utf-8")

@pytest.mark.parametrize("runs, says", [
    ("x", "'runs' is not a list"),
    ([{"files": []}], "run 1 has no id"),
    ([{"id": "r1"}], "'files' is not a list"),
    ([{"id": "r1", "files": [{"path": "a"}]}], "'files' is not a list"),
    ([{"id": "r1", "files": []}], "'stats' is not line accounting"),
    ([{"id": "r1", "files": [], "stats": {"lines": "z"}}], "'stats' is not line accounting"),
])
def test_a_malformed_manifest_is_one_line_for_readers_and_writers(tmp_path, runs, says):
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "authz-whatif-index", "version": 1, "runs": runs}))
    for cmd in (["whatif", "--index", str(tmp_path), "--proposed", PROPOSED],
                ["whatif", "index", "--logs", str(LOGS), "-o", str(tmp_path)]):
        res = runner.invoke(app, cmd)
        assert res.exit_code == 2 and "malformed index manifest" in res.output and says in res.output, res.output
    assert not (tmp_path / "requests").exists()

@pytest.mark.parametrize("size", ["-5", "0", "65535"])
def test_a_split_size_spark_would_misread_is_refused(tmp_path, size):
    """Spark took --partition-bytes -5 without complaint and read 45 of the example's 130 lines; 0 silently
    meant the default."""
    for cmd in (["whatif", "--spark", "--logs", str(LOGS), "--proposed", PROPOSED],
                ["whatif", "index", "--spark", "--logs", str(LOGS), "-o", str(tmp_path / "ix")]):
        res = runner.invoke(app, [*cmd, "--partition-bytes", size])
        assert res.exit_code == 2 and "--partition-bytes" in res.output and "65536" in res.output, res.output
    assert not (tmp_path / "ix").exists()


def test_the_job_refuses_a_split_size_that_is_not_positive():
    from kafka_authz_cli.whatif import spark as spark_job
    with pytest.raises(ValueError, match="positive"):
        spark_job.read_logs(None, [str(LOGS)], progress=object(), partition_bytes=-5)

@pytest.mark.spark
def test_spark_index_equals_in_process_index(spark, tmp_path):
    from kafka_authz_cli.whatif import spark as spark_job
    from kafka_authz_cli.whatif.auditlog import expand_paths

    files = expand_paths([str(LOGS)])
    staged = tmp_path / "staged"
    read = spark_job.index_logs(spark, files, str(staged), partition_bytes=4096)
    stats, quarantine = read.stats, read.quarantine
    local_index = tmp_path / "local"
    assert runner.invoke(app, ["whatif", "index", "--logs", str(LOGS), "-o", str(local_index)]).exit_code == 0
    manifest = json.loads((local_index / "manifest.json").read_text())
    assert stats.as_dict() == manifest["runs"][0]["stats"]
    cols = ["principal", "host", "operation", "resource_type", "resource_name", "hour_text", "count", "visible",
            "allowed", "denied", "first_seen_text", "last_seen_text", "rule_at", "rule", "first_seen"]

    def rows(root):
        t = pq.read_table(root, columns=cols)
        return sorted(tuple(map(str, r.values())) for r in t.to_pylist())
    assert rows(staged) == rows(local_index / "requests")
    # committed, the Spark run lists every file it wrote (one or more per day) and its quarantine, and checks
    from kafka_authz_cli.whatif.parquet_index import commit_run, fingerprint, open_index
    written = sorted(staged.rglob("*.parquet"))
    ix = open_index(tmp_path / "spark-index", create=True)
    commit_run(ix, "r1", staged, [fingerprint(f) for f in files], stats, quarantine)
    parts = [p["path"] for p in ix.runs[0]["parts"]]
    assert parts[0] == "quarantine/r1.jsonl" and len(parts[1:]) == len(written) >= 2
    assert all(p.startswith("requests/day=") and "/run=r1/" in p for p in parts[1:])
    open_index(ix.root).check()


def _carol(ts, req, rule, level="DEBUG"):
    head = f"[{ts}] {level} " if ts else f"{level} "
    return (head + f"Principal = User:carol is Allowed operation = READ from host = 10.0.0.7 on resource = "
            f"Topic:LITERAL:orders-audit for request = {req} with resourceRefCount = 1 based on rule {rule}{SUFFIX}")


@pytest.mark.spark
def test_spark_answers_from_an_index_as_the_in_process_path_does(spark, tmp_path):
    # Two runs share a request and an hour; the latest rule of that hour is in the second run, at the
    # same instant written with a '.' (later text). Deciding on the executors and on the driver.
    from dataclasses import asdict

    from kafka_authz_cli.acl.formats import load_acls
    from kafka_authz_cli.services.whatif import replay_index_local
    from kafka_authz_cli.whatif import spark as spark_job
    from kafka_authz_cli.whatif.parquet_index import open_index

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "kafka-authorizer.log.1").write_text("\n".join([
        _carol("2026-11-20 10:00:01,000", "Fetch", "DefaultAllow"),
        _carol("2026-11-20 10:00:05.500", "ListOffsets", "SuperUser"),
        _carol("2026-11-20 11:00:02,000", "Fetch", "DefaultAllow", "TRACE"),
        _carol(None, "Fetch", "DefaultDeny", "INFO"),
        line(12, "User:analytics", "orders-audit")]) + "\n")
    (b / "kafka-authorizer.log.2").write_text("\n".join([
        _carol("2026-11-20 10:00:03,000", "Metadata", "DefaultDeny"),
        _carol("2026-11-20 10:00:05,500", "Fetch", "DefaultAllow"),
        line(10, "User:bob", "orders-eu", False)]) + "\n")
    both, single = tmp_path / "both", tmp_path / "single"
    for index, dirs in ((both, (a, b)), (single, (a,))):
        for d in dirs:
            res = runner.invoke(app, ["whatif", "index", "--logs", str(d), "-o", str(index)])
            assert res.exit_code == 0, res.output
    acls = load_acls(PROPOSED)
    config = BrokerSettings()
    for index, since, until in ((both, None, None), (both, "2026-11-20 11", None), (both, None, "2026-11-20 11"),
                                (single, None, None),
                                (single, None, "2026-11-20 12")):
        ix = open_index(index)
        done = replay_index_local([ix], since, until, acls, None, config)
        local = (done.report, done.untimed)
        for decide_on in ("executors", "driver"):
            on_spark = spark_job.report_from_index(spark, [(str(ix.root), [r["id"] for r in ix.runs])], since, until,
                                                   (acls, config), None, decide_on=decide_on)
            assert asdict(on_spark.report) == asdict(local[0]) and on_spark.untimed == local[1], (index.name, since,
                                                                                                until)
    done = spark_job.report_from_index(spark, [(str(both), [r["id"] for r in open_index(both).runs])],
                                       None, None, (acls, config), None)
    report, untimed = done.report, done.untimed
    carol = [c for c in report.newly_denied if c.principal == "User:carol"]
    assert [(c.count, c.first_seen, c.last_seen, c.before_rule) for c in carol] == \
        [(6, "2026-11-20 10:00:01,000", "2026-11-20 11:00:02,000", "DefaultAllow")] and untimed == 0
    done = spark_job.report_from_index(spark, [(str(both), [r["id"] for r in open_index(both).runs])],
                                       None, "2026-11-20 11", (acls, config), None)
    report, untimed = done.report, done.untimed
    carol = [c for c in report.newly_denied if c.principal == "User:carol"]
    assert [(c.count, c.last_seen, c.before_rule) for c in carol] == [(4, "2026-11-20 10:00:05.500", "SuperUser")]
    assert untimed == 1
