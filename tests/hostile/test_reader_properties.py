"""Property tests: random bytes, random JSON and damaged valid documents, into every reader.

A reader either returns or raises its documented error (InputError, with a location, for files);
never another exception. The fuzz harness (make fuzz) runs the same readers at scale.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats.strict_input import decode_utf8
from tests.hostile.hostile_catalogue import ACL, REQUEST, TYPES, _record
from tests.hostile.readers import READERS

NAMES = sorted(READERS)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=30,
)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _feed(name: str, text: str) -> None:
    reader, allowed = READERS[name]
    try:
        reader(text)
    except allowed as exc:
        if isinstance(exc, InputError):
            assert exc.path == "fuzz", exc  # every file error names the file


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(data=st.binary(max_size=400))
def test_random_bytes(name, data):
    try:
        text = decode_utf8(data, "fuzz")
    except InputError:
        return
    _feed(name, text)


@pytest.mark.parametrize("name", NAMES)
@FAST
@given(value=json_values, indent=st.none() | st.just(2))
def test_random_json(name, value, indent):
    _feed(name, json.dumps(value, indent=indent))


# Damaged valid documents reach the field checks that random text rarely does.
_SHAPES = {
    "acls-json": lambda v, k: json.dumps({"version": 1, "acls": [dict(ACL, **{k: v})]}),
    "acls-detected": lambda v, k: json.dumps({"version": 1, "acls": [dict(ACL, **{k: v})]}),
    "requests": lambda v, k: json.dumps(dict(REQUEST, **{k: v})),
    "scram-records": lambda v, k: json.dumps(dict(_record(), **{k: v})),
    "types": lambda v, k: json.dumps({"principal_types": [{"short": "A", "class": "a.A", k: v}],
                                      "resource_types": [{"short": "T", "class": "a.T", "operations": ["READ"],
                                                          k: v}],
                                      "default_imports": {k: v}}),
}
_KEYS = {
    "acls-json": list(ACL) + ["comment", "other"],
    "acls-detected": list(ACL),
    "requests": list(REQUEST) + ["api_key", "request", "resource_ref_count", "log_if_allowed", "expect", "x"],
    "scram-records": ["name", "mechanism", "salt", "storedKey", "serverKey", "iterations", "x"],
    "types": ["short", "class", "operations", "implies", "kafka_type", "x"],
}


@pytest.mark.parametrize("name", sorted(_SHAPES))
@FAST
@given(data=st.data())
def test_damaged_valid_documents(name, data):
    key = data.draw(st.sampled_from(_KEYS[name]))
    value = data.draw(json_values | st.sampled_from(["", " ", "*", "READ", "ALL", "User:", ":", "1" * 30]))
    _feed(name, _SHAPES[name](value, key))


def test_the_damage_is_reported_not_swallowed():
    reader, _ = READERS["acls-json"]
    with pytest.raises(InputError, match=r"^fuzz:4:5: acls\[0\]: field 'host' must be a string, got null"):
        reader(json.dumps({"version": 1, "acls": [dict(ACL, host=None)]}, indent=2))
    reader, _ = READERS["types"]
    with pytest.raises(InputError, match=r"^fuzz:1:\d+: principal_types\[0\]\.short must be a string, got a list"):
        reader(json.dumps(dict(TYPES, principal_types=[{"short": [], "class": "a.B"}])))


# The ecosystem formats: a valid file of each, edited at random (a slice replaced by YAML's and HCL's own
# tokens, aliases and anchors among them), reaches their readers' field checks and alias handling.
_ECOSYSTEM_VALID = {
    "strimzi": "strimzi", "ksm-yaml": "ksm-yaml", "julieops": "julieops", "jikkou": "jikkou",
    "kafka-gitops": "kafka-gitops", "terraform": "terraform", "terraform-skip": "terraform",
}
_TOKENS = st.sampled_from(["*a", "&a ", "&a [x, y]", "*b", "{", "}", "[", "]", "- ", ": ", "\n", "\r\n", "\ufeff",
                           "---\n", "null", "~", "9" * 30, "'", '"', "${", "local.a", "var.n", "count = 3\n",
                           "(", ")", "?", "\t", "#", "<<: *a\n", "!!str ", "!!binary "])


@pytest.mark.parametrize("name", sorted(_ECOSYSTEM_VALID))
@FAST
@given(data=st.data())
def test_damaged_ecosystem_documents(name, data):
    from tests.hostile.hostile_ecosystem import VALID

    text = VALID[_ECOSYSTEM_VALID[name]]
    for _ in range(data.draw(st.integers(1, 4))):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, min(len(text), start + 12)))
        text = text[:start] + data.draw(_TOKENS | st.text(max_size=6)) + text[end:]
    _feed(name, text)
