"""whatif: the replay finds what a change breaks, in-process and on Spark alike."""

import json
from pathlib import Path

from typer.testing import CliRunner

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.engine import StandardAuthorizer
from kafka_authz_cli.acl.formats import load_acls
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.whatif.auditlog import ReadStats, expand_paths, read_file_bytes
from kafka_authz_cli.whatif.replay import replay

EXAMPLES = Path(__file__).parents[2] / "examples" / "whatif"
LOGS = str(EXAMPLES / "logs")
SETTINGS = BrokerSettings()
runner = CliRunner()


def local(current=False):
    stats, quarantine, decisions = ReadStats(), [], []
    for f in expand_paths([LOGS]):
        decisions += read_file_bytes(Path(f).read_bytes(), f, stats, quarantine)
    proposed = StandardAuthorizer(load_acls(EXAMPLES / "proposed.json"), SETTINGS)
    cur = StandardAuthorizer(load_acls(EXAMPLES / "current.json"), SETTINGS) if current else None
    return stats, quarantine, replay(decisions, proposed, cur)


def summary(report):
    return ([(c.principal, c.operation, c.resource_type, c.resource_name, c.count, c.visible, tuple(c.hosts),
              c.first_seen, c.last_seen, c.before_rule, c.after_rule) for c in report.newly_denied],
            [(c.principal, c.operation, c.resource_name, c.count) for c in report.newly_allowed],
            report.unused_acls, report.timeline, report.reproduced, report.distinct_requests)


def test_replay_finds_the_accesses_the_change_breaks_and_grants():
    stats, quarantine, report = local()
    assert stats.balanced and stats.quarantined_lines == 3
    denied = {(c.principal, c.operation, c.resource_name): c for c in report.newly_denied}
    assert set(denied) == {("User:analytics", "READ", "orders-audit"), ("User:payments-svc", "WRITE", "payments"),
                           ("User:old-batch", "READ", "legacy-feed"), ("User:old-batch", "DESCRIBE", "legacy-feed")}
    assert denied[("User:payments-svc", "WRITE", "payments")].hosts == ["10.3.0.9"]  # 10.3.0.2 keeps access
    assert denied[("User:old-batch", "DESCRIBE", "legacy-feed")].filtered_only  # logged at TRACE only
    assert [(c.principal, c.resource_name) for c in report.newly_allowed] == [("User:bob", "orders-eu")]
    assert not any(c.principal == "User:admin" for c in report.newly_denied + report.newly_allowed)  # forged line


def test_current_acl_set_reproduces_the_logged_decisions():
    _, _, report = local(current=True)
    assert report.baseline == "current" and report.reproduced == report.comparable


def test_spark_and_in_process_give_identical_results(spark):
    from kafka_authz_cli.whatif import spark as spark_job

    files = [str(Path(f).resolve()) for f in expand_paths([LOGS])]
    acls = (load_acls(EXAMPLES / "proposed.json"), SETTINGS)
    calls = []
    on_spark = spark_job.run(spark, files, acls, progress=lambda *a: calls.append(a))
    s_stats, s_quarantine, s_report = on_spark.stats, on_spark.quarantine, on_spark.report
    # progress comes from Spark's status tracker: phases, with tasks done out of tasks
    assert any(phase.startswith("scanning") for phase, _, _ in calls)
    assert any(total > 0 and 0 <= done <= total for _, done, total in calls)
    l_stats, l_quarantine, l_report = local()
    assert summary(s_report) == summary(l_report)
    assert (s_stats.lines, s_stats.decisions, s_stats.quarantined_lines) == \
           (l_stats.lines, l_stats.decisions, l_stats.quarantined_lines)
    assert len(s_quarantine) == len(l_quarantine)
    cur = (load_acls(EXAMPLES / "current.json"), SETTINGS)
    assert spark_job.run(spark, files, acls, cur).report.reproduced == local(current=True)[2].reproduced


def test_cli_outputs_gate_and_warning(tmp_path):
    out, html = tmp_path / "out", tmp_path / "report.html"
    res = runner.invoke(app, ["whatif", "--logs", LOGS, "--proposed", str(EXAMPLES / "proposed.json"),
                              "--out", str(out), "--report", str(html), "--fail-on", "newly-denied"])
    assert res.exit_code == 1, res.output
    doc = json.loads((out / "whatif.json").read_text())
    assert doc["lines"]["total"] == doc["lines"]["decision_lines"] + doc["lines"]["non_decision_lines"] + \
        doc["lines"]["quarantined_lines"]
    assert len((out / "quarantine.jsonl").read_text().splitlines()) == 2
    import pyarrow.parquet as pq

    assert pq.read_table(out / "newly_denied.parquet").num_rows == 4
    page = html.read_text()
    assert "<svg" in page and "orders-audit" in page and "http" not in page.split("<body>")[1].split("</svg>")[0][:0]
    # A log with denials only cannot reveal newly denied traffic: say so.
    only_denied = tmp_path / "denied.log"
    only_denied.write_text("[2024-01-01 00:00:00,000] INFO Principal = User:a is Denied operation = READ from host = "
                           "10.0.0.1 on resource = Topic:LITERAL:t for request = Fetch with resourceRefCount = 1 "
                           "based on rule DefaultDeny (kafka.authorizer.logger)\n")
    res = runner.invoke(app, ["whatif", "--logs", str(only_denied), "--proposed", str(EXAMPLES / "proposed.json")])
    assert res.exit_code == 0 and "DEBUG" in res.output


def test_missing_log_is_an_input_error():
    res = runner.invoke(app, ["whatif", "--logs", "/nonexistent/*.log", "--proposed", str(EXAMPLES / "proposed.json")])
    assert res.exit_code == 2 and "no log files matched" in res.output
