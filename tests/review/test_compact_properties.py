"""`compact` keeps every decision: the exact decision diff of input and output is empty (or, with known
names, holds only requests on names outside them under a merged prefix), checked against the engine."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.compare import diff
from kafka_authz_cli.acl.engine import Request, StandardAuthorizer
from kafka_authz_cli.acl.model import (
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from kafka_authz_cli.review import compact_acls as compact
from kafka_authz_cli.services.compact import widened_by_merge

TYPES = [ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID]
ALPHABET = ["a", "b", "ab", "*", "-", "("]
names = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=3).map("".join)
PRINCIPALS = ["User:alice", "User:bob", "User:*", "Group:eng", "User:admin"]
HOSTS = ["*", "10.0.0.1", "10.0.0.2", "localhost", "::1"]
OPS = [AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.ALL, AclOperation.DELETE,
       AclOperation.ALTER_CONFIGS, AclOperation.DESCRIBE_CONFIGS]


@st.composite
def binding(draw):
    rtype = draw(st.sampled_from(TYPES))
    ops = [o for o in OPS if o is AclOperation.ALL or o in SUPPORTED_OPERATIONS[rtype]]
    return AclBinding(rtype, draw(names), draw(st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED])),
                      draw(st.sampled_from(PRINCIPALS)), draw(st.sampled_from(HOSTS)), draw(st.sampled_from(ops)),
                      draw(st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.ALLOW, AclPermissionType.DENY])))


@st.composite
def acl_sets(draw):
    """Sets with duplicates and overlaps: some bindings repeated, some re-drawn with a broader field."""
    base = draw(st.lists(binding(), max_size=14))
    out = list(base)
    for b in base:
        choice = draw(st.integers(0, 6))
        if choice == 0:
            out.append(b)  # a duplicate
        elif choice == 1:
            out.append(AclBinding(b.resource_type, b.resource_name[:1], PatternType.PREFIXED, b.principal, b.host,
                                  b.operation, b.permission))  # a prefix over it
        elif choice == 2:
            out.append(AclBinding(b.resource_type, b.resource_name, b.pattern_type, "User:*", "*",
                                  b.operation, b.permission))  # everyone, every host
        elif choice == 3:
            out.append(AclBinding(b.resource_type, b.resource_name, b.pattern_type, b.principal, b.host,
                                  AclOperation.ALL, AclPermissionType.DENY))  # denied whatever it allows
    return draw(st.permutations(out))


@st.composite
def requests(draw):
    rtype = draw(st.sampled_from(TYPES))
    return Request(draw(st.sampled_from(PRINCIPALS + ["User:carol", "Group:ops"])),
                   draw(st.sampled_from(["10.0.0.1", "10.0.0.2", "10.9.9.9", "0:0:0:0:0:0:0:1"])),
                   draw(st.sampled_from(SUPPORTED_OPERATIONS[rtype])), rtype,
                   draw(st.lists(st.sampled_from(ALPHABET + ["c"]), max_size=4).map("".join)))


broker = st.builds(BrokerSettings, st.sampled_from(["", "User:admin", "User:admin;Group:eng", "User:*"]), st.booleans())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=acl_sets(), config=broker, reqs=st.lists(requests(), min_size=1, max_size=25))
def test_the_compacted_set_decides_every_request_alike(acls, config, reqs):
    result = compact(acls, config)
    assert result.after <= result.before == len(acls)
    assert result.after + len(result.removals) == len(acls)
    assert diff(acls, result.bindings, config, config).verdict == "equivalent"
    output = set(result.bindings)
    assert all(b in output for r in result.removals for b in r.by), "each removal names ACLs that are kept"
    a, b = StandardAuthorizer(acls, config), StandardAuthorizer(result.bindings, config)
    for r in reqs:
        assert a.authorize(r).outcome == b.authorize(r).outcome, r


def test_the_generator_makes_sets_that_compact():
    """The property above is not vacuous: its sets have duplicates, shadowed and moot ACLs to remove."""
    reasons: set[str] = set()

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(acls=acl_sets(), config=broker)
    def collect(acls, config):
        for r in compact(acls, config).removals:
            reasons.add(r.reason)

    collect()
    assert {"duplicate", "shadowed", "denied", "super_user", "unmatchable_host"} <= reasons


known_names = st.sets(st.tuples(st.sampled_from(["a-", "b-", "ab", "*x"]), st.sampled_from(["1", "2", "3", ""]))
                      .map("".join), max_size=8)


@st.composite
def mergeable(draw):
    """Literal ALLOWs of one principal over known names, with other ACLs around them."""
    known = set(draw(known_names))
    acls = draw(acl_sets())
    principal = draw(st.sampled_from(PRINCIPALS[:4]))
    op = draw(st.sampled_from([AclOperation.READ, AclOperation.DESCRIBE, AclOperation.ALL]))
    for n in sorted(known):
        if draw(st.integers(0, 4)):
            acls.append(AclBinding(ResourceType.TOPIC, n, PatternType.LITERAL, principal, "*", op,
                                   AclPermissionType.ALLOW))
    return acls, known


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mergeable(), config=broker, reqs=st.lists(requests(), min_size=1, max_size=25))
def test_with_names_only_names_outside_them_under_a_merged_prefix_change(case, config, reqs):
    acls, known = case
    result = compact(acls, config, {ResourceType.TOPIC: known} if known else None)
    assert result.after <= len(acls)
    proof = diff(acls, result.bindings, config, config)
    assert all(widened_by_merge(c.witness, result) for c in proof.changes), proof.changes
    if not result.merges:
        assert proof.verdict == "equivalent"
    a, b = StandardAuthorizer(acls, config), StandardAuthorizer(result.bindings, config)
    for r in reqs:
        if a.authorize(r).outcome != b.authorize(r).outcome:
            assert widened_by_merge(r, result), r
    for n in known:  # every known name decides alike, for every principal and operation tried
        for r in reqs:
            same = Request(r.principal, r.host, r.operation, ResourceType.TOPIC, n)
            if r.operation in SUPPORTED_OPERATIONS[ResourceType.TOPIC]:
                assert a.authorize(same).outcome == b.authorize(same).outcome, same
