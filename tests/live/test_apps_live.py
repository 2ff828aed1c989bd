"""`authz app` against the real thing: the Java clients of the broker's release (kafka-clients and
kafka-streams, tests/live/pom.xml) run each workflow of the catalogue as a SASL user, in one JVM
(apps/AppHarness.java, driven by apps_harness.py).

For each kind: with the set `authz app acls` generates, the application works; with each of its ACLs
removed, it fails exactly as `authz app check` predicts for that reduced set (the same exception, at the
same client call). Then the subtle cases: PREFIXED and `*` names, a DENY on an operation the application
needs indirectly, ALL, an ACL for another host, cluster against topic grants, a topic that does not exist.

Every run uses fresh group, transactional and application ids (a group remembers its members, a
transactional id its epoch), so runs never see each other's state.
"""

from __future__ import annotations

import itertools
import json
import time
import uuid
from dataclasses import dataclass, field

import pytest

from kafka_authz_cli.acl import AclBinding, dump_acls

pytestmark = pytest.mark.live

USER, PASSWORD = "appuser", "appuser-secret"
PRINCIPAL = f"User:{USER}"
RUN = uuid.uuid4().hex[:6]
_n = itertools.count()

#: Topics created and seeded with one record by the module's setup (read by the consumers).
IN, OUT, SHARE_IN, ADMIN_T = f"in-{RUN}", f"out-{RUN}", f"share-{RUN}", f"admin-{RUN}"
#: A group with committed offsets on IN (made by the admin in setup), for the admin kinds.
LISTED_GROUP = f"listed-{RUN}"


def fresh(prefix: str) -> str:
    return f"{prefix}-{RUN}-{next(_n)}"


@pytest.fixture(scope="module")
def harness(kafka, kadmin, tmp_path_factory):
    from kafka.admin import UserScramCredentialUpsertion

    from tests.live import apps_harness, kafka_broker

    kadmin.alter_user_scram_credentials([UserScramCredentialUpsertion(USER, "SCRAM-SHA-256", PASSWORD, 4096)])
    try:
        apps_harness.compile_harness(kafka.classpath, kafka_broker.CACHE)
    except apps_harness.HarnessError as exc:
        pytest.fail(str(exc), pytrace=False)
    h = apps_harness.Harness(kafka.classpath, tmp_path_factory.mktemp("apps"), kafka.bootstrap, kafka_broker.CACHE,
                             (kafka_broker.ADMIN_USER, kafka_broker.ADMIN_PASSWORD))
    try:
        h.setup(topics=[IN, OUT, SHARE_IN, ADMIN_T], seed=[IN, SHARE_IN, ADMIN_T], feature={"share.version": 1})
        # A group with committed offsets on IN, as the admin (a super user) makes it.
        answer = h.run("consumer", kafka_broker.ADMIN_USER, kafka_broker.ADMIN_PASSWORD, topics=[IN],
                       config={"group.id": LISTED_GROUP})
        assert answer["works"], answer
        _wait_for_login(h)
        yield h
    finally:
        h.close()
        _leave_the_broker_as_found(kadmin)


def _leave_the_broker_as_found(kadmin) -> None:
    """The session's broker is shared: the topics this module made (every name holds RUN, Streams' internal
    topics included), its user and its ACLs go."""
    from kafka.admin import UserScramCredentialDeletion

    ours = [t for t in kadmin.list_topics() if RUN in t]
    if ours:
        kadmin.delete_topics(ours)
    kadmin.alter_user_scram_credentials([UserScramCredentialDeletion(USER, "SCRAM-SHA-256")])
    _put(kadmin, [])
    deadline = time.monotonic() + 15
    while any(RUN in t for t in kadmin.list_topics()) and time.monotonic() < deadline:
        time.sleep(0.1)


def _wait_for_login(h) -> None:
    """The new SCRAM user logs in once the broker has the credential (applied asynchronously)."""
    deadline = time.monotonic() + 15
    while True:
        answer = h.run("admin-describe-topics", USER, PASSWORD, topics=[IN], timeout_ms=3000)
        if answer.get("exception") != "SaslAuthenticationException" or time.monotonic() > deadline:
            return
        time.sleep(0.2)


@dataclass
class Case:
    """One application: the kind, its names (fresh ones from ``names()`` per run) and the harness fields."""

    label: str
    kind: str
    #: the `authz app` options for these names
    options: callable
    #: the harness command's fields for these names
    fields: callable
    names: callable = field(default=lambda: {})
    #: what the admin sets up for these names first (harness setup fields), if anything
    setup: callable = field(default=lambda n: None)


def _topics(*ts):
    return [a for t in ts for a in ("--topic", t)]


CASES = [
    Case("producer (idempotent)", "producer", lambda n: _topics(OUT), lambda n: {"topics": [OUT]}),
    Case("producer (transactional)", "producer", lambda n: _topics(OUT) + ["--config", f"transactional.id={n['tx']}"],
         lambda n: {"topics": [OUT], "config": {"transactional.id": n["tx"]}}, lambda: {"tx": fresh("tx")}),
    Case("consumer (classic group)", "consumer", lambda n: _topics(IN) + ["--config", f"group.id={n['g']}"],
         lambda n: {"topics": [IN], "config": {"group.id": n["g"]}}, lambda: {"g": fresh("g")}),
    Case("consumer (KIP-848 group)", "consumer",
         lambda n: _topics(IN) + ["--config", f"group.id={n['g']}", "--config", "group.protocol=consumer"],
         lambda n: {"topics": [IN], "config": {"group.id": n["g"], "group.protocol": "consumer"}},
         lambda: {"g": fresh("g")}),
    Case("consumer (assign, no group)", "consumer", lambda n: _topics(IN), lambda n: {"topics": [IN]}),
    Case("share-consumer", "share-consumer", lambda n: _topics(SHARE_IN) + ["--config", f"group.id={n['g']}"],
         # a share group's first records (or its first refusal) take seconds, longer on a loaded machine:
         # 8 s once ran out in CI, so it waits up to 30 s (a run that works returns at its first record)
         lambda n: {"topics": [SHARE_IN], "config": {"group.id": n["g"]}, "timeout_ms": 30000},
         lambda: {"g": fresh("sg")},
         # a share group starts at the latest offset unless told otherwise (share.auto.offset.reset)
         lambda n: {"group_configs": [{"group": n["g"], "configs": {"share.auto.offset.reset": "earliest"}}]}),
    Case("consume-transform-produce", "consume-transform-produce",
         lambda n: ["--input", IN, "--output", OUT, "--config", f"group.id={n['g']}", "--config",
                    f"transactional.id={n['tx']}"],
         lambda n: {"input": IN, "output": OUT, "consumer_config": {"group.id": n["g"]},
                    "producer_config": {"transactional.id": n["tx"]}},
         lambda: {"g": fresh("ctp"), "tx": fresh("ctptx")}),
    Case("streams (stateless, at-least-once)", "streams",
         lambda n: ["--input", IN, "--output", OUT, "--config", f"application.id={n['app']}"],
         lambda n: {"input": IN, "output": OUT, "config": {"application.id": n["app"]}}, lambda: {"app": fresh("st")}),
    Case("streams (stateful, exactly_once_v2)", "streams",
         lambda n: ["--input", IN, "--output", OUT, "--stateful", "--config", f"application.id={n['app']}",
                    "--config", "processing.guarantee=exactly_once_v2"],
         lambda n: {"input": IN, "output": OUT, "stateful": True,
                    "config": {"application.id": n["app"], "processing.guarantee": "exactly_once_v2"}},
         lambda: {"app": fresh("eos")}),
    Case("admin-create-topics", "admin-create-topics", lambda n: _topics(n["t"]), lambda n: {"topics": [n["t"]]},
         lambda: {"t": fresh("new")}),
    Case("admin-delete-topics", "admin-delete-topics", lambda n: _topics(n["t"]), lambda n: {"topics": [n["t"]]},
         lambda: {"t": fresh("doomed")}, lambda n: {"topics": [n["t"]]}),
    Case("admin-describe-configs", "admin-describe-configs", lambda n: _topics(ADMIN_T), lambda n: {"topics": [ADMIN_T]}),
    Case("admin-alter-configs", "admin-alter-configs", lambda n: _topics(ADMIN_T), lambda n: {"topics": [ADMIN_T]}),
    Case("admin-describe-topics", "admin-describe-topics", lambda n: _topics(ADMIN_T), lambda n: {"topics": [ADMIN_T]}),
    Case("admin-delete-records", "admin-delete-records", lambda n: _topics(ADMIN_T), lambda n: {"topics": [ADMIN_T]}),
    Case("admin-list-groups", "admin-list-groups", lambda n: ["--group", LISTED_GROUP],
         lambda n: {"groups": [LISTED_GROUP]}),
    Case("admin-describe-groups", "admin-describe-groups", lambda n: ["--group", LISTED_GROUP],
         lambda n: {"groups": [LISTED_GROUP]}),
    Case("admin-list-offsets", "admin-list-offsets", lambda n: ["--group", LISTED_GROUP] + _topics(IN),
         lambda n: {"group": LISTED_GROUP, "topics": [IN]}),
    Case("admin-reset-offsets", "admin-reset-offsets", lambda n: ["--group", n["g"]] + _topics(IN),
         lambda n: {"group": n["g"], "topics": [IN]}, lambda: {"g": fresh("reset")}),
]


def _acls(authz, case: Case, names: dict, *extra) -> list[AclBinding]:
    res = authz("app", "acls", case.kind, "--principal", PRINCIPAL, *case.options(names), *extra, "--to", "json",
                "--format", "json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["works_with_them"], out
    return [AclBinding.of(a["resource_type"], a["resource_name"], a["pattern_type"], a["principal"], a["host"],
                          a["operation"], a["permission"]) for a in out["acls"]]


def _broker_acls(kadmin) -> set[AclBinding]:
    from kafka.admin import ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePatternFilter
    from kafka.admin import ResourceType as KResourceType

    from kafka_authz_cli.cluster.kafka_adapter import from_kafka_acl

    acls, _ = kadmin.describe_acls(ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                             ResourcePatternFilter(KResourceType.ANY, None, ACLResourcePatternType.ANY)))
    return {from_kafka_acl(a) for a in acls}


def _put(kadmin, bindings) -> None:
    """The broker's ACLs become exactly ``bindings`` (and the broker applies them before this returns)."""
    from kafka.admin import ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePatternFilter
    from kafka.admin import ResourceType as KResourceType

    from kafka_authz_cli.cluster.kafka_adapter import to_kafka_acl

    kadmin.delete_acls([ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                  ResourcePatternFilter(KResourceType.ANY, None, ACLResourcePatternType.ANY))])
    if bindings:
        result = kadmin.create_acls([to_kafka_acl(b) for b in bindings])
        assert not result["failed"], result
    deadline = time.monotonic() + 15
    while _broker_acls(kadmin) != set(bindings):
        assert time.monotonic() < deadline, "the broker did not apply the ACLs within 15 s"
        time.sleep(0.05)


def _predict(authz, tmp_path, case: Case, names: dict, bindings, *extra) -> dict:
    path = tmp_path / f"acls-{next(_n)}.json"
    path.write_text(dump_acls(bindings, "json"))
    res = authz("app", "check", path, case.kind, "--principal", PRINCIPAL, *case.options(names), *extra,
                "--format", "json")
    assert res.exit_code in (0, 1), res.output
    return json.loads(res.stdout)


def _run(harness, kadmin, case: Case, names: dict, bindings, **more) -> dict:
    setup = case.setup(names)
    if setup:
        harness.setup(**setup)
    _put(kadmin, bindings)
    fields = {**case.fields(names), **more}
    if case.kind == "streams":
        import tempfile

        fields["state_dir"] = tempfile.mkdtemp(prefix="authz-streams-")
    answer = harness.run(case.kind, USER, PASSWORD, **fields)
    print(f"[{case.label}] {len(bindings)} ACLs: {answer.get('exception')} at {answer.get('step')} in {answer['ms']} ms")
    return answer


def _same(predicted: dict, actual: dict) -> bool:
    return (predicted["works"] == actual["works"] and predicted["exception"] == actual.get("exception")
            and predicted["step"] == actual.get("step"))


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
def test_with_the_generated_set_it_works_and_without_each_acl_it_fails_as_predicted(case, harness, kadmin, authz,
                                                                                   tmp_path):
    names = case.names()
    bindings = _acls(authz, case, names)
    actual = _run(harness, kadmin, case, names, bindings)
    assert actual["works"], (case.label, bindings, actual)
    assert _predict(authz, tmp_path, case, names, bindings)["works"]
    mismatches = []
    for i in range(len(bindings)):
        names = case.names()  # fresh ids: the same set for new names, less its i-th ACL
        reduced = _acls(authz, case, names)
        removed = reduced.pop(i)
        predicted = _predict(authz, tmp_path, case, names, reduced)
        actual = _run(harness, kadmin, case, names, reduced)
        assert not predicted["works"], (case.label, removed, predicted["message"])
        if not _same(predicted, actual):
            mismatches.append((str(removed), (predicted["exception"], predicted["step"]),
                               (actual.get("exception"), actual.get("step"), actual.get("chain"), actual.get("message"))))
    assert not mismatches, mismatches


def _acl(rtype, name, op, pattern="LITERAL", permission="ALLOW", host="*", principal=PRINCIPAL) -> AclBinding:
    return AclBinding.of(rtype, name, pattern, principal, host, op, permission)


def _by_label(label: str) -> Case:
    return next(c for c in CASES if c.label == label)


def _variant_sets():
    """(label, case, names, ACL set, extra `app check` options, extra harness fields, expected (exception, step))."""
    consumer, producer = _by_label("consumer (classic group)"), _by_label("producer (idempotent)")
    create = _by_label("admin-create-topics")
    g = lambda: {"g": fresh("gv")}  # noqa: E731
    yield ("consumer, PREFIXED grants (app acls --prefixed)", consumer, g(), "prefixed", (), {}, (None, None))
    n = g()
    yield ("consumer, '*' grants", consumer, n, [_acl("TOPIC", "*", "READ"), _acl("GROUP", "*", "READ")], (), {},
           (None, None))
    n = g()
    yield ("consumer, ALL on its topic and group", consumer, n,
           [_acl("TOPIC", IN, "ALL"), _acl("GROUP", n["g"], "ALL")], (), {}, (None, None))
    n = g()
    yield ("consumer, a DENY of DESCRIBE, which READ implies and Metadata needs", consumer, n,
           [_acl("TOPIC", IN, "READ"), _acl("GROUP", n["g"], "READ"), _acl("TOPIC", IN, "DESCRIBE", permission="DENY")],
           (), {}, ("TopicAuthorizationException", "poll"))
    n = g()
    yield ("consumer, its group ACL for another host", consumer, n,
           [_acl("TOPIC", IN, "READ"), _acl("GROUP", n["g"], "READ", host="10.9.9.9")], ("--host", "127.0.0.1"), {},
           ("GroupAuthorizationException", "poll"))
    yield ("admin-create-topics, CREATE on the cluster instead of the topic", create, create.names(),
           [_acl("CLUSTER", "kafka-cluster", "CREATE")], (), {}, (None, None))
    yield ("producer, IDEMPOTENT_WRITE on the cluster but no WRITE on its topic", producer, {},
           [_acl("TOPIC", OUT, "DESCRIBE"), _acl("CLUSTER", "kafka-cluster", "IDEMPOTENT_WRITE")], (), {},
           ("TopicAuthorizationException", "send"))
    yield ("producer, WRITE on another topic stands in for IDEMPOTENT_WRITE", producer, {},
           [_acl("TOPIC", OUT, "DESCRIBE"), _acl("TOPIC", "elsewhere", "WRITE")], (), {},
           ("TopicAuthorizationException", "send"))
    yield ("producer, a PREFIXED WRITE elsewhere stands in for IDEMPOTENT_WRITE; another user's DENY of '*' does not count",
           producer, {},
           [_acl("TOPIC", OUT, "DESCRIBE"), _acl("TOPIC", "hard", "WRITE", pattern="PREFIXED"),
            _acl("TOPIC", "*", "WRITE", permission="DENY", principal="User:nobody")], (), {},
           ("TopicAuthorizationException", "send"))
    yield ("producer, a PREFIXED DENY covers the only WRITE: no producer id", producer, {},
           [_acl("TOPIC", OUT, "DESCRIBE"), _acl("TOPIC", "elsewhere", "WRITE"),
            _acl("TOPIC", "else", "WRITE", pattern="PREFIXED", permission="DENY")], (), {},
           ("ClusterAuthorizationException", "send"))


@pytest.mark.parametrize("variant", list(_variant_sets()), ids=lambda v: v[0])
def test_subtle_sets_fail_or_work_as_predicted(variant, harness, kadmin, authz, tmp_path):
    label, case, names, bindings, check_options, fields, expected = variant
    if bindings == "prefixed":
        bindings = _acls(authz, case, names, "--prefixed")
        assert all(b.pattern_type.name == "PREFIXED" for b in bindings)
    predicted = _predict(authz, tmp_path, case, names, bindings, *check_options)
    actual = _run(harness, kadmin, case, names, bindings, **fields)
    assert (actual.get("exception"), actual.get("step")) == expected, (label, actual)
    assert _same(predicted, actual), (label, predicted["message"], actual)


def test_a_topic_that_does_not_exist_times_out_in_send_as_predicted(kafka, harness, kadmin, authz, tmp_path):
    """auto.create.topics.enable=false (the live broker's server.properties): the producer waits for metadata
    until max.block.ms, then TimeoutException; the ACLs are all there."""
    topic = fresh("absent")
    bindings = [_acl("TOPIC", topic, "WRITE")]
    path = tmp_path / "acls.json"
    path.write_text(dump_acls(bindings, "json"))
    res = authz("app", "check", path, "producer", "--principal", PRINCIPAL, "--topic", topic, "--topic-absent",
                "--broker-config", kafka.workdir / "server.properties", "--format", "json")
    predicted = json.loads(res.stdout)
    _put(kadmin, bindings)
    actual = harness.run("producer", USER, PASSWORD, topics=[topic], timeout_ms=2000)
    assert (actual["exception"], actual["step"]) == ("TimeoutException", "send"), actual
    assert _same(predicted, actual), (predicted["message"], actual)
    assert predicted["blocked"] and "does not exist" in predicted["blocked"]


def test_app_check_reads_the_acls_from_the_live_cluster(kafka, harness, kadmin, authz):
    case = _by_label("consumer (classic group)")
    names = case.names()
    bindings = _acls(authz, case, names)
    _put(kadmin, bindings[1:])  # without the first ACL (the group's READ): it fails, and says so from the cluster
    res = authz("app", "check", f"cluster:{kafka.bootstrap}", case.kind, "--principal", PRINCIPAL,
                *case.options(names), "--command-config", kafka.command_config(), "--format", "json")
    predicted = json.loads(res.stdout)
    assert res.exit_code == 1 and predicted["missing"] == [json.loads(json.dumps(_acl_dict(bindings[0])))]
    actual = harness.run(case.kind, USER, PASSWORD, **case.fields(names))
    assert _same(predicted, actual), (predicted["message"], actual)


def _acl_dict(a: AclBinding) -> dict:
    return {"resource_type": a.resource_type.name, "resource_name": a.resource_name, "pattern_type": a.pattern_type.name,
            "principal": a.principal, "host": a.host, "operation": a.operation.name, "permission": a.permission.name}
