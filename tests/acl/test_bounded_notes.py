"""Notes stay bounded, the fast JSON reader reads what the careful one reads, decisions stay Kafka's."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl.engine import MAX_HOST_NOTES, Request, StandardAuthorizer
from kafka_authz_cli.acl.formats import LineOrigins, read_json, write_json
from kafka_authz_cli.acl.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.acl.naive import NaiveAuthorizer

READ, ALLOW, DENY = AclOperation.READ, AclPermissionType.ALLOW, AclPermissionType.DENY
TOPIC, LITERAL = ResourceType.TOPIC, PatternType.LITERAL


def _odd(n: int, permission=ALLOW, principal="User:a") -> list[AclBinding]:
    # AuthorizerBenchmark's wildcard section: "127.0.0" + n is no client address text.
    return [AclBinding(TOPIC, "*", LITERAL, principal, f"127.0.0{i}", READ, permission) for i in range(n)]


def test_notes_on_hosts_that_never_match_are_bounded_and_counted():
    authz = StandardAuthorizer(_odd(50))
    d = authz.authorize(Request("User:a", "127.0.0.1", READ, TOPIC, "t"))
    assert d.rule == "DefaultDeny"
    notes = authz.notes(d)
    assert len(notes) == MAX_HOST_NOTES + 1
    assert all("'127.0.0" in n and "never matches" in n for n in notes[:MAX_HOST_NOTES])
    assert "45 more ALLOW ACL(s)" in notes[-1]


def test_notes_name_only_acls_that_would_have_decided():
    allow = AclBinding(TOPIC, "t", LITERAL, "User:a", "*", READ, ALLOW)
    authz = StandardAuthorizer([allow] + _odd(30, ALLOW) + _odd(2, DENY))
    d = authz.authorize(Request("User:a", "10.0.0.1", READ, TOPIC, "t"))
    assert d.allowed
    # The 30 ALLOWs would not change an ALLOWED answer; the 2 DENYs would have denied it.
    notes = authz.notes(d)
    assert len(notes) == 2 and all("the DENY READ ACL" in n for n in notes)
    # Another principal, another operation: none of those ACLs would have decided.
    for request in (Request("User:b", "10.0.0.1", READ, TOPIC, "t"), Request("User:a", "10.0.0.1",
                                                                              AclOperation.WRITE, TOPIC, "t")):
        assert authz.notes(authz.authorize(request)) == []


def test_a_denied_request_gets_no_note_about_allows_when_a_deny_decided():
    deny = AclBinding(TOPIC, "t", LITERAL, "User:a", "*", READ, DENY)
    authz = StandardAuthorizer([deny] + _odd(10, ALLOW))
    d = authz.authorize(Request("User:a", "10.0.0.1", READ, TOPIC, "t"))
    assert d.acl == deny and authz.notes(d) == []


def test_fast_json_reader_gives_the_careful_readers_bindings_and_lines():
    acls = _odd(3) + [AclBinding(ResourceType.GROUP, "g", PatternType.PREFIXED, "User:é", "*", AclOperation.ALL, DENY)]
    text = write_json(acls)
    fast = read_json(text, "f.json")
    assert isinstance(fast.origins, LineOrigins)
    # The same document with one field spelled another way Kafka accepts takes the careful path.
    careful = read_json(text.replace('"READ"', '"Read"'), "f.json")
    assert not isinstance(careful.origins, LineOrigins)
    assert fast.bindings == careful.bindings == acls
    assert list(fast.origins) == list(careful.origins) == ["f.json:4", "f.json:5", "f.json:6", "f.json:7"]


def test_two_acls_on_one_line_are_located_exactly():
    one = json.dumps({"resource_type": "TOPIC", "resource_name": "t", "pattern_type": "LITERAL",
                      "principal": "User:a", "host": "*", "operation": "READ", "permission": "ALLOW"})
    text = '{"acls": [\n' + one + ", " + one.replace('"t"', '"u"') + "\n],\n\"comment\":\n{\"x\": 1}}"
    assert list(read_json(text, "f").origins) == ["f:2", "f:2"]


PRINCIPALS = ["User:a", "User:*", "User:é", "User:😀", "User:\uffff", "Group:a"]
HOSTS = ["*", "10.0.0.1", "127.0.01", "::1", "0:0:0:0:0:0:0:1"]
NAMES = st.lists(st.sampled_from(["a", "b", "*", "-", "é"]), min_size=1, max_size=3).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(acls=st.lists(st.builds(AclBinding, resource_type=st.sampled_from([TOPIC, ResourceType.GROUP]),
                               resource_name=NAMES, pattern_type=st.sampled_from([LITERAL, PatternType.PREFIXED]),
                               principal=st.sampled_from(PRINCIPALS), host=st.sampled_from(HOSTS),
                               operation=st.sampled_from([AclOperation.ALL, READ, AclOperation.WRITE,
                                                          AclOperation.DESCRIBE]),
                               permission=st.sampled_from([ALLOW, DENY])), max_size=30),
       reqs=st.lists(st.builds(Request, principal=st.sampled_from(PRINCIPALS[:5] + ["User:b"]),
                               host=st.sampled_from(["10.0.0.1", "10.0.0.2", "::1"]),
                               operation=st.sampled_from([READ, AclOperation.WRITE, AclOperation.DESCRIBE]),
                               resource_type=st.sampled_from([TOPIC, ResourceType.GROUP]), resource_name=NAMES),
                     min_size=1, max_size=10))
def test_engine_over_the_fast_reader_decides_as_the_naive_evaluator(acls, reqs):
    loaded = read_json(write_json(acls), "f.json").bindings
    assert loaded == acls
    engine, naive = StandardAuthorizer(loaded), NaiveAuthorizer(acls)
    for r in reqs:
        d, n = engine.authorize(r), naive.authorize(r)
        assert (d.outcome, d.rule, d.acl) == (n.outcome, n.rule, n.acl), r
        assert len(engine.notes(d)) <= MAX_HOST_NOTES + 3  # host notes, their count, the wildcard and DENY notes
