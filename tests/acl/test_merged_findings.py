"""Findings merged across name classes say exactly the classes merged, and never mix what differs.

`scopes` is checked by reading its words back: every name standing for a class of the type is taken
to be in a scope iff its words say so ("every topic starting with `r`", less each exception: "`q`",
"names starting with `q`", "... other than `q`", "names no ACL name covers"), and that must be iff
the name's class is one of the scope's. The diff's merged findings must cover exactly the per-class
findings, each in one merged finding whose words and deciding ACLs are those of every class it holds.
"""

import re
from collections import Counter
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.compare import _said, describe_principals, diff
from kafka_authz_cli.acl.merged import FRESH, scopes
from kafka_authz_cli.acl.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.acl.names import NameSpace

ALPHABET = ["a", "b", "ab", "-", "*"]
acl_names = st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=3).map("".join)


def _in_words(scope, name: str, space: NameSpace) -> bool:
    """Whether ``name`` is among the names the scope's words say."""
    if not name.startswith(scope.root):
        return False
    for phrase in scope.phrases:
        m = re.fullmatch(r"`(.*)`", phrase)
        if m and name == m.group(1):
            return False
        m = re.fullmatch(r"names starting with `(.*)` other than `(.*)`", phrase)
        if m:
            if name.startswith(m.group(1)) and name != m.group(2):
                return False
            continue
        m = re.fullmatch(r"names starting with `(.*)`", phrase)
        if m and name.startswith(m.group(1)):
            return False
        if phrase == "names no ACL name covers" and space.classify(name).prefix is None:
            return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.sets(acl_names, min_size=1, max_size=8), picked=st.lists(st.booleans(), min_size=40, max_size=40))
def test_scopes_cover_exactly_the_classes_and_their_words_say_so(names, picked):
    space = NameSpace(set(names))
    reps = space.representatives()
    wanted = {nc for (_name, nc), take in zip(reps, picked) if take}
    found = scopes(wanted, space)
    covered = Counter(c for s in found for c in s.classes)
    assert set(covered) == wanted and all(n == 1 for n in covered.values())
    for scope in found:
        if scope.root is None:
            continue
        for name, nc in reps:
            assert _in_words(scope, name, space) == (nc in scope.classes), (scope, name, nc)


A = AclBinding.of


def test_the_example_of_the_issue_is_one_line_per_change():
    old = [A("TOPIC", "orders-audit", "LITERAL", "User:bob", "*", "WRITE", "DENY"),
           A("GROUP", "*", "LITERAL", "User:ops", "*", "DESCRIBE", "ALLOW"),
           A("GROUP", "analytics-", "PREFIXED", "User:ana", "*", "READ", "ALLOW")]
    new = old[:1] + old[2:] + [A("TOPIC", "orders-", "PREFIXED", "User:bob", "*", "READ", "ALLOW")]
    s = BrokerSettings()
    result = diff(old, new, s, s)
    assert [f.describe() for f in result.merged] == [
        "User:ops can no longer DESCRIBE every group except names starting with `*` other than `*`",
        "User:bob can now READ/DESCRIBE every topic starting with `orders-`"]
    assert len(result.findings) == 8  # ops: `*`, other, analytics- and longer; bob: orders-, orders-audit, each twice


bindings = st.builds(
    AclBinding, resource_type=st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP]), resource_name=acl_names,
    pattern_type=st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
    principal=st.sampled_from(["User:alice", "User:bob", "User:*"]), host=st.sampled_from(["*", "*", "10.0.0.1"]),
    operation=st.sampled_from([AclOperation.READ, AclOperation.DESCRIBE, AclOperation.ALL]),
    permission=st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=st.lists(bindings, max_size=8), new=st.lists(bindings, max_size=8))
def test_merged_findings_cover_the_per_class_findings_and_mix_nothing(old, new):
    s = BrokerSettings()
    result = diff(old, new, s, s)
    per_class = Counter((f.resource_type, f.name_class, _said(f)) for f in result.findings)
    merged = Counter()
    for f in result.merged:
        for principal in f.principals or (f.principal,):
            for nc in (f.classes or (f.name_class,)):
                merged[(f.resource_type, nc, _said(replace(f, principal=principal)))] += 1
    assert merged == per_class
    for f in result.merged:  # a finding of several principals names each of them
        assert len(f.principals) != 1 and describe_principals(f.principals or (f.principal,)) in f.describe()
    assert all(nc is not FRESH or True for f in result.merged for nc in f.classes)


def test_principals_losing_the_same_through_one_user_star_acl_are_one_finding():
    old = [A("TOPIC", "t", "LITERAL", "User:*", "*", "READ", "ALLOW"),
           *(A("TOPIC", "t", "LITERAL", f"User:svc{i:02}", "*", "WRITE", "ALLOW") for i in range(12))]
    s = BrokerSettings()
    result = diff(old, old[1:], s, s)
    assert [f.describe() for f in result.merged] == [
        # DESCRIBE is not lost by the twelve (their WRITE implies it): a finding of its own
        "anyone without an ACL of their own can no longer READ/DESCRIBE topic `t`",
        "User:svc00, User:svc01, User:svc02, User:svc03, User:svc04, User:svc05, User:svc06, User:svc07, "
        "User:svc08, User:svc09 and 2 more principals can no longer READ topic `t`"]
    assert result.merged[1].principals == tuple(f"User:svc{i:02}" for i in range(12))


def test_the_principals_are_said_whole_or_counted():
    assert describe_principals(["User:a"]) == "User:a"
    assert describe_principals(["User:a", "User:anyone-else"]) == "User:a and anyone without an ACL of their own"
    assert describe_principals(["User:a", "User:b", "User:c"]) == "User:a, User:b and User:c"
