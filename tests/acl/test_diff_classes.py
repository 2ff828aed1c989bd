"""The per-principal request classes of the decision diff: exact, and the same answer as the product.

Sets are drawn rich in what breaks class-building: host-specific ACLs on ``*`` and on prefixes,
``User:*``, DENY from some hosts only, super users, allow.everyone.if.no.acl.found on either side,
operations implied by others, names starting with ``*``, hosts Kafka never matches, and (in the
exactness test) names sorting below ``*`` (Kafka's wildcard re-scan quirk) and ACL principals without
``:``. Not drawn: ACLs with an empty name on a type whose names sort below ``*`` (CreateAcls refuses an
empty name; the name classes of :mod:`kafka_authz_cli.acl.names` are not fine enough for the walk there,
as before the classes were per principal).
"""

from collections import Counter

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl import classes as classes_module
from kafka_authz_cli.acl.classes import FRESH_HOST, RequestClasses, deciding_acl, has_bad_principal
from kafka_authz_cli.acl.compare import change_keys, diff, request_class
from kafka_authz_cli.acl.engine import Request, StandardAuthorizer
from kafka_authz_cli.acl.matching import principal_key
from kafka_authz_cli.acl.model import (
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from tests.acl.diff_reference import reference_diff

TYPES = [ResourceType.TOPIC, ResourceType.GROUP]
PLAIN = ["a", "b", "ab", "*", "-", "*a"]
QUIRKY = PLAIN + ["(", " x"]
HOSTS = ["*", "*", "10.0.0.1", "10.0.0.2", "::1", "0:0:0:0:0:0:0:1"]
PRINCIPALS = ["User:alice", "User:bob", "User:*", "User:*", "Group:eng", "User:admin"]
OPS = [AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.ALL, AclOperation.DELETE,
       AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]


def bindings(alphabet, principals=PRINCIPALS):
    names = st.lists(st.sampled_from(alphabet), min_size=1, max_size=3).map("".join)
    return st.builds(AclBinding, resource_type=st.sampled_from(TYPES), resource_name=names,
                     pattern_type=st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
                     principal=st.sampled_from(principals), host=st.sampled_from(HOSTS), operation=st.sampled_from(OPS),
                     permission=st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))


plain_bindings = bindings(PLAIN)
side = st.builds(BrokerSettings, st.sampled_from(["", "User:admin", "User:bob"]), st.booleans())


@st.composite
def requests(draw, alphabet=PLAIN):
    rtype = draw(st.sampled_from(TYPES))
    return Request(draw(st.sampled_from(["User:alice", "User:bob", "Group:eng", "User:carol", "User:admin", "User:*"])),
                   draw(st.sampled_from(["10.0.0.1", "10.0.0.2", "10.0.0.3", "::1"])),
                   draw(st.sampled_from(SUPPORTED_OPERATIONS[rtype])), rtype,
                   draw(st.lists(st.sampled_from(alphabet + ["c"]), max_size=4).map("".join)))


def mismatches(old, new, old_s, new_s, reqs) -> list:
    """The requests whose "decides differently" disagrees with "its class is reported"."""
    result = diff(old, new, old_s, new_s)
    reported = change_keys(result)
    a, b = StandardAuthorizer(old, old_s), StandardAuthorizer(new, new_s)
    out = []
    for r in reqs:
        da, db = a.authorize(r), b.authorize(r)
        differs = (da.decision or da.outcome.value) != (db.decision or db.outcome.value)
        if differs != (request_class(r, old, new, old_s, new_s) in reported):
            out.append(r)
    return out


def _finding_key(f) -> tuple:
    return (f.direction, f.describe(), f.principal, f.resource_type, f.name_class, tuple(f.operations),
            tuple(f.excluded_hosts), f.hosts == ["*"], FRESH_HOST in f.hosts)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=st.lists(plain_bindings, max_size=9), new=st.lists(plain_bindings, max_size=9), old_s=side, new_s=side)
def test_the_same_findings_counts_and_verdict_as_the_product_of_every_principal_and_host(old, new, old_s, new_s):
    result = diff(old, new, old_s, new_s)
    _changes, findings, verdict, gained, lost = reference_diff(old, new, old_s, new_s)
    assert (result.verdict, result.gained, result.lost) == (verdict, gained, lost)
    assert Counter(map(_finding_key, result.findings)) == Counter(map(_finding_key, findings))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.lists(plain_bindings, max_size=10), removed=st.lists(st.integers(0, 9), max_size=3),
       added=st.lists(plain_bindings, max_size=3), settings_=side)
def test_small_changes_give_the_product_answer(base, removed, added, settings_):
    """Same settings on both sides: the walk visits only what the changed bindings reach."""
    new = [b for i, b in enumerate(base) if i not in removed] + added
    result = diff(base, new, settings_, settings_)
    _changes, findings, verdict, gained, lost = reference_diff(base, new, settings_, settings_)
    assert (result.verdict, result.gained, result.lost) == (verdict, gained, lost)
    assert Counter(map(_finding_key, result.findings)) == Counter(map(_finding_key, findings))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=st.lists(plain_bindings, max_size=9), new=st.lists(plain_bindings, max_size=9), old_s=side, new_s=side)
def test_each_finding_names_what_decides_its_witness_on_each_side(old, new, old_s, new_s):
    a, b = StandardAuthorizer(old, old_s), StandardAuthorizer(new, new_s)
    for f in diff(old, new, old_s, new_s).findings:
        da, db = a.authorize(f.witness), b.authorize(f.witness)
        assert (da.rule or da.error, da.acl, db.rule or db.error, db.acl) == (f.old_rule, f.old_acl, f.new_rule,
                                                                               f.new_acl)


quirky_bindings = bindings(QUIRKY, PRINCIPALS + ["nocolon"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=st.lists(quirky_bindings, max_size=8), new=st.lists(quirky_bindings, max_size=8), old_s=side, new_s=side,
       reqs=st.lists(requests(QUIRKY), min_size=1, max_size=25))
@example(old=[AclBinding.of("GROUP", "(b", "LITERAL", "User:a", "*", "READ", "ALLOW")], new=[],
         old_s=BrokerSettings(),
         new_s=BrokerSettings(),
         reqs=[Request("User:a", "10.0.0.1", AclOperation.READ, ResourceType.GROUP, "(a")])
def test_a_request_decides_differently_iff_its_class_is_reported_quirks_included(old, new, old_s, new_s, reqs):
    assert not mismatches(old, new, old_s, new_s, reqs)


@settings(max_examples=300, deadline=None)
@given(acls=st.lists(plain_bindings, max_size=12), allow=st.booleans(), reqs=st.lists(requests(), min_size=1,
                                                                                      max_size=25))
def test_a_view_decides_as_the_engine(acls, allow, reqs):
    """The decision over a principal's view is the engine's: outcome, rule and deciding ACL."""
    engine = StandardAuthorizer(acls, BrokerSettings(allow_everyone_if_no_acl_found=allow))
    classes = RequestClasses()
    for r in reqs:
        plan = engine.candidate_buckets(r.resource_type, r.resource_name)
        if plan is None or has_bad_principal(plan):
            continue
        view, where = classes.view(plan, principal_key(r.principal))
        address = "0:0:0:0:0:0:0:1" if r.host == "::1" else r.host
        host = address if address in classes.hosts(view) else None
        decided = classes.decide(view, host, r.operation, allow)
        expected = engine.authorize(r)
        acl = deciding_acl(where, decided)
        assert (decided.label, decided.rule if acl is None else expected.rule, acl) == \
            (expected.decision, expected.rule, expected.acl), r


def test_two_hosts_merged_that_differ_are_caught(monkeypatch):
    """The exactness check fails when the classes merge two hosts one principal's ACLs tell apart."""
    old = [AclBinding.of("TOPIC", "*", "LITERAL", "User:alice", "10.0.0.1", "READ", "ALLOW")]
    new = []
    settings_ = BrokerSettings()
    reqs = [Request("User:alice", h, AclOperation.READ, ResourceType.TOPIC, "t") for h in ("10.0.0.1", "10.0.0.2")]
    assert not mismatches(old, new, settings_, settings_, reqs)
    monkeypatch.setattr(classes_module.RequestClasses, "hosts", lambda self, view: ())
    assert mismatches(old, new, settings_, settings_, reqs)


def test_a_host_other_principals_name_is_not_a_class_of_this_one():
    """alice's allow-list host is not bob's class: bob's change is one class, "any host"."""
    base = [AclBinding.of("TOPIC", "*", "LITERAL", f"User:svc{i}", f"10.0.0.{i}", "DESCRIBE", "ALLOW")
            for i in range(1, 200)]
    new = base + [AclBinding.of("TOPIC", "orders", "LITERAL", "User:bob", "*", "READ", "ALLOW")]
    settings_ = BrokerSettings()
    result = diff(base, new, settings_, settings_)
    assert result.classes_examined == 2  # bob on `orders`, READ and DESCRIBE, from any host
    assert [f.describe() for f in result.findings] == ["User:bob can now READ/DESCRIBE topic `orders`"]
    assert result.gained == 2 * 200  # as counted before: every host any candidate names, and any other
