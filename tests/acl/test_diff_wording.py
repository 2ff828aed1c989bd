"""`authz diff` says exactly which hosts a change holds for, and survives hostile names."""

import json
import re
import time

from typer.testing import CliRunner

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.compare import FRESH_HOST, diff
from kafka_authz_cli.acl.model import AclBinding
from kafka_authz_cli.cli.app import app

DEFAULT = BrokerSettings()
runner = CliRunner()


def acl(*args):
    return AclBinding.of(*args)


def _acl_file(path, *bindings):
    path.write_text(json.dumps({"version": 1, "acls": [b.as_dict() for b in bindings]}))
    return path


def test_a_host_excluded_by_a_deny_is_named_never_any_other_host():
    new = [acl("TOPIC", "z", "LITERAL", "User:a", "*", "READ", "ALLOW"),
           acl("TOPIC", "z", "LITERAL", "User:a", "10.0.0.1", "READ", "DENY")]
    result = diff([], new, DEFAULT, DEFAULT)
    texts = [f.describe() for f in result.findings]
    assert "User:a can now READ topic `z` from any host except 10.0.0.1" in texts
    assert "User:a can now DESCRIBE topic `z`" in texts  # the DENY READ does not deny DESCRIBE
    assert not any("other host" in t for t in texts)
    # Never a finding that claims READ from the denied host.
    for f in result.findings:
        if "READ" in f.operations:
            assert f.hosts != ["*"] and "10.0.0.1" not in f.hosts and f.excluded_hosts == ["10.0.0.1"]


def test_changes_only_from_the_named_host_say_so():
    new = [acl("TOPIC", "z", "LITERAL", "User:a", "10.0.0.1", "READ", "ALLOW")]
    texts = [f.describe() for f in diff([], new, DEFAULT, DEFAULT).findings]
    assert "User:a can now READ/DESCRIBE topic `z` from 10.0.0.1" in texts


def test_the_cli_names_excluded_hosts_in_every_format(tmp_path):
    old = _acl_file(tmp_path / "old.json")
    new = _acl_file(tmp_path / "new.json", acl("TOPIC", "z", "LITERAL", "User:a", "*", "READ", "ALLOW"),
                    acl("TOPIC", "z", "LITERAL", "User:a", "10.0.0.1", "READ", "DENY"),
                    acl("TOPIC", "z", "LITERAL", "User:a", "10.0.0.2", "READ", "DENY"))
    table = runner.invoke(app, ["diff", str(old), str(new)], env={"COLUMNS": "250"})
    markdown = runner.invoke(app, ["diff", str(old), str(new), "--format", "markdown"])
    doc = json.loads(runner.invoke(app, ["diff", str(old), str(new), "--format", "json"]).stdout)
    for out in (table.stdout, markdown.stdout):
        assert "any host except 10.0.0.1, 10.0.0.2" in out and "other host" not in out
    read = [c for c in doc["changes"] if c["operations"] == ["READ"]]
    assert read and all(c["excluded_hosts"] == ["10.0.0.1", "10.0.0.2"] and c["hosts"] == [FRESH_HOST] for c in read)


def test_a_ten_megabyte_name_does_not_hang_the_table(tmp_path):
    huge = "r" * 10_000_000
    old = _acl_file(tmp_path / "old.json")
    new = _acl_file(tmp_path / "new.json", acl("TOPIC", huge, "PREFIXED", "User:a", "*", "READ", "ALLOW"))
    start = time.monotonic()
    res = runner.invoke(app, ["diff", str(old), str(new)])
    assert res.exit_code == 0, res.output
    assert time.monotonic() - start < 30
    assert len(res.stdout) < 200_000
    assert "10,000,0" in re.sub(r"[\s│]", "", res.stdout)


def test_names_are_not_markup_and_pipes_do_not_break_markdown(tmp_path):
    old = _acl_file(tmp_path / "old.json")
    new = _acl_file(tmp_path / "new.json", acl("TOPIC", "[/x]|y", "LITERAL", "User:[bold]", "*", "READ", "ALLOW"))
    res = runner.invoke(app, ["diff", str(old), str(new)], env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    assert "[/x]|y" in res.stdout and "User:[bold]" in res.stdout
    md = runner.invoke(app, ["diff", str(old), str(new), "--format", "markdown"]).stdout
    row = next(line for line in md.splitlines() if line.startswith("| ➕"))
    assert row.count(" | ") == 3 and "[/x]\\|y" in row


def test_a_big_binding_table_is_cut_and_says_so(tmp_path):
    old = _acl_file(tmp_path / "old.json")
    new = _acl_file(tmp_path / "new.json", *[acl("TOPIC", f"t{i}", "LITERAL", "User:a", "*", "READ", "ALLOW")
                                             for i in range(300)])
    res = runner.invoke(app, ["diff", str(old), str(new)], env={"COLUMNS": "250"})
    assert res.exit_code == 0
    text = " ".join(res.stdout.split())
    assert "more row(s) not shown" in text and "--format json or markdown lists every row" in text
