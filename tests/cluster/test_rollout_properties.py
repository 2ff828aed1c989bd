"""The apply order never opens a window of access: for random old/new ACL sets and batch sizes, every
intermediate ACL set (after each batch) grants no request that neither end grants.

The oracle is the engine, over the request classes `authz diff` draws (every resource-name class of
the names of all the sets involved, every principal and host they name plus a fresh one, every
operation): within one class no set can tell two requests apart, so one witness each is exact."""

from itertools import product

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.classes import every_host as _hosts
from kafka_authz_cli.acl.classes import every_principal as _principals
from kafka_authz_cli.acl.compare import NameSpace
from kafka_authz_cli.acl.engine import Request, StandardAuthorizer
from kafka_authz_cli.acl.model import CLUSTER_NAME, SUPPORTED_OPERATIONS, AclBinding, ResourceType
from kafka_authz_cli.cluster.rollout import Scope, batches, intermediate_states, make_plan, phases

NAMES = ["orders", "orders-", "orders-eu", "o", "*", "pay", "pay-x"]
PRINCIPALS = ["User:alice", "User:bob", "User:*"]
HOSTS = ["*", "10.0.0.1"]
OPS = {ResourceType.TOPIC: ["READ", "WRITE", "DESCRIBE", "ALL", "CREATE"], ResourceType.GROUP: ["READ", "DESCRIBE"],
       ResourceType.CLUSTER: ["IDEMPOTENT_WRITE", "ALTER", "DESCRIBE"]}


@st.composite
def bindings(draw):
    rtype = draw(st.sampled_from([ResourceType.TOPIC, ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER]))
    if rtype is ResourceType.CLUSTER:
        name, pattern = CLUSTER_NAME, "LITERAL"
    else:
        name = draw(st.sampled_from(NAMES))
        pattern = "LITERAL" if name == "*" else draw(st.sampled_from(["LITERAL", "PREFIXED"]))
    return AclBinding.of(rtype, name, pattern, draw(st.sampled_from(PRINCIPALS)), draw(st.sampled_from(HOSTS)),
                         draw(st.sampled_from(OPS[rtype])), draw(st.sampled_from(["ALLOW", "DENY"])))


acl_sets = st.lists(bindings(), max_size=10, unique=True)


def witnesses(acl_sets_, super_users=("User:admin",)):
    everything = [b for s in acl_sets_ for b in s]
    principals = _principals(everything, frozenset(super_users))
    hosts = _hosts(everything)
    for rtype in ResourceType.concrete():
        if rtype is ResourceType.CLUSTER:
            names = [CLUSTER_NAME]
        else:
            names = [n for n, _ in NameSpace({b.resource_name for b in everything
                                               if b.resource_type is rtype}).representatives()]
        for name, principal, host, op in product(names, principals, hosts, SUPPORTED_OPERATIONS[rtype]):
            yield Request(principal, host, op, rtype, name)


def widened(old, new, states, allow_everyone):
    cfg = BrokerSettings(super_users="User:admin", allow_everyone_if_no_acl_found=allow_everyone)
    a, b = StandardAuthorizer(old, cfg), StandardAuthorizer(new, cfg)
    mids = [StandardAuthorizer(s, cfg) for s in states]
    for request in witnesses([old, new, *states]):
        if a.authorize(request).allowed or b.authorize(request).allowed:
            continue
        for i, m in enumerate(mids):
            if m.authorize(request).allowed:
                return request, i
    return None


def _states(old, new, batch_size, allow_everyone):
    plan = make_plan(old, new, Scope(), allow_delete=True, allow_everyone_if_no_acl_found=allow_everyone)
    work = batches(plan.creates, plan.deletes, batch_size, allow_everyone)
    states = intermediate_states(old, work)
    assert not states or set(states[-1]) == set(new)
    return states


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acl_sets, acl_sets, st.integers(1, 4), st.booleans())
def test_no_intermediate_state_grants_what_neither_end_grants(old, new, batch_size, allow_everyone):
    states = _states(old, new, batch_size, allow_everyone)
    assert widened(old, new, states, allow_everyone) is None


@settings(max_examples=100, deadline=None)
@given(acl_sets, acl_sets)
def test_any_subset_of_a_batch_is_also_safe(old, new):
    """A broker may apply a batch's ACLs one by one: batch size 1 covers every prefix of every batch."""
    assert widened(old, new, _states(old, new, 1, False), False) is None


def test_phase_order_is_the_documented_one():
    deny_new = AclBinding.of("TOPIC", "t", "LITERAL", "User:a", "*", "READ", "DENY")
    allow_new = AclBinding.of("TOPIC", "t", "LITERAL", "User:b", "*", "READ", "ALLOW")
    allow_old = AclBinding.of("TOPIC", "u", "LITERAL", "User:b", "*", "READ", "ALLOW")
    deny_old = AclBinding.of("TOPIC", "u", "LITERAL", "User:a", "*", "READ", "DENY")
    names = [n for n, _ in phases([deny_new, allow_new], [allow_old, deny_old])]
    assert names == ["add DENY", "remove ALLOW", "add ALLOW", "remove DENY"]
    names = [n for n, _ in phases([deny_new, allow_new], [allow_old, deny_old], allow_everyone_if_no_acl_found=True)]
    assert names == ["add DENY", "add ALLOW", "remove ALLOW", "remove DENY"]


def test_why_allow_everyone_needs_the_other_order():
    """With allow.everyone.if.no.acl.found=true, removing alice's ALLOW before adding bob's leaves
    topic t without any ACL for a moment: everyone could read it. The order used there does not."""
    old = [AclBinding.of("TOPIC", "t", "LITERAL", "User:alice", "*", "READ", "ALLOW")]
    new = [AclBinding.of("TOPIC", "t", "LITERAL", "User:bob", "*", "READ", "ALLOW")]
    plan = make_plan(old, new, Scope(), allow_delete=True)
    deny_first_order = intermediate_states(old, batches(plan.creates, plan.deletes, 1, False))
    found = widened(old, new, deny_first_order, allow_everyone=True)
    assert found is not None and found[0].resource_name == "t" and found[1] == 0  # right after the removal
    assert widened(old, new, _states(old, new, 1, True), True) is None
