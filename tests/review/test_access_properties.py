"""`authz access` is exact: a request is allowed iff an entry of the answer covers it.

Checked against the engine (what `authz simulate` decides) on random ACL sets, for principals and
hosts the answer lists and those it does not: a principal of the set, `User:*`, an unknown one, a
host no ACL names. The names include the engine's odd corners (`*`-leading names, names below `*`,
an empty name) so that both the bucket summaries and the per-class engine path are exercised.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import BrokerSettings, StandardAuthorizer
from kafka_authz_cli.acl.decision import Request
from kafka_authz_cli.acl.model import (
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from kafka_authz_cli.review.access import AccessReview, covered

TYPES = [ResourceType.TOPIC, ResourceType.CLUSTER, ResourceType.GROUP]
ALPHABET = ["a", "b", "*"]
names = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=2).map("".join)
PRINCIPALS = ["User:alice", "User:bob", "User:*", "Group:eng"]
HOSTS = ["*", "*", "10.0.0.1", "10.0.0.2", "host.example"]
OPS = [AclOperation.READ, AclOperation.DESCRIBE, AclOperation.ALL, AclOperation.WRITE, AclOperation.ALTER_CONFIGS,
       AclOperation.IDEMPOTENT_WRITE]


def _binding(rtype, name, pattern, principal, host, op, perm):
    if rtype is ResourceType.CLUSTER:
        name, pattern = "kafka-cluster", PatternType.LITERAL
    return AclBinding(rtype, name, pattern, principal, host, op, perm)


bindings = st.builds(
    _binding, st.sampled_from(TYPES), names, st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
    st.sampled_from(PRINCIPALS), st.sampled_from(HOSTS), st.sampled_from(OPS),
    st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))
odd_bindings = st.builds(
    _binding, st.sampled_from(TYPES), st.sampled_from(["", "!x", "*a", "a"]),
    st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
    st.sampled_from(PRINCIPALS + ["nocolon"]), st.sampled_from(HOSTS), st.sampled_from(OPS),
    st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))
settings_ = st.builds(BrokerSettings, st.sampled_from(["", "User:admin", "User:alice"]), st.booleans())
#: Listed or not: principals of the set, User:* itself, a super user, principals no ACL names.
REQUEST_PRINCIPALS = ["User:alice", "User:bob", "Group:eng", "User:*", "User:admin", "User:carol", "Group:alice"]
REQUEST_HOSTS = ["10.0.0.1", "10.0.0.2", "10.9.9.9"]
QUERY_NAMES = ["a", "ab", "abc", "b", "-", "*", "*a", "!x", "zz", "a*", ""]


def _check(acls, config, rtype, name):
    engine = StandardAuthorizer(acls, config)
    answer = AccessReview(engine).resource(rtype, name)
    for op in SUPPORTED_OPERATIONS[rtype]:
        for principal in REQUEST_PRINCIPALS:
            for host in REQUEST_HOSTS:
                decision = engine.authorize(Request(principal, host, op, rtype, name))
                listed = covered(answer.grants, principal, host, op)
                assert listed == (decision.outcome.name == "ALLOWED"), (
                    principal, host, op, name, decision.explain(), answer.grants)
    return answer


def _queries(acls):
    """Every resource type, at the ACLs' own names, names extending them and names no ACL names."""
    for rtype in TYPES:
        if rtype is ResourceType.CLUSTER:
            yield rtype, "kafka-cluster"
            continue
        own = {a.resource_name for a in acls if a.resource_type is rtype}
        for name in sorted(own | {n + "x" for n in own} | set(QUERY_NAMES)):
            yield rtype, name


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=st.lists(bindings, min_size=2, max_size=12), config=settings_)
def test_listed_iff_allowed(acls, config):
    for rtype, name in _queries(acls):
        _check(acls, config, rtype, name)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=st.lists(st.one_of(bindings, odd_bindings), max_size=10), config=settings_)
def test_listed_iff_allowed_where_only_kafkas_walk_decides(acls, config):
    for rtype, name in _queries(acls):
        _check(acls, config, rtype, name)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=st.lists(bindings, max_size=12), config=settings_, rtype=st.sampled_from(TYPES[:2]),
       name=st.sampled_from(QUERY_NAMES))
def test_every_entry_names_an_acl_that_grants_it(acls, config, rtype, name):
    """The ACL named in `via` is an ALLOW on this resource that matches the entry's principal/host."""
    engine = StandardAuthorizer(acls, config)
    for g in AccessReview(engine).resource(rtype, name).grants:
        if g.reason in ("super_user", "default_allow"):
            assert g.acl is None
            continue
        acl = g.acl
        assert acl is not None and acl.permission is AclPermissionType.ALLOW, g
        assert acl.principal in (g.principal, "User:*") and acl.host in (g.host, "*"), g
        assert g.implied == (acl.operation not in (g.operation, AclOperation.ALL))


@st.composite
def narrowed_grants(draw):
    """A broad ALLOW (User:* or a prefixed or `*` resource) narrowed by DENYs and other grants: the
    shapes whose answer needs `except` lists."""
    rtype = draw(st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP]))
    broad = _binding(rtype, draw(st.sampled_from(["a", "*"])),
                     draw(st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED])),
                     draw(st.sampled_from(["User:*", "User:*", "User:alice"])), draw(st.sampled_from(["*", "10.0.0.1"])),
                     draw(st.sampled_from([AclOperation.READ, AclOperation.ALL])), AclPermissionType.ALLOW)
    others = draw(st.lists(st.builds(
        _binding, st.just(rtype), st.sampled_from(["a", "ab", "*"]),
        st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
        st.sampled_from(["User:alice", "User:bob", "User:*"]), st.sampled_from(["*", "10.0.0.1", "10.0.0.2"]),
        st.sampled_from([AclOperation.READ, AclOperation.DESCRIBE, AclOperation.ALL, AclOperation.WRITE]),
        st.sampled_from([AclPermissionType.DENY, AclPermissionType.DENY, AclPermissionType.ALLOW])),
        min_size=1, max_size=5))
    return [broad, *others]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=narrowed_grants(), config=settings_)
def test_listed_iff_allowed_where_denys_narrow_a_broad_grant(acls, config):
    for rtype in (ResourceType.TOPIC, ResourceType.GROUP):
        for name in ("a", "ab", "abc", "b"):
            _check(acls, config, rtype, name)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=narrowed_grants(), config=settings_,
       names_asked=st.lists(st.lists(st.sampled_from(["a", "b", "*", "x"]), min_size=1, max_size=3).map("".join),
                            min_size=1, max_size=6))
def test_per_principal_answer_is_exact_for_every_name_of_each_class(acls, config, names_asked):
    """`--principal`: the entry list of the class a name falls in decides that name as the engine does."""
    from kafka_authz_cli.acl.compare import NameSpace
    from kafka_authz_cli.review.access_scope import principal_access

    engine = StandardAuthorizer(acls, config)
    review = AccessReview(engine)
    for principal in ("User:alice", "User:bob", "User:admin", "User:carol"):
        answer = principal_access(review, principal, [ResourceType.TOPIC, ResourceType.GROUP])
        for rtype in (ResourceType.TOPIC, ResourceType.GROUP):
            space = NameSpace({a.resource_name for a in acls if a.resource_type is rtype})
            for name in names_asked + [a.resource_name for a in acls]:
                entries = [g for r in answer if r.resource_type is rtype and space.classify(r.name) == space.classify(name)
                           for g in r.grants]
                for op in SUPPORTED_OPERATIONS[rtype]:
                    for host in REQUEST_HOSTS:
                        allowed = engine.authorize(Request(principal, host, op, rtype, name)).outcome.name == "ALLOWED"
                        assert allowed == covered(entries, principal, host, op), (principal, rtype, name, op, host)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=narrowed_grants(), config=settings_, prefix=st.sampled_from(["a", "ab", "b", ""]),
       tails=st.lists(st.lists(st.sampled_from(["a", "b", "*", "x"]), max_size=3).map("".join), min_size=1,
                      max_size=6))
def test_resource_prefix_classes_decide_every_name_under_the_prefix(acls, config, prefix, tails):
    """`--resource-prefix P`: every name starting with P falls in a reported class that decides it exactly."""
    from kafka_authz_cli.acl.compare import NameSpace
    from kafka_authz_cli.review.access_scope import prefix_classes

    engine = StandardAuthorizer(acls, config)
    review = AccessReview(engine)
    for rtype in (ResourceType.TOPIC, ResourceType.GROUP):
        space = NameSpace({a.resource_name for a in acls if a.resource_type is rtype})
        answer = [review.resource(rtype, name, label) for name, label in prefix_classes(review, rtype, prefix)]
        for name in {prefix + t for t in tails} | {a.resource_name for a in acls if a.resource_name.startswith(prefix)}:
            found = [r for r in answer if space.classify(r.name) == space.classify(name)]
            assert found, (name, [r.name for r in answer])
            for op in SUPPORTED_OPERATIONS[rtype]:
                for principal in REQUEST_PRINCIPALS:
                    for host in REQUEST_HOSTS:
                        allowed = engine.authorize(Request(principal, host, op, rtype, name)).outcome.name == "ALLOWED"
                        assert allowed == covered(found[0].grants, principal, host, op), (rtype, name, principal, op)
