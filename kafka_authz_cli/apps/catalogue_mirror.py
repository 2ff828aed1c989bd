"""Layer 2, MirrorMaker 2: its three connectors and their tasks, from Kafka's ``connect/mirror`` code
(4.x; derived from the code, not run live), one cluster per check.

One check covers ONE cluster: the source's and the target's ACLs are two ACL sets (two clusters, two
authorizers), and MirrorMaker 2 needs different permissions on each. So every kind reads
``cluster=source`` or ``cluster=target`` (``--config cluster=target``; not an MM2 key, the check's own
setting) and expands only the requests that go to that cluster; run it once per side.

What the connectors do (``MirrorSourceConnector.start``, ``MirrorCheckpointConnector.start``,
``MirrorHeartbeatConnector.start``): every job runs on MM2's ``Scheduler``, which catches and logs any
exception of a job ("caught exception in task") and, for repeating jobs, runs it again at the next
interval. So nothing a connector's admin client is refused kills the connector: a refused listing leaves
it without tasks (nothing is mirrored), a refused ACL or config sync leaves the remote topics without
them. Here such a step still counts as not working when the config asks for what it does (the step's
phase says that the failure is only logged); a switch that turns the job off (``sync.topic.acls.enabled=
false``) removes its step and its ACLs. Creating an internal topic (``MirrorUtils.createCompactedTopic``)
only logs "Not authorized to create topic" and assumes the topic exists: modelled as a non-fatal step,
as Connect's own ``TopicAdmin``.

Names (``DefaultReplicationPolicy``): a remote topic is ``<source alias><separator><topic>``
(``replication.policy.separator``, default "."); the internal topics use the separator too unless
``replication.policy.internal.topic.separator.enabled=false``: ``mm2-offset-syncs<sep><alias><sep>internal``
(the alias of the OTHER cluster than the one it lives on: ``MirrorSourceConfig.offsetSyncsTopic``),
``<source alias><sep>checkpoints<sep>internal``; the heartbeats topic is ``heartbeats``
(``ReplicationPolicy.heartbeatsTopic``).

The connectors run in a Connect worker (the ``connect-worker`` kind checks its internal topics and
group); a task's records are written by the worker's producer on the target (``WorkerSourceTask``).
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_authz_cli.apps.calls import ApiRequest
from kafka_authz_cli.apps.catalogue import AppSpec, SpecError, Step, Workflow, _producer_send_steps
from kafka_authz_cli.apps.clientconfig import ClientConfig, ClientConfigError, producer_settings
from kafka_authz_cli.apps.versions import KafkaVersion

#: The phase of a step whose failure MM2's Scheduler only logs (the connector keeps running).
LOGGED = "logged by the Scheduler, retried"


@dataclass(frozen=True)
class Mirror:
    """What an MM2 connector's config decides about the requests (MirrorConnectorConfig and friends)."""

    cluster: str
    source: str
    target: str
    topics: tuple[str, ...]
    separator: str
    internal_separator: str
    offset_syncs_location: str
    emit_offset_syncs: bool

    def remote(self, topic: str) -> str:
        # DefaultReplicationPolicy.formatRemoteTopic
        return f"{self.source}{self.separator}{topic}"

    @property
    def remote_topics(self) -> tuple[str, ...]:
        return tuple(self.remote(t) for t in self.topics)

    @property
    def offset_syncs_topic(self) -> str:
        # MirrorSourceConfig.offsetSyncsTopic: named after the cluster it does NOT live on.
        other = self.target if self.offset_syncs_location == "source" else self.source
        s = self.internal_separator
        return f"mm2-offset-syncs{s}{other}{s}internal"

    @property
    def checkpoints_topic(self) -> str:
        s = self.internal_separator
        return f"{self.source}{s}checkpoints{s}internal"


def _flag(cfg: ClientConfig, key: str, default: bool) -> bool:
    raw = cfg.get(key)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise SpecError(f"{key} must be true or false (got {raw!r})")
    return value == "true"


def _cluster(spec: AppSpec, kind: str, default: str | None = None) -> str:
    raw = (spec.config.get("cluster") or default or "").strip().lower()
    if raw not in ("source", "target"):
        raise SpecError(f"{kind}: say which cluster's ACLs to check: --config cluster=source or cluster=target "
                        "(MirrorMaker 2 talks to both; each has its own ACLs: run the check once per side)")
    return raw


def mirror_settings(spec: AppSpec, version: KafkaVersion, kind: str, *, topics_needed: bool = True,
                    default_cluster: str | None = None) -> Mirror:
    cfg = spec.config
    cluster = _cluster(spec, kind, default_cluster)
    listed = tuple(t.strip() for t in (cfg.get("topics") or "").split(",") if t.strip())
    topics = spec.topics or listed
    if topics_needed and not topics:
        raise SpecError(f"{kind} needs the topics it mirrors: --topic (or topics=a,b with literal names; a regex "
                        "such as the default .* names no topic)")
    separator = cfg.get("replication.policy.separator") or "."
    internal = separator if _flag(cfg, "replication.policy.internal.topic.separator.enabled", True) else "."
    location = (cfg.get("offset-syncs.topic.location") or "source").strip().lower()
    if location not in ("source", "target"):
        raise SpecError(f"offset-syncs.topic.location must be source or target (got {location!r})")
    # emit.offset-syncs.enabled (KAFKA-16254) exists from 3.9; before, offset syncs are always written.
    emit = _flag(cfg, "emit.offset-syncs.enabled", True) if version.at_least(3, 9) else True
    return Mirror(cluster, cfg.get("source.cluster.alias") or "source", cfg.get("target.cluster.alias") or "target",
                  tuple(topics), separator, internal, location, emit)


def _create_internal(topic: str, step: str) -> Step:
    # MirrorUtils.createCompactedTopic: a refusal (TopicAuthorizationException, ClusterAuthorizationException)
    # and an existing topic are only logged at DEBUG; the topic is assumed to exist.
    return Step(step, "mirrormaker2", (ApiRequest("CreateTopics", topics=(topic,)),),
                f"create the compacted topic {topic} if missing (a refusal is only logged)", fatal=False,
                ignore_errors=("TOPIC_ALREADY_EXISTS",))


def _read_log(topic: str, step: str, does: str, *, fatal: bool = True, phase: str = "") -> Step:
    # KafkaBasedLog.start with the clients MM2 passes it (withExistingClients): partitionsFor (Metadata),
    # seekToBeginning, the end offsets through TopicAdmin.endOffsets (ListOffsets), then Fetch; no group.
    return Step(step, "mirrormaker2", (ApiRequest("Metadata", topics=(topic,)), ApiRequest("ListOffsets", topics=(topic,)),
                                       ApiRequest("Fetch", topics=(topic,))), does, fatal=fatal, phase=phase,
                unknown_topic="ConnectException")


def _describe_topics(topics, version: KafkaVersion) -> ApiRequest:
    # Admin.describeTopics: DescribeTopicPartitions from 3.7 (KIP-966), Metadata before.
    return ApiRequest("DescribeTopicPartitions" if version.at_least(3, 7) else "Metadata", topics=tuple(topics))


def _send(name: str, topics, cfg: ClientConfig, version: KafkaVersion, does: str, phase: str = "") -> list[Step]:
    settings = producer_settings(cfg, version)
    return [Step(name, "mirrormaker2", s.requests, does, unknown_topic=s.unknown_topic, phase=phase)
            for s in _producer_send_steps(tuple(topics), settings, version, txn_v2=version.at_least(4, 0))]


def _worker_producer(spec: AppSpec) -> ClientConfig:
    # The worker's producer for a source task: producer.override.* over the worker's producer config.
    return spec.config.for_client("producer.override.")


def _offset_syncs_writer(m: Mirror, spec: AppSpec, version: KafkaVersion) -> list[Step]:
    # OffsetSyncWriter (MirrorSourceTask.commitRecord -> firePendingOffsetSyncs): its own KafkaProducer on
    # the offset-syncs cluster (offsetSyncsTopicProducerConfig); a failed send is logged ("Failure sending
    # offset sync"), and the checkpoint connector then has nothing to translate offsets with.
    cfg = spec.config.for_client(f"{m.offset_syncs_location}.producer.")
    return _send("OffsetSyncWriter.sendOffsetSync", (m.offset_syncs_topic,), cfg, version,
                 f"write offset syncs to {m.offset_syncs_topic}", phase="logged; checkpoints stop")


def _source_side_of_source(m: Mirror, spec: AppSpec, version: KafkaVersion) -> list[Step]:
    cfg = spec.config
    steps = []
    if m.emit_offset_syncs and m.offset_syncs_location == "source":
        steps.append(_create_internal(m.offset_syncs_topic, "MirrorSourceConnector.createOffsetSyncsTopic"))
    # findSourceTopicPartitions: listTopics (a topic it may not describe is left out: never mirrored), then
    # describeTopics of the topics the filter keeps.
    steps.append(Step("MirrorSourceConnector.findSourceTopicPartitions", "mirrormaker2", (
        ApiRequest("Metadata", topics=m.topics, all_topics=True), _describe_topics(m.topics, version)),
        "list and describe the source topics", phase=LOGGED + "; without them the connector has no tasks"))
    # computeAndCreateTopicPartitions -> createNewTopics reads the new topics' configs first
    # (describeTopicConfigs, whatever sync.topic.configs.enabled says); syncTopicConfigs reads them again.
    steps.append(Step("MirrorSourceConnector.describeTopicConfigs", "mirrormaker2", (
        ApiRequest("DescribeConfigs", config_resources=tuple(("TOPIC", t) for t in m.topics)),),
        "read the source topics' configs (to create the remote topics; config sync)",
        phase=LOGGED + "; no remote topic is created"))
    if _flag(cfg, "sync.topic.acls.enabled", True):
        # syncTopicAcls -> listTopicAclBindings: describeAcls of every topic ACL (DESCRIBE on the cluster);
        # only SecurityDisabledException is taken quietly.
        steps.append(Step("MirrorSourceConnector.syncTopicAcls", "mirrormaker2", (ApiRequest("DescribeAcls"),),
                          "read the source's topic ACLs (sync.topic.acls.enabled)", phase=LOGGED))
    # MirrorSourceTask.initializeConsumer / poll: a consumer without a group (sourceConsumerConfig: no
    # group.id, auto commit off, auto.offset.reset=earliest) assigns its partitions, seeks and polls.
    steps.append(Step("MirrorSourceTask.poll", "mirrormaker2", (
        ApiRequest("Metadata", topics=m.topics), ApiRequest("ListOffsets", topics=m.topics),
        ApiRequest("Fetch", topics=m.topics)), "consume the source topics (assign, no group)", unknown_topic=""))
    if m.emit_offset_syncs and m.offset_syncs_location == "source":
        steps.extend(_offset_syncs_writer(m, spec, version))
    return steps


def _target_side_of_source(m: Mirror, spec: AppSpec, version: KafkaVersion) -> list[Step]:
    cfg, remote = spec.config, m.remote_topics
    steps = []
    if m.emit_offset_syncs and m.offset_syncs_location == "target":
        steps.append(_create_internal(m.offset_syncs_topic, "MirrorSourceConnector.createOffsetSyncsTopic"))
    # createNewTopics: createTopics of the remote topics; a failure per topic is only logged ("Could not
    # create topic"); the task's sends then find no topic.
    steps.append(Step("MirrorSourceConnector.createNewTopics", "mirrormaker2", (ApiRequest("CreateTopics", topics=remote),),
                      "create the remote topics (a refusal is only logged)", fatal=False,
                      ignore_errors=("TOPIC_ALREADY_EXISTS",)))
    # createNewPartitions: when a source topic gained partitions (INVALID_PARTITIONS is swallowed).
    steps.append(Step("MirrorSourceConnector.createNewPartitions", "mirrormaker2", (
        ApiRequest("CreatePartitions", topics=remote),), "add the partitions a source topic gained", phase=LOGGED))
    # findTargetTopicPartitions (refreshKnownTargetTopics): a remote topic it may not describe looks missing:
    # its configs are never synced and its creation is retried at every refresh.
    steps.append(Step("MirrorSourceConnector.findTargetTopicPartitions", "mirrormaker2", (
        ApiRequest("Metadata", topics=remote, all_topics=True), _describe_topics(remote, version)),
        "list and describe the remote topics", phase=LOGGED))
    if _flag(cfg, "sync.topic.configs.enabled", True):
        # syncTopicConfigs -> incrementalAlterConfigs (3.5+, KIP-894; AlterConfigs before): per topic, a
        # failure is logged ("Could not alter configuration of topic").
        api = "IncrementalAlterConfigs" if version.at_least(3, 5) else "AlterConfigs"
        steps.append(Step("MirrorSourceConnector.syncTopicConfigs", "mirrormaker2", (
            ApiRequest(api, config_resources=tuple(("TOPIC", t) for t in remote)),),
            "set the remote topics' configs (sync.topic.configs.enabled)", phase=LOGGED))
    if _flag(cfg, "sync.topic.acls.enabled", True):
        # updateTopicAcls: createAcls on the target (ALTER on the cluster); a failure is logged per binding.
        steps.append(Step("MirrorSourceConnector.updateTopicAcls", "mirrormaker2", (ApiRequest("CreateAcls"),),
                          "create the remote topics' ACLs (sync.topic.acls.enabled)", phase=LOGGED))
    steps.extend(_send("WorkerSourceTask.sendRecords", remote, _worker_producer(spec), version,
                       "the worker's producer writes the mirrored records to the remote topics"))
    if m.emit_offset_syncs and m.offset_syncs_location == "target":
        steps.extend(_offset_syncs_writer(m, spec, version))
    return steps


def build_mirror_source(spec: AppSpec, version: KafkaVersion) -> Workflow:
    m = mirror_settings(spec, version, "mirror-source")
    wf = Workflow("mirror-source", [])
    try:
        steps = (_source_side_of_source if m.cluster == "source" else _target_side_of_source)(m, spec, version)
    except ClientConfigError as exc:
        return wf.refused(exc, "MirrorSourceTask", "mirrormaker2")
    wf.steps = steps
    names = list(m.topics if m.cluster == "source" else m.remote_topics)
    internal = [m.offset_syncs_topic] if m.emit_offset_syncs and m.offset_syncs_location == m.cluster else []
    wf.owned_prefixes = {"TOPIC": names + internal}
    # A first start: the topics MM2 creates on this cluster do not exist yet.
    wf.absent = tuple(internal) + (tuple(m.remote_topics) if m.cluster == "target" else ())
    wf.notes.append(f"MirrorSourceConnector {m.source}->{m.target}, the {m.cluster} cluster: "
                    + ("consumes " + ", ".join(m.topics) if m.cluster == "source" else "writes " + ", ".join(names))
                    + (f"; offset syncs in {m.offset_syncs_topic} on the {m.offset_syncs_location}"
                       if m.emit_offset_syncs else "; emit.offset-syncs.enabled=false")
                    + "; derived from connect/mirror's code (not run live); the Connect worker itself: connect-worker")
    return wf


def _checkpoint_groups(spec: AppSpec) -> tuple[str, ...]:
    groups = spec.groups or tuple(g.strip() for g in (spec.config.get("groups") or "").split(",") if g.strip())
    if not groups:
        raise SpecError("mirror-checkpoint needs the consumer groups it checkpoints: --group (or groups=a,b with "
                        "literal names)")
    return groups


def _group_offsets(groups, topics, step: str, does: str, phase: str) -> Step:
    # Admin.listConsumerGroupOffsets per group: FindCoordinator, OffsetFetch of all partitions (a topic it
    # may not describe is left out: that group gets no checkpoint for it).
    requests = []
    for g in groups:
        requests += [ApiRequest("FindCoordinator", group=g), ApiRequest("OffsetFetch", group=g, topics=tuple(topics),
                                                                        all_partitions=True)]
    return Step(step, "mirrormaker2", tuple(requests), does, phase=phase)


def _source_side_of_checkpoint(m: Mirror, groups, version: KafkaVersion) -> list[Step]:
    # MirrorCheckpointConnector.findConsumerGroups: listConsumerGroups (a group it may not describe is left
    # out), then the groups' offsets: a group with no offset of a mirrored topic is ignored (no task for it).
    steps = [Step("MirrorCheckpointConnector.listConsumerGroups", "mirrormaker2", (ApiRequest("ListGroups", groups=groups),),
                  "list the source's consumer groups", phase=LOGGED + "; without groups no task"),
             _group_offsets(groups, m.topics, "MirrorCheckpointConnector.listConsumerGroupOffsets",
                            "read the groups' committed offsets (the connector, then each task's poll)", LOGGED)]
    if m.offset_syncs_location == "source":
        # MirrorCheckpointTask.start -> OffsetSyncStore.start: reads the offset-syncs topic; a failure ends
        # the start job (logged): no offset is ever translated, no checkpoint emitted.
        steps.append(_read_log(m.offset_syncs_topic, "OffsetSyncStore.start", f"read {m.offset_syncs_topic}",
                               phase="logged; no checkpoint is emitted"))
    return steps


def _target_side_of_checkpoint(m: Mirror, groups, spec: AppSpec, version: KafkaVersion) -> list[Step]:
    topic = m.checkpoints_topic
    steps = [_create_internal(topic, "MirrorCheckpointConnector.createInternalTopics"),
             # CheckpointStore.start: reads the checkpoints topic; a refusal is only logged (WARN "Not authorized
             # to access checkpoints topic": translation degrades to checkpoints made after the start).
             _read_log(topic, "CheckpointStore.start", f"read {topic} (a refusal only degrades translation)",
                       fatal=False)]
    if m.offset_syncs_location == "target":
        steps.append(_read_log(m.offset_syncs_topic, "OffsetSyncStore.start", f"read {m.offset_syncs_topic}",
                               phase="logged; no checkpoint is emitted"))
    steps.extend(_send("WorkerSourceTask.sendRecords", (topic,), _worker_producer(spec), version,
                       f"the worker's producer writes checkpoints to {topic}"))
    if _flag(spec.config, "sync.group.offsets.enabled", False):
        # refreshIdleConsumerGroupOffset: describeConsumerGroups on the target (a failure per group is logged,
        # and the group is then treated as new: its offsets are written anyway), listConsumerGroupOffsets of
        # the empty ones; syncGroupOffset: alterConsumerGroupOffsets (OffsetCommit: READ on the group and
        # the remote topics; a failure is logged).
        remote = m.remote_topics
        steps.append(Step("MirrorCheckpointTask.refreshIdleConsumerGroupOffset", "mirrormaker2", tuple(
            [ApiRequest("FindCoordinator", group=g) for g in groups] + [ApiRequest("DescribeGroups", groups=groups)]),
            "describe the target's groups (a failure is only logged)", fatal=False))
        requests = []
        for g in groups:
            requests += [ApiRequest("FindCoordinator", group=g), ApiRequest("OffsetCommit", group=g, topics=remote)]
        steps.append(Step("MirrorCheckpointTask.syncGroupOffset", "mirrormaker2", tuple(requests),
                          "write the translated offsets to the target's groups (sync.group.offsets.enabled)",
                          phase=LOGGED))
    return steps


def build_mirror_checkpoint(spec: AppSpec, version: KafkaVersion) -> Workflow:
    m = mirror_settings(spec, version, "mirror-checkpoint")
    groups = _checkpoint_groups(spec)
    wf = Workflow("mirror-checkpoint", [])
    # MirrorCheckpointConfig.validate: the connector refuses emit.checkpoints.enabled=false and
    # emit.offset-syncs.enabled=false (the REST API answers 400: the connector is never created).
    for key in ("emit.checkpoints.enabled", "emit.offset-syncs.enabled"):
        if not _flag(spec.config, key, True) and (key != "emit.offset-syncs.enabled" or version.at_least(3, 9)):
            return wf.refused(ClientConfigError(f"MirrorCheckpointConnector can't run with {key} set to false",
                                                "mirror-checkpoint", "BadRequestException"),
                              "MirrorCheckpointConnector.validate", "mirrormaker2")
    try:
        wf.steps = (_source_side_of_checkpoint(m, groups, version) if m.cluster == "source"
                    else _target_side_of_checkpoint(m, groups, spec, version))
    except ClientConfigError as exc:
        return wf.refused(exc, "MirrorCheckpointTask", "mirrormaker2")
    topics = list(m.topics) if m.cluster == "source" else [m.checkpoints_topic, *m.remote_topics]
    if m.offset_syncs_location == m.cluster:
        topics.append(m.offset_syncs_topic)
    wf.owned_prefixes = {"TOPIC": topics, "GROUP": list(groups)}
    wf.absent = (m.checkpoints_topic,) if m.cluster == "target" else ()
    wf.notes.append(f"MirrorCheckpointConnector {m.source}->{m.target}, the {m.cluster} cluster: groups "
                    + ", ".join(groups) + f"; checkpoints in {m.checkpoints_topic} on the target, offset syncs read "
                    f"from {m.offset_syncs_topic} on the {m.offset_syncs_location}; derived from connect/mirror's "
                    "code (not run live)")
    return wf


def build_mirror_heartbeat(spec: AppSpec, version: KafkaVersion) -> Workflow:
    m = mirror_settings(spec, version, "mirror-heartbeat", topics_needed=False, default_cluster="target")
    if m.cluster == "source":
        raise SpecError("mirror-heartbeat sends nothing to the source cluster: MirrorHeartbeatConnector and its task "
                        "only create and write the heartbeats topic on the target (cluster=target)")
    topic = "heartbeats"
    wf = Workflow("mirror-heartbeat", [_create_internal(topic, "MirrorHeartbeatConnector.createInternalTopics")],
                  owned_prefixes={"TOPIC": [topic]}, absent=(topic,))
    # MirrorHeartbeatConnector.taskConfigs: no task when emit.heartbeats.enabled=false.
    if _flag(spec.config, "emit.heartbeats.enabled", True):
        try:
            wf.steps.extend(_send("WorkerSourceTask.sendRecords", (topic,), _worker_producer(spec), version,
                                  "MirrorHeartbeatTask.poll: a heartbeat every emit.heartbeats.interval.seconds"))
        except ClientConfigError as exc:
            return wf.refused(exc, "MirrorHeartbeatTask", "mirrormaker2")
    wf.notes.append(f"MirrorHeartbeatConnector {m.source}->{m.target}: creates {topic} on the target "
                    "(heartbeats.topic.replication.factor) and writes to it; derived from connect/mirror's code "
                    "(not run live)")
    return wf
