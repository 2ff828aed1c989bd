"""`whatif index --append` (issue 23): a nightly job adds only what is new, recognising files already
indexed by content (also renamed or gzipped since) and indexing a grown file from where it was left;
`--drop-before` keeps a retention window. The answers equal those of indexing everything once."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from tests.whatif.logs_strategy import SUFFIX

runner = CliRunner()
PROPOSED = Path(__file__).parents[2] / "examples" / "whatif" / "proposed.json"


def _lines(day: int, n: int, start: int = 0) -> str:
    return "".join(
        f"[2026-11-{day:02d} {h % 24:02d}:00:00,000] DEBUG Principal = User:u{h % 7} is Allowed operation = READ "
        f"from host = 10.0.0.{h % 3} on resource = Topic:LITERAL:t{h % 11} for request = Fetch with "
        f"resourceRefCount = 1 based on rule SuperUser{SUFFIX}\n" for h in range(start, start + n))


def _index(*args):
    result = runner.invoke(app, ["whatif", "index", *args, "-f", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _answer(ix: Path) -> dict:
    result = runner.invoke(app, ["whatif", "--index", str(ix), "--proposed", str(PROPOSED), "-f", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    return {k: doc[k] for k in ("distinct_requests", "newly_denied", "newly_allowed", "logged_allowed", "timeline")}


def test_a_nightly_append_reads_only_the_new_files_and_bytes(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "kafka-authorizer.log").write_text(_lines(20, 50))
    ix = tmp_path / "ix"
    first = _index("--logs", str(logs), "-o", str(ix), "--append")
    assert first["this_run"]["decisions"] == 50 and first["skipped"] == []
    # the night after: log4j renamed yesterday's file and gzipped it; the active file holds today's lines
    rotated = logs / "kafka-authorizer.log.2026-11-20"
    with open(logs / "kafka-authorizer.log", "rb") as src, gzip.open(str(rotated) + ".gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    (logs / "kafka-authorizer.log").write_text(_lines(21, 30))
    second = _index("--logs", str(logs), "-o", str(ix), "--append")
    assert second["this_run"]["decisions"] == 30
    assert len(second["skipped"]) == 1 and "renamed or compressed since" in second["skipped"][0]
    # the active file grows during the day: only its new lines are read
    with open(logs / "kafka-authorizer.log", "a") as fh:
        fh.write(_lines(21, 12, start=30))
    third = _index("--logs", str(logs), "-o", str(ix), "--append")
    assert third["this_run"]["decisions"] == 12
    # and once more with nothing new: no run
    fourth = _index("--logs", str(logs), "-o", str(ix), "--append")
    assert fourth["run"] is None and len(fourth["skipped"]) == 2
    # the answers are those of one index of everything, read once
    once = tmp_path / "once.log"
    once.write_text(_lines(20, 50) + _lines(21, 30) + _lines(21, 12, start=30))
    whole = tmp_path / "whole"
    _index("--logs", str(once), "-o", str(whole))
    assert _answer(ix) == _answer(whole)
    assert _index("--logs", str(logs), "-o", str(ix), "--append")["index_total"]["decisions"] == 92


def test_without_append_a_file_already_indexed_is_still_refused(tmp_path):
    log = tmp_path / "a.log"
    log.write_text(_lines(20, 5))
    _index("--logs", str(log), "-o", str(tmp_path / "ix"))
    again = runner.invoke(app, ["whatif", "index", "--logs", str(log), "-o", str(tmp_path / "ix")])
    assert again.exit_code == 2 and "already in this index" in again.stderr


def test_drop_before_removes_old_days_and_the_index_stays_sound(tmp_path):
    log = tmp_path / "a.log"
    log.write_text(_lines(18, 10) + _lines(19, 10) + _lines(20, 10))
    ix = tmp_path / "ix"
    _index("--logs", str(log), "-o", str(ix))
    result = runner.invoke(app, ["whatif", "index", "-o", str(ix), "--drop-before", "2026-11-20"])
    assert result.exit_code == 0, result.output
    assert "2 day(s) before 2026-11-20 removed" in " ".join(result.stdout.split())
    assert sorted(p.name for p in (ix / "requests").iterdir()) == ["day=2026-11-20"]
    answer = _answer(ix)
    assert answer["logged_allowed"] == 10 and set(answer["timeline"]) <= {f"2026-11-20 {h:02d}" for h in range(24)} | \
        {f"2026-11-20T{h:02d}" for h in range(24)}
    bad = runner.invoke(app, ["whatif", "index", "-o", str(ix), "--drop-before", "20-11-2026"])
    assert bad.exit_code == 2 and "expected a date YYYY-MM-DD" in bad.stderr


def test_a_file_over_a_mib_indexed_without_append_is_recognised_when_it_grows(tmp_path):
    log = tmp_path / "kafka-authorizer.log"
    log.write_text(_lines(20, 8000))  # about 1.9 MB: recognised by the hash of its first MiB
    assert log.stat().st_size > 1 << 20
    ix = tmp_path / "ix"
    assert _index("--logs", str(log), "-o", str(ix))["this_run"]["decisions"] == 8000
    with open(log, "a") as fh:
        fh.write(_lines(21, 500))
    grown = _index("--logs", str(log), "-o", str(ix), "--append")
    assert grown["this_run"]["decisions"] == 500 and grown["index_total"]["decisions"] == 8500
