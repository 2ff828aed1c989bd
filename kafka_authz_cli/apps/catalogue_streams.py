"""Layer 2, Kafka Streams: an application expanded from its StreamsConfig into what its clients send.

One KafkaStreams instance with one stream thread, the classic group protocol (the default; KIP-1071's
``group.protocol=streams`` is early access in 4.1 and not modelled). Its clients: the main consumer
(group ``application.id``, ``allow.auto.create.topics=false``: StreamsConfig.getMainConsumerConfigs), the
restore consumer (no group: it assigns changelog partitions), the producer (idempotent by default, or
transactional under exactly-once), and the admin client (internal topics). A stateful topology has a
repartition and a changelog topic, named ``<application.id>-<node>-repartition`` / ``-changelog``; the
names below are those of ``selectKey().groupByKey().count()`` (the live tests' topology); any other
topology's internal topics share the ``<application.id>-`` prefix.

Every failure on the stream thread reaches the application through the StreamsUncaughtExceptionHandler,
wrapped in a StreamsException.
"""

from __future__ import annotations

from kafka_authz_cli.apps.calls import ApiRequest
from kafka_authz_cli.apps.catalogue import AppSpec, SpecError, Step, Workflow, _need
from kafka_authz_cli.apps.clientconfig import ClientConfigError, producer_settings, streams_settings
from kafka_authz_cli.apps.versions import KafkaVersion

#: Where failures on the stream thread surface.
HANDLER = "StreamsUncaughtExceptionHandler"
#: The store of the live tests' stateful topology (its internal topics' names).
STORE = "KSTREAM-AGGREGATE-STATE-STORE-0000000002"
#: A stand-in for the random process id in exactly_once_v2's transactional ids.
PROCESS_ID = "<processId>"


def internal_topics(app: str) -> tuple[str, str]:
    return f"{app}-{STORE}-repartition", f"{app}-{STORE}-changelog"


def transactional_id(app: str, eos_version: str | None) -> str:
    # StreamsProducer / ActiveTaskCreator: exactly_once_v2 uses <application.id>-<processId>-<threadIdx>;
    # exactly_once (3.x) one id per task, <application.id>-<taskId>.
    return f"{app}-{PROCESS_ID}-1" if eos_version == "v2" else f"{app}-0_0"


def build_streams(spec: AppSpec, version: KafkaVersion) -> Workflow:
    inputs = _need(spec.inputs or spec.topics[:1], "--input (the source topic)", "streams")
    outputs = _need(spec.outputs or spec.topics[1:], "--output (the sink topic)", "streams")
    wf = Workflow("streams", [], wrapper="StreamsException")
    try:
        settings = streams_settings(spec.config, version)
        producer = producer_settings(spec.config.for_client("producer."), version)
    except ClientConfigError as exc:
        return wf.refused(exc, "KafkaStreams", "streams", "the constructor validates the config")
    app = settings.application_id
    wf.notes.extend(settings.notes)
    wf.owned_prefixes = {"TOPIC": list(inputs) + list(outputs), "GROUP": [app]}
    wf.generated_prefixes = {"TOPIC": [f"{app}-"], "TRANSACTIONAL_ID": [f"{app}-"]}
    internal: tuple[str, ...] = internal_topics(app) if spec.stateful else ()
    repartition, changelog = internal if internal else (None, None)
    # A first start: the internal topics do not exist yet (on later starts they do, and CREATE is unused).
    wf.absent = internal
    tid = transactional_id(app, settings.eos_version) if settings.exactly_once else None
    guarantee = {None: "at_least_once", "v2": "exactly_once_v2", "v1": "exactly_once"}[settings.eos_version]
    wf.notes.append(f"application.id {app} (the group, the prefix of internal topics{' and transactional ids' if tid else ''}); "
                    f"{guarantee}; " + ("stateful: internal topics " + ", ".join(internal) if internal else "stateless"))
    wf.steps.append(Step("KafkaStreams.start", "streams", (), "starts the stream thread"))
    # Rebalance (StreamThread.pollPhase -> the main consumer): the source topics' metadata, the group; as
    # the group leader, StreamsPartitionAssignor -> InternalTopicManager.makeReady: describeTopics of the
    # internal topics, createTopics of those missing (a failure of either: StreamsException "Could not
    # create topic").
    # The main consumer subscribes to the repartition topic too (it is a source), before it exists.
    subscribed = tuple(inputs) + ((repartition,) if repartition else ())
    rebalance = [ApiRequest("Metadata", topics=subscribed), ApiRequest("FindCoordinator", group=app),
                 ApiRequest("JoinGroup", group=app)]
    if internal:
        describe = "DescribeTopicPartitions" if version.at_least(3, 7) else "Metadata"
        rebalance += [ApiRequest(describe, topics=internal), ApiRequest("CreateTopics", topics=internal)]
    rebalance.append(ApiRequest("SyncGroup", group=app))
    # A source topic that does not exist: the assignor reports INCOMPLETE_SOURCE_TOPIC_METADATA and the
    # thread throws MissingSourceTopicException (StreamsPartitionAssignor, StreamThread).
    wf.steps.append(Step(HANDLER, "streams", tuple(rebalance), "rebalance: join the group, create internal topics",
                         phase="rebalance", unknown_topic="MissingSourceTopicException", tolerate_absent=internal))
    if tid is not None:
        # StreamsProducer.initTransactionIfNeeded when the first task is created.
        wf.steps.append(Step(HANDLER, "streams", (ApiRequest("FindCoordinator", key_type="TRANSACTION", transactional_id=tid),
                             ApiRequest("InitProducerId", transactional_id=tid)), "initialize transactions",
                             phase="task creation"))
    if changelog:
        # StoreChangelogReader: the restore consumer (no group) reads the changelog's end offset and polls it.
        wf.steps.append(Step(HANDLER, "streams", (ApiRequest("ListOffsets", topics=(changelog,)),
                                                  ApiRequest("Fetch", topics=(changelog,))),
                             "restore state from the changelog", phase="restoration"))
    sources = tuple(inputs) + ((repartition,) if repartition else ())
    process = [ApiRequest("OffsetFetch", group=app, topics=sources), ApiRequest("ListOffsets", topics=sources),
               ApiRequest("Fetch", topics=tuple(inputs))]
    sinks = internal + tuple(outputs)
    process.append(ApiRequest("Metadata", topics=sinks))
    if tid is None and producer.idempotent:
        process.append(ApiRequest("InitProducerId"))
    if tid is not None and not version.at_least(4, 0):
        process.append(ApiRequest("AddPartitionsToTxn", topics=sinks, transactional_id=tid))
    process.append(ApiRequest("Produce", topics=sinks, transactional=tid is not None, transactional_id=tid))
    if repartition:
        process.append(ApiRequest("Fetch", topics=(repartition,)))
    wf.steps.append(Step(HANDLER, "streams", tuple(process), "process: fetch, produce to the sinks",
                         phase="processing", unknown_topic=""))
    commit: tuple[ApiRequest, ...]
    if tid is None:
        commit = (ApiRequest("OffsetCommit", group=app, topics=sources),)
    else:
        commit = ((() if version.at_least(4, 0) else (ApiRequest("AddOffsetsToTxn", transactional_id=tid, group=app),))
                  + (ApiRequest("TxnOffsetCommit", transactional_id=tid, group=app, topics=sources),
                     ApiRequest("EndTxn", transactional_id=tid)))
    wf.steps.append(Step(HANDLER, "streams", commit, "commit", phase="commit"))
    if repartition:
        # TaskManager.maybePurgeCommittedRecords: deleteRecords on repartition topics after a commit; a
        # failure is logged (warn) and retried at the next purge, never fatal.
        wf.steps.append(Step(HANDLER, "streams", (ApiRequest("DeleteRecords", topics=(repartition,)),),
                             "purge consumed repartition records", fatal=False, phase="purge"))
    return wf


def check_streams_spec(spec: AppSpec) -> None:
    if spec.stateful is False and spec.config.get("application.id") is None:
        raise SpecError("streams needs application.id (--config application.id=APP or in --client-config)")
