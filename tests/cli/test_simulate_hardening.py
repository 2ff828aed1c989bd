"""`authz simulate` at scale and where Kafka gives no answer: exit codes, big tables, hostile names."""

import json
import re
import time

from tests.cli_runner import run


def _acls(tmp_path, *acls):
    path = tmp_path / "acls.json"
    path.write_text(json.dumps({"version": 1, "acls": [
        {"resource_type": t, "resource_name": n, "pattern_type": p, "principal": pr, "host": "*",
         "operation": op, "permission": perm} for t, n, p, pr, op, perm in acls]}))
    return path


def _requests(tmp_path, *requests):
    path = tmp_path / "requests.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in requests))
    return path


NON_TERMINATING_ACLS = [("GROUP", "(b", "LITERAL", "User:alice", "READ", "ALLOW")]
STUCK = {"principal": "User:alice", "host": "10.0.0.1", "operation": "READ", "resource_type": "GROUP",
         "resource_name": "(a"}
FINE = {"principal": "User:alice", "host": "10.0.0.1", "operation": "READ", "resource_type": "GROUP",
        "resource_name": "(b"}


def test_no_decision_exits_3_unless_the_file_expects_it(tmp_path):
    acls = _acls(tmp_path, *NON_TERMINATING_ACLS)
    res = run("simulate", acls, "--requests", _requests(tmp_path, FINE, STUCK))
    assert res.exit_code == 3, res.output
    assert "1 request(s) got no decision" in res.stdout and "exit code 3" in res.stdout
    res = run("simulate", acls, "--requests", _requests(tmp_path, FINE, STUCK), "--format", "jsonl")
    assert res.exit_code == 3 and json.loads(res.stdout.splitlines()[1])["outcome"] == "NON_TERMINATING"
    # Expected: a passing test suite.
    res = run("simulate", acls, "--requests", _requests(tmp_path, dict(FINE, expect="ALLOWED"),
                                                        dict(STUCK, expect="NON_TERMINATING")))
    assert res.exit_code == 0, res.output
    assert "all 2 expectations met" in res.stdout
    # Expected something else: an expectation failure (1).
    res = run("simulate", acls, "--requests", _requests(tmp_path, dict(STUCK, expect="DENIED")))
    assert res.exit_code == 1 and "expected DENIED, got NON_TERMINATING" in res.stdout
    # A single request from flags that Kafka cannot answer.
    res = run("simulate", acls, "--principal", "User:alice", "--operation", "Read", "--group", "(a")
    assert res.exit_code == 3


def test_error_outcome_exits_3(tmp_path):
    acls = _acls(tmp_path, ("TOPIC", "t", "LITERAL", "alice", "READ", "ALLOW"))
    res = run("simulate", acls, "--principal", "User:alice", "--operation", "Read", "--topic", "t",
              "--format", "json")
    assert res.exit_code == 3 and json.loads(res.stdout)[0]["outcome"] == "ERROR"


def test_help_documents_exit_code_3():
    res = run("simulate", "--help")
    assert "3 a request the file does not expect to fail" in " ".join(res.stdout.split())


def _many_requests(tmp_path, n):
    path = tmp_path / "many.jsonl"
    ops = ["READ", "WRITE", "DESCRIBE", "CREATE"]
    path.write_text("".join(json.dumps({"principal": f"User:u{i % 500}", "host": f"10.0.{i % 4}.{i % 250 + 1}",
                                        "operation": ops[i % 4], "resource_type": "TOPIC",
                                        "resource_name": f"orders-{i % 2000}"}) + "\n" for i in range(n)))
    return path


def test_a_big_table_is_cut_and_says_how_to_get_every_row(tmp_path):
    acls = _acls(tmp_path, ("TOPIC", "orders-", "PREFIXED", "User:u1", "READ", "ALLOW"))
    requests = _many_requests(tmp_path, 100_000)
    start = time.monotonic()
    res = run("simulate", acls, "--requests", requests)
    elapsed = time.monotonic() - start
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "99,800 more row(s) not shown (the table shows the first 200 of 100,000)" in text
    assert "--format json, jsonl or csv lists every row" in text
    assert "100,000 requests: " in text and " DENIED" in text
    assert res.stdout.count("\n") < 5000
    assert elapsed < 30, elapsed  # 100k requests in the table format: seconds, not minutes


def test_hundred_thousand_requests_in_a_machine_format_within_seconds(tmp_path):
    # Every format is timed by tests/bench/bench_simulate.py; here the slowest one, csv.
    acls = _acls(tmp_path, ("TOPIC", "orders-", "PREFIXED", "User:u1", "READ", "ALLOW"))
    requests = _many_requests(tmp_path, 100_000)
    for fmt in ("csv",):
        start = time.monotonic()
        res = run("simulate", acls, "--requests", requests, "--format", fmt)
        elapsed = time.monotonic() - start
        assert res.exit_code == 0
        lines = res.stdout.count("\n")
        assert lines >= 100_000, fmt
        assert elapsed < 30, (fmt, elapsed)


def test_names_are_not_rich_markup_and_huge_names_do_not_hang_the_table(tmp_path):
    acls = _acls(tmp_path, ("TOPIC", "[/x]", "LITERAL", "User:[bold]a", "READ", "ALLOW"))
    res = run("simulate", acls, "--principal", "User:[bold]a", "--operation", "Read", "--topic", "[/x]",
              env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    assert "[bold]a" in res.stdout and "[/x]" in res.stdout
    huge = "n" * 10_000_000
    acls = _acls(tmp_path, ("TOPIC", huge, "LITERAL", "User:a", "READ", "ALLOW"))
    requests = _requests(tmp_path, {"principal": "User:a", "host": "10.0.0.1", "operation": "READ",
                                    "resource_type": "TOPIC", "resource_name": huge})
    start = time.monotonic()
    res = run("simulate", acls, "--requests", requests, env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    assert time.monotonic() - start < 30
    assert re.search(r"\(10,000,\d{3}characters;", re.sub(r"[\s│]", "", res.stdout)) and len(res.stdout) < 100_000
