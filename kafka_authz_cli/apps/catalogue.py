"""Layer 2: the catalogue of client workflows. Each KIND, given the application's names and its client
configuration, becomes the client calls it makes (the steps, each a call of the client's public API) and
the requests each call sends, in the order the Java clients send them.

The order within a call decides which missing ACL the application meets first, and so the exception it
surfaces; it follows the clients' code (cited per workflow) and was checked against the real clients
of the release in tests/live/test_apps_live.py. Kafka Streams, Connect and MirrorMaker 2 are expanded
from their own code (InternalTopicManager, the task producers, DistributedHerder, KafkaBasedLog).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from kafka_authz_cli.apps.calls import ApiRequest
from kafka_authz_cli.apps.clientconfig import (
    ClientConfig,
    ClientConfigError,
    consumer_settings,
    producer_settings,
)
from kafka_authz_cli.apps.versions import KafkaVersion


@dataclass(frozen=True)
class Step:
    """One call of the client's API and the requests behind it."""

    #: the call, as the application writes it (reported as ``step``)
    name: str
    client: str
    requests: tuple[ApiRequest, ...]
    #: what the call does, in words
    does: str = ""
    #: a failure only logs a warning and the application goes on (Streams' repartition purge)
    fatal: bool = True
    #: how a topic that does not exist surfaces here: an exception's simple name, or "" when the call
    #: just gets nothing (a consumer polls on, waiting for the topic)
    unknown_topic: str = "UnknownTopicOrPartitionException"
    #: Streams: the stream thread's phase (the failure reaches the StreamsUncaughtExceptionHandler)
    phase: str = ""
    #: topics this call creates itself: that they do not exist yet is no error before they are created
    tolerate_absent: tuple[str, ...] = ()
    #: error codes the client takes as success here (Connect's TopicAdmin: a topic that already exists)
    ignore_errors: tuple[str, ...] = ()


@dataclass
class AppSpec:
    """What the application is: its kind, names and configuration (the command's options)."""

    kind: str
    topics: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    stateful: bool = False
    config: ClientConfig = field(default_factory=ClientConfig)
    version: KafkaVersion | None = None


@dataclass
class Workflow:
    kind: str
    steps: list[Step]
    #: the exception every failure is wrapped in before the application sees it (Streams)
    wrapper: str | None = None
    notes: list[str] = field(default_factory=list)
    #: the client refuses its configuration: the application fails in its constructor
    config_error: ClientConfigError | None = None
    #: names the application owns, for --prefixed (topic, group and transactional-id prefixes)
    owned_prefixes: dict[str, list[str]] = field(default_factory=dict)
    #: name prefixes under which the client makes up names (Streams' internal topics and transactional
    #: ids): their ACLs are PREFIXED
    generated_prefixes: dict[str, list[str]] = field(default_factory=dict)
    #: topics that do not exist when it starts, whatever the cluster says (the topics it creates)
    absent: tuple[str, ...] = ()

    def refused(self, error: ClientConfigError, step: str, client: str, does: str = "") -> "Workflow":
        """The application never gets past ``step``: its client (or connector) refuses its
        configuration there, before any request; nothing else it would do is modelled."""
        self.config_error = error
        self.steps = [Step(step, client, (), does)]
        return self


class SpecError(ValueError):
    """The application is not described enough to expand it (a usage error)."""


@dataclass(frozen=True)
class Kind:
    name: str
    summary: str
    reads: tuple[str, ...]
    versions: str
    verified: str
    build: Callable[[AppSpec, KafkaVersion], Workflow]


# ---- producers and consumers -------------------------------------------------------------------------


def _need(values, what: str, kind: str) -> tuple[str, ...]:
    if not values:
        raise SpecError(f"{kind} needs {what}")
    return tuple(values)


def _producer_send_steps(topics, settings, version: KafkaVersion, *, txn_v2: bool) -> list[Step]:
    # KafkaProducer.send -> waitOnMetadata (Metadata, allowAutoTopicCreation=true: ProducerMetadata) before
    # the record is appended; the Sender then gets a producer id first (TransactionManager: InitProducerId
    # for an idempotent producer) and sends the batch. A transactional producer on transactions V1 adds
    # each new partition first (AddPartitionsToTxn); on V2 (KIP-890, 4.0+) the Produce adds it.
    requests = [ApiRequest("Metadata", topics=topics, allow_auto_create=True)]
    if settings.idempotent and settings.transactional_id is None:
        requests.append(ApiRequest("InitProducerId"))
    if settings.transactional_id is not None and not txn_v2:
        requests.append(ApiRequest("AddPartitionsToTxn", topics=topics, transactional_id=settings.transactional_id))
    requests.append(ApiRequest("Produce", topics=topics, transactional=settings.transactional_id is not None,
                               transactional_id=settings.transactional_id))
    return [Step("send", "producer", tuple(requests), "send(record).get(): metadata, producer id, produce",
                 unknown_topic="TimeoutException")]


def _init_transactions(settings) -> Step:
    # KafkaProducer.initTransactions: FindCoordinator (TRANSACTION key) then InitProducerId with the id.
    return Step("initTransactions", "producer", (
        ApiRequest("FindCoordinator", key_type="TRANSACTION", transactional_id=settings.transactional_id),
        ApiRequest("InitProducerId", transactional_id=settings.transactional_id,
                   two_phase_commit=settings.two_phase_commit)), "find the transaction coordinator, get the id")


def build_producer(spec: AppSpec, version: KafkaVersion) -> Workflow:
    topics = _need(spec.topics or spec.outputs, "--topic (the topics it writes)", "producer")
    wf = Workflow("producer", [], owned_prefixes={"TOPIC": list(topics)})
    try:
        settings = producer_settings(spec.config, version)
    except ClientConfigError as exc:
        return wf.refused(exc, "KafkaProducer", "producer", "the constructor validates the config")
    wf.notes.extend(settings.notes)
    wf.notes.append(_producer_mode(settings))
    # Transactions V2 (KIP-890): the transaction.version feature level of a cluster formatted by 4.0 or later
    # (the live tests' broker); a cluster upgraded from 3.x keeps V1 until `kafka-features upgrade`. Both need
    # the same ACLs, and a missing WRITE on the topic surfaces at send() in both.
    txn_v2 = version.at_least(4, 0)
    if settings.transactional_id is not None:
        wf.owned_prefixes["TRANSACTIONAL_ID"] = [settings.transactional_id]
        wf.steps.append(_init_transactions(settings))
        wf.steps.append(Step("beginTransaction", "producer", (), "local state only"))
    wf.steps.extend(_producer_send_steps(topics, settings, version, txn_v2=txn_v2))
    if settings.transactional_id is not None:
        # KafkaProducer.commitTransaction: EndTxn (the coordinator writes the markers as the broker).
        wf.steps.append(Step("commitTransaction", "producer",
                             (ApiRequest("EndTxn", transactional_id=settings.transactional_id),), "commit"))
    return wf


def _producer_mode(settings) -> str:
    if settings.transactional_id is not None:
        return f"transactional producer (transactional.id {settings.transactional_id})" + (
            ", two-phase commit" if settings.two_phase_commit else "")
    return "idempotent producer" if settings.idempotent else "producer without idempotence"


def _consumer_poll(topics, settings, group: str | None) -> Step:
    # KafkaConsumer.poll: the subscription's metadata first (ConsumerNetworkClient.poll throws a metadata
    # error before anything else), then the group coordinator (FindCoordinator), membership (JoinGroup /
    # SyncGroup, or one ConsumerGroupHeartbeat for KIP-848), the committed offsets (OffsetFetch), an offset
    # reset where none is committed (ListOffsets), then Fetch.
    requests = [ApiRequest("Metadata", topics=topics, allow_auto_create=settings.allow_auto_create)]
    if group is not None:
        requests.append(ApiRequest("FindCoordinator", key_type="GROUP", group=group))
        if settings.protocol == "consumer":
            requests.append(ApiRequest("ConsumerGroupHeartbeat", group=group, topics=topics))
        else:
            requests.extend((ApiRequest("JoinGroup", group=group), ApiRequest("SyncGroup", group=group)))
        requests.append(ApiRequest("OffsetFetch", group=group, topics=topics))
    requests.extend((ApiRequest("ListOffsets", topics=topics), ApiRequest("Fetch", topics=topics)))
    return Step("poll", "consumer", tuple(requests), "metadata, group membership, offsets, fetch", unknown_topic="")


def build_consumer(spec: AppSpec, version: KafkaVersion) -> Workflow:
    topics = _need(spec.topics or spec.inputs, "--topic (the topics it reads)", "consumer")
    wf = Workflow("consumer", [], owned_prefixes={"TOPIC": list(topics)})
    try:
        settings = consumer_settings(spec.config, version)
    except ClientConfigError as exc:
        return wf.refused(exc, "KafkaConsumer", "consumer", "the constructor validates the config")
    wf.notes.extend(settings.notes)
    group = settings.group_id
    if group is None:
        wf.notes.append("no group.id: assign() to the partitions, no group, no commits")
        wf.steps.append(Step("assign", "consumer", (), "local state only"))
        wf.steps.append(_consumer_poll(topics, settings, None))
        return wf
    wf.owned_prefixes["GROUP"] = [group]
    wf.notes.append(f"group {group}, {settings.protocol} protocol" + (" (KIP-848)" if settings.protocol == "consumer"
                                                                        else ""))
    wf.steps.append(Step("subscribe", "consumer", (), "local state only"))
    wf.steps.append(_consumer_poll(topics, settings, group))
    wf.steps.append(Step("commitSync", "consumer", (ApiRequest("OffsetCommit", group=group, topics=topics),),
                         "commit the consumed offsets"))
    return wf


def build_share_consumer(spec: AppSpec, version: KafkaVersion) -> Workflow:
    topics = _need(spec.topics or spec.inputs, "--topic (the topics it reads)", "share-consumer")
    if not version.at_least(4, 0):
        raise SpecError(f"KafkaShareConsumer (KIP-932) does not exist before Kafka 4.0 (asked: {version})")
    group = spec.config.get("group.id")
    if not group:
        raise SpecError("share-consumer needs group.id (--config group.id=G or in --client-config)")
    wf = Workflow("share-consumer", [], owned_prefixes={"TOPIC": list(topics), "GROUP": [group]})
    wf.notes.append(f"share group {group} (KIP-932: early access in 4.0, preview in 4.1; the cluster must enable "
                    "share groups)")
    # KafkaShareConsumer.poll (ShareConsumerImpl and ShareHeartbeatRequestManager): the subscription's
    # metadata, the group coordinator, ShareGroupHeartbeat (READ on the group, DESCRIBE on each topic), then
    # ShareFetch; commitSync acknowledges with ShareAcknowledge.
    wf.steps.append(Step("subscribe", "share-consumer", (), "local state only"))
    wf.steps.append(Step("poll", "share-consumer", (
        ApiRequest("Metadata", topics=topics),
        ApiRequest("FindCoordinator", key_type="GROUP", group=group),
        ApiRequest("ShareGroupHeartbeat", group=group, topics=topics),
        ApiRequest("ShareFetch", group=group, topics=topics)), "metadata, group membership, share fetch",
        unknown_topic=""))
    wf.steps.append(Step("commitSync", "share-consumer", (ApiRequest("ShareAcknowledge", group=group, topics=topics),),
                         "acknowledge the delivered records"))
    return wf


def build_consume_transform_produce(spec: AppSpec, version: KafkaVersion) -> Workflow:
    inputs = _need(spec.inputs or spec.topics[:1], "--input (the topic it reads)", "consume-transform-produce")
    outputs = _need(spec.outputs or spec.topics[1:], "--output (the topic it writes)", "consume-transform-produce")
    consumer_cfg = spec.config.for_client("consumer.")
    producer_cfg = spec.config.for_client("producer.")
    wf = Workflow("consume-transform-produce", [],
                  owned_prefixes={"TOPIC": list(inputs) + list(outputs)})
    try:
        cs = consumer_settings(consumer_cfg, version)
        ps = producer_settings(producer_cfg, version)
    except ClientConfigError as exc:
        return wf.refused(exc, "KafkaProducer", "producer", "the constructor validates the config")
    if cs.group_id is None or ps.transactional_id is None:
        raise SpecError("consume-transform-produce needs group.id and transactional.id (--config group.id=G "
                        "--config transactional.id=T, or consumer./producer. keys in --client-config)")
    wf.owned_prefixes.update({"GROUP": [cs.group_id], "TRANSACTIONAL_ID": [ps.transactional_id]})
    wf.notes.append(f"group {cs.group_id} ({cs.protocol} protocol), transactional.id {ps.transactional_id}, "
                    f"{'read_committed' if cs.read_committed else 'read_uncommitted'}")
    txn_v2 = version.at_least(4, 0)
    # The transactional loop of the clients' docs (KafkaProducer's javadoc): initTransactions, poll,
    # beginTransaction, send, sendOffsetsToTransaction, commitTransaction.
    wf.steps.append(_init_transactions(ps))
    wf.steps.append(Step("subscribe", "consumer", (), "local state only"))
    wf.steps.append(_consumer_poll(inputs, cs, cs.group_id))
    wf.steps.append(Step("beginTransaction", "producer", (), "local state only"))
    wf.steps.extend(_producer_send_steps(outputs, ps, version, txn_v2=txn_v2))
    # TransactionManager.sendOffsetsToTransaction: V1 sends AddOffsetsToTxn to the transaction coordinator
    # first; then TxnOffsetCommit goes to the group coordinator (found with FindCoordinator, GROUP key).
    offsets = [] if txn_v2 else [ApiRequest("AddOffsetsToTxn", transactional_id=ps.transactional_id, group=cs.group_id)]
    offsets += [ApiRequest("FindCoordinator", key_type="GROUP", group=cs.group_id),
                ApiRequest("TxnOffsetCommit", transactional_id=ps.transactional_id, group=cs.group_id, topics=inputs)]
    wf.steps.append(Step("sendOffsetsToTransaction", "producer", tuple(offsets), "commit the consumed offsets "
                         "in the transaction"))
    wf.steps.append(Step("commitTransaction", "producer", (ApiRequest("EndTxn", transactional_id=ps.transactional_id),),
                         "commit"))
    return wf


# ---- admin ----------------------------------------------------------------------------------------------


def _admin(kind: str, step: str, make, needs: str = "topics") -> Callable[[AppSpec, KafkaVersion], Workflow]:
    def build(spec: AppSpec, version: KafkaVersion) -> Workflow:
        if needs == "topics":
            names = _need(spec.topics, "--topic", kind)
        elif needs == "groups":
            names = _need(spec.groups or _group_of(spec), "--group (or group.id)", kind)
        else:
            names = ()
        steps = make(spec, names)
        wf = Workflow(kind, steps if isinstance(steps, list) else [Step(step, "admin", steps)])
        if kind == "admin-create-topics":
            wf.absent = tuple(names)
        if needs == "topics":
            wf.owned_prefixes["TOPIC"] = list(names)
        elif needs == "groups":
            wf.owned_prefixes["GROUP"] = list(names)
        return wf
    return build


def _at_least(spec: AppSpec, major: int, minor: int) -> bool:
    return spec.version is None or spec.version.at_least(major, minor)


def _group_of(spec: AppSpec) -> tuple[str, ...]:
    group = spec.config.get("group.id")
    return (group,) if group else ()


def _reset_offsets(spec: AppSpec, groups) -> list[Step]:
    topics = _need(spec.topics, "--topic (the topics whose offsets to reset)", "admin-reset-offsets")
    group = groups[0]
    # kafka-consumer-groups --reset-offsets --to-earliest as Admin calls: listOffsets (Metadata then
    # ListOffsets), then alterConsumerGroupOffsets (FindCoordinator, OffsetCommit).
    return [Step("listOffsets", "admin", (ApiRequest("Metadata", topics=topics), ApiRequest("ListOffsets", topics=topics))),
            Step("alterConsumerGroupOffsets", "admin", (ApiRequest("FindCoordinator", group=group),
                                                        ApiRequest("OffsetCommit", group=group, topics=topics)))]


def _list_offsets(spec: AppSpec, groups) -> list[Step]:
    # Admin.listConsumerGroupOffsets: FindCoordinator, OffsetFetch of all partitions (topics the client
    # may not describe are left out of the answer).
    return [Step("listConsumerGroupOffsets", "admin", (ApiRequest("FindCoordinator", group=groups[0]),
                 ApiRequest("OffsetFetch", group=groups[0], topics=spec.topics, all_partitions=True)))]


def _describe_groups(spec: AppSpec, groups) -> tuple[ApiRequest, ...]:
    # Admin.describeConsumerGroups: FindCoordinator per group, then DescribeGroups (ConsumerGroupDescribe
    # for a KIP-848 group, which also needs DESCRIBE on the members' topics).
    requests = [ApiRequest("FindCoordinator", group=g) for g in groups]
    if spec.config.get("group.protocol", "classic").strip().lower() == "consumer":
        requests.append(ApiRequest("ConsumerGroupDescribe", groups=groups, topics=spec.topics))
    else:
        requests.append(ApiRequest("DescribeGroups", groups=groups))
    return tuple(requests)


def _topic_configs(spec: AppSpec, topics) -> tuple[tuple[str, str], ...]:
    return tuple(("TOPIC", t) for t in topics)


ADMIN_BUILDERS = {
    "admin-create-topics": _admin("admin-create-topics", "createTopics",
                                  lambda s, t: (ApiRequest("CreateTopics", topics=t),)),
    "admin-delete-topics": _admin("admin-delete-topics", "deleteTopics",
                                  lambda s, t: (ApiRequest("DeleteTopics", topics=t),)),
    # Admin.describeTopics: DescribeTopicPartitions from 3.7 (KIP-966), Metadata before: DESCRIBE either way.
    "admin-describe-topics": _admin("admin-describe-topics", "describeTopics",
                                    lambda s, t: (ApiRequest("DescribeTopicPartitions" if _at_least(s, 3, 7) else
                                                             "Metadata", topics=t),)),
    "admin-describe-configs": _admin("admin-describe-configs", "describeConfigs",
                                     lambda s, t: (ApiRequest("DescribeConfigs", config_resources=_topic_configs(s, t)),)),
    "admin-alter-configs": _admin("admin-alter-configs", "incrementalAlterConfigs",
                                  lambda s, t: (ApiRequest("IncrementalAlterConfigs",
                                                           config_resources=_topic_configs(s, t)),)),
    "admin-delete-records": _admin("admin-delete-records", "deleteRecords",
                                   lambda s, t: (ApiRequest("Metadata", topics=t), ApiRequest("DeleteRecords", topics=t))),
    "admin-list-groups": _admin("admin-list-groups", "listGroups",
                                lambda s, g: (ApiRequest("ListGroups", groups=g),), needs="groups"),
    "admin-describe-groups": _admin("admin-describe-groups", "describeConsumerGroups", _describe_groups,
                                    needs="groups"),
    "admin-list-offsets": _admin("admin-list-offsets", "listConsumerGroupOffsets", _list_offsets, needs="groups"),
    "admin-reset-offsets": _admin("admin-reset-offsets", "alterConsumerGroupOffsets", _reset_offsets, needs="groups"),
}
