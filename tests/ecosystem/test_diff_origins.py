"""`authz diff` says where each binding it names was written, and which ACL decided each side of a
changed decision (issue 21: "granted by ... at file:line")."""

import json
from pathlib import Path

from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

CORPUS = Path(__file__).parent / "corpora" / "strimzi"
runner = CliRunner()


def _pair(tmp_path):
    old = tmp_path / "old.yaml"
    old.write_text((CORPUS / "kafka-user.yaml").read_text())
    new = tmp_path / "new.yaml"
    new.write_text(old.read_text().replace("- Read", "- Alter", 1))
    return old, new


def test_json_names_the_deciding_acl_and_where_it_was_written(tmp_path):
    old, new = _pair(tmp_path)
    result = runner.invoke(app, ["diff", str(old), str(new), "--format", "json"])
    doc = json.loads(result.stdout)
    [lost] = [c for c in doc["changes"] if c["direction"] == "lost"]
    assert lost["old_acl"]["operation"] == "READ" and lost["old_acl"]["resource_name"] == "my-topic"
    line = next(i for i, t in enumerate(old.read_text().splitlines(), 1) if "resource:" in t)
    assert lost["old_acl"]["origin"] == f"{old}:{line} (KafkaUser my-user, cluster my-cluster)"
    assert lost["new_acl"] is None and lost["because"].endswith("now: no ACL allowing it")
    [removed] = doc["bindings"]["removed"]
    assert removed["origin"] == lost["old_acl"]["origin"]
    [added] = doc["bindings"]["added"]
    assert added["operation"] == "ALTER" and added["origin"].startswith(f"{new}:{line} ")


def test_the_table_and_markdown_say_why(tmp_path):
    old, new = _pair(tmp_path)
    table = runner.invoke(app, ["diff", str(old), str(new)], env={"COLUMNS": "300"})
    markdown = runner.invoke(app, ["diff", str(old), str(new), "--format", "markdown"])
    for out in (table.stdout, markdown.stdout):
        assert "was: ALLOW READ TOPIC:LITERAL:my-topic for User:CN=my-user" in out
        assert "(KafkaUser my-user, cluster my-cluster)" in out


def test_a_super_user_side_is_named_in_words(tmp_path):
    old, _ = _pair(tmp_path)
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    doc = json.loads(runner.invoke(app, ["diff", str(empty), str(old), "--new-super-users", "User:CN=my-user",
                                         "--format", "json"]).stdout)
    assert doc["changes"] and all(c["because"].endswith("now: a super user") for c in doc["changes"])
