"""`authz lint`, `compile`, `decompile` and `simulate --rules` as users run them."""

import json
from pathlib import Path
from xml.etree import ElementTree

from kafka_authz_cli.acl.formats import load_acls
from tests.cli_runner import run

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "rules"
CONFORMANCE = ROOT / "tests" / "conformance" / "kroxylicious"


def test_lint_fails_exactly_on_files_the_proxy_refuses():
    types = CONFORMANCE / "types.json"
    invalid = run("lint", CONFORMANCE / "invalid", "--types", types, "--format", "json")
    valid = run("lint", CONFORMANCE / "valid", "--types", types, "--format", "json")
    assert invalid.exit_code == 1 and valid.exit_code == 0
    bad = json.loads(invalid.stdout)
    assert all(any(f["severity"] == "error" for f in r["findings"]) for r in bad)
    assert not any(f["severity"] == "error" for r in json.loads(valid.stdout) for f in r["findings"])


def test_lint_fail_level_and_codes():
    res = run("lint", EXAMPLES / "every-finding.acl", "--fail-level", "warning", "--format", "json")
    assert res.exit_code == 1
    codes = {f["code"] for r in json.loads(res.stdout) for f in r["findings"]}
    assert {"AZ101", "AZ102", "AZ103", "AZ104", "AZ106", "AZ107", "AZ108", "AZ109"} <= codes
    assert run("lint", EXAMPLES / "every-finding.acl").exit_code == 0


def test_lint_sarif_is_2_1_0_with_rules_and_locations():
    doc = json.loads(run("lint", EXAMPLES / "every-finding.acl", "--format", "sarif").stdout)
    assert doc["version"] == "2.1.0"
    run_ = doc["runs"][0]
    ids = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    first = run_["results"][0]
    assert first["ruleId"] in ids and ids[first["ruleIndex"]] == first["ruleId"]
    region = first["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 3, "startColumn": 1}


def test_lint_github_and_junit():
    gh = run("lint", CONFORMANCE / "invalid" / "hand-syntax-missing-to.acl", "--format", "github")
    assert gh.stdout.startswith("::error file=") and ",line=2,col=28," in gh.stdout
    junit = run("lint", CONFORMANCE / "invalid" / "hand-syntax-missing-to.acl", "--format", "junit")
    suite = ElementTree.fromstring(junit.stdout)
    assert suite.get("failures") == "1" and suite.find("testcase/failure").get("type") == "AZ001"


def test_lint_explain_and_usage_errors():
    assert "floorEntry" in run("lint", "--explain", "AZ104").stdout
    # Then the registry's example: a rules file, indented, that produces exactly this code.
    example = run("lint", "--explain", "AZ104").stdout.split("\nExample:\n", 1)[1]
    assert '    allow User with name = "alice" to WRITE Topic with name like "payments-eu-*";' in example.splitlines()
    assert '"class": "com.example.ServiceAccount"' in run("lint", "--explain", "az105").stdout  # its --types
    assert run("lint", "--explain", "AZ999").exit_code == 2
    assert run("lint", ROOT / "nope.acl").exit_code == 2


def test_compile_then_decompile_round_trip(tmp_path):
    out = tmp_path / "acls.json"
    assert run("compile", EXAMPLES / "multi-team.acl", "--to", "json", "-o", out).exit_code == 0
    acls = load_acls(out)
    assert any(a.permission.name == "DENY" and a.operation.name == "DESCRIBE" for a in acls)  # implied by deny READ
    rules = tmp_path / "back.acl"
    assert run("decompile", out, "-o", rules).exit_code == 0
    assert run("lint", rules).exit_code == 0


def test_compile_refuses_what_kafka_cannot_express_with_location():
    res = run("compile", EXAMPLES / "every-finding.acl")
    # the proxy's 0-based column, as authz lint reports the same place (9:26)
    assert res.exit_code == 2 and "every-finding.acl:9:26:" in res.output


def test_compile_expands_regex_against_existing_names(tmp_path):
    rules = tmp_path / "r.acl"
    rules.write_text('from io.kroxylicious.filter.authorization import TopicResource as Topic;\n'
                     'allow User with name = "a" to READ Topic with name matching /logs[.][0-9]+/;\notherwise deny;\n')
    names = tmp_path / "names.txt"
    names.write_text("topic logs.1\ntopic logs.x\ntopic logs.22\n")
    res = run("compile", rules, "--expand-against", names, "--to", "csv")
    assert res.exit_code == 0
    assert sorted({line.split(",")[3] for line in res.stdout.splitlines()[1:]}) == ["logs.1", "logs.22"]


def test_decompile_lists_bindings_it_cannot_hold(tmp_path):
    f = tmp_path / "acls.json"
    f.write_text(json.dumps({"version": 1, "acls": [
        {"resource_type": "TOPIC", "resource_name": "t", "pattern_type": "LITERAL", "principal": "User:a",
         "host": "10.0.0.1", "operation": "READ", "permission": "ALLOW"}]}))
    res = run("decompile", f)
    assert res.exit_code == 2 and "host 10.0.0.1" in res.output


def test_simulate_rules_shows_the_prefix_floor_quirk(tmp_path):
    rules = tmp_path / "r.acl"
    rules.write_text('from io.kroxylicious.filter.authorization import TopicResource as Topic;\n'
                     'allow User with name = "alice" to READ Topic with name like "payments-*";\n'
                     'allow User with name = "alice" to WRITE Topic with name like "payments-eu-*";\notherwise deny;\n')
    res = run("simulate", "--rules", rules, "--principal", "User:alice", "--operation", "READ", "--topic",
              "payments-us", "--format", "json")
    [row] = json.loads(res.stdout)
    assert row["decision"] == "DENIED" and row["documented_decision"] == "ALLOWED"
    assert "prefix-floor" in row["quirk"]


def test_rules_file_is_an_acl_source_for_simulate():
    res = run("simulate", EXAMPLES / "multi-team.acl", "--principal", "User:analytics", "--operation", "READ",
              "--topic", "payments-audit-1", "--format", "json")
    assert json.loads(res.stdout)[0]["decision"] == "DENIED"


def test_expansion_names_refuse_what_is_neither_a_name_line_nor_a_principal():
    import pytest

    from kafka_authz_cli.rules.compile import ExpansionNames

    names = ExpansionNames.parse("topic orders\nUser:alice\nuser bob\n")
    assert names.principals == {"User": ["alice", "bob"]}
    for bad in ('{"a":{"a":1}}', "topic", "group   "):
        with pytest.raises(ValueError, match="line 1"):
            ExpansionNames.parse(bad + "\n")
