"""services/rules.py: what `authz lint`, `compile` and `decompile` do, without the terminal."""

import json
from pathlib import Path

import pytest

from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.services import rules as service

EXAMPLES = Path(__file__).parents[2] / "examples" / "rules"


def test_directories_are_walked_for_rules_files_by_content_whatever_their_name(tmp_path):
    # The old walk took .acl/.rules/.authz only: Kroxylicious's docs' acl-rules.txt went unlinted.
    (tmp_path / "b.rules").write_text("otherwise deny;\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.acl").write_text("otherwise deny;\n")
    (tmp_path / "acl-rules.txt").write_text('allow User with name = "a" READ Topic with name *;\notherwise deny;\n')
    (tmp_path / "notes.txt").write_text("not rules")
    (tmp_path / "server.properties").write_text("allow.everyone.if.no.acl.found=true\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.acl").write_text("otherwise deny;\n")
    run = service.lint_paths([tmp_path], None)
    assert [r.path for r in run.results] == [str(tmp_path / p) for p in ("acl-rules.txt", "b.rules", "sub/a.acl")]
    assert run.fails("error")  # acl-rules.txt: the proxy refuses it
    assert {Path(s.path).name: s.reason for s in run.skipped} == {
        "notes.txt": "its first statement is no rules statement",
        "server.properties": "looks like a Java .properties file"}
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no Kroxylicious rules file"):
        service.lint_paths([tmp_path / "empty"], None)
    with pytest.raises(InputError, match="no such file"):
        service.lint_paths([tmp_path / "missing.acl"], None)


def test_a_file_given_explicitly_is_linted_and_says_what_it_looks_like(tmp_path):
    props = tmp_path / "server.properties"
    props.write_text("allow.everyone.if.no.acl.found=true\nsuper.users=User:admin\n")
    [result] = service.lint_paths([props], None).results
    first = result.findings[0]
    assert first.code == "AZ001" and first.message.endswith(
        "(this looks like a Kafka broker configuration (server.properties), expected a Kroxylicious rules file)")


def test_a_lint_run_counts_and_fails_by_severity():
    run = service.lint_paths([EXAMPLES / "every-finding.acl"], None)
    counts = run.counts()
    assert list(counts) == ["info", "warning", "error"] and counts["error"] == 0 and counts["warning"] > 0
    assert run.fails("info") and run.fails("warning") and not run.fails("error")


def test_an_unknown_code_is_an_option_error():
    assert service.explain_code("az107").startswith("AZ107 duplicate-rule (warning)")
    with pytest.raises(OptionError) as exc:
        service.explain_code("AZ999")
    assert exc.value.param_hint == "--explain" and "AZ001, AZ002" in exc.value.reason


def test_expansion_names_errors_are_located(tmp_path):
    names = tmp_path / "names.txt"
    names.write_text("topic a\nfoo\n")
    with pytest.raises(InputError) as exc:
        service.expansion_names(names)
    assert (exc.value.path, exc.value.line) == (str(names), 2)


def test_decompile_returns_text_or_every_refused_binding_with_its_origin(tmp_path):
    acls = tmp_path / "acls.json"
    acl = {"resource_type": "TOPIC", "resource_name": "t", "pattern_type": "LITERAL", "principal": "User:a",
           "host": "*", "operation": "READ", "permission": "ALLOW"}
    acls.write_text(json.dumps({"version": 1, "acls": [acl]}))
    done = service.decompile_file(acls, None)
    assert done.refused == [] and 'allow User with name = "a" to READ Topic with name = "t";' in done.text
    acls.write_text(json.dumps({"version": 1, "acls": [acl, dict(acl, host="10.0.0.1")]}))
    refused = service.decompile_file(acls, None)
    assert refused.text is None and len(refused.refused) == 1
    assert refused.refused[0].origin.startswith(str(acls)) and "no hosts" in refused.refused[0].reason
