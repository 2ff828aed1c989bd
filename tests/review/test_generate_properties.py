"""authz generate against the engine, on random traffic: a random "true" ACL set decides random
requests (names sharing prefixes, hosts, DENYs, implied operations), which is what the audit log shows;
the generated set must allow every allowed request and deny every denied one, and with widening none
(or names, over the known names) allow nothing the window did not show, beyond implied operations and
(without --keep-hosts) other hosts."""

from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import (
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclOperation,
    AclPermissionType,
    BrokerSettings,
    PatternType,
    Request,
    ResourceType,
    StandardAuthorizer,
)
from kafka_authz_cli.review.generate import GenerateOptions, least_privilege, prove
from kafka_authz_cli.whatif import Aggregate

PRINCIPALS = ["User:a", "User:b"]
HOSTS = ["10.0.0.1", "10.0.0.2"]
NAMES = ["orders-eu-1", "orders-eu-2", "orders-eu-3", "orders-us-1", "orders", "pay.x", "pay.y", "a-b-c", "a-b",
         "a-c"]
PREFIXES = ["orders-", "orders-eu-", "pay.", "a-", "a-b", "o"]
TYPES = [ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID, ResourceType.CLUSTER]
#: A few operations per type, so that random traffic often meets the same ACLs (implied ones included).
OPS = {ResourceType.TOPIC: [AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.ALTER_CONFIGS,
                            AclOperation.DESCRIBE_CONFIGS],
       ResourceType.GROUP: [AclOperation.READ, AclOperation.DESCRIBE],
       ResourceType.TRANSACTIONAL_ID: [AclOperation.WRITE, AclOperation.DESCRIBE],
       ResourceType.CLUSTER: [AclOperation.IDEMPOTENT_WRITE, AclOperation.DESCRIBE]}
TYPE_WEIGHTS = [ResourceType.TOPIC] * 4 + TYPES
FRESH_NAMES = ["orders-eu-9", "fresh", "pay.z", "a-b-d"]
FRESH_HOST = "10.9.9.9"


@st.composite
def bindings(draw):
    rtype = draw(st.sampled_from(TYPE_WEIGHTS))
    if rtype is ResourceType.CLUSTER:
        name, pattern = CLUSTER_NAME, PatternType.LITERAL
    else:
        pattern = draw(st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]))
        name = draw(st.sampled_from(NAMES if pattern is PatternType.LITERAL else PREFIXES))
    permission = draw(st.sampled_from([AclPermissionType.ALLOW] * 4 + [AclPermissionType.DENY]))
    ops = OPS[rtype] + [AclOperation.ALL]
    if permission is AclPermissionType.DENY:  # a DENY on DESCRIBE next to an ALLOW READ: only a DENY keeps it
        ops = [op for op in ops if op in (AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS)] * 3 + ops
    op = draw(st.sampled_from(ops))
    return AclBinding(rtype, name, pattern, draw(st.sampled_from(PRINCIPALS)),
                      draw(st.sampled_from(["*", "*"] + HOSTS)), op, permission)


@st.composite
def requests(draw):
    """Every operation of OPS from every host on one (principal, resource): hosts and implied operations meet."""
    rtype = draw(st.sampled_from(TYPE_WEIGHTS))
    name = CLUSTER_NAME if rtype is ResourceType.CLUSTER else draw(st.sampled_from(NAMES))
    principal = draw(st.sampled_from(PRINCIPALS))
    return [(principal, host, op.name, rtype.name, name) for host in HOSTS for op in OPS[rtype]]


@st.composite
def windows(draw):
    """(the true ACL set, the window's aggregates as the engine decided them)."""
    truth = draw(st.lists(bindings(), min_size=4, max_size=16))
    keys = list(dict.fromkeys(k for cell in draw(st.lists(requests(), min_size=3, max_size=12)) for k in cell))
    authz = StandardAuthorizer(truth)
    aggs = {}
    for k in keys:
        ok = decide(authz, k)
        aggs[k] = Aggregate(count=1, visible=1, allowed=int(ok), denied=int(not ok))
    return truth, aggs


@st.composite
def labelled_windows(draw):
    """(None, aggregates) with each request allowed or denied at random: every labelling can be met
    exactly (a denied DESCRIBE next to an allowed READ by a DENY), so the same properties hold."""
    keys = list(dict.fromkeys(k for cell in draw(st.lists(requests(), min_size=3, max_size=12)) for k in cell))
    labels = draw(st.lists(st.sampled_from([True, True, False]), min_size=len(keys), max_size=len(keys)))
    return None, {k: Aggregate(count=1, visible=1, allowed=int(ok), denied=int(not ok)) for k, ok in zip(keys, labels)}


def traffic():
    return st.one_of(windows(), labelled_windows())


def decide(authz, key) -> bool:
    principal, host, op, rtype, name = key
    return authz.authorize(Request(principal, host, AclOperation[op], ResourceType[rtype], name)).outcome.value == "ALLOWED"


def check_exact(aggs, generated):
    authz = StandardAuthorizer(generated.bindings)
    for key, agg in aggs.items():
        assert decide(authz, key) == bool(agg.allowed), (key, agg.logged, generated.bindings)
    report = prove(aggs, generated.bindings, BrokerSettings())
    assert not report.newly_denied and not report.newly_allowed


def observed_or_implied(aggs, keep_hosts: bool):
    """The (principal, host or None, operation, type, name) a window justifies."""
    ok = set()
    for (principal, host, op, rtype, name), agg in aggs.items():
        if not agg.allowed:
            continue
        h = host if keep_hosts else None
        ok.add((principal, h, op, rtype, name))
        if op in ("READ", "WRITE", "DELETE", "ALTER"):
            ok.add((principal, h, "DESCRIBE", rtype, name))
        if op == "ALTER_CONFIGS":
            ok.add((principal, h, "DESCRIBE_CONFIGS", rtype, name))
    return ok


def check_no_widening(aggs, generated, keep_hosts: bool, names_of=lambda rtype: NAMES + FRESH_NAMES):
    authz = StandardAuthorizer(generated.bindings)
    justified = observed_or_implied(aggs, keep_hosts)
    principals = {k[0] for k in aggs}
    for principal in principals:
        for host in HOSTS + [FRESH_HOST]:
            for rtype in TYPES:
                names = [CLUSTER_NAME] if rtype is ResourceType.CLUSTER else names_of(rtype)
                for op in SUPPORTED_OPERATIONS[rtype]:
                    for name in names:
                        key = (principal, host, op.name, rtype.name, name)
                        if decide(authz, key):
                            assert (principal, host if keep_hosts else None, op.name, rtype.name, name) in justified, key


@settings(max_examples=150)
@given(traffic(), st.sampled_from(["none", "any"]), st.booleans(), st.integers(1, 3))
def test_the_generated_set_decides_the_window_as_logged(window, mode, keep_hosts, min_names):
    _, aggs = window
    check_exact(aggs, least_privilege(aggs, GenerateOptions(mode, keep_hosts=keep_hosts, min_names=min_names)))


@settings(max_examples=100)
@given(traffic(), st.booleans())
def test_widening_none_allows_nothing_beyond_the_observed(window, keep_hosts):
    _, aggs = window
    generated = least_privilege(aggs, GenerateOptions("none", keep_hosts=keep_hosts))
    check_exact(aggs, generated)
    check_no_widening(aggs, generated, keep_hosts)


@settings(max_examples=100)
@given(traffic(), st.lists(st.sampled_from(NAMES + FRESH_NAMES), unique=True), st.booleans())
def test_widening_names_allows_no_known_name_beyond_the_observed(window, extra, keep_hosts):
    _, aggs = window
    # the known names: every name the window touched, and some more
    known = {rtype: {k[4] for k in aggs if k[3] == rtype.name} | set(extra) for rtype in TYPES[:3]}
    generated = least_privilege(aggs, GenerateOptions("names", known, keep_hosts=keep_hosts, min_names=1))
    check_exact(aggs, generated)
    check_no_widening(aggs, generated, keep_hosts, names_of=lambda rtype: sorted(known[rtype]))
    for p in generated.prefixes:
        assert p.newly_covered == []


@settings(max_examples=100)
@given(traffic())
def test_any_reports_every_known_name_a_prefix_newly_covers(window):
    _, aggs = window
    known = {rtype: set(NAMES + FRESH_NAMES) for rtype in TYPES[:3]}
    generated = least_privilege(aggs, GenerateOptions("any", known, min_names=1))
    check_exact(aggs, generated)
    for p in generated.prefixes:
        observed = {k[4] for k, a in aggs.items() if a.allowed and k[0] == p.principal and k[2] == p.operation
                    and k[3] == p.resource_type}
        assert set(p.observed) <= observed and p.prefix and all(n.startswith(p.prefix) for n in p.observed)
        assert p.newly_covered == sorted(n for n in known[ResourceType[p.resource_type]]
                                         if n.startswith(p.prefix) and n not in observed)
