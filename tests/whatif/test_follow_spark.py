"""Shadow mode on Spark Structured Streaming (issue 23): the log directory as a file source, each
micro-batch judged on the driver with the in-process follower's readers, so the output is the same."""

from __future__ import annotations

import time

import pytest

from kafka_authz_cli.whatif.spark.streaming import follow_directory
from tests.whatif.logs_strategy import SUFFIX


def _line(i: int, user: str = "alice") -> str:
    return (f"[2026-11-20 10:00:{i:02d},000] DEBUG Principal = User:{user} is Allowed operation = READ from host = "
            f"10.0.0.1 on resource = Topic:LITERAL:orders-{i} for request = Fetch with resourceRefCount = 1 based on "
            f"rule DefaultAllow{SUFFIX}\n")


@pytest.mark.spark
def test_each_new_file_reaches_the_driver_in_order_once(spark, tmp_path):
    # A file there at the start is left out (the active log is followed by --follow FILE); the file the
    # broker rolls while shadow mode runs arrives whole, numbered, in order, once.
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "kafka-authorizer.log.1").write_text("".join(_line(i) for i in range(3)))
    got: list = []
    started = time.monotonic()

    def stop():
        if not (logs / "kafka-authorizer.log.2").exists() and time.monotonic() > started + 2:
            (logs / ".kafka-authorizer.log.2.tmp").write_text("".join(_line(i, "bob") for i in range(5)))
            (logs / ".kafka-authorizer.log.2.tmp").rename(logs / "kafka-authorizer.log.2")
        return len(got) >= 5 or time.monotonic() > started + 60

    follow_directory(spark, str(logs), got.extend, stop, interval=0.5, checkpoint=str(tmp_path / "ck"),
                     from_start=False)
    assert [(r[0].rsplit("/", 1)[1], r[1], r[2]) for r in got] == \
        [("kafka-authorizer.log.2", i + 1, _line(i, "bob").rstrip("\n")) for i in range(5)]


def _follow_like_a_replay(spark, tmp_path, monkeypatch, strays: dict[str, str]):
    """Shadow mode on Spark over a copy of the example logs with ``strays`` beside them, against a
    replay of the logs alone: the same changes, the same line accounting; returns the follow's state."""
    import shutil
    from contextlib import contextmanager
    from pathlib import Path

    from kafka_authz_cli.services.whatif import Proposal, ReplayRequest, SparkOptions, replay
    from kafka_authz_cli.services.whatif_follow import FollowHooks, FollowRequest, FollowSource, follow
    from kafka_authz_cli.whatif import spark as spark_job

    examples = Path(__file__).resolve().parents[2] / "examples" / "whatif"
    logs = tmp_path / "rolled"
    shutil.copytree(examples / "logs", logs)
    proposal = Proposal(examples / "proposed.json", examples / "current.json")
    whole = replay(ReplayRequest(proposal, logs=(str(logs),)))
    for name, text in strays.items():
        (logs / name).write_text(text)
    replayed = whole.report
    expected = {(kind, c.principal, c.operation, c.resource_type, c.resource_name)
                for kind, changes in (("newly_denied", replayed.newly_denied), ("newly_allowed", replayed.newly_allowed))
                for c in changes}
    assert expected

    @contextmanager
    def the_test_session(options):  # the session of the tests, not a JVM of its own
        yield spark

    monkeypatch.setattr(spark_job, "job_session", the_test_session)
    seen, started = [], time.monotonic()
    request = FollowRequest(proposal, FollowSource(str(logs), from_start=True), spark=SparkOptions("local[2]"))
    done = follow(request, FollowHooks(seen.append, stop=lambda: expected <= {
        (c.kind, c.principal, c.operation, c.resource_type, c.resource_name) for c in seen}
        or time.monotonic() > started + 60))
    got = {(c.kind, c.principal, c.operation, c.resource_type, c.resource_name) for c in seen}
    assert got == expected
    # every line of every log read, and accounted for as the replay accounts for it
    got_counts = (done.stats.files, done.stats.lines, done.stats.decision_lines, done.stats.quarantined_lines)
    assert got_counts == (whole.stats.files, whole.stats.lines, whole.stats.decision_lines,
                          whole.stats.quarantined_lines)
    return done


@pytest.mark.spark
def test_shadow_mode_on_spark_reports_what_a_replay_of_the_same_files_finds(spark, tmp_path, monkeypatch):
    done = _follow_like_a_replay(spark, tmp_path, monkeypatch, {})
    assert done.stats.skipped_files == []


@pytest.mark.spark
def test_a_stray_file_beside_the_rolled_logs_is_skipped_and_named_once(spark, tmp_path, monkeypatch):
    # A README dropped into the directory Spark follows: skipped as a replay of the directory skips it
    # (no line of it counted or quarantined), named in one warning, the logs judged as without it.
    readme = "# Rolled authorizer logs\n\nBrokers copy `kafka-authorizer.log.N` here.\n\n" + "".join(
        f"- note {i}: rotate daily\n" for i in range(40))
    done = _follow_like_a_replay(spark, tmp_path, monkeypatch, {"README.md": readme})
    assert [s["file"].rsplit("/", 1)[1] for s in done.stats.skipped_files] == ["README.md"]
    assert done.stats.skipped_files[0]["reason"] == "no line is a decision and 42 of 42 non-blank line(s) are no log record"
    warnings = [w for w in done.stats.warnings if "skipped 1 file(s)" in w]
    assert len(warnings) == 1 and "README.md" in warnings[0]
    assert "(1 more skipped: no log)" in done.stats.files_read()


def test_shadow_mode_on_spark_takes_a_directory_and_no_topic(tmp_path):
    from typer.testing import CliRunner

    from kafka_authz_cli.cli.app import app

    examples = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples" / "whatif"
    run = CliRunner().invoke
    one_file = run(app, ["whatif", "--follow", str(examples / "logs" / "kafka-authorizer.log"), "--spark",
                         "--proposed", str(examples / "proposed.json")])
    assert one_file.exit_code == 2 and "takes the directory the brokers' rolled logs land in" in one_file.output
    topic = run(app, ["whatif", "--follow-topic", "audit", "--bootstrap-server", "127.0.0.1:1", "--spark",
                      "--proposed", str(examples / "proposed.json")])
    assert topic.exit_code == 2 and "drop --spark" in topic.output
    directory = run(app, ["whatif", "--follow", str(examples / "logs"), "--proposed", str(examples / "proposed.json")])
    assert directory.exit_code == 2 and "add --spark" in directory.output
