"""The decision diff is exact: a request decides differently iff its class is reported."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.compare import change_keys, diff, request_class
from kafka_authz_cli.acl.engine import Request, StandardAuthorizer
from kafka_authz_cli.acl.model import (
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)

TYPES = [ResourceType.TOPIC, ResourceType.GROUP]
ALPHABET = ["a", "b", "ab", "*", "-"]
names = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=3).map("".join)
bindings = st.builds(
    AclBinding,
    resource_type=st.sampled_from(TYPES),
    resource_name=names,
    pattern_type=st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
    principal=st.sampled_from(["User:alice", "User:bob", "User:*", "Group:eng"]),
    host=st.sampled_from(["*", "10.0.0.1"]),
    operation=st.sampled_from([AclOperation.READ, AclOperation.DESCRIBE, AclOperation.ALL, AclOperation.DELETE]),
    permission=st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]),
)


@st.composite
def requests(draw):
    rtype = draw(st.sampled_from(TYPES))
    return Request(draw(st.sampled_from(["User:alice", "User:bob", "Group:eng", "User:carol", "User:admin"])),
                   draw(st.sampled_from(["10.0.0.1", "10.0.0.2"])),
                   draw(st.sampled_from(SUPPORTED_OPERATIONS[rtype])), rtype,
                   draw(st.lists(st.sampled_from(ALPHABET + ["c"]), max_size=4).map("".join)))


side = st.builds(BrokerSettings, st.sampled_from(["", "User:admin"]), st.booleans())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=st.lists(bindings, max_size=8), new=st.lists(bindings, max_size=8), old_s=side, new_s=side,
       reqs=st.lists(requests(), min_size=1, max_size=20))
def test_request_differs_iff_its_class_is_reported(old, new, old_s, new_s, reqs):
    result = diff(old, new, old_s, new_s)
    reported = change_keys(result)
    a, b = StandardAuthorizer(old, old_s), StandardAuthorizer(new, new_s)
    for r in reqs:
        differs = a.authorize(r).outcome != b.authorize(r).outcome
        assert differs == (request_class(r, old, new, old_s, new_s) in reported), (r, result.changes)


@settings(max_examples=100, deadline=None)
@given(acls=st.lists(bindings, max_size=10))
def test_a_set_is_equivalent_to_itself_and_its_shuffle(acls):
    s = BrokerSettings()
    assert diff(acls, list(reversed(acls)), s, s).verdict == "equivalent"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.lists(bindings, max_size=10), removed=st.lists(st.integers(0, 9), max_size=2),
       added=st.lists(bindings, max_size=2), settings_=side, reqs=st.lists(requests(), min_size=1, max_size=20))
def test_small_changes_with_the_same_settings_are_reported_exactly(base, removed, added, settings_, reqs):
    """The skips for untouched names and unnamed principals (same settings on both sides) stay exact."""
    new = [b for i, b in enumerate(base) if i not in removed] + added
    result = diff(base, new, settings_, settings_)
    reported = change_keys(result)
    a, b = StandardAuthorizer(base, settings_), StandardAuthorizer(new, settings_)
    for r in reqs:
        differs = a.authorize(r).outcome != b.authorize(r).outcome
        assert differs == (request_class(r, base, new, settings_, settings_) in reported), (r, result.changes)
