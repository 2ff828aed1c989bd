"""Layer 2: client configuration, the catalogue's workflows, where an application fails, the smallest set."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import AclBinding, StandardAuthorizer
from kafka_authz_cli.apps.calls import Caller, Cluster
from kafka_authz_cli.apps.catalogue import AppSpec, SpecError
from kafka_authz_cli.apps.clientconfig import ClientConfig, ClientConfigError, consumer_settings, producer_settings
from kafka_authz_cli.apps.kinds import KINDS
from kafka_authz_cli.apps.minimal import prove, repair
from kafka_authz_cli.apps.verdict import evaluate
from kafka_authz_cli.apps.versions import DEFAULT, KafkaVersion, VersionError

P = "User:alice"
V = KafkaVersion.parse


def cfg(**values) -> ClientConfig:
    return ClientConfig({k.replace("_", "."): v for k, v in values.items()})


def acl(rtype, name, op, pattern="LITERAL", permission="ALLOW", host="*") -> AclBinding:
    return AclBinding.of(rtype, name, pattern, P, host, op, permission)


# ---- client configuration ----------------------------------------------------------------------------


def test_idempotence_is_the_default_and_conflicting_defaults_turn_it_off():
    assert producer_settings(cfg(), DEFAULT).idempotent
    assert not producer_settings(cfg(acks="1"), DEFAULT).idempotent
    assert not producer_settings(cfg(retries="0"), DEFAULT).idempotent
    with pytest.raises(ClientConfigError, match="acks to all"):
        producer_settings(ClientConfig({"acks": "1", "enable.idempotence": "true"}), DEFAULT)


def test_3_0_0_and_3_1_0_enable_idempotence_only_when_asked():
    assert not producer_settings(cfg(), V("3.0.0")).idempotent
    assert not producer_settings(cfg(), V("3.1.0")).idempotent
    assert producer_settings(ClientConfig({"enable.idempotence": "true"}), V("3.1.0")).idempotent
    assert producer_settings(cfg(), V("3.1.1")).idempotent
    assert producer_settings(cfg(), V("3.0")).idempotent  # the line's newest patch, 3.0.2


def test_more_than_five_in_flight_turns_idempotence_off_in_3x_and_is_refused_in_4x():
    many = ClientConfig({"max.in.flight.requests.per.connection": "6"})
    assert not producer_settings(many, V("3.9")).idempotent
    with pytest.raises(ClientConfigError, match="at most 5"):
        producer_settings(many, V("4.0"))


def test_a_transactional_id_needs_idempotence():
    assert producer_settings(ClientConfig({"transactional.id": "tx"}), DEFAULT).transactional_id == "tx"
    with pytest.raises(ClientConfigError, match="Cannot set a transactional.id"):
        producer_settings(ClientConfig({"transactional.id": "tx", "acks": "1"}), DEFAULT)
    with pytest.raises(ClientConfigError, match="true or false"):
        producer_settings(ClientConfig({"enable.idempotence": "yes"}), DEFAULT)


def test_group_protocol_exists_from_3_7():
    assert consumer_settings(ClientConfig({"group.protocol": "CONSUMER", "group.id": "g"}), DEFAULT).protocol == "consumer"
    old = consumer_settings(ClientConfig({"group.protocol": "consumer", "group.id": "g"}), V("3.6"))
    assert old.protocol == "classic" and any("ignored" in n for n in old.notes)
    with pytest.raises(ClientConfigError):
        consumer_settings(ClientConfig({"group.protocol": "bogus"}), DEFAULT)


def test_streams_prefixes_reach_each_client():
    c = ClientConfig({"application.id": "app", "acks": "all", "producer.acks": "1", "consumer.group.protocol": "x",
                      "main.consumer.isolation.level": "read_committed"})
    assert c.for_client("producer.").get("acks") == "1"
    assert c.for_client("consumer.", "main.consumer.").get("isolation.level") == "read_committed"
    assert c.for_client("producer.").get("group.protocol") is None


@pytest.mark.parametrize("text", ["2.8", "4.2", "five", "4.1.1.1"])
def test_versions_outside_the_model_are_refused(text):
    with pytest.raises(VersionError):
        V(text)


# ---- workflows and verdicts ----------------------------------------------------------------------------


def run(kind, bindings, version=DEFAULT, cluster=None, **spec):
    config = ClientConfig(spec.pop("config", {}))
    workflow = KINDS[kind].build(AppSpec(kind, config=config, **spec), version)
    return evaluate(workflow, Cluster(StandardAuthorizer(bindings), version, **(cluster or {})), Caller(P))


def test_a_consumer_meets_the_topic_metadata_first_then_the_group():
    none = run("consumer", [], topics=("t",), config={"group.id": "g"})
    assert (none.exception, none.step) == ("TopicAuthorizationException", "poll")
    group_describe = run("consumer", [acl("TOPIC", "t", "READ"), acl("GROUP", "g", "DESCRIBE")], topics=("t",),
                         config={"group.id": "g"})
    assert group_describe.exception == "GroupAuthorizationException"
    assert group_describe.failing_call.request.api == "JoinGroup"


def test_an_idempotent_producer_with_only_describe_gets_a_cluster_authorization_error():
    v = run("producer", [acl("TOPIC", "t", "DESCRIBE")], topics=("t",))
    assert (v.exception, v.step, v.failing_call.request.api) == ("ClusterAuthorizationException", "send", "InitProducerId")
    plain = run("producer", [acl("TOPIC", "t", "DESCRIBE")], topics=("t",), config={"enable.idempotence": "false"})
    assert plain.exception == "TopicAuthorizationException" and plain.failing_call.request.api == "Produce"


def test_transactions_v1_add_partitions_v2_does_not():
    names = [s.requests for s in KINDS["producer"].build(AppSpec("producer", ("t",), config=ClientConfig(
        {"transactional.id": "tx"})), V("3.9")).steps]
    assert "AddPartitionsToTxn" in [q.api for step in names for q in step]
    v2 = [q.api for s in KINDS["producer"].build(AppSpec("producer", ("t",), config=ClientConfig(
        {"transactional.id": "tx"})), DEFAULT).steps for q in s.requests]
    assert "AddPartitionsToTxn" not in v2


def test_a_missing_topic_times_out_a_producer_and_silences_a_consumer():
    absent = {"absent_topics": frozenset({"t"}), "auto_create_topics_enable": False}
    producer = run("producer", [acl("TOPIC", "t", "WRITE")], cluster=absent, topics=("t",))
    assert (producer.exception, producer.step) == ("TimeoutException", "send")
    consumer = run("consumer", [acl("TOPIC", "t", "READ"), acl("GROUP", "g", "READ")], cluster=absent, topics=("t",),
                   config={"group.id": "g"})
    assert consumer.exception is None and "does not exist" in consumer.silent
    created = run("producer", [acl("TOPIC", "t", "WRITE"), acl("TOPIC", "t", "CREATE")],
                  cluster={"absent_topics": frozenset({"t"})}, topics=("t",))
    assert created.works


def test_streams_failures_are_wrapped_and_the_purge_only_warns():
    v = run("streams", [acl("TOPIC", "in", "READ"), acl("TOPIC", "out", "WRITE"), acl("GROUP", "app", "READ"),
                        acl("TOPIC", "app-", "READ", "PREFIXED"), acl("TOPIC", "app-", "WRITE", "PREFIXED"),
                        acl("TOPIC", "app-", "CREATE", "PREFIXED")],
            inputs=("in",), outputs=("out",), stateful=True, config={"application.id": "app"})
    assert v.works and v.warnings and "DeleteRecords" in v.warnings[0]
    missing = run("streams", [], inputs=("in",), outputs=("out",), config={"application.id": "app"})
    assert (missing.exception, missing.surfaced_as, missing.step) == (
        "TopicAuthorizationException", "StreamsException", "StreamsUncaughtExceptionHandler")


def test_a_refused_configuration_fails_in_the_constructor():
    v = run("producer", [], topics=("t",), config={"transactional.id": "tx", "enable.idempotence": "false"})
    assert (v.works, v.exception, v.step) == (False, "ConfigException", "KafkaProducer")


def test_a_share_consumer_does_not_exist_before_4_0():
    with pytest.raises(SpecError, match="4.0"):
        KINDS["share-consumer"].build(AppSpec("share-consumer", ("t",), config=ClientConfig({"group.id": "g"})), V("3.9"))


# ---- the smallest set and its proof ----------------------------------------------------------------------

SPECS = {
    "producer": dict(topics=("t",)),
    "consumer": dict(topics=("t",), config={"group.id": "g"}),
    "share-consumer": dict(topics=("t",), config={"group.id": "g"}),
    "consume-transform-produce": dict(inputs=("i",), outputs=("o",), config={"group.id": "g", "transactional.id": "x"}),
    "streams": dict(inputs=("i",), outputs=("o",), stateful=True,
                    config={"application.id": "app", "processing.guarantee": "exactly_once_v2"}),
    "admin-create-topics": dict(topics=("n",)), "admin-delete-topics": dict(topics=("t",)),
    "admin-describe-topics": dict(topics=("t",)), "admin-describe-configs": dict(topics=("t",)),
    "admin-alter-configs": dict(topics=("t",)), "admin-delete-records": dict(topics=("t",)),
    "admin-list-groups": dict(groups=("g",)), "admin-describe-groups": dict(groups=("g",)),
    "admin-list-offsets": dict(groups=("g",), topics=("t",)), "admin-reset-offsets": dict(groups=("g",), topics=("t",)),
    "connect-worker": dict(config={"group.id": "cc", "offset.storage.topic": "o", "status.storage.topic": "s",
                                   "config.storage.topic": "c", "exactly.once.source.support": "enabled"}),
    "connect-sink": dict(topics=("t",), config={"name": "jdbc", "errors.deadletterqueue.topic.name": "dlq"}),
    "connect-source": dict(topics=("t",), config={"name": "src", "group.id": "cc", "exactly.once.source.support": "enabled",
                                                  "topic.creation.default.partitions": "3"}),
    "mirror-source": dict(topics=("orders",), config={"cluster": "source", "source.cluster.alias": "A",
                                                      "target.cluster.alias": "B"}),
    "mirror-checkpoint": dict(topics=("orders",), groups=("billing",),
                              config={"cluster": "target", "source.cluster.alias": "A", "target.cluster.alias": "B",
                                      "sync.group.offsets.enabled": "true"}),
    "mirror-heartbeat": dict(config={"source.cluster.alias": "A", "target.cluster.alias": "B"}),
    "ui-kafka-ui": dict(topics=("orders",), groups=("billing",)),
    "ui-akhq": dict(topics=("orders",), groups=("billing",)),
}


def test_every_kind_is_exercised():
    assert set(SPECS) == set(KINDS)


def _minimal(kind, base=(), prefixed=False, version=DEFAULT):
    spec = dict(SPECS[kind])
    config = ClientConfig(spec.pop("config", {}))
    workflow = KINDS[kind].build(AppSpec(kind, config=config, **spec), version)
    cluster = Cluster(StandardAuthorizer(list(base)), version)
    return workflow, cluster, repair(workflow, cluster, Caller(P), StandardAuthorizer, list(base), prefixed=prefixed)


@pytest.mark.parametrize("kind", sorted(SPECS))
@pytest.mark.parametrize("prefixed", [False, True])
def test_the_smallest_set_works_and_each_of_its_acls_is_needed(kind, prefixed):
    workflow, cluster, found = _minimal(kind, prefixed=prefixed)
    assert found.blocked is None and found.verdict.works
    with_all, proofs = prove(workflow, cluster, Caller(P), StandardAuthorizer, found.added)
    assert with_all.works and proofs
    assert all(not p.without.works for p in proofs)
    if prefixed:
        assert all(a.pattern_type.name == "PREFIXED" or a.resource_type.name == "CLUSTER" for a in found.added)


def test_the_producer_needs_only_write_on_its_topic():
    _, _, found = _minimal("producer")
    assert [(a.operation.name, a.resource_type.name, a.resource_name) for a in found.added] == [("WRITE", "TOPIC", "t")]


def test_streams_internal_names_are_prefixed_on_the_application_id():
    _, _, found = _minimal("streams")
    prefixed = {(a.resource_type.name, a.resource_name) for a in found.added if a.pattern_type.name == "PREFIXED"}
    assert prefixed == {("TOPIC", "app-"), ("TRANSACTIONAL_ID", "app-")}


def test_a_deny_blocks_the_repair_and_is_named():
    deny = acl("GROUP", "g", "READ", permission="DENY")
    _, _, found = _minimal("consumer", base=[deny])
    assert found.blocked and "DENY" in found.blocked and found.denies == [deny]


names = st.sampled_from(["t", "g", "x", "app-", "*", "o", "i", "ta"])
bindings = st.builds(
    lambda rtype, name, op, pattern, permission, host: AclBinding.of(rtype, name, pattern, P, host, op, permission),
    st.sampled_from(["TOPIC", "GROUP", "TRANSACTIONAL_ID", "CLUSTER"]), names,
    st.sampled_from(["READ", "WRITE", "DESCRIBE", "CREATE", "ALL", "IDEMPOTENT_WRITE"]),
    st.sampled_from(["LITERAL", "PREFIXED"]), st.sampled_from(["ALLOW", "ALLOW", "DENY"]),
    st.sampled_from(["*", "127.0.0.1", "10.0.0.9"]))


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["producer", "consumer", "consume-transform-produce", "streams", "admin-create-topics"]),
       base=st.lists(bindings, max_size=6))
def test_from_any_acl_set_the_repair_works_or_says_why_not(kind, base):
    base = [b for b in base if b.resource_type.name != "CLUSTER" or b.resource_name == "kafka-cluster"]
    workflow, cluster, found = _minimal(kind, base=base)
    assert found.verdict.works or found.blocked
    if found.blocked is None:
        # minimal: without any one added ACL (the base kept), it fails again
        for a in found.added:
            rest = [b for b in found.added if b != a]
            assert not evaluate(workflow, Cluster(StandardAuthorizer(base + rest)), Caller(P)).works
    else:
        assert found.denies, found.blocked


def test_a_connect_worker_only_logs_a_refused_creation_and_fails_reading_a_topic_that_is_not_there():
    spec = dict(SPECS["connect-worker"])
    config = ClientConfig(spec.pop("config"))
    workflow = KINDS["connect-worker"].build(AppSpec("connect-worker", config=config), DEFAULT)
    read_all = [acl("TOPIC", t, "READ") for t in ("o", "s", "c")]
    existing = evaluate(workflow, Cluster(StandardAuthorizer(read_all)), Caller(P))
    assert existing.step == "WorkerGroupMember.ensureActive"  # got past the stores: the refused creations only warn
    assert sum("CreateTopics" in w for w in existing.warnings) == 3
    absent = evaluate(workflow, Cluster(StandardAuthorizer(read_all), absent_topics=frozenset({"o", "s", "c"})),
                      Caller(P))
    assert (absent.exception, absent.step) == ("ConnectException", "KafkaOffsetBackingStore.start")
    found = repair(workflow, Cluster(StandardAuthorizer([]), absent_topics=frozenset({"o", "s", "c"})), Caller(P),
                   StandardAuthorizer, [])
    assert found.blocked is None and {("CREATE", "o"), ("CREATE", "s"), ("CREATE", "c")} <= {
        (a.operation.name, a.resource_name) for a in found.added}
    assert ("TRANSACTIONAL_ID", "connect-cluster-cc") in {(a.resource_type.name, a.resource_name) for a in found.added}


def test_a_sink_connector_consumes_in_group_connect_name():
    _, _, found = _minimal("connect-sink")
    assert ("GROUP", "connect-jdbc", "READ") in {(a.resource_type.name, a.resource_name, a.operation.name)
                                                  for a in found.added}


def test_admin_describe_topics_uses_metadata_before_3_7():
    def apis(version):
        wf = KINDS["admin-describe-topics"].build(AppSpec("admin-describe-topics", ("t",), version=version), version)
        return [q.api for s in wf.steps for q in s.requests]
    assert apis(V("3.6")) == ["Metadata"] and apis(DEFAULT) == ["DescribeTopicPartitions"]
