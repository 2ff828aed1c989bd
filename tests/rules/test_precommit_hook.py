""".pre-commit-hooks.yaml: every text file reaches authz, which picks the rules by content."""

import re
import shlex
from pathlib import Path

import yaml
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

ROOT = Path(__file__).parents[2]


def hook() -> dict:
    [only] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return only


def run_hook(files: list[Path]):
    """What pre-commit runs: the entry, then the file names (authz's own arguments after `authz`)."""
    args = shlex.split(hook()["entry"])
    assert args[0] == "authz"
    return CliRunner().invoke(app, args[1:] + [str(f) for f in files])


def test_the_hook_takes_every_text_file_whatever_its_name():
    h = hook()
    assert h["types"] == ["text"] and "files" not in h and "exclude" not in h
    assert "--by-content" in shlex.split(h["entry"])


def test_the_hook_fails_rules_in_a_txt_and_in_a_configmap_and_skips_the_rest(tmp_path):
    rules = tmp_path / "acl-rules.txt"  # the name Kroxylicious's docs use: the old hook never saw it
    rules.write_text('allow User with name = "a" READ Topic with name *;\notherwise deny;\n')
    cm = tmp_path / "cm.yaml"
    cm.write_text("kind: ConfigMap\nmetadata:\n  name: r\ndata:\n  r.txt: |\n    otherwise deny;\n"
                  '    allow User with name = "b" to READ Topic with name *;\n')
    readme = tmp_path / "README.md"
    readme.write_text("# Rules\nallow me to explain.\n")
    props = tmp_path / "server.properties"
    props.write_text("allow.everyone.if.no.acl.found=false\n")
    res = run_hook([readme, rules, cm, props])
    assert res.exit_code == 1
    assert re.search(rf"{re.escape(str(rules))}:1:27: error AZ001 missing 'to' at 'READ'", res.stdout)
    assert f"{cm}:7:4: warning AZ101 1 rule(s) after `otherwise deny;`" in res.stdout
    assert "2 file(s)" in res.stdout and "2 file(s) skipped" in res.stdout
    clean = run_hook([readme, props])
    assert clean.exit_code == 0 and "0 file(s)" in clean.stdout
