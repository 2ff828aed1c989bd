"""whatif answers grouped by cause (issue 23): every changed decision is attributed to the binding (or
settings) change that causes it, and the report leads with those."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.whatif.causes import cause_of
from tests.whatif.logs_strategy import SUFFIX

runner = CliRunner()


def _acl(perm, op, name, pattern="PREFIXED", principal="User:svc7", host="*", rtype="TOPIC"):
    return (f"MatchingAcl(acl=StandardAcl(resourceType={rtype}, resourceName={name}, patternType={pattern}, "
            f"principal={principal}, host={host}, operation={op}, permissionType={perm}))")


def _line(hour, principal, host, op, topic, allowed, rule):
    word, level = ("Allowed", "DEBUG") if allowed else ("Denied", "INFO")
    return (f"[2026-11-20 {hour:02d}:00:00,000] {level} Principal = {principal} is {word} operation = {op} from host = "
            f"{host} on resource = Topic:LITERAL:{topic} for request = Produce with resourceRefCount = 1 based on "
            f"rule {rule}{SUFFIX}")


def _acls(path, *acls):
    path.write_text(json.dumps({"version": 1, "acls": [
        {"resource_type": t, "resource_name": n, "pattern_type": p, "principal": pr, "host": "*", "operation": o,
         "permission": "ALLOW"} for t, n, p, pr, o in acls]}))
    return path


def test_one_removed_prefixed_allow_is_one_cause_covering_every_topic(tmp_path):
    logs = tmp_path / "authorizer.log"
    grant = _acl("ALLOW", "WRITE", "team1.")
    other = _acl("ALLOW", "READ", "shared", "LITERAL", "User:reader")
    lines = [_line(h % 24, "User:svc7", f"10.0.0.{h % 3 + 1}", "WRITE", f"team1.t{h}", True, grant) for h in range(24)]
    lines += [_line(1, "User:reader", "10.0.0.9", "READ", "shared", True, other)]
    logs.write_text("\n".join(lines) + "\n")
    proposed = _acls(tmp_path / "proposed.json", ("TOPIC", "shared", "LITERAL", "User:reader", "READ"))
    result = runner.invoke(app, ["whatif", "--logs", str(logs), "--proposed", str(proposed), "-f", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert len(doc["newly_denied"]) == 24
    [cause] = doc["causes"]
    assert cause["kind"] == "newly_denied"
    assert cause["cause"] == "removing ALLOW WRITE on TOPIC team1. (PREFIXED) for User:svc7"
    assert len(cause["resources"]) == 24 and cause["hosts"] == ["10.0.0.1", "10.0.0.2", "10.0.0.3"]
    assert cause["requests"] == 24 and cause["last_seen"].startswith("2026-11-20 23")
    assert cause["description"].startswith("removing ALLOW WRITE on TOPIC team1. (PREFIXED) for User:svc7 newly "
                                           "denies 24 resource(s), 3 host(s), 24 request(s), last on 2026-11-20 23")
    table = runner.invoke(app, ["whatif", "--logs", str(logs), "--proposed", str(proposed)], env={"COLUMNS": "250"})
    assert table.exit_code == 0
    out = table.stdout
    assert out.index("by cause") < out.index("newly denied:") and "newly denies 24 resource(s)" in out


def test_each_kind_of_cause_is_named():
    deny = _acl("DENY", "READ", "orders", "LITERAL", "User:a", "10.0.0.1")
    allow = _acl("ALLOW", "READ", "orders", "LITERAL", "User:a")
    assert cause_of("newly_denied", "User:a", allow, deny)[0] == \
        "adding DENY READ on TOPIC orders (LITERAL) for User:a from 10.0.0.1"
    assert cause_of("newly_denied", "User:a", allow, "DefaultDeny") == \
        ("removing ALLOW READ on TOPIC orders (LITERAL) for User:a", allow)
    assert cause_of("newly_denied", "User:a", "SuperUser", "DefaultDeny")[0] == "removing User:a from super.users"
    assert cause_of("newly_denied", "User:a", "DefaultAllow", "DefaultDeny")[0].startswith(
        "allow.everyone.if.no.acl.found no longer allowing it")
    assert cause_of("newly_allowed", "User:a", "DefaultDeny", allow)[0] == \
        "adding ALLOW READ on TOPIC orders (LITERAL) for User:a"
    assert cause_of("newly_allowed", "User:a", "DefaultDeny", "SuperUser")[0] == "adding User:a to super.users"
    assert cause_of("newly_allowed", "User:a", deny, "DefaultAllow")[0].startswith(
        "allow.everyone.if.no.acl.found now allowing it")
    assert cause_of("newly_allowed", "User:a", deny, "DefaultDeny-not-a-rule")[0] == \
        "removing DENY READ on TOPIC orders (LITERAL) for User:a from 10.0.0.1"
