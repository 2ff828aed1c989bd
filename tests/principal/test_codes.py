"""The PM codes of `authz principal --check`: every code's example produces exactly that code."""

import pytest

from kafka_authz_cli.principal import (
    CODES,
    KerberosShortNamer,
    NameInput,
    SslPrincipalMapper,
    check_kerberos,
    check_tls,
)


def run_example(example: dict):
    names = [NameInput(n, "example") for n in example["names"]]
    super_users = set(example.get("super_users", ()))
    if example["kind"] == "tls":
        return check_tls(SslPrincipalMapper.from_rules(example["rules"]), names, super_users)
    namer = KerberosShortNamer.from_rules(example["realm"], example["rules"])
    return check_kerberos(namer, names, super_users)


def test_the_registry_is_pm001_to_pm010_in_order():
    assert list(CODES) == [f"PM{i:03d}" for i in range(1, 11)]
    assert CODES["pm003"] is CODES["PM003"]


@pytest.mark.parametrize("code", list(CODES))
def test_every_example_produces_exactly_its_code(code):
    report = run_example(CODES[code].example)
    assert {f.code for f in report.findings} == {code}, [f.as_dict() for f in report.findings]
    assert all(f.definition is CODES[code] for f in report.findings)


@pytest.mark.parametrize("code", list(CODES))
def test_every_code_explains_itself(code):
    text = CODES.explain(code)
    definition = CODES[code]
    assert text.startswith(f"{code} {definition.name} ({definition.severity}): {definition.summary}\n\n")
    assert len(definition.explanation) > 100
