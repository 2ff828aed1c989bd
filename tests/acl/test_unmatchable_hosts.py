"""ACL hosts Kafka can never match (IPv6 short forms, CIDR, names) are flagged wherever ACLs are read."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.acl.engine import Request, StandardAuthorizer
from kafka_authz_cli.acl.model import AclBinding, AclOperation, ResourceType, java_host_address, unmatchable_host_reason
from kafka_authz_cli.cli.app import app

runner = CliRunner()


@pytest.mark.parametrize("host, fragment", [
    ("::1", "writes '0:0:0:0:0:0:0:1'"),
    ("2001:db8::1", "'2001:db8:0:0:0:0:0:1'"),
    ("FE80:0:0:0:0:0:0:1", "'fe80:0:0:0:0:0:0:1'"),
    ("::ffff:10.0.0.1", "'10.0.0.1'"),
    (" 10.0.0.1", "'10.0.0.1'"),
    ("10.0.0.0/8", "no CIDR ranges"),
    ("10.0.0.*", "no host patterns"),
    ("localhost", "never resolves names"),
    ("broker-1.example.com", "not an IP address"),
])
def test_hosts_that_never_match_say_why(host, fragment):
    reason = unmatchable_host_reason(host)
    assert reason is not None and fragment in reason


@pytest.mark.parametrize("host", ["*", "10.0.0.1", "0:0:0:0:0:0:0:1", "2001:db8:0:0:0:0:0:1"])
def test_hosts_kafka_can_match_are_not_flagged(host):
    assert unmatchable_host_reason(host) is None


@given(st.ip_addresses())
def test_an_acl_host_is_flagged_exactly_when_no_client_address_equals_it(addr):
    text = str(addr)
    assert (unmatchable_host_reason(text) is None) == (java_host_address(text) == text)


def test_the_engine_agrees_the_short_form_never_matches_and_notes_it():
    acls = [AclBinding.of("TOPIC", "t", "LITERAL", "User:a", "::1", "READ", "ALLOW")]
    authz = StandardAuthorizer(acls)
    decision = authz.authorize(Request("User:a", "::1", AclOperation.READ, ResourceType.TOPIC, "t"))
    assert decision.decision == "DENIED"
    [note] = authz.notes(decision)
    assert "'::1' never matches" in note and "0:0:0:0:0:0:0:1" in note
    # No note for an operation the ACL does not cover.
    other = authz.authorize(Request("User:a", "::1", AclOperation.WRITE, ResourceType.TOPIC, "t"))
    assert authz.notes(other) == []


def test_simulate_convert_and_diff_flag_them(tmp_path):
    acls = tmp_path / "acls.json"
    acls.write_text(json.dumps({"version": 1, "acls": [
        {"resource_type": "TOPIC", "resource_name": "t", "pattern_type": "LITERAL", "principal": "User:a",
         "host": h, "operation": "READ", "permission": "ALLOW"} for h in ("::1", "10.0.0.0/8", "localhost")]}))
    empty = tmp_path / "empty.json"
    empty.write_text('{"version": 1, "acls": []}')
    runs = {
        "simulate": ["simulate", acls, "--principal", "User:a", "--operation", "Read", "--topic", "t",
                     "--host", "::1", "--format", "json"],
        "convert": ["convert", acls, "--to", "csv"],
        "diff": ["diff", empty, acls, "--format", "json"],
    }
    for name, args in runs.items():
        res = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})
        assert res.exit_code == 0, (name, res.output)
        for host in ("'::1'", "'10.0.0.0/8'", "'localhost'"):
            assert f"ACL host {host} never matches" in res.stderr, (name, res.stderr)
    row = json.loads(runner.invoke(app, [str(a) for a in runs["simulate"]]).stdout)[0]
    assert row["decision"] == "DENIED" and any("'::1' never matches" in n for n in row["notes"])
