"""`authz simulate` and `authz convert` as a user runs them."""

import json
from pathlib import Path

import pytest

from tests.cli_runner import run

EXAMPLES = Path(__file__).parents[2] / "examples" / "acls"


def test_single_request_json_names_the_deciding_acl():
    res = run("simulate", EXAMPLES / "cluster.json", "--principal", "User:analytics", "--operation", "Read",
              "--topic", "orders-audit", "--host", "10.2.0.7", "--format", "json")
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)
    assert row["decision"] == "DENIED" and row["audit_level"] == "INFO"
    assert row["rule"].startswith("MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=orders-audit,")
    assert row["acl_origin"].endswith("cluster.json:6")
    assert row["audit"].startswith("Principal = User:analytics is Denied operation = READ from host = 10.2.0.7")


def test_requests_file_with_expectations_is_a_test_suite(tmp_path):
    good = run("simulate", EXAMPLES / "cluster.json", "--requests", EXAMPLES / "requests.csv",
               "--broker-config", EXAMPLES / "server.properties", "--format", "jsonl")
    assert good.exit_code == 0, good.output
    rows = [json.loads(line) for line in good.stdout.splitlines()]
    assert len(rows) == 13 and all(r["ok"] for r in rows)
    bad = tmp_path / "r.jsonl"
    bad.write_text(json.dumps({"principal": "User:guest", "host": "10.0.0.1", "operation": "WRITE",
                               "resource_type": "TOPIC", "resource_name": "payments", "expect": "ALLOWED"}) + "\n")
    res = run("simulate", EXAMPLES / "cluster.json", "--requests", bad)
    assert res.exit_code == 1
    assert "1 of 1 expectations failed" in res.stdout


def test_output_keeps_input_order_in_csv():
    res = run("simulate", EXAMPLES / "cluster.json", "--requests", EXAMPLES / "requests.csv", "--format", "csv")
    lines = res.stdout.splitlines()
    assert lines[0].startswith("principal,host,operation,resource_type,resource_name,decision,")
    assert [l.split(",")[4] for l in lines[1:4]] == ["orders-eu", "orders-eu", "orders-eu"]


def test_super_users_flag_overrides_broker_config():
    args = ["simulate", EXAMPLES / "cluster.json", "--principal", "User:admin", "--operation", "DELETE",
            "--topic", "payments", "--format", "json"]
    assert json.loads(run(*args, "--broker-config", EXAMPLES / "server.properties").stdout)[0]["rule"] == "SuperUser"
    assert json.loads(run(*args, "--broker-config", EXAMPLES / "server.properties",
                          "--super-users", "User:other").stdout)[0]["rule"] == "DefaultDeny"


def test_allow_everyone_if_no_acl_found_flag():
    args = ["simulate", EXAMPLES / "cluster.json", "--principal", "User:x", "--operation", "DESCRIBE",
            "--delegation-token", "tok", "--format", "json"]
    assert json.loads(run(*args).stdout)[0]["rule"] == "DefaultDeny"
    assert json.loads(run(*args, "--allow-everyone-if-no-acl-found").stdout)[0]["rule"] == "DefaultAllow"


def test_authorized_operations():
    res = run("simulate", EXAMPLES / "cluster.json", "--principal", "User:orders-svc", "--topic", "orders-x",
              "--authorized-operations", "--format", "json")
    assert [r["operation"] for r in json.loads(res.stdout)] == ["WRITE", "DESCRIBE"]


@pytest.mark.parametrize("args, message", [
    (["--principal", "User:a", "--operation", "READ"], "exactly one of --topic"),
    (["--principal", "alice", "--operation", "READ", "--topic", "t"], "principalType:principalName"),
    (["--principal", "User:a", "--operation", "REED", "--topic", "t"], "unknown operation 'REED'"),
    (["--principal", "User:a", "--operation", "READ", "--topic", "t", "--host", "example.com"], "not an IP address"),
    (["--principal", "User:a", "--operation", "READ", "--topic", "t", "--super-users", "bob"], "the broker would not start"),
])
def test_bad_arguments_are_one_line_and_exit_2(args, message):
    res = run("simulate", EXAMPLES / "cluster.json", *args)
    assert res.exit_code == 2
    assert message in res.output
    assert "Traceback" not in res.output


def test_broken_acl_file_reports_file_line_col(tmp_path):
    f = tmp_path / "acls.json"
    f.write_text('{"version": 1, "acls": [\n  {"resource_type": "TOPIK"}\n]}\n')
    res = run("simulate", f, "--principal", "User:a", "--operation", "READ", "--topic", "t")
    assert res.exit_code == 2
    assert f"{f}:2:3: acls[0]: ACL is missing field(s)" in res.output


def test_broken_requests_file_reports_line(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text("principal,host,operation,resource_type,resource_name\nUser:a,10.0.0.1,READ,TOPIC,t\nUser:a,10.0.0.1,FLY,TOPIC,t\n")
    res = run("simulate", EXAMPLES / "cluster.json", "--requests", f)
    assert res.exit_code == 2 and f"{f}:3: unknown operation 'FLY'" in res.output


def test_convert_round_trips_through_every_format(tmp_path):
    original = json.loads((EXAMPLES / "cluster.json").read_text())["acls"]
    current = EXAMPLES / "cluster.json"
    for fmt in ("kafka-acls", "csv", "json"):
        out = tmp_path / f"acls.{fmt}"
        res = run("convert", current, "--to", fmt, "-o", out)
        assert res.exit_code == 0, res.output
        current = out
    assert json.loads(current.read_text())["acls"] == original
