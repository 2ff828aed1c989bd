"""Shadow mode's core (whatif/shadow.py): lines followed as they are written give the decisions, the line
accounting and the classification a whatif replay of the same file gives."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import AclBinding, BrokerSettings, StandardAuthorizer
from kafka_authz_cli.whatif import Quarantined, ReadStats, read_stream
from kafka_authz_cli.whatif.follow import Follower
from kafka_authz_cli.whatif.replay import aggregate, classify, decide, key_of
from kafka_authz_cli.whatif.shadow import LineDecisions, Shadow
from tests.whatif.logs_strategy import chunks

PRINCIPALS = ["User:bob", "User:orders", "User:*", "User:a"]
POOL = [AclBinding.of(rt, name, pt, p, host, op, perm)
        for rt, name, pt in (("TOPIC", "orders", "LITERAL"), ("TOPIC", "*", "LITERAL"), ("GROUP", "grp", "PREFIXED"),
                             ("TOPIC", "pay", "PREFIXED"))
        for p in PRINCIPALS for host in ("*", "10.0.0.1") for op in ("READ", "ALL", "DESCRIBE")
        for perm in ("ALLOW", "DENY") if not (perm == "DENY" and host == "*" and op == "ALL")]
acl_sets = st.lists(st.sampled_from(POOL), max_size=6)
authorizers = st.builds(lambda acls, su, allow: StandardAuthorizer(
                            acls, BrokerSettings(super_users=su, allow_everyone_if_no_acl_found=allow)),
                        acl_sets, st.sampled_from(["", "User:bob"]), st.booleans())


def followed(path: str, stats, quarantine, shadow=None):
    """(decisions, changes) of the file read through the follower, line by line as shadow mode reads it."""
    lines = LineDecisions(stats, quarantine)
    follower = Follower(path, from_start=True)
    decisions = []
    for line in follower.poll():
        decisions += lines.feed(line.generation, line.source, line.lineno, line.text.decode("utf-8", "replace"))
    decisions += lines.finish()
    follower.close()
    return decisions, [shadow.feed(d) for d in decisions] if shadow else []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(st.lists(chunks(), min_size=1, max_size=40), authorizers, st.one_of(st.none(), authorizers))
def test_followed_lines_classify_as_a_replay_of_the_same_file(tmp_path, groups, proposed, current):
    path = tmp_path / "kafka-authorizer.log"
    path.write_bytes(("\n".join(ln for g in groups for ln in g) + "\n").encode())
    whole_stats, whole_q = ReadStats(), []
    with open(path, "rb") as fh:
        whole = list(read_stream(fh, str(path), whole_stats, whole_q))
    stats, quarantine = ReadStats(), []
    shadow = Shadow(proposed, current)
    decisions, changes = followed(str(path), stats, quarantine, shadow)
    # the same records, the same accounting, the same quarantine
    assert decisions == whole
    assert stats.as_dict() == whole_stats.as_dict() and stats.balanced
    assert quarantine == whole_q
    # each decision classified as the replay classifies its request (a request both allowed and denied in
    # the window has no logged baseline in a replay; shadow mode judges each line by what it logged)
    aggs = aggregate(whole)
    after = decide(aggs, proposed)
    before = decide(aggs, current) if current is not None else None
    for d, change in zip(decisions, changes):
        key = key_of(d)
        if current is None and aggs[key].logged == "MIXED":
            continue
        kind, before_decision, _ = classify(aggs[key], after[key], before[key] if before else None)
        assert (change.kind if change else None) == kind
        if change:
            assert (change.before, change.after, change.after_rule) == (before_decision, after[key].decision,
                                                                         after[key].rule)
    s = shadow.summary
    assert s.decisions == len(whole) and s.distinct_requests == len(aggs)
    assert s.newly_denied + s.newly_allowed == sum(c is not None for c in changes)
    assert s.newly_denied_requests == len({key_of(d) for d, c in zip(decisions, changes) if c and
                                           c.kind == "newly_denied"})


LINE = ("[2026-11-20 10:00:0{i},000] DEBUG Principal = User:{who} is Allowed operation = READ from host = 10.0.0.1 "
        "on resource = Topic:LITERAL:orders for request = Fetch with resourceRefCount = 1 based on rule "
        "MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=orders, patternType=LITERAL, "
        "principal=User:{who}, host=*, operation=READ, permissionType=ALLOW)) (kafka.authorizer.logger)")


def test_a_change_names_its_cause_and_repeats_are_counted_once_per_request():
    proposed = StandardAuthorizer([AclBinding.of("TOPIC", "orders", "LITERAL", "User:alice", "*", "READ", "ALLOW")])
    stats, q = ReadStats(), []
    lines = LineDecisions(stats, q)
    shadow = Shadow(proposed)
    out = []
    for i, who in enumerate(["alice", "bob", "bob", "alice", "bob"]):
        for d in lines.feed(1, "a.log", i + 1, LINE.format(i=i, who=who)):
            out.append(shadow.feed(d))
    changes = [c for c in out if c]
    assert [c.occurrence for c in changes] == [1, 2, 3] and {c.principal for c in changes} == {"User:bob"}
    assert changes[0].cause == "removing ALLOW READ on TOPIC orders (LITERAL) for User:bob"
    assert (changes[0].before, changes[0].after, changes[0].time) == ("ALLOWED", "DENIED", "2026-11-20 10:00:01,000")
    s = shadow.summary
    assert (s.decisions, s.distinct_requests, s.newly_denied, s.newly_denied_requests, s.visible_newly_denied) == \
        (5, 2, 3, 1, 3)


def test_each_distinct_request_is_decided_once():
    calls = []

    class Counting(StandardAuthorizer):
        def authorize(self, request):
            calls.append(request)
            return super().authorize(request)

    shadow = Shadow(Counting([]))
    lines = LineDecisions(ReadStats(), [])
    for i in range(5):
        for d in lines.feed(1, "a.log", i + 1, LINE.format(i=i, who="bob")):
            shadow.feed(d)
    assert len(calls) == 1 and shadow.summary.newly_denied == 5


def test_a_quiet_log_without_the_logger_suffix_is_not_held_back():
    """A layout without the logger suffix: the whole-file reader chooses from 200 lines; a followed log
    that goes quiet is read from the lines so far (idle)."""
    stats, q = ReadStats(), []
    lines = LineDecisions(stats, q)
    text = LINE.format(i=1, who="bob").replace(" (kafka.authorizer.logger)", "")
    assert lines.feed(1, "a.log", 1, text) == []
    got = lines.idle()
    assert [d.principal for d in got] == ["User:bob"]
    assert [d.principal for d in lines.feed(1, "a.log", 2, text.replace("bob", "eve"))] == ["User:eve"]


def test_events_are_told_by_the_first_line_and_a_new_generation_gets_its_own_reader():
    import json

    from kafka_authz_cli.whatif.cloudevents import FORMAT, to_event

    stats, q = ReadStats(), []
    lines = LineDecisions(stats, q)
    log4j = LineDecisions(ReadStats(), [])
    d = log4j.feed(1, "x", 1, LINE.format(i=1, who="bob"))[0]
    event = json.dumps(to_event(d))
    got = lines.feed(1, "events.log", 1, event)
    assert [x.principal for x in got] == ["User:bob"] and got[0].format == FORMAT
    got = lines.feed(2, "rotated.log", 1, LINE.format(i=2, who="eve"))  # the next file is log4j
    assert [x.principal for x in got] == ["User:eve"] and stats.files == 2
    lines.feed(2, "rotated.log", 2, "not a record at all (kafka.authorizer.logger)")
    assert [x.reason[:20] for x in q] == ["not an authorizer re"] and isinstance(q[0], Quarantined)
