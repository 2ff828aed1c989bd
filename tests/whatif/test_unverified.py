"""No quiet non-answers: whatif from input that could not show a request newly denied (no logged decision
read; without --current, none logged ALLOWED) says its answer is not verified, and `--fail-on newly-denied`
fails closed on it (exit 3, one line saying why) unless --allow-unverified. Sound: whatever the proposal,
an answer called unverified never holds a client-visible request newly denied."""

import io
import json
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
from kafka_authz_cli.whatif import ReadStats, aggregate, replay_aggregates
from kafka_authz_cli.whatif.auditlog import read_stream  # the reader alone: a generated log is never refused
from tests.whatif.logs_strategy import SUFFIX, log_files

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "whatif"
PROPOSED = str(EXAMPLES / "proposed.json")
CURRENT = str(EXAMPLES / "current.json")
runner = CliRunner()
NO_DECISION = "no logged decision was read, so no request could show as newly denied"
NO_ALLOWED = ("no ALLOWED decision was logged and the logged decisions are the baseline (no --current), so no "
              "request could show as newly denied")


def line(principal="User:payments-svc", allowed=False, hour=10):
    word, level, rule = ("Allowed", "DEBUG", "SuperUser") if allowed else ("Denied", "INFO", "DefaultDeny")
    return (f"[2026-11-20 {hour:02d}:00:00,000] {level} Principal = {principal} is {word} operation = WRITE from host "
            f"= 10.3.0.9 on resource = Topic:LITERAL:payments for request = Produce with resourceRefCount = 1 based "
            f"on rule {rule}{SUFFIX}\n")


def gate(*args):
    return runner.invoke(app, ["whatif", *args, "--proposed", PROPOSED, "--fail-on", "newly-denied"])


def fails_closed(res, why: str) -> None:
    assert res.exit_code == 3, res.output
    assert res.stderr.splitlines()[-1] == (f"authz: --fail-on newly-denied fails closed: not verified: {why} "
                                           "(--allow-unverified accepts that)")


def test_an_empty_log_fails_the_gate_closed_and_the_answer_says_why(tmp_path):
    empty = tmp_path / "kafka-authorizer.log"
    empty.write_bytes(b"")
    res = gate("--logs", str(empty), "--current", CURRENT)
    fails_closed(res, NO_DECISION)
    assert f"not verified: {NO_DECISION}" in res.stdout  # the answer itself says so, not only the gate
    res = gate("--logs", str(empty), "--current", CURRENT, "--allow-unverified", "-f", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["unverified"] == NO_DECISION


def test_denials_alone_cannot_show_newly_denied_traffic_without_current(tmp_path):
    """Kafka logs allowed decisions at DEBUG: a broker at INFO logs only denials, and a gate on the logged
    decisions alone would always pass. With --current, the current ACLs decide the baseline: verified."""
    log = tmp_path / "kafka-authorizer.log"
    log.write_text(line() * 3)
    fails_closed(gate("--logs", str(log)), NO_ALLOWED)
    res = gate("--logs", str(log), "--current", CURRENT, "-f", "json")
    assert res.exit_code == 1, res.output  # payments-svc's WRITE, allowed today, is newly denied
    assert json.loads(res.stdout)["unverified"] is None
    log.write_text(line("User:other") + line(allowed=True))
    res = gate("--logs", str(log), "-f", "json")
    assert res.exit_code == 1 and json.loads(res.stdout)["unverified"] is None


def test_the_examples_are_verified():
    res = gate("--logs", str(EXAMPLES / "logs"), "--current", CURRENT, "-f", "json")
    assert res.exit_code == 1 and json.loads(res.stdout)["unverified"] is None
    assert "fails closed" not in res.stderr


def test_an_index_window_without_traffic_fails_closed(tmp_path):
    log = tmp_path / "kafka-authorizer.log"
    log.write_text(line(allowed=True, hour=10))
    ix = tmp_path / "ix"
    assert runner.invoke(app, ["whatif", "index", "--logs", str(log), "-o", str(ix)]).exit_code == 0
    res = gate("--index", str(ix), "--current", CURRENT)
    assert res.exit_code == 1, res.output
    fails_closed(gate("--index", str(ix), "--current", CURRENT, "--since", "2026-11-20T11"), NO_DECISION)


def test_allow_unverified_goes_with_fail_on(tmp_path):
    res = runner.invoke(app, ["whatif", "--logs", str(EXAMPLES / "logs"), "--proposed", PROPOSED,
                              "--allow-unverified"])
    assert res.exit_code == 2
    assert res.stderr == ("authz: error: Invalid value for --allow-unverified: goes with --fail-on (it lets the "
                          "gate pass an answer the input could not verify) (see authz whatif --help)\n")


@pytest.mark.parametrize("content, current, why", [("", True, NO_DECISION), (line(), False, NO_ALLOWED)])
def test_shadow_mode_fails_closed_alike(content, current, why, tmp_path):
    log = tmp_path / "kafka-authorizer.log"
    log.write_text(content)
    args = ["--follow", str(log), "--from-start", "--max-seconds", "0.5", "-f", "jsonl"]
    res = gate(*args, *(["--current", CURRENT] if current else []))
    fails_closed(res, why)
    assert json.loads(res.stdout.splitlines()[-1])["unverified"] == why
    res = gate(*args, *(["--current", CURRENT] if current else []), "--allow-unverified")
    assert res.exit_code == 0, res.output


# ---------------------------------------------------------------------------------------------
# Sound: "not verified" is never said of an answer that could have shown a request newly denied

acls = st.lists(st.builds(
    AclBinding, st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER]),
    st.sampled_from(["orders", "orders-", "*", "a", "t", "payments"]), st.sampled_from(list(PatternType)[:2]),
    st.sampled_from(["User:*", "User:a", "User:orders", "User:payments-svc"]), st.sampled_from(["*", "10.0.0.1"]),
    st.sampled_from([AclOperation.READ, AclOperation.WRITE, AclOperation.ALL, AclOperation.DESCRIBE]),
    st.sampled_from(list(AclPermissionType)[:2])), max_size=6)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=log_files(), proposed=acls, current=st.one_of(st.none(), acls), everyone=st.booleans())
def test_an_unverified_answer_never_holds_a_request_newly_denied(files, proposed, current, everyone):
    stats, quarantine = ReadStats(), []
    decisions = [d for _, data in files for d in read_stream(io.BytesIO(data), "f", stats, quarantine)]
    config = BrokerSettings(allow_everyone_if_no_acl_found=everyone)
    report = replay_aggregates(aggregate(decisions), StandardAuthorizer(proposed, config),
                               StandardAuthorizer(current, config) if current is not None else None)
    if report.unverified is not None:
        assert not report.newly_denied, report.unverified
        assert report.decisions == 0 or (current is None and not any(d.decision == "ALLOWED" for d in decisions))
    else:
        assert report.decisions > 0 and (current is not None or any(d.decision == "ALLOWED" for d in decisions))
