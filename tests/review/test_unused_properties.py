"""authz access unused against the engine, on random ACL sets and random logged traffic: a binding
reported unused (or unknown) is never the deciding ACL of a replayed request; a used one's count is
exactly the logged lines of the requests it decides; never 'unused' without ALLOWED lines; and,
without allow.everyone.if.no.acl.found, dropping every unused binding changes no replayed decision."""

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import AclBinding, BrokerSettings, Request, StandardAuthorizer
from kafka_authz_cli.acl.model import AclOperation, ResourceType
from kafka_authz_cli.review import Evidence, SourceTally, in_window, review_unused
from kafka_authz_cli.whatif import AuditDecision, ReadStats, aggregate, read_stream

PRINCIPALS = ["User:alice", "User:bob", "User:carol"]
HOSTS = ["10.0.0.1", "10.0.0.2"]
NAMES = ["orders", "orders-eu", "pay", "x"]
TYPES = ["TOPIC", "GROUP"]
OPS = ["READ", "WRITE", "DESCRIBE", "ALTER", "ALL"]
REQ_OPS = ["READ", "WRITE", "DESCRIBE", "ALTER"]
PASCAL = {"TOPIC": "Topic", "GROUP": "Group"}

bindings = st.builds(
    lambda t, name, pattern, p, h, op, perm: AclBinding.of(t, name if pattern == "LITERAL" or name != "*" else "o",
                                                           pattern, p, h, op, perm),
    st.sampled_from(TYPES), st.sampled_from(NAMES + ["ord", "*"]), st.sampled_from(["LITERAL", "PREFIXED"]),
    st.sampled_from(PRINCIPALS + ["User:*"]), st.sampled_from(HOSTS + ["*"]), st.sampled_from(OPS),
    st.sampled_from(["ALLOW", "ALLOW", "DENY"]))
requests = st.tuples(st.sampled_from(PRINCIPALS + ["User:dave"]), st.sampled_from(HOSTS), st.sampled_from(REQ_OPS),
                     st.sampled_from(TYPES), st.sampled_from(NAMES), st.integers(0, 23), st.integers(1, 3),
                     st.sampled_from(["DEBUG", "INFO", "TRACE"]))


def logged(reqs, engine, info_only=False):
    """Log lines as the brokers would write them for these requests (decided by the brokers' own set)."""
    out = []
    for p, h, op, t, name, hour, n, level in reqs:
        allowed = engine.authorize(Request(p, h, AclOperation[op], ResourceType[t], name)).allowed
        if allowed and level == "INFO":
            level = "DEBUG"
        if info_only and allowed:
            continue
        word = "Allowed" if allowed else "Denied"
        for i in range(n):
            out.append(f"[2026-11-20 {hour:02d}:{i:02d}:00,000] {level} Principal = {p} is {word} operation = {op} "
                       f"from host = {h} on resource = {PASCAL[t]}:LITERAL:{name} for request = Fetch with "
                       f"resourceRefCount = 1 based on rule DefaultDeny (kafka.authorizer.logger)")
    return "\n".join(out) + "\n"


def review(text, acls, config, since=None, until=None):
    stats, quarantine, ev = ReadStats(), [], Evidence()
    tally = SourceTally("broker.log")
    ev.sources.append(tally)
    decisions = in_window(read_stream(io.BytesIO(text.encode()), tally.source, stats, quarantine), tally, ev,
                          since, until)
    aggs = aggregate(decisions)
    return aggs, review_unused(aggs, acls, [f"acls:{i}" for i in range(len(acls))], config, ev)


def _decide(engine, key):
    p, h, op, t, name = key
    return engine.authorize(Request(p, h, AclOperation[op], ResourceType[t], name))


@settings(max_examples=150)
@given(st.lists(bindings, max_size=12), st.lists(requests, max_size=25), st.booleans(), st.booleans(),
       st.sampled_from([None, "2026-11-20 06"]))
def test_unused_bindings_never_decide_a_replayed_request(acls, reqs, allow_everyone, info_only, since):
    config = BrokerSettings(super_users="User:carol" if allow_everyone else "",
                            allow_everyone_if_no_acl_found=allow_everyone)
    engine = StandardAuthorizer(acls, config)
    aggs, report = review(logged(reqs, engine, info_only), acls, config, since=since)
    deciding: dict[AclBinding, int] = {}
    for key, agg in aggs.items():
        acl = _decide(engine, key).acl
        if acl is not None:
            deciding[acl] = deciding.get(acl, 0) + agg.count
    any_allowed = any(agg.allowed for agg in aggs.values())
    for use in report.bindings:
        assert use.requests == deciding.get(use.binding, 0)
        assert (use.status == "used") == (use.binding in deciding)
        if use.status != "used":
            assert all(_decide(engine, k).acl != use.binding for k in aggs)
        if use.status == "unused" and use.binding.permission.name == "ALLOW":
            assert any_allowed  # never called unused from logs without ALLOWED lines
    if report.changed_without_unused is not None:
        # The report replays DefaultDeny requests only: every request, replayed here, must agree.
        kept = StandardAuthorizer([u.binding for u in report.bindings if u.status != "unused"], config)
        changed = sum(1 for k in aggs if _decide(kept, k).decision != _decide(engine, k).decision)
        assert report.changed_without_unused == changed
        if not allow_everyone:
            assert changed == 0
    for p in report.principals:
        seen = any(k[0] == p.principal for k in aggs)
        assert (p.status == "seen") == seen
        if p.status == "unseen":
            assert any_allowed


@settings(max_examples=60)
@given(st.lists(bindings, min_size=1, max_size=8), st.lists(requests, min_size=1, max_size=20))
def test_the_counts_are_what_the_lines_say(acls, reqs):
    """Every logged line of a request is credited to its deciding binding, none twice: the used bindings'
    counts plus the lines no binding decided add up to the decisions read."""
    config = BrokerSettings()
    engine = StandardAuthorizer(acls, config)
    aggs, report = review(logged(reqs, engine), acls, config)
    undecided = sum(a.count for k, a in aggs.items() if _decide(engine, k).acl is None)
    assert sum(u.requests for u in report.bindings) + undecided == report.decisions == sum(r[6] for r in reqs)


def test_a_decision_without_a_time_is_left_out_of_a_bounded_window():
    d = AuditDecision("User:a", "10.0.0.1", "READ", "TOPIC", "t", "LITERAL", "DENIED", "INFO", None, None, None, None,
                      "F-KRAFT", "f:1")
    ev = Evidence()
    tally = SourceTally("f")
    assert list(in_window([d], tally, ev, since="2026-01-01 00")) == [] and ev.untimed_left_out == 1
    assert list(in_window([d], tally, ev)) == [d] and tally.denied == 1


def test_with_allow_everyone_dropping_the_only_acl_of_a_resource_is_flagged():
    """bob is denied t because alice's grant is t's only ACL; alice never came: her grant is unused, yet
    removing it would let everyone in (allow.everyone.if.no.acl.found), and the report says so."""
    acls = [AclBinding.of("TOPIC", "t", "LITERAL", "User:alice", "*", "READ", "ALLOW")]
    config = BrokerSettings(allow_everyone_if_no_acl_found=True)
    text = ("[2026-11-20 10:00:00,000] DEBUG Principal = User:carol is Allowed operation = READ from host = 10.0.0.1 on "
            "resource = Topic:LITERAL:u for request = Fetch with resourceRefCount = 1 based on rule DefaultAllow "
            "(kafka.authorizer.logger)\n"
            "[2026-11-20 10:00:00,000] INFO Principal = User:bob is Denied operation = READ from host = 10.0.0.1 on "
            "resource = Topic:LITERAL:t for request = Fetch with resourceRefCount = 1 based on rule DefaultDeny "
            "(kafka.authorizer.logger)\n")
    _, report = review(text, acls, config)
    assert [u.status for u in report.bindings] == ["unused"]
    assert report.changed_without_unused == 1 and any("allow.everyone" in w for w in report.warnings)
