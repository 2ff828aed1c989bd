"""Every lint format names the place the proxy names: text, JSON and JUnit with the proxy's own
`line:col` (0-based column, ANTLR's charPositionInLine); SARIF and GitHub 1-based, as their specs
demand. The expectations are the real proxy's errors, recorded in tests/conformance/kroxylicious."""

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

CONFORMANCE = Path(__file__).parents[2] / "tests" / "conformance" / "kroxylicious"
RECORDED = [json.loads(line) for line in (CONFORMANCE / "parse.jsonl").read_text().splitlines() if line.strip()]
# Files whose first error the proxy reports, not depending on which Java classes exist.
LOCATED = [r for r in RECORDED if not r["ok"] and r.get("first_error") and "jvm-classpath" not in r["tags"]
           and r["phase"] != "exception"]
runner = CliRunner()


def lint(path, fmt):
    return runner.invoke(app, ["lint", str(path), "--types", str(CONFORMANCE / "types.json"), "--format", fmt])


@pytest.mark.parametrize("case", LOCATED[:12], ids=lambda r: r["file"])
def test_text_json_and_junit_give_the_proxys_column(case):
    path = CONFORMANCE / case["file"]
    line, col = case["first_error"]["line"], case["first_error"]["col"]
    text = lint(path, "text").stdout
    assert f"{path}:{line}:{col}: error " in text
    [doc] = json.loads(lint(path, "json").stdout)
    assert (doc["findings"][0]["line"], doc["findings"][0]["column"]) == (line, col)
    failure = ElementTree.fromstring(lint(path, "junit").stdout).find("testcase/failure")
    assert failure.text.startswith(f"{path}:{line}:{col}: ")


@pytest.mark.parametrize("case", LOCATED[:6], ids=lambda r: r["file"])
def test_sarif_and_github_are_one_based_as_their_specs_say(case):
    path = CONFORMANCE / case["file"]
    line, col = case["first_error"]["line"], case["first_error"]["col"]
    run = json.loads(lint(path, "sarif").stdout)["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    region = run["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": line, "startColumn": col + 1}
    assert f",line={line},col={col + 1}," in lint(path, "github").stdout


def test_a_column_counts_code_points_as_the_proxy_does(tmp_path):
    # An emoji before the error: one code point (two UTF-16 units, which would make it 28); the proxy's
    # column counts it once.
    f = tmp_path / "emoji.acl"
    f.write_text('allow User with name = "\U0001F600" READ Topic with name *;\notherwise deny;\n', encoding="utf-8")
    assert f"{f}:1:27: error AZ001 missing 'to' at 'READ'" in lint(f, "text").stdout
