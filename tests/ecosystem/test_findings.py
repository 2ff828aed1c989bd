"""The ecosystem formats' coded findings (EA codes): one registry, and each code's example produces
exactly that code and no other when read by its format."""

from __future__ import annotations

import pytest

from kafka_authz_cli.ecosystem import FORMATS
from kafka_authz_cli.ecosystem.findings import BY_FORMAT, CODES

EXAMPLES = [(fmt, code) for fmt, codes in BY_FORMAT.items() for code in codes]


def test_every_format_has_its_own_range():
    for fmt, codes in BY_FORMAT.items():
        assert fmt in FORMATS
        assert len({c.code[:3] for c in codes}) == 1, f"{fmt}: codes of one format share a range"
    assert len({codes[0].code[:3] for codes in BY_FORMAT.values()}) == len(BY_FORMAT)


@pytest.mark.parametrize("fmt,code", EXAMPLES, ids=[c.code for _, c in EXAMPLES])
def test_each_example_produces_exactly_its_code(fmt, code, tmp_path):
    example = code.example
    text, options = (example, {}) if isinstance(example, str) else example
    acl_set = FORMATS[fmt].read(text, str(tmp_path / "example"), options)
    assert [f.code for f in acl_set.findings] == [code.code]
    [finding] = acl_set.findings
    assert finding.severity == code.severity == CODES[code.code].severity and finding.name == code.name
    # the commands that read ACLs say it as a warning starting with the code
    assert any(w.split(": ", 1)[-1].startswith(code.code + " ") for w in acl_set.warnings), acl_set.warnings
