"""Tables for people stay bounded and never read names as rich markup."""

import json

from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

runner = CliRunner()


def test_decompile_problem_table_is_cut_and_escaped(tmp_path):
    acls = tmp_path / "acls.json"
    acls.write_text(json.dumps({"version": 1, "acls": [
        {"resource_type": "TOPIC", "resource_name": f"[/t]{i}", "pattern_type": "LITERAL", "principal": "User:a",
         "host": "10.0.0.1", "operation": "READ", "permission": "ALLOW"} for i in range(300)]}))
    res = runner.invoke(app, ["decompile", str(acls)], env={"COLUMNS": "300"})
    assert res.exit_code == 2
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert "[/t]0" in res.stderr and "[/t]199" in res.stderr and "[/t]200," not in res.stderr
    assert "100 more binding(s) not shown" in res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith("authz: error: 300 binding(s) cannot be written")
