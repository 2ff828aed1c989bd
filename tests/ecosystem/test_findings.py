"""The ecosystem formats' coded findings (EA codes): one registry, and each code's example produces
exactly that code and no other when read by its format."""

from __future__ import annotations

import pytest

from kafka_authz_cli.acl import FORMATS
from kafka_authz_cli.ecosystem.findings import BY_FORMAT, CODES

EXAMPLES = [(fmt, code) for fmt, codes in BY_FORMAT.items() for code in codes]
#: a JulieOps roles file whose one role is a DENY (EA403)
JULIE_ROLES = ('roles:\n  - name: "app"\n    acls:\n      - resourceType: "Topic"\n        resourceName: "{{topic}}"\n'
               '        patternType: "PREFIXED"\n        host: "10.0.0.1"\n        operation: "ALL"\n'
               '        permissionType: "DENY"\n')


def _example(fmt: str, code, tmp_path):
    """``(text, path, options)`` that read the code's example as its explanation says: some need an
    option (a JulieOps setting, a roles or topics file) or a second file."""
    example = code.example
    if isinstance(example, dict):  # several files, the first one read
        for name, text in example.items():
            (tmp_path / name).write_text(text)
        name, text = next(iter(example.items()))
        return text, str(tmp_path / name), {}
    options = {}
    if code.code == "EA403":
        (tmp_path / "roles.yaml").write_text(JULIE_ROLES)
        options = {"julie.roles": str(tmp_path / "roles.yaml")}
    elif code.code == "EA405":
        options = {"topology.connector.allow.topic.create": "false"}
    elif code.code == "EA407":
        options = {"topology.acls.optimized": "true"}
    elif code.code == "EA504":
        options = {"unevaluated": "skip"}
    elif code.code == "EA601":
        from kafka_authz_cli.ecosystem.jikkou.reader import EXAMPLE_TOPICS

        (tmp_path / "topics.txt").write_text("\n".join(EXAMPLE_TOPICS) + "\n")
        options = {"topics": str(tmp_path / "topics.txt")}
    suffix = ".tf" if fmt == "terraform" else ".yaml"
    return example, str(tmp_path / f"example{suffix}"), options


def test_every_format_has_its_own_range():
    for fmt, codes in BY_FORMAT.items():
        assert fmt in FORMATS
        assert len({c.code[:3] for c in codes}) == 1, f"{fmt}: codes of one format share a range"
    assert len({codes[0].code[:3] for codes in BY_FORMAT.values()}) == len(BY_FORMAT)


@pytest.mark.parametrize("fmt,code", EXAMPLES, ids=[c.code for _, c in EXAMPLES])
def test_each_example_produces_exactly_its_code(fmt, code, tmp_path):
    text, path, options = _example(fmt, code, tmp_path)
    acl_set = FORMATS[fmt].read(text, path, options)
    assert [f.code for f in acl_set.findings] == [code.code]
    [finding] = acl_set.findings
    assert finding.severity == code.severity == CODES[code.code].severity and finding.name == code.name
    # the commands that read ACLs say it as a warning starting with the code
    assert any(f"{code.code} " in w for w in acl_set.warnings), acl_set.warnings
