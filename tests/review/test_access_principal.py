"""`authz access --principal` visits only what the principal's and User:*'s ALLOWs reach, and answers
exactly as asking every class of names does (the same classes, labels, entries, named ACLs and
exceptions), on sets rich in what the shortcut could get wrong: host-specific ALLOWs and DENYs,
`User:*`, ACLs on `*`, super users, the no-ACL default, hosts no client has, names below `*` and
ACL principals without `:` (left to the engine)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import BrokerSettings, StandardAuthorizer
from kafka_authz_cli.acl.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.review.access import AccessReview
from kafka_authz_cli.review.access_scope import merged_classes, merged_principal_access, name_classes, principal_access

TYPES = [ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER]
NAMES = ["a", "ab", "b", "*", "*a", "a-", "!x"]
PRINCIPALS = ["User:alice", "User:bob", "User:*", "User:*", "Group:eng", "User:admin"]
HOSTS = ["*", "*", "10.0.0.1", "10.0.0.2", "::1", "host.example"]
OPS = [AclOperation.READ, AclOperation.DESCRIBE, AclOperation.ALL, AclOperation.WRITE, AclOperation.ALTER_CONFIGS,
       AclOperation.DESCRIBE_CONFIGS, AclOperation.IDEMPOTENT_WRITE]


def _binding(rtype, name, pattern, principal, host, op, perm):
    if rtype is ResourceType.CLUSTER:
        name, pattern = "kafka-cluster", PatternType.LITERAL
    return AclBinding(rtype, name, pattern, principal, host, op, perm)


def bindings(names, principals):
    return st.builds(_binding, st.sampled_from(TYPES), st.sampled_from(names),
                     st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]), st.sampled_from(principals),
                     st.sampled_from(HOSTS), st.sampled_from(OPS),
                     st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))


settings_ = st.builds(BrokerSettings, st.sampled_from(["", "User:admin", "User:alice"]), st.booleans())


def _every_class(review, principal):
    """The answer by asking every class of every type (what `--principal` did before)."""
    out = []
    for rtype in ResourceType.concrete():
        for name, label in name_classes(review, rtype):
            found = review.for_principal(rtype, name, principal, label)
            if found.grants:
                out.append(found)
    return out


def _shape(results):
    return [(r.resource_type, r.name, r.label, r.errors,
             [(g.principal, g.host, g.operation, g.reason, g.acl, g.excepts) for g in r.grants]) for r in results]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=st.lists(bindings(NAMES[:6], PRINCIPALS), max_size=12), config=settings_)
def test_the_same_answer_as_asking_every_class(acls, config):
    review = AccessReview(StandardAuthorizer(acls, config))
    for principal in ("User:alice", "User:bob", "User:admin", "User:carol", "Group:eng"):
        assert _shape(principal_access(review, principal)) == _shape(_every_class(review, principal)), principal


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=st.lists(bindings(NAMES, PRINCIPALS + ["nocolon"]), max_size=10), config=settings_)
def test_the_same_answer_where_the_engine_decides(acls, config):
    review = AccessReview(StandardAuthorizer(acls, config))
    for principal in ("User:alice", "User:carol"):
        assert _shape(principal_access(review, principal)) == _shape(_every_class(review, principal)), principal


def _label_holds(label: str, name: str, classify) -> bool | None:
    """Whether a merged label's words take in ``name`` (None: not a merged label)."""
    import re

    m = re.fullmatch(r"every topic starting with `(.*?)`(?: except (.*))?", label)
    if not m or "`" in m.group(1):
        return None
    if not name.startswith(m.group(1)):
        return False
    for phrase in re.split(r", | and (?=`|names)", m.group(2) or ""):
        if not phrase:
            continue
        e = re.fullmatch(r"`(.*)`", phrase)
        if e and name == e.group(1):
            return False
        e = re.fullmatch(r"names starting with `(.*)` other than `(.*)`", phrase)
        if e:
            if name.startswith(e.group(1)) and name != e.group(2):
                return False
            continue
        e = re.fullmatch(r"names starting with `(.*)`", phrase)
        if e and name.startswith(e.group(1)):
            return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=st.lists(bindings(["o", "or", "ord", "ord-a", "ord-b", "x"], PRINCIPALS), max_size=10), config=settings_,
       prefix=st.sampled_from(["o", "or", "ord", "ord-", ""]))
def test_a_merged_prefix_answer_speaks_only_of_names_under_the_prefix_and_answers_each_as_asked(acls, config,
                                                                                              prefix):
    from kafka_authz_cli.review.access_scope import merged_classes, prefix_classes

    review = AccessReview(StandardAuthorizer(acls, config))
    listed = [review.resource(ResourceType.TOPIC, n, label) for n, label in
              prefix_classes(review, ResourceType.TOPIC, prefix)]
    merged = merged_classes(review, listed, prefix)
    for name in [prefix + t for t in ("", "a", "-", "-a", "-b", "r", "rd", "rd-a", "rd-ax", "zz")]:
        holding = [r for r in merged if _label_holds(r.label, name, None)]
        if not holding:
            continue  # said by a single class's label
        # Answers are merged per principal (as the diff's findings): one merged answer per principal
        # takes the name in, and says what asking the name itself says of that principal.
        asked = _shape([review.resource(ResourceType.TOPIC, name)])[0][4]
        whose = [{g[0] for g in _shape([r])[0][4]} for r in holding]
        if len(holding) > 1:
            assert all(len(w) == 1 for w in whose) and len(set.union(*whose)) == len(holding), \
                (name, [r.label for r in holding])
        for r, principals in zip(holding, whose):
            assert _shape([r])[0][4] == [g for g in asked if g[0] in principals], (name, r.label)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=st.lists(bindings(NAMES, PRINCIPALS), max_size=12), config=settings_)
def test_the_merged_answer_reusing_the_classes_is_the_merge_of_the_answer(acls, config):
    # What `access --principal` prints (classes and spaces reused, labels made only for what is said
    # alone) is the merge of the per-class answer, label for label.
    review = AccessReview(StandardAuthorizer(acls, config))
    for principal in ("User:alice", "User:bob", "Group:eng"):
        assert _shape(merged_principal_access(review, principal)) == \
            _shape(merged_classes(review, principal_access(review, principal))), principal
