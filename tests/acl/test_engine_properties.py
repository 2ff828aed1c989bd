"""Property tests: the indexed engine against a naive evaluator and against Kafka's own walk."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.engine import Outcome, Request, StandardAuthorizer
from kafka_authz_cli.acl.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.acl.naive import NaiveAuthorizer

TYPES = [ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID]
OPS = [o for o in AclOperation.concrete() if o is not AclOperation.TWO_PHASE_COMMIT]
PRINCIPALS = ["User:alice", "User:bob", "User:*", "Group:eng", "Group:*", "User:a:b"]
REQUEST_PRINCIPALS = ["User:alice", "User:bob", "Group:eng", "User:*", "User:a:b", "User:carol"]
ACL_HOSTS = ["*", "10.0.0.1", "0:0:0:0:0:0:0:1", "::1"]
REQUEST_HOSTS = ["10.0.0.1", "10.0.0.2", "::1", "::ffff:10.0.0.1"]

# Names from a small alphabet so that prefixes, shared prefixes and '*' collide often.
SAFE_ALPHABET = ["a", "b", "ab", "*", "-", "é", "😀", "\uffff"]
WEIRD_ALPHABET = SAFE_ALPHABET + ["(", " ", "!", ")"]


def names(alphabet, min_size=1):
    return st.lists(st.sampled_from(alphabet), min_size=min_size, max_size=4).map("".join)


def bindings(alphabet, min_name=1, principals=PRINCIPALS):
    return st.builds(
        AclBinding,
        resource_type=st.sampled_from(TYPES),
        resource_name=names(alphabet, min_name),
        pattern_type=st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
        principal=st.sampled_from(principals),
        host=st.sampled_from(ACL_HOSTS),
        operation=st.sampled_from(OPS),
        permission=st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]),
    )


def requests(alphabet, min_name=1):
    return st.builds(
        Request,
        principal=st.sampled_from(REQUEST_PRINCIPALS),
        host=st.sampled_from(REQUEST_HOSTS),
        operation=st.sampled_from(OPS),
        resource_type=st.sampled_from(TYPES),
        resource_name=names(alphabet, min_name),
    )


settings.register_profile("engine", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])


def same(a, b):
    return (a.outcome, a.rule, a.acl, a.audit) == (b.outcome, b.rule, b.acl, b.audit)


@settings(settings.get_profile("engine"))
@given(acls=st.lists(bindings(SAFE_ALPHABET), max_size=25), reqs=st.lists(requests(SAFE_ALPHABET), min_size=1, max_size=15),
       allow_if_no_acl=st.booleans(), super_users=st.sampled_from(["", "User:bob", "Group:eng;User:*"]))
def test_engine_equals_naive_reference(acls, reqs, allow_if_no_acl, super_users):
    settings_ = BrokerSettings(super_users=super_users, allow_everyone_if_no_acl_found=allow_if_no_acl)
    engine, naive = StandardAuthorizer(acls, settings_), NaiveAuthorizer(acls, settings_)
    for req in reqs:
        got, want = engine.authorize(req), naive.authorize(req)
        assert same(got, want), (req, got, want)


@settings(settings.get_profile("engine"))
@given(acls=st.lists(bindings(WEIRD_ALPHABET, min_name=0, principals=PRINCIPALS + ["alice"]), max_size=25),
       reqs=st.lists(requests(WEIRD_ALPHABET, min_name=0), min_size=1, max_size=15), allow_if_no_acl=st.booleans())
def test_index_equals_kafkas_walk_everywhere(acls, reqs, allow_if_no_acl):
    """Any names (empty, below '*'), malformed principals: the engine answers as Kafka's walk does,
    including the walk's exceptions and endless loops."""
    settings_ = BrokerSettings(allow_everyone_if_no_acl_found=allow_if_no_acl)
    engine = StandardAuthorizer(acls, settings_)
    walk = StandardAuthorizer(acls, settings_, force_walk=True)
    for req in reqs:
        got, want = engine.authorize(req), walk.authorize(req)
        assert same(got, want) and got.error == want.error, (req, got, want)


@settings(settings.get_profile("engine"))
@given(acls=st.lists(bindings(SAFE_ALPHABET), max_size=20), req=requests(SAFE_ALPHABET))
def test_adding_a_deny_never_grants(acls, req):
    base = StandardAuthorizer(acls).authorize(req)
    deny = AclBinding(req.resource_type, req.resource_name, PatternType.LITERAL, "User:*", "*",
                      AclOperation.ALL, AclPermissionType.DENY)
    after = StandardAuthorizer(acls + [deny]).authorize(req)
    assert after.outcome is Outcome.DENIED
    assert base.outcome in (Outcome.ALLOWED, Outcome.DENIED)


@settings(settings.get_profile("engine"))
@given(acls=st.lists(bindings(SAFE_ALPHABET), max_size=20), reqs=st.lists(requests(SAFE_ALPHABET), max_size=20))
def test_batch_equals_one_by_one(acls, reqs):
    engine = StandardAuthorizer(acls)
    assert engine.authorize_many(reqs) == [StandardAuthorizer(acls).authorize(r) for r in reqs]
