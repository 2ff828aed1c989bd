"""A file that is no log, found in a `--logs` directory or by a glob beside the real logs, is skipped with
one counted warning naming it, and the run goes on with the logs: in-process, into an index (and in the
answers from it), with --spark, and for `access unused` and `generate`. Named itself, it is refused."""

import json
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.services import whatif as whatif_service
from kafka_authz_cli.whatif import spark as spark_job
from kafka_authz_cli.whatif.sniffing import EXPECTED, SKIPPED_NAMED

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "whatif"
LOGS = EXAMPLES / "logs"
PROPOSED = str(EXAMPLES / "proposed.json")
CURRENT = str(EXAMPLES / "current.json")
runner = CliRunner()


@pytest.fixture
def logs_with_strays(tmp_path):
    """The example logs, with a README and an ACL file among them (a subdirectory holds a log too)."""
    d = tmp_path / "logs"
    shutil.copytree(LOGS, d)
    shutil.copy(ROOT / "README.md", d / "NOTES.md")
    shutil.copy(ROOT / "examples" / "acls" / "cluster.json", d / "zk" / "acls-backup.json")
    return d


def whatif(*args):
    return runner.invoke(app, ["whatif", *args, "--proposed", PROPOSED, "--current", CURRENT])


def skip_warnings(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if "skipped" in ln and "no log" in ln]


def test_stray_files_in_a_directory_are_skipped_and_the_answer_is_the_logs_alone(logs_with_strays, tmp_path):
    clean = whatif("--logs", str(LOGS), "-f", "json")
    res = whatif("--logs", str(logs_with_strays), "-f", "json")
    assert res.exit_code == 0, res.output
    got, want = json.loads(res.stdout), json.loads(clean.stdout)
    skipped = got["lines"].pop("skipped_files")
    assert skipped == [{"file": str(logs_with_strays / "NOTES.md"), "reason": "this looks like Markdown text"},
                       {"file": str(logs_with_strays / "zk" / "acls-backup.json"),
                        "reason": "this looks like an authz ACL JSON"}]
    warning = got["lines"]["warnings"].pop(0)
    assert warning.startswith("skipped 2 file(s) found beside the logs that are no log: ")
    assert want["lines"].pop("skipped_files") == []
    assert got == want  # the same answer, the same line accounting: nothing of the strays was read
    # One warning (one line, not wrapped: stderr is no terminal here), and the table says it too.
    res = whatif("--logs", str(logs_with_strays))
    assert res.exit_code == 0, res.output
    assert len(skip_warnings(res.stderr)) == 1 and "NOTES.md (this looks like Markdown text)" in res.stderr
    assert " in 4 file(s) (2 more skipped: no log): " in res.stdout


def test_a_glob_is_a_directory_a_named_file_is_refused(logs_with_strays):
    res = whatif("--logs", str(logs_with_strays / "*"))
    assert res.exit_code == 0, res.output
    assert skip_warnings(res.stderr) == [f"warning: skipped 1 file(s) found beside the logs that are no log: "
                                         f"{logs_with_strays / 'NOTES.md'} (this looks like Markdown text)"]
    # named itself (also beside the directory that holds it): the user meant it, so it is an error
    res = whatif("--logs", str(logs_with_strays), "--logs", str(logs_with_strays / "NOTES.md"))
    assert res.exit_code == 2
    assert res.stderr == (f"authz: error: {logs_with_strays / 'NOTES.md'}: this looks like Markdown text, "
                          f"expected {EXPECTED}\n")


def test_the_warning_is_bounded(tmp_path):
    d = tmp_path / "logs"
    d.mkdir()
    shutil.copy(LOGS / "kafka-authorizer.log", d)
    for i in range(40):
        (d / f"notes-{i:02d}.txt").write_text("a line of prose\nand another one\n")
    res = whatif("--logs", str(d))
    assert res.exit_code == 0, res.output
    [warning] = skip_warnings(res.stderr)
    assert warning.startswith("warning: skipped 40 file(s) ") and warning.endswith(f"; and {40 - SKIPPED_NAMED} more")
    assert warning.count("notes-") == SKIPPED_NAMED


def test_a_directory_of_nothing_but_strays_is_refused(tmp_path):
    d = tmp_path / "logs"
    d.mkdir()
    shutil.copy(ROOT / "README.md", d)
    res = whatif("--logs", str(d), "--fail-on", "newly-denied")
    assert res.exit_code == 2
    assert res.stderr == (f"authz: error: {d}: none of the 1 file(s) found is a log: {d / 'README.md'} (this looks "
                          f"like Markdown text); expected {EXPECTED}\n")


def test_an_empty_log_in_a_directory_stays_a_warning(tmp_path):
    d = tmp_path / "logs"
    d.mkdir()
    (d / "kafka-authorizer.log").write_bytes(b"")
    res = whatif("--logs", str(d))
    assert res.exit_code == 0, res.output
    assert "no decision line in 1 file(s): is this an authorizer log?" in res.stderr
    assert not skip_warnings(res.stderr)


def test_an_index_keeps_what_was_skipped_and_its_answers_say_it(logs_with_strays, tmp_path):
    ix = tmp_path / "ix"
    res = runner.invoke(app, ["whatif", "index", "--logs", str(logs_with_strays), "-o", str(ix)])
    assert res.exit_code == 0, res.output
    assert "in 4 file(s) (2 more skipped: no log) as run" in res.stdout and len(skip_warnings(res.stderr)) == 1
    run = json.loads((ix / "manifest.json").read_text())["runs"][0]
    assert [s["file"] for s in run["stats"]["skipped_files"]] == [str(logs_with_strays / "NOTES.md"),
                                                                 str(logs_with_strays / "zk" / "acls-backup.json")]
    assert {f["path"] for f in run["files"]} == {str(p) for p in logs_with_strays.rglob("*")
                                                 if p.is_file() and p.suffix not in (".md", ".json")}
    res = whatif("--index", str(ix), "-f", "json")
    assert res.exit_code == 0, res.output
    lines = json.loads(res.stdout)["lines"]
    assert len(lines["skipped_files"]) == 2 and lines["warnings"][0].startswith("skipped 2 file(s)")
    # the nightly --append with nothing new says them again (they are still there, still no log)
    res = runner.invoke(app, ["whatif", "index", "--append", "--logs", str(logs_with_strays), "-o", str(ix)])
    assert res.exit_code == 0, res.output
    assert "nothing new to index" in res.stdout and len(skip_warnings(res.stderr)) == 1


@pytest.mark.parametrize("command", [["access", "unused", CURRENT], ["generate"]])
def test_access_unused_and_generate_skip_them_too(command, logs_with_strays):
    clean = runner.invoke(app, [*command, "--logs", str(LOGS), "-f", "json"])
    res = runner.invoke(app, [*command, "--logs", str(logs_with_strays), "-f", "json"])
    assert res.exit_code == clean.exit_code, res.output
    assert len(skip_warnings(res.stderr)) == 1
    assert "NOTES.md (this looks like Markdown text)" in res.stderr


@pytest.mark.spark
def test_spark_reads_the_logs_without_the_strays(spark, logs_with_strays, monkeypatch):
    """With --spark the files are sorted out before the job: it gets the logs only, and answers alike."""
    handed = []
    real_run = whatif_service.replay_spark

    def replay_spark(files, *args, **kwargs):
        handed.extend(files)
        return real_run(files, *args, **kwargs)

    @contextmanager
    def session(_options):
        yield spark

    monkeypatch.setattr(whatif_service, "replay_spark", replay_spark)
    monkeypatch.setattr(spark_job, "job_session", session)
    res = whatif("--logs", str(logs_with_strays), "--spark", "-f", "json")
    assert res.exit_code == 0, res.output
    assert handed and not [f for f in handed if f.endswith((".md", ".json"))]
    got = json.loads(res.stdout)
    want = json.loads(whatif("--logs", str(logs_with_strays), "-f", "json").stdout)
    assert got["lines"] == want["lines"] and len(got["lines"]["skipped_files"]) == 2
    assert got["newly_denied"] == want["newly_denied"] and got["newly_allowed"] == want["newly_allowed"]


@pytest.mark.parametrize("index", [False, True], ids=["replay", "index"])
def test_spark_paths_are_handed_the_logs_only(index, logs_with_strays, tmp_path, monkeypatch):
    """Without a JVM: the Spark job stands in for by the in-process reader, recording what it is handed."""
    handed = []

    def replay_spark(files, names, proposed, current, config, _opts, progress=None):
        handed.extend(files)
        return whatif_service.replay_local(files, names, proposed, current, config)

    def index_run_spark(files, names, staged, _opts, progress=None):
        handed.extend(files)
        return whatif_service.index_run_local(files, names, staged)

    monkeypatch.setattr(whatif_service, "replay_spark", replay_spark)
    monkeypatch.setattr(whatif_service, "index_run_spark", index_run_spark)
    args = ["whatif", "index", "-o", str(tmp_path / "ix")] if index else ["whatif", "--proposed", PROPOSED]
    res = runner.invoke(app, [*args, "--spark", "--logs", str(logs_with_strays)])
    assert res.exit_code == 0, res.output
    assert sorted(handed) == sorted(str(p) for p in logs_with_strays.rglob("*")
                                    if p.is_file() and p.suffix not in (".md", ".json"))
    assert len(skip_warnings(res.stderr)) == 1 and "(2 more skipped: no log)" in res.stdout


def test_a_log_directory_is_walked_as_every_command_walks_one(tmp_path):
    """Hidden names (an editor's swap file, a .git directory) are skipped in a --logs directory, as in
    every other directory authz reads and as Spark's file source skips them; named, a hidden file is read."""
    from kafka_authz_cli.whatif.auditlog import expand_paths

    d = tmp_path / "logs"
    (d / "broker-2").mkdir(parents=True)
    (d / ".git").mkdir()
    for name in ("kafka-authorizer.log", ".kafka-authorizer.log.swp", "broker-2/kafka-authorizer.log",
                 ".git/HEAD"):
        (d / name).write_text("")
    assert expand_paths([str(d)]) == [str(d / "kafka-authorizer.log"), str(d / "broker-2" / "kafka-authorizer.log")]
    assert expand_paths([str(d / ".kafka-authorizer.log.swp")]) == [str(d / ".kafka-authorizer.log.swp")]
