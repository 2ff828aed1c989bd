"""authorizeByResourceType as Kafka's Authorizer default method decides it: the scenarios of Kafka's own
BaseAuthorizerTest (testAuthorizeByResourceType*, core/src/test/scala/unit/kafka/security/authorizer),
replayed state by state, and the quirks the port keeps."""

from __future__ import annotations

from kafka_authz_cli.acl import AclBinding, AclOperation, BrokerSettings, ResourceType, StandardAuthorizer
from kafka_authz_cli.apps.bytype import authorize_by_resource_type

U1, U2 = "User:user1", "User:user2"
H1, H2 = "192.168.1.1", "192.168.1.2"


def acl(rtype, name, pattern, principal, host, op, permission) -> AclBinding:
    return AclBinding.of(rtype, name, pattern, principal, host, op, permission)


def allowed(acls, principal, host, op, rtype, super_users="", allow_everyone=False) -> bool:
    settings = BrokerSettings(super_users=super_users, allow_everyone_if_no_acl_found=allow_everyone)
    authorizer = StandardAuthorizer(acls, settings)
    return authorize_by_resource_type(authorizer, principal, host, AclOperation.parse(op), ResourceType.parse(rtype)).allowed


def test_add_and_remove():
    allow_read = acl("TOPIC", "sb1", "LITERAL", U1, H1, "READ", "ALLOW")
    deny_read = acl("TOPIC", "sb1", "LITERAL", U1, H1, "READ", "DENY")
    assert not allowed([], U1, H1, "READ", "TOPIC")
    assert allowed([allow_read], U1, H1, "READ", "TOPIC")
    assert not allowed([allow_read, deny_read], U1, H1, "READ", "TOPIC")


def test_an_unrelated_deny_does_not_dominate_an_allow():
    acls = [acl("TOPIC", "sb1", "LITERAL", U1, H1, "READ", "DENY"), acl("TOPIC", "sb1", "LITERAL", U2, H1, "READ", "DENY"),
            acl("TOPIC", "sb1", "LITERAL", U1, H2, "WRITE", "DENY"), acl("TOPIC", "sb1", "LITERAL", U2, H2, "READ", "DENY"),
            acl("TOPIC", "sb1", "LITERAL", U1, H2, "READ", "ALLOW"), acl("TOPIC", "sb2", "LITERAL", U1, H2, "READ", "DENY"),
            acl("GROUP", "s", "PREFIXED", U1, H2, "READ", "DENY")]
    assert not allowed(acls, U1, H1, "READ", "TOPIC")
    assert not allowed(acls, U1, H1, "READ", "GROUP")
    assert not allowed(acls, U1, H1, "READ", "TRANSACTIONAL_ID")
    assert not allowed(acls, U1, H1, "READ", "CLUSTER")
    # sb1's DENY is for host1 only: from host2 the ALLOW of sb1 stands (sb2's DENY is another name)
    assert allowed(acls, U1, H2, "READ", "TOPIC")


def test_deny_takes_precedence():
    allow = acl("TOPIC", "sb1", "LITERAL", U1, H1, "WRITE", "ALLOW")
    assert allowed([allow], U1, H1, "WRITE", "TOPIC")
    assert not allowed([allow, acl("TOPIC", "sb1", "LITERAL", U1, H1, "WRITE", "DENY")], U1, H1, "WRITE", "TOPIC")


def test_a_prefixed_deny_dominates_the_allows_under_it():
    def g(name, permission):
        return acl("GROUP", name, "PREFIXED", U1, H1, "READ", permission)

    acls = [g("abcde", "ALLOW")]
    assert allowed(acls, U1, H1, "READ", "GROUP")
    acls.append(g("abcd", "DENY"))
    assert not allowed(acls, U1, H1, "READ", "GROUP")
    acls.append(g("abc", "ALLOW"))
    assert allowed(acls, U1, H1, "READ", "GROUP")
    acls.append(g("a", "DENY"))
    assert not allowed(acls, U1, H1, "READ", "GROUP")
    acls.append(g("ab", "ALLOW"))
    assert not allowed(acls, U1, H1, "READ", "GROUP")


def test_a_wildcard_deny_dominates_everything():
    allow = acl("GROUP", "hello", "PREFIXED", U1, H1, "WRITE", "ALLOW")
    acls = [allow]
    assert allowed(acls, U1, H1, "WRITE", "GROUP")
    acls.append(acl("GROUP", "*", "LITERAL", U1, H1, "WRITE", "DENY"))
    assert not allowed(acls, U1, H1, "WRITE", "GROUP")
    acls += [acl("GROUP", "*", "LITERAL", U1, H1, "WRITE", "ALLOW"), acl("GROUP", "aloha", "LITERAL", U1, H1, "WRITE", "ALLOW")]
    assert not allowed(acls, U1, H1, "WRITE", "GROUP")


def test_all_counts_as_the_operation():
    acls = [acl("TOPIC", "sb1", "LITERAL", U1, H1, "WRITE", "DENY"), acl("TOPIC", "sb1", "LITERAL", U1, H1, "ALL", "ALLOW")]
    assert allowed(acls, U1, H1, "READ", "TOPIC")
    assert not allowed(acls + [acl("TOPIC", "sb1", "LITERAL", U1, H1, "ALL", "DENY")], U1, H1, "READ", "TOPIC")


def test_wildcard_host_and_principal_entries():
    acls = [acl("TOPIC", "sb1", "LITERAL", U1, H1, "READ", "ALLOW")]
    assert allowed(acls, U1, H1, "READ", "TOPIC")
    acls.append(acl("TOPIC", "sb1", "LITERAL", U1, "*", "READ", "DENY"))
    assert not allowed(acls, U1, H1, "READ", "TOPIC")
    acls.append(acl("TOPIC", "sb2", "LITERAL", U1, H1, "READ", "DENY"))
    assert not allowed(acls, U1, H2, "READ", "TOPIC")
    acls.append(acl("TOPIC", "sb2", "LITERAL", U1, "*", "READ", "ALLOW"))
    assert allowed(acls, U1, H2, "READ", "TOPIC")
    users = [acl("TOPIC", "sb1", "LITERAL", U1, H1, "READ", "ALLOW"), acl("TOPIC", "sb1", "LITERAL", "User:*", H1, "READ", "DENY")]
    assert not allowed(users, U1, H1, "READ", "TOPIC")
    users.append(acl("TOPIC", "sb2", "LITERAL", "User:*", H1, "READ", "ALLOW"))
    assert allowed(users, U2, H1, "READ", "TOPIC")


def test_a_super_user_is_allowed_whatever_the_denies():
    deny_all = [acl(t, "*", "LITERAL", "User:*", "*", "ALL", "DENY") for t in ("TOPIC", "CLUSTER", "GROUP", "TRANSACTIONAL_ID")]
    for rtype in ("TOPIC", "CLUSTER", "GROUP", "TRANSACTIONAL_ID"):
        assert allowed(deny_all, "User:root", "192.0.4.4", "READ", rtype, super_users="User:root")


def test_the_hardcode_quirk():
    # Kafka authorizes the operation on a topic named "hardcode" first: an ALLOW that happens to cover that
    # name answers ALLOWED for the whole type, whatever else the ACLs say.
    hard = acl("TOPIC", "hard", "PREFIXED", U1, "*", "WRITE", "ALLOW")
    assert allowed([hard, acl("TOPIC", "*", "LITERAL", U1, "*", "WRITE", "DENY")], U1, H1, "WRITE", "TOPIC") is False
    assert allowed([hard], U1, H1, "WRITE", "TOPIC")
    # ... and with allow.everyone.if.no.acl.found=true, no ACL on "hardcode" is enough
    assert allowed([acl("TOPIC", "other", "LITERAL", U2, "*", "READ", "ALLOW")], U1, H1, "WRITE", "TOPIC",
                   allow_everyone=True)
    assert not allowed([acl("TOPIC", "other", "LITERAL", U2, "*", "READ", "ALLOW")], U1, H1, "WRITE", "TOPIC")


def test_only_the_operation_itself_or_all_counts():
    # READ does not imply WRITE, and an ALLOW of READ is no ALLOW of WRITE for the by-type check.
    assert not allowed([acl("TOPIC", "t", "LITERAL", U1, "*", "READ", "ALLOW")], U1, H1, "WRITE", "TOPIC")
    # a literal DENY of the same name cancels a literal ALLOW, not a PREFIXED one
    acls = [acl("TOPIC", "t", "PREFIXED", U1, "*", "WRITE", "ALLOW"), acl("TOPIC", "t", "LITERAL", U1, "*", "WRITE", "DENY")]
    assert allowed(acls, U1, H1, "WRITE", "TOPIC")
