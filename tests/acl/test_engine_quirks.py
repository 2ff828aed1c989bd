"""Kafka's corners, one test each, with the answer the real broker gives."""

import pytest

from kafka_authz_cli.acl import AuthorizerConfigError, BrokerSettings, parse_super_users
from kafka_authz_cli.acl.engine import Outcome, Request, StandardAuthorizer
from kafka_authz_cli.acl.model import AclBinding, AclOperation, ResourceType, java_host_address


def acl(rtype, name, pattern, principal, op, perm, host="*"):
    return AclBinding.of(rtype, name, pattern, principal, host, op, perm)


def ask(authz, name, op="READ", principal="User:alice", rtype="TOPIC", host="10.0.0.1"):
    return authz.authorize(Request(principal, host, AclOperation.parse(op), ResourceType.parse(rtype), name))


def test_group_names_below_star_loop_forever_in_kafka():
    authz = StandardAuthorizer([acl("GROUP", "(b", "LITERAL", "User:alice", "READ", "ALLOW")])
    d = ask(authz, "(a", rtype="GROUP")
    assert d.outcome is Outcome.NON_TERMINATING
    assert "never returns" in d.error and d.decision is None


def test_transactional_id_below_star_throws_in_kafka():
    authz = StandardAuthorizer([acl("TRANSACTIONAL_ID", "(ab", "PREFIXED", "User:alice", "WRITE", "ALLOW")])
    d = ask(authz, "(ac", op="WRITE", rtype="TRANSACTIONAL_ID")
    assert d.outcome is Outcome.ERROR
    assert d.error.startswith("java.lang.StringIndexOutOfBoundsException: begin 0, end 2, length 1")


def test_deny_in_first_scan_returns_before_the_rescan_bug():
    authz = StandardAuthorizer([acl("GROUP", "(a", "LITERAL", "User:alice", "READ", "DENY"),
                                acl("GROUP", "(b", "LITERAL", "User:alice", "READ", "ALLOW")])
    assert ask(authz, "(a", rtype="GROUP").outcome is Outcome.DENIED


def test_acl_principal_without_colon_throws_only_where_it_is_a_candidate():
    authz = StandardAuthorizer([acl("TOPIC", "t", "LITERAL", "alice", "READ", "ALLOW"),
                                acl("TOPIC", "u", "LITERAL", "User:alice", "READ", "ALLOW")],
                               BrokerSettings(super_users="User:admin"))
    assert ask(authz, "t").outcome is Outcome.ERROR
    assert "Could not parse principal from `alice`" in ask(authz, "t").error
    assert ask(authz, "u").allowed
    assert ask(authz, "t", principal="User:admin").allowed


def test_literal_wildcard_misses_names_starting_with_star():
    authz = StandardAuthorizer([acl("GROUP", "*", "LITERAL", "User:*", "READ", "ALLOW"),
                                acl("GROUP", "*", "LITERAL", "User:mallory", "READ", "DENY")])
    assert ask(authz, "team", rtype="GROUP").allowed
    assert ask(authz, "*team", rtype="GROUP").rule == "DefaultDeny"
    assert ask(authz, "*team", principal="User:mallory", rtype="GROUP").rule == "DefaultDeny"
    assert ask(authz, "*", rtype="GROUP").allowed


def test_prefixed_star_is_an_ordinary_prefix():
    authz = StandardAuthorizer([acl("TOPIC", "*", "PREFIXED", "User:alice", "READ", "ALLOW")])
    assert ask(authz, "*x").allowed
    assert ask(authz, "x").rule == "DefaultDeny"


def test_prefix_of_a_prefix_reports_the_shortest_allow_and_the_longest_deny():
    authz = StandardAuthorizer([acl("TOPIC", "a", "PREFIXED", "User:alice", "READ", "ALLOW"),
                                acl("TOPIC", "ab", "PREFIXED", "User:alice", "READ", "ALLOW"),
                                acl("TOPIC", "abc", "PREFIXED", "User:alice", "READ", "ALLOW")])
    assert ask(authz, "abcd").acl.resource_name == "a"
    authz = StandardAuthorizer([acl("TOPIC", "a", "PREFIXED", "User:alice", "READ", "DENY"),
                                acl("TOPIC", "abc", "PREFIXED", "User:alice", "READ", "DENY")])
    assert ask(authz, "abcd").acl.resource_name == "abc"


def test_wildcard_allow_is_reported_over_a_specific_allow():
    authz = StandardAuthorizer([acl("TOPIC", "orders", "LITERAL", "User:alice", "READ", "ALLOW"),
                                acl("TOPIC", "*", "LITERAL", "User:alice", "READ", "ALLOW")])
    assert ask(authz, "orders").acl.resource_name == "*"


def test_deny_on_another_pattern_type_still_wins():
    authz = StandardAuthorizer([acl("TOPIC", "orders", "LITERAL", "User:alice", "READ", "ALLOW"),
                                acl("TOPIC", "ord", "PREFIXED", "User:*", "READ", "DENY")])
    d = ask(authz, "orders")
    assert d.outcome is Outcome.DENIED and d.acl.pattern_type.name == "PREFIXED"


def test_literal_that_is_only_a_prefix_is_not_a_candidate():
    authz = StandardAuthorizer([acl("TOPIC", "ord", "LITERAL", "User:bob", "READ", "ALLOW")],
                               BrokerSettings(allow_everyone_if_no_acl_found=True))
    assert ask(authz, "orders").rule == "DefaultAllow"
    assert ask(authz, "ord").rule == "DefaultDeny"


@pytest.mark.parametrize("granted, implied", [("READ", "DESCRIBE"), ("WRITE", "DESCRIBE"), ("DELETE", "DESCRIBE"),
                                              ("ALTER", "DESCRIBE"), ("ALTER_CONFIGS", "DESCRIBE_CONFIGS")])
def test_allow_implies_describe_but_deny_does_not(granted, implied):
    allow = StandardAuthorizer([acl("TOPIC", "t", "LITERAL", "User:alice", granted, "ALLOW")])
    assert ask(allow, "t", op=implied).allowed
    deny = StandardAuthorizer([acl("TOPIC", "t", "LITERAL", "User:alice", granted, "DENY"),
                               acl("TOPIC", "t", "LITERAL", "User:alice", "ALL", "ALLOW")])
    assert ask(deny, "t", op=implied).allowed
    assert not ask(deny, "t", op=granted).allowed


def test_create_does_not_imply_describe():
    authz = StandardAuthorizer([acl("TOPIC", "t", "LITERAL", "User:alice", "CREATE", "ALLOW")])
    assert ask(authz, "t", op="DESCRIBE").rule == "DefaultDeny"


def test_user_star_matches_every_principal_type_but_group_star_matches_nobody_else():
    authz = StandardAuthorizer([acl("TOPIC", "t", "LITERAL", "User:*", "READ", "ALLOW"),
                                acl("TOPIC", "u", "LITERAL", "Group:*", "READ", "ALLOW")])
    assert ask(authz, "t", principal="Group:eng").allowed
    assert not ask(authz, "u", principal="Group:eng").allowed


def test_hosts_compare_as_java_prints_them():
    authz = StandardAuthorizer([acl("TOPIC", "t", "LITERAL", "User:alice", "READ", "ALLOW", host="::1"),
                                acl("TOPIC", "u", "LITERAL", "User:alice", "READ", "ALLOW", host="0:0:0:0:0:0:0:1")])
    assert not ask(authz, "t", host="::1").allowed
    assert ask(authz, "u", host="::1").allowed
    assert java_host_address("::ffff:10.0.0.1") == "10.0.0.1"
    assert java_host_address("2001:db8::1") == "2001:db8:0:0:0:0:0:1"


def test_super_users_are_trimmed_and_literal():
    assert parse_super_users(" User:bob ; User: carol;;Group:x ") == {"User:bob", "User: carol", "Group:x"}
    with pytest.raises(AuthorizerConfigError, match="but got bob"):
        parse_super_users("bob;User:alice")
    authz = StandardAuthorizer([], BrokerSettings(super_users="User:*"))
    assert not ask(authz, "t").allowed
    assert ask(authz, "t", principal="User:*").allowed


def test_default_allow_switched_off_by_any_acl_on_the_resource():
    authz = StandardAuthorizer([acl("TOPIC", "*", "LITERAL", "User:bob", "READ", "ALLOW", host="10.9.9.9")],
                               BrokerSettings(allow_everyone_if_no_acl_found=True))
    assert ask(authz, "anything").rule == "DefaultDeny"
    assert ask(authz, "g", rtype="GROUP").rule == "DefaultAllow"


def test_not_loaded_only_super_users_get_an_answer():
    authz = StandardAuthorizer([], BrokerSettings(super_users="User:admin"), load_complete=False)
    assert ask(authz, "t").outcome is Outcome.NOT_READY
    assert ask(authz, "t", principal="User:admin").allowed


def test_authorized_operations_lists_what_kafka_would_return():
    authz = StandardAuthorizer([acl("TOPIC", "t", "LITERAL", "User:alice", "WRITE", "ALLOW"),
                                acl("TOPIC", "t", "LITERAL", "User:alice", "ALTER_CONFIGS", "ALLOW")])
    ops = authz.authorized_operations("User:alice", "10.0.0.1", ResourceType.TOPIC, "t")
    assert [o.name for o in ops] == ["WRITE", "DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"]


def test_duplicates_are_stored_once_and_reported():
    a = acl("TOPIC", "t", "LITERAL", "User:alice", "READ", "ALLOW")
    authz = StandardAuthorizer([a, a])
    assert authz.duplicates == [a] and len(authz.bindings) == 1
