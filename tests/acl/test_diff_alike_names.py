"""Names that decide alike (:class:`kafka_authz_cli.acl.decision_diff.AlikeNames`): a change on the
literal ``*`` visits every name class, and names meeting the same patterns are answered once. The
shortcut must give exactly what visiting every name gives: the same changes in the same order, the
same findings, counts and classes examined. Below ``_ALIKE_VISITS`` names it is off, so the tests
force it on; a key that merges names meeting different patterns must fail them."""

from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import BrokerSettings, decision_diff
from kafka_authz_cli.acl.compare import diff
from kafka_authz_cli.acl.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType

NAMES = ["a", "a1", "a1.x", "ab", "b", "b1", "b1.y", "*", "*a", "c.d"]
HOSTS = ["*", "*", "10.0.0.1", "10.0.0.2"]
PRINCIPALS = ["User:alice", "User:bob", "User:*", "User:carol"]
OPS = [AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.ALL]

binding = st.builds(
    AclBinding, resource_type=st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP]),
    resource_name=st.sampled_from(NAMES), pattern_type=st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
    principal=st.sampled_from(PRINCIPALS), host=st.sampled_from(HOSTS), operation=st.sampled_from(OPS),
    permission=st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.ALLOW, AclPermissionType.DENY]))
on_star = st.builds(
    AclBinding, resource_type=st.just(ResourceType.TOPIC), resource_name=st.just("*"),
    pattern_type=st.just(PatternType.LITERAL), principal=st.sampled_from(["User:alice", "User:bob"]),
    host=st.sampled_from(HOSTS), operation=st.sampled_from(OPS),
    permission=st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))
side = st.builds(BrokerSettings, st.sampled_from(["", "User:carol"]), st.booleans())


def answer(old, new, old_s, new_s, alike_from: int) -> tuple:
    with patch.object(decision_diff, "_ALIKE_VISITS", alike_from):
        result = diff(old, new, old_s, new_s)
    return (result.verdict, result.gained, result.lost, result.classes_examined, result.changes, result.findings,
            [f.describe() for f in result.merged])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.lists(binding, max_size=14), removed=st.lists(st.integers(0, 13), max_size=3),
       added=st.lists(st.one_of(on_star, binding), min_size=1, max_size=3), settings_=side)
def test_answering_alike_names_once_changes_nothing(base, removed, added, settings_):
    new = [b for i, b in enumerate(base) if i not in removed] + added
    assert answer(base, new, settings_, settings_, 0) == answer(base, new, settings_, settings_, 10**9)


def _acl(name, principal, pattern=PatternType.LITERAL):
    return AclBinding(ResourceType.TOPIC, name, pattern, principal, "*", AclOperation.READ, AclPermissionType.ALLOW)


def test_names_under_different_prefixes_are_not_alike():
    """bob gains READ on every topic from an ACL on ``*``, except under `a` (User:* has it there):
    `a1x` and `b1x` meet different patterns and must not share an answer."""
    old = [_acl("a", "User:*", PatternType.PREFIXED), _acl("a1", "User:carol"), _acl("b1", "User:carol")]
    new = [*old, _acl("*", "User:bob")]
    plain = BrokerSettings()
    exact = answer(old, new, plain, plain, 10**9)
    assert answer(old, new, plain, plain, 0) == exact
    # The same shortcut with a key blind to which prefix a name meets gets it wrong.
    with patch.object(decision_diff.AlikeNames, "key", lambda self, name: () if name not in self.literal else None):
        assert answer(old, new, plain, plain, 0) != exact
