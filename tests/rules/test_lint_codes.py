"""The lint codes' registry (rules/codes.py): every code's example produces that code and no other."""

import pytest

from kafka_authz_cli.codes import SEVERITIES, FindingCode
from kafka_authz_cli.rules.codes import CODES, LintExample, explain
from kafka_authz_cli.rules.lint import lint_text
from kafka_authz_cli.rules.types import TypeRegistry
from kafka_authz_cli.services import rules as service


@pytest.mark.parametrize("code", list(CODES))
def test_every_code_s_example_produces_exactly_that_code(code, tmp_path, monkeypatch):
    example = CODES[code].example
    assert isinstance(example, LintExample)
    registry = TypeRegistry().load(example.types) if example.types is not None else None
    if example.config is not None:  # where the rules come from: a proxy configuration, linted as a file
        monkeypatch.chdir(tmp_path)
        (tmp_path / "proxy.yaml").write_text(example.config)
        [result] = service.lint_paths([tmp_path / "proxy.yaml"], None).results
    else:
        result = lint_text(example.rules, f"{code}.acl", registry)
    assert {f.code for f in result.findings} == {code, *example.also}, result.findings
    assert all(f.severity == CODES[code].severity and f.name == CODES[code].name
               for f in result.findings if f.code == code)


def test_only_a_code_that_cannot_come_alone_names_companions():
    # AZ105 is about principal prefixes, which are always AZ109 (no Kafka equivalent) as well.
    # AZ113 (a relative aclFile) is reported with AZ112 when the file is not found either.
    assert {c: CODES[c].example.also for c in CODES if CODES[c].example.also} == {"AZ105": ("AZ109",),
                                                                                 "AZ113": ("AZ112",)}


def test_the_registry_is_the_codes_of_lint_in_order():
    assert list(CODES) == ["AZ001", "AZ002", "AZ003", "AZ004"] + [f"AZ1{n:02}" for n in range(1, 14)]
    assert all(isinstance(c, FindingCode) and c.severity in SEVERITIES for c in CODES.values())
    assert [c.severity for c in CODES.values()][:4] == ["error"] * 4  # AZ0xx: the proxy refuses the file
    assert "error" not in {c.severity for c in list(CODES.values())[4:]}


def test_explain_is_the_text_then_the_example_indented():
    text = explain("az109")
    head, example = text.split("\nExample:\n")
    assert head == CODES["AZ109"].explain()
    assert example.splitlines() == ["    " + line for line in CODES["AZ109"].example.rules.splitlines()]
    assert '"class": "com.example.ServiceAccount"' in explain("AZ105")
    with pytest.raises(KeyError):
        explain("AZ999")
