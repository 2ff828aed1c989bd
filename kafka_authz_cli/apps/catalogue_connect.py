"""Layer 2, Kafka Connect: a distributed worker and its connectors' clients, from Connect's own code
(connect-runtime 4.1; derived from the code, not run live).

A distributed worker (``AbstractHerder.startServices``: ``Worker.start`` then the status and config
stores) starts three ``KafkaBasedLog``s, one per internal topic (``offset.storage.topic``,
``status.storage.topic``, ``config.storage.topic``): each first tries to create its topic
(``TopicAdmin.createTopicsWithRetry``: not being authorized is only logged, "assume topic(s) exist or will
be auto-created") and to read its cleanup policy (``verifyTopicCleanupPolicyOnlyCompact``: not being
authorized is only logged), then reads the topic from the start with a consumer that assigns itself every
partition (no group: ``partitionsFor``, ``seekToBeginning``, ``readToLogEnd``). Then the worker joins the
Connect group ``group.id`` (``WorkerGroupMember``, the classic protocol with Connect's own assignor) and
writes to the topics: the leader the connector configs (``KafkaConfigBackingStore``, transactional with
``connect-cluster-<group.id>`` under ``exactly.once.source.support=enabled``), every worker statuses and
source offsets (their producers with idempotence off). A failure while the stores start ends the herder
thread ("Uncaught exception in herder work thread, exiting") and the worker with it.

A sink connector's tasks consume in group ``connect-<connector>`` (``SinkUtils.consumerGroupId``); a
source connector's tasks produce (with ``topic.creation.enable`` and a ``topic.creation.*`` group, the
worker's admin creates missing topics first: ``WorkerSourceTask``'s ``TopicCreation``); under exactly-once
source support each task is transactional with ``<group.id>-<connector>-<task>``
(``Worker.taskTransactionalId``).
"""

from __future__ import annotations

from kafka_authz_cli.apps.calls import ApiRequest
from kafka_authz_cli.apps.catalogue import (
    AppSpec,
    SpecError,
    Step,
    Workflow,
    _consumer_poll,
    _need,
    _producer_send_steps,
)
from kafka_authz_cli.apps.clientconfig import ClientConfigError, consumer_settings, producer_settings
from kafka_authz_cli.apps.versions import KafkaVersion

#: The worker config keys of the three internal topics, and each store's class (the step's name).
STORES = (("offset.storage.topic", "KafkaOffsetBackingStore.start"),
          ("status.storage.topic", "KafkaStatusBackingStore.start"),
          ("config.storage.topic", "KafkaConfigBackingStore.start"))


def _store_start(topic: str, step: str) -> Step:
    # KafkaBasedLog.start: the topic initializer (create, verify the cleanup policy: both non-fatal when not
    # authorized, so not modelled as failures), then partitionsFor (Metadata), seekToBeginning and
    # readToLogEnd (ListOffsets, Fetch). A topic that never appears: ConnectException "Could not look up
    # partition metadata".
    return Step(step, "connect-worker", (ApiRequest("Metadata", topics=(topic,)), ApiRequest("ListOffsets", topics=(topic,)),
                                         ApiRequest("Fetch", topics=(topic,))),
                f"read {topic} from the start", unknown_topic="ConnectException")


def _store_create(topic: str, step: str) -> Step:
    return Step(step, "connect-worker", (ApiRequest("CreateTopics", topics=(topic,)),
                                         ApiRequest("DescribeConfigs", config_resources=(("TOPIC", topic),))),
                f"create {topic} if missing and check cleanup.policy=compact (a refusal is only logged)", fatal=False,
                ignore_errors=("TOPIC_ALREADY_EXISTS",))


def build_connect_worker(spec: AppSpec, version: KafkaVersion) -> Workflow:
    cfg = spec.config
    missing = [k for k in ["group.id", *(key for key, _ in STORES)] if not cfg.get(k)]
    if missing:
        raise SpecError("connect-worker needs its worker config: " + ", ".join(missing)
                        + " (--client-config worker.properties or --config)")
    group = cfg.values["group.id"]
    topics = {key: cfg.values[key] for key, _ in STORES}
    eos = (cfg.get("exactly.once.source.support") or "disabled").strip().lower()
    wf = Workflow("connect-worker", [], owned_prefixes={"TOPIC": list(topics.values()), "GROUP": [group]})
    wf.notes.append(f"Connect group {group}; internal topics " + ", ".join(topics.values())
                    + f"; exactly.once.source.support={eos}; derived from connect-runtime's code (not run live)")
    for key, step in STORES:
        wf.steps.append(_store_create(topics[key], step))
        wf.steps.append(_store_start(topics[key], step))
    # WorkerGroupMember: the Connect group (classic protocol, JoinGroup/SyncGroup with Connect's assignor).
    wf.steps.append(Step("WorkerGroupMember.ensureActive", "connect-worker", (
        ApiRequest("FindCoordinator", group=group), ApiRequest("JoinGroup", group=group),
        ApiRequest("SyncGroup", group=group)), "join the Connect group"))
    config_topic = topics["config.storage.topic"]
    writes = [ApiRequest("Metadata", topics=(config_topic,))]
    if eos == "enabled":
        tid = f"connect-cluster-{group}"
        wf.owned_prefixes["TRANSACTIONAL_ID"] = [tid]
        # DistributedConfig.transactionalProducerId: the leader's config producer is transactional.
        writes = [ApiRequest("FindCoordinator", key_type="TRANSACTION", transactional_id=tid),
                  ApiRequest("InitProducerId", transactional_id=tid), *writes,
                  ApiRequest("Produce", topics=(config_topic,), transactional=True, transactional_id=tid),
                  ApiRequest("EndTxn", transactional_id=tid)]
    else:
        writes.append(ApiRequest("Produce", topics=(config_topic,)))
    wf.steps.append(Step("KafkaConfigBackingStore.putConnectorConfig", "connect-worker", tuple(writes),
                         "as the leader: write a connector's config (POST /connectors)"))
    for key, step in (("status.storage.topic", "KafkaStatusBackingStore.put"),
                      ("offset.storage.topic", "OffsetStorageWriter.doFlush")):
        topic = topics[key]
        wf.steps.append(Step(step, "connect-worker", (ApiRequest("Metadata", topics=(topic,)),
                                                      ApiRequest("Produce", topics=(topic,))),
                             f"write to {topic}"))
    return wf


def _connector_name(spec: AppSpec, kind: str) -> str:
    name = spec.config.get("name")
    if not name:
        raise SpecError(f"{kind} needs the connector's name (--config name=NAME, or the connector's properties as "
                        "--client-config)")
    return name


def build_connect_sink(spec: AppSpec, version: KafkaVersion) -> Workflow:
    topics = _need(spec.topics or tuple(t.strip() for t in (spec.config.get("topics") or "").split(",") if t.strip()),
                   "--topic (or topics=... in its config)", "connect-sink")
    name = _connector_name(spec, "connect-sink")
    group = f"connect-{name}"
    cfg = spec.config.for_client("consumer.override.").with_value("group.id", group, "SinkUtils.consumerGroupId")
    wf = Workflow("connect-sink", [], owned_prefixes={"TOPIC": list(topics), "GROUP": [group]})
    try:
        settings = consumer_settings(cfg, version, "consumer")
    except ClientConfigError as exc:
        return wf.refused(exc, "WorkerSinkTask", "connect-sink")
    wf.notes.append(f"sink connector {name}: its tasks consume in group {group} (WorkerSinkTask); derived from "
                    "connect-runtime's code")
    poll = _consumer_poll(topics, settings, group)
    wf.steps.append(Step("WorkerSinkTask.poll", "connect-sink", poll.requests, poll.does, unknown_topic=""))
    wf.steps.append(Step("WorkerSinkTask.commitOffsets", "connect-sink",
                         (ApiRequest("OffsetCommit", group=group, topics=topics),), "commit the consumed offsets"))
    dlq = (spec.config.get("errors.deadletterqueue.topic.name") or "").strip()
    if dlq:
        # DeadLetterQueueReporter.createAndSetup creates the topic if missing, then the task produces to it.
        wf.owned_prefixes["TOPIC"].append(dlq)
        wf.steps.append(Step("DeadLetterQueueReporter.report", "connect-sink",
                             (ApiRequest("Metadata", topics=(dlq,)), ApiRequest("Produce", topics=(dlq,))),
                             "write a failed record to the dead letter queue", unknown_topic="TimeoutException"))
    return wf


def build_connect_source(spec: AppSpec, version: KafkaVersion) -> Workflow:
    topics = _need(spec.topics, "--topic (the topics it writes)", "connect-source")
    name = _connector_name(spec, "connect-source")
    cfg = spec.config.for_client("producer.override.")
    wf = Workflow("connect-source", [], owned_prefixes={"TOPIC": list(topics)})
    try:
        settings = producer_settings(cfg, version)
    except ClientConfigError as exc:
        return wf.refused(exc, "WorkerSourceTask", "connect-source")
    group = spec.config.get("group.id")
    if (spec.config.get("exactly.once.source.support") or "").strip().lower() == "enabled":
        if not group:
            raise SpecError("exactly-once source tasks are transactional with <group.id>-<connector>-<task>: give "
                            "the worker's group.id (--config group.id=G)")
        from dataclasses import replace

        settings = replace(settings, transactional_id=f"{group}-{name}-0", idempotent=True)
        wf.generated_prefixes["TRANSACTIONAL_ID"] = [f"{group}-{name}-"]  # one per task
    wf.notes.append(f"source connector {name}: its tasks produce to " + ", ".join(topics)
                    + (f", transactional as {settings.transactional_id}" if settings.transactional_id else "")
                    + "; derived from connect-runtime's code")
    steps = []
    if (spec.config.get("topic.creation.default.partitions") or "").strip():
        steps.append(Step("TopicCreation", "connect-source", (ApiRequest("CreateTopics", topics=topics),),
                          "create the topics it writes (topic.creation.*)", fatal=True,
                          unknown_topic="UnknownTopicOrPartitionException"))
        wf.absent = topics
    if settings.transactional_id is not None:
        steps.append(Step("WorkerSourceTask.initTransactions", "connect-source", (
            ApiRequest("FindCoordinator", key_type="TRANSACTION", transactional_id=settings.transactional_id),
            ApiRequest("InitProducerId", transactional_id=settings.transactional_id))))
    for step in _producer_send_steps(topics, settings, version, txn_v2=version.at_least(4, 0)):
        steps.append(Step("WorkerSourceTask.sendRecords", "connect-source", step.requests, step.does,
                          unknown_topic=step.unknown_topic))
    wf.steps = steps
    return wf
