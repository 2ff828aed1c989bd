"""MirrorMaker 2 (one cluster per check) and the read-only UIs: the smallest set works, each ACL is needed at
the step derived from the code, and the switches and names that change what they need."""

from __future__ import annotations

import pytest

from kafka_authz_cli.acl import StandardAuthorizer
from kafka_authz_cli.apps.calls import Caller, Cluster
from kafka_authz_cli.apps.catalogue import AppSpec, SpecError
from kafka_authz_cli.apps.clientconfig import ClientConfig
from kafka_authz_cli.apps.kinds import KINDS
from kafka_authz_cli.apps.minimal import prove, repair
from kafka_authz_cli.apps.versions import DEFAULT, KafkaVersion

P = "User:mm2"
ALIASES = {"source.cluster.alias": "A", "target.cluster.alias": "B"}


def _found(kind, version=DEFAULT, **spec):
    config = ClientConfig(dict(spec.pop("config", {})))
    workflow = KINDS[kind].build(AppSpec(kind, config=config, **spec), version)
    cluster = Cluster(StandardAuthorizer([]), version)
    found = repair(workflow, cluster, Caller(P), StandardAuthorizer, [])
    assert found.blocked is None and found.verdict.works, found.blocked
    with_all, proofs = prove(workflow, cluster, Caller(P), StandardAuthorizer, found.added)
    assert with_all.works and all(not p.without.works for p in proofs)
    return found, {(a.operation.name, a.resource_type.name, a.resource_name): p.without for a, p in
                   zip(found.added, proofs)}


def _needs(proofs):
    return set(proofs)


def test_mirror_source_on_the_source_reads_configs_and_acls_consumes_and_writes_the_offset_syncs():
    _, proofs = _found("mirror-source", topics=("orders",), config={"cluster": "source", **ALIASES})
    assert _needs(proofs) == {("DESCRIBE_CONFIGS", "TOPIC", "orders"), ("DESCRIBE", "CLUSTER", "kafka-cluster"),
                              ("READ", "TOPIC", "orders"), ("CREATE", "TOPIC", "mm2-offset-syncs.B.internal"),
                              ("WRITE", "TOPIC", "mm2-offset-syncs.B.internal")}
    acls = proofs[("DESCRIBE", "CLUSTER", "kafka-cluster")]
    assert (acls.exception, acls.step) == ("ClusterAuthorizationException", "MirrorSourceConnector.syncTopicAcls")
    assert proofs[("READ", "TOPIC", "orders")].silent  # listTopics leaves the topic out: nothing is mirrored
    assert proofs[("DESCRIBE_CONFIGS", "TOPIC", "orders")].step == "MirrorSourceConnector.describeTopicConfigs"


def test_mirror_source_without_acl_sync_needs_no_describe_on_the_cluster_but_still_reads_configs():
    # createNewTopics reads the source configs whatever sync.topic.configs.enabled says
    _, proofs = _found("mirror-source", topics=("orders",), config={
        "cluster": "source", "sync.topic.acls.enabled": "false", "sync.topic.configs.enabled": "false", **ALIASES})
    assert ("DESCRIBE", "CLUSTER", "kafka-cluster") not in proofs
    assert ("DESCRIBE_CONFIGS", "TOPIC", "orders") in proofs


def test_mirror_source_on_the_target_creates_the_remote_topics_with_a_custom_separator():
    _, proofs = _found("mirror-source", topics=("orders",), config={
        "cluster": "target", "replication.policy.separator": "_", **ALIASES})
    assert _needs(proofs) == {("CREATE", "TOPIC", "A_orders"), ("ALTER", "TOPIC", "A_orders"),
                              ("ALTER_CONFIGS", "TOPIC", "A_orders"), ("ALTER", "CLUSTER", "kafka-cluster"),
                              ("WRITE", "TOPIC", "A_orders")}
    assert proofs[("ALTER", "CLUSTER", "kafka-cluster")].step == "MirrorSourceConnector.updateTopicAcls"
    assert proofs[("ALTER_CONFIGS", "TOPIC", "A_orders")].step == "MirrorSourceConnector.syncTopicConfigs"


def test_offset_syncs_on_the_target_move_to_the_target_under_the_source_alias():
    _, source = _found("mirror-source", topics=("orders",), config={
        "cluster": "source", "offset-syncs.topic.location": "target", **ALIASES})
    assert not any("offset-syncs" in name for _, _, name in source)
    _, target = _found("mirror-source", topics=("orders",), config={
        "cluster": "target", "offset-syncs.topic.location": "target", **ALIASES})
    assert ("WRITE", "TOPIC", "mm2-offset-syncs.A.internal") in target
    _, checkpoint = _found("mirror-checkpoint", topics=("orders",), groups=("billing",), config={
        "cluster": "target", "offset-syncs.topic.location": "target", **ALIASES})
    assert checkpoint[("READ", "TOPIC", "mm2-offset-syncs.A.internal")].step == "OffsetSyncStore.start"


def test_the_internal_separator_can_be_turned_off():
    _, proofs = _found("mirror-source", topics=("orders",), config={
        "cluster": "source", "replication.policy.separator": "_",
        "replication.policy.internal.topic.separator.enabled": "false", **ALIASES})
    assert ("WRITE", "TOPIC", "mm2-offset-syncs.B.internal") in proofs


def test_mirror_checkpoint_on_the_source_lists_groups_and_reads_the_offset_syncs():
    _, proofs = _found("mirror-checkpoint", topics=("orders",), groups=("billing",),
                       config={"cluster": "source", **ALIASES})
    assert _needs(proofs) == {("DESCRIBE", "GROUP", "billing"), ("DESCRIBE", "TOPIC", "orders"),
                              ("READ", "TOPIC", "mm2-offset-syncs.B.internal")}
    assert proofs[("DESCRIBE", "GROUP", "billing")].step == "MirrorCheckpointConnector.listConsumerGroups"


def test_mirror_checkpoint_on_the_target_writes_checkpoints_and_only_with_sync_the_groups():
    found, proofs = _found("mirror-checkpoint", topics=("orders",), groups=("billing",),
                           config={"cluster": "target", **ALIASES})
    assert _needs(proofs) == {("CREATE", "TOPIC", "A.checkpoints.internal"), ("WRITE", "TOPIC", "A.checkpoints.internal")}
    # CheckpointStore.start only logs a refused read of the checkpoints topic
    assert any("Fetch" in w for w in found.verdict.warnings)
    _, synced = _found("mirror-checkpoint", topics=("orders",), groups=("billing",),
                       config={"cluster": "target", "sync.group.offsets.enabled": "true", **ALIASES})
    assert synced[("READ", "GROUP", "billing")].step == "MirrorCheckpointTask.syncGroupOffset"
    assert ("READ", "TOPIC", "A.orders") in synced


def test_mirror_checkpoint_refuses_emit_checkpoints_false():
    workflow = KINDS["mirror-checkpoint"].build(AppSpec("mirror-checkpoint", ("orders",), groups=("g",), config=ClientConfig(
        {"cluster": "target", "emit.checkpoints.enabled": "false"})), DEFAULT)
    assert workflow.config_error is not None and workflow.config_error.exception == "BadRequestException"


def test_mirror_heartbeat_is_the_target_only():
    _, proofs = _found("mirror-heartbeat", config=ALIASES)
    assert _needs(proofs) == {("CREATE", "TOPIC", "heartbeats"), ("WRITE", "TOPIC", "heartbeats")}
    # no task without heartbeats; the connector's refused creation is only logged
    quiet, proofs = _found("mirror-heartbeat", config={"emit.heartbeats.enabled": "false", **ALIASES})
    assert proofs == {} and any(w.startswith("CreateTopics") for w in quiet.verdict.warnings)
    with pytest.raises(SpecError, match="target"):
        KINDS["mirror-heartbeat"].build(AppSpec("mirror-heartbeat", config=ClientConfig({"cluster": "source"})), DEFAULT)


@pytest.mark.parametrize("kind", ["mirror-source", "mirror-checkpoint"])
def test_a_mirror_check_says_which_cluster(kind):
    with pytest.raises(SpecError, match="cluster=source or cluster=target"):
        KINDS[kind].build(AppSpec(kind, ("orders",), groups=("g",)), DEFAULT)


def test_before_3_5_config_sync_uses_alter_configs():
    version = KafkaVersion.parse("3.4")
    workflow = KINDS["mirror-source"].build(AppSpec("mirror-source", ("orders",), config=ClientConfig(
        {"cluster": "target"})), version)
    assert "AlterConfigs" in [q.api for s in workflow.steps for q in s.requests]
    _found("mirror-source", version, topics=("orders",), config={"cluster": "target"})


@pytest.mark.parametrize("kind, configs_step, groups_step", [
    ("ui-kafka-ui", "TopicsService.getTopicConfigs", "ConsumerGroupService.getConsumerGroups"),
    ("ui-akhq", "ConfigRepository.findByTopic", "ConsumerGroupRepository.findByName"),
])
def test_a_read_only_ui_needs_read_describe_configs_and_the_groups_and_not_the_cluster(kind, configs_step, groups_step):
    found, proofs = _found(kind, topics=("orders",), groups=("billing",))
    assert _needs(proofs) == {("READ", "TOPIC", "orders"), ("DESCRIBE_CONFIGS", "TOPIC", "orders"),
                              ("DESCRIBE", "GROUP", "billing")}
    assert proofs[("DESCRIBE_CONFIGS", "TOPIC", "orders")].step == configs_step
    assert proofs[("DESCRIBE", "GROUP", "billing")].silent and proofs[("DESCRIBE", "GROUP", "billing")].step == groups_step
    # the ACL page and the broker-level extras only warn
    assert any(w.startswith("DescribeAcls") for w in found.verdict.warnings)
