"""`authz diff` on the Kafka subtleties a reviewer must not miss, and as a command."""

import json
from pathlib import Path

from typer.testing import CliRunner

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.compare import FRESH_PRINCIPAL, diff
from kafka_authz_cli.acl.model import AclBinding
from kafka_authz_cli.cli.app import app

EXAMPLES = Path(__file__).parents[2] / "examples" / "diff"
DEFAULT = BrokerSettings()
OPEN = BrokerSettings(allow_everyone_if_no_acl_found=True)
runner = CliRunner()


def acl(*args):
    return AclBinding.of(*args)


def test_one_allow_switches_the_no_acl_default_off_for_everyone():
    new = [acl("TOPIC", "t", "LITERAL", "User:bob", "*", "READ", "ALLOW")]
    result = diff([], new, OPEN, OPEN)
    assert result.verdict == "less permissive"  # bob keeps READ, everyone else loses everything on `t`
    lost = [f for f in result.findings if f.direction == "lost"]
    assert any(f.principal == FRESH_PRINCIPAL and f.name_class.prefix == "t" and f.name_class.exact for f in lost)
    assert any(f.principal == "User:bob" and "WRITE" in f.operations for f in lost)


def test_deny_does_not_follow_implication():
    old = [acl("TOPIC", "t", "LITERAL", "User:a", "*", "ALL", "ALLOW"),
           acl("TOPIC", "t", "LITERAL", "User:a", "*", "READ", "DENY")]
    new = [acl("TOPIC", "t", "LITERAL", "User:a", "*", "ALL", "ALLOW"),
           acl("TOPIC", "t", "LITERAL", "User:a", "*", "DESCRIBE", "DENY")]
    result = diff(old, new, DEFAULT, DEFAULT)
    changes = {(c.operation, c.direction) for c in result.changes}
    assert changes == {("READ", "gained"), ("DESCRIBE", "lost")}


def test_literal_wildcard_misses_names_starting_with_star():
    new = [acl("GROUP", "*", "LITERAL", "User:a", "*", "READ", "ALLOW")]
    result = diff([], new, DEFAULT, DEFAULT)
    gained = {(c.name_class.prefix, c.name_class.exact) for c in result.changes if c.operation == "READ"}
    assert (None, False) in gained  # names no ACL covers
    assert ("*", True) in gained  # the group literally named '*'
    assert ("*", False) not in gained  # '*team' is skipped by Kafka's LITERAL '*'


def test_prefix_with_exception_is_described_in_words():
    old = [acl("TOPIC", "orders-audit", "LITERAL", "User:bob", "*", "WRITE", "DENY")]
    new = old + [acl("TOPIC", "orders-", "PREFIXED", "User:bob", "*", "WRITE", "ALLOW")]
    result = diff(old, new, DEFAULT, DEFAULT)
    texts = [f.describe() for f in result.findings]
    assert "User:bob can now WRITE/DESCRIBE every topic starting with `orders-` except `orders-` and names " \
        "starting with `orders-audit`" in texts  # one class: the longer names under orders- but orders-audit's
    assert [f.describe() for f in result.merged] == [
        "User:bob can now WRITE/DESCRIBE every topic starting with `orders-` except `orders-audit`",
        "User:bob can now DESCRIBE topic `orders-audit`"]


def test_super_user_change_is_reported():
    result = diff([], [], BrokerSettings(super_users="User:root"), DEFAULT)
    assert result.verdict == "less permissive" and all(c.principal == "User:root" for c in result.changes)


def test_cli_json_markdown_and_gates():
    args = ["diff", str(EXAMPLES / "old.json"), str(EXAMPLES / "new.json")]
    doc = json.loads(runner.invoke(app, args + ["--format", "json"]).stdout)
    assert doc["verdict"] == "both" and doc["gained"] and doc["lost"]
    assert len(doc["bindings"]["added"]) == 3 and len(doc["bindings"]["removed"]) == 2
    assert all(set(c["witness"]) == {"principal", "host", "operation", "resource_type", "resource_name"}
               for c in doc["changes"])
    md = runner.invoke(app, args + ["--format", "markdown"]).stdout
    assert md.startswith("### ACL change: **both**")
    assert runner.invoke(app, args + ["--fail-on", "new-access"]).exit_code == 1
    same = ["diff", str(EXAMPLES / "old.json"), str(EXAMPLES / "old.json"), "--fail-on", "any-change"]
    assert runner.invoke(app, same).exit_code == 0


def test_cli_per_side_super_users_and_bad_input(tmp_path):
    args = ["diff", str(EXAMPLES / "old.json"), str(EXAMPLES / "old.json"), "--format", "json"]
    doc = json.loads(runner.invoke(app, args + ["--new-super-users", "User:x"]).stdout)
    assert doc["verdict"] == "more permissive"
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    res = runner.invoke(app, ["diff", str(bad), str(EXAMPLES / "old.json")])
    assert res.exit_code == 2 and "invalid JSON" in res.output
