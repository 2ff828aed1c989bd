"""`authz lint` on the ecosystem's ACL files (issue 25): each read as its tool applies it, every
construct the tool applies differently from how it reads reported with its EA code, in every output
format, so that a pull request can be gated on it. Inputs are the real files of tests/ecosystem/corpora/."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

FORMATS = Path(__file__).parent / "corpora"
runner = CliRunner()


def _lint(*args: str):
    return runner.invoke(app, ["lint", *args])


def test_a_ksm_file_whose_produce_creates_any_topic_fails_at_warning_level():
    path = FORMATS / "ksm" / "readme-example.yml"
    result = _lint(str(path), "--fail-level", "warning")
    assert result.exit_code == 1, result.output
    assert f"{path}:7:10: warning EA201 user alice: Produce adds ALLOW CREATE on CLUSTER '*'" in result.stdout
    assert "[ksm-produce-creates-topics]" in result.stdout
    assert _lint(str(path)).exit_code == 0  # warnings pass at the default --fail-level error


def test_json_sarif_and_github_carry_the_code_and_its_description():
    path = FORMATS / "julieops" / "acl-producer-and-consumer-it.yaml"
    doc = json.loads(_lint(str(path), "--format", "json").stdout)
    [entry] = doc
    assert [f["code"] for f in entry["findings"]] == ["EA401", "EA401"]
    assert entry["findings"][0]["line"] == 8 and entry["findings"][0]["severity"] == "warning"
    sarif = json.loads(_lint(str(path), "--format", "sarif").stdout)
    [rule] = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert rule["id"] == "EA401" and "every consumer group" in rule["shortDescription"]["text"]
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 8
    github = _lint(str(path), "--format", "github").stdout
    assert "::warning file=" in github and "EA401" in github


def test_a_file_its_tool_would_refuse_is_one_ea001_error_at_its_place():
    path = FORMATS / "ksm" / "parser-test-errors.yml"
    result = _lint(str(path))
    assert result.exit_code == 1
    assert f"{path}:5:10: error EA001 Kafka Security Manager YAML files: " in result.stdout
    assert "'BadOperation' is not an operation" in result.stdout


def test_reading_options_reach_the_formats_that_know_them(tmp_path):
    path = FORMATS / "julieops" / "example-descriptor.yaml"
    assert "EA407" not in _lint(str(path)).stdout
    ksm = tmp_path / "acls.yml"
    ksm.write_text((FORMATS / "ksm" / "readme-example.yml").read_text())
    # JulieOps takes its setting; KSM, which has no such option, is read as ever
    given = _lint(str(path), str(ksm), "--option", "topology.acls.optimized=true")
    assert given.exit_code == 0, given.output
    assert "EA407" in given.stdout and "EA201" in given.stdout


def test_a_directory_lints_the_ecosystem_files_it_holds(tmp_path):
    for name in ("readme-example.yml", "example-acls.yml"):
        (tmp_path / name).write_text((FORMATS / "ksm" / name).read_text())
    (tmp_path / "notes.md").write_text("# not ACLs\n")
    result = _lint(str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "2 file(s): 0 error(s)" in result.stdout and "EA201" in result.stdout


def test_explain_knows_the_ea_codes():
    result = _lint("--explain", "EA401")
    assert result.exit_code == 0
    assert result.stdout.startswith("EA401 julieops-consumer-any-group (warning):")
    assert "Example:" in result.stdout and "consumers" in result.stdout
    assert _lint("--explain", "EA999").exit_code == 2
