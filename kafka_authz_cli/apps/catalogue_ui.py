"""Layer 2, read-only web UIs: the screens a read-only user opens in kafka-ui (provectus/kafka-ui and its
fork kafbat/kafka-ui) and AKHQ (tchiotludo/akhq), as the admin and consumer calls their backends make
(derived from their code, not run live).

The screens: the topic list, a topic's detail with its configs and its messages, the consumer group list
and a group's detail (members, offsets, lag). Which failures break a screen and which only hide a part
comes from each backend's error handling: a refusal the backend catches and turns into an empty answer
hides a part (the step's phase says which); one it lets through breaks the screen. A topic or group the
user may not DESCRIBE is left out of the listings without an error (ListTopics, ListGroups), which is
the usual "the UI shows nothing" report. What only hides an extra (the broker configs, the ACL page, log
directories) is modelled as non-fatal: the smallest set leaves it out, a warning names it.

kafka-ui: ``ReactiveAdminClient`` (``ConfigRelatedInfo.extract``: describeCluster, the controller's
broker configs with ClusterAuthorizationException swallowed; ``isAuthorizedSecurityEnabled``: describeAcls,
any error read as "no ACL page"; ``getTopicsConfigImpl``: TopicAuthorizationException per topic dropped
through ``toMonoWithExceptionFilter``), ``TopicsService.loadTopics`` (describeTopics, getTopicsConfig,
earliest and latest offsets), ``MessagesService`` with ``ConsumerGroupService.createConsumer`` (no
group.id, auto commit off: assign and seek), ``ConsumerGroupService`` (listConsumerGroups,
describeConsumerGroups through ``all()``: one refused group fails the page; listConsumerGroupOffsets,
end offsets for the lag).

AKHQ: ``AbstractKafkaWrapper`` (describeCluster; listTopics with internal topics; describeTopics;
describeTopicsOffsets with a consumer's offsetsForTimes and endOffsets; describeConfigs and describeAcls
return empty on ClusterAuthorizationException / TopicAuthorizationException / SecurityDisabledException;
describeLogDir swallows ClusterAuthorizationException; describeConsumerGroups rethrows as a
RuntimeException), ``TopicRepository``, ``ConfigRepository``, ``RecordRepository`` (``assign`` and
``seek``, no group), ``ConsumerGroupRepository``, ``AccessControlListRepository``.
"""

from __future__ import annotations

from kafka_authz_cli.apps.calls import ApiRequest
from kafka_authz_cli.apps.catalogue import AppSpec, SpecError, Step, Workflow
from kafka_authz_cli.apps.versions import KafkaVersion

BREAKS = "an error breaks the screen"


def _describe(topics, version: KafkaVersion) -> ApiRequest:
    # Admin.describeTopics: DescribeTopicPartitions from 3.7 (KIP-966), Metadata before.
    return ApiRequest("DescribeTopicPartitions" if version.at_least(3, 7) else "Metadata", topics=tuple(topics))


def _topics_and_groups(spec: AppSpec, kind: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    topics = spec.topics or spec.inputs
    if not topics:
        raise SpecError(f"{kind} needs the topics the user should see: --topic (and --group for the groups)")
    group_id = spec.config.get("group.id")
    groups = spec.groups or ((group_id,) if group_id else ())
    return tuple(topics), tuple(groups)


def _messages(topics, step: str) -> Step:
    # Browsing messages: a consumer without a group assigns the partitions, reads their offsets and fetches.
    return Step(step, "ui", (ApiRequest("Metadata", topics=topics), ApiRequest("ListOffsets", topics=topics),
                             ApiRequest("Fetch", topics=topics)), "browse messages (assign, no group)",
                phase=BREAKS, unknown_topic="")


def _configs(topics, step: str, hidden: str) -> Step:
    return Step(step, "ui", (ApiRequest("DescribeConfigs", config_resources=tuple(("TOPIC", t) for t in topics)),),
                "read the topics' configs", phase=f"a refusal is swallowed: {hidden}")


def _groups(groups, topics, step: str, phase: str) -> Step:
    # listConsumerGroups (a group it may not describe is left out), describeConsumerGroups (FindCoordinator
    # per group, DescribeGroups), listConsumerGroupOffsets (OffsetFetch of all partitions: a topic it may
    # not describe is left out), end offsets for the lag (ListOffsets).
    requests = [ApiRequest("ListGroups", groups=groups)]
    requests += [ApiRequest("FindCoordinator", group=g) for g in groups]
    requests.append(ApiRequest("DescribeGroups", groups=groups))
    for g in groups:
        requests.append(ApiRequest("OffsetFetch", group=g, topics=topics, all_partitions=True))
    requests.append(ApiRequest("ListOffsets", topics=topics))
    return Step(step, "ui", tuple(requests), "the consumer groups list and a group's detail (offsets, lag)",
                phase=phase)


def build_kafka_ui(spec: AppSpec, version: KafkaVersion) -> Workflow:
    topics, groups = _topics_and_groups(spec, "ui-kafka-ui")
    steps = [
        # ConfigRelatedInfo.extract (when the cluster is added, then hourly): describeCluster needs no ACL.
        Step("ReactiveAdminClient.describeCluster", "ui", (ApiRequest("DescribeCluster"),), "the cluster's nodes"),
        Step("ReactiveAdminClient.loadBrokersConfig", "ui", (ApiRequest("DescribeConfigs", config_resources=(
            ("BROKER", "controller"),)),), "the controller's broker configs (version, delete.topic.enable)",
            fatal=False),
        Step("ReactiveAdminClient.isAuthorizedSecurityEnabled", "ui", (ApiRequest("DescribeAcls"),),
             "is there an ACL page (an error: no ACL page)", fatal=False),
        # TopicsService.getTopics -> listTopics(true), loadTopics: describeTopics, earliest/latest offsets.
        Step("TopicsService.getTopics", "ui", (ApiRequest("Metadata", topics=topics, all_topics=True),
                                               _describe(topics, version), ApiRequest("ListOffsets", topics=topics)),
             "the topic list: names, partitions, message counts", phase=BREAKS),
        _configs(topics, "TopicsService.getTopicConfigs", "the topic's Settings tab is empty"),
        _messages(topics, "MessagesService.loadMessages"),
    ]
    if groups:
        steps.append(_groups(groups, topics, "ConsumerGroupService.getConsumerGroups",
                             BREAKS + " (describeConsumerGroups: all())"))
    return _workflow("ui-kafka-ui", steps, topics, groups, "kafka-ui (provectus, kafbat)")


def build_akhq(spec: AppSpec, version: KafkaVersion) -> Workflow:
    topics, groups = _topics_and_groups(spec, "ui-akhq")
    steps = [
        Step("AbstractKafkaWrapper.describeCluster", "ui", (ApiRequest("DescribeCluster"),), "the cluster's nodes"),
        # TopicRepository.list / findByName: listTopics (internal too), describeTopics, describeTopicsOffsets
        # (a consumer's offsetsForTimes and endOffsets: ListOffsets).
        Step("TopicRepository.findByName", "ui", (ApiRequest("Metadata", topics=topics, all_topics=True),
                                                  _describe(topics, version), ApiRequest("ListOffsets", topics=topics)),
             "the topic list and a topic's partitions and offsets", phase=BREAKS),
        Step("LogDirRepository.findByTopic", "ui", (ApiRequest("DescribeLogDirs"),), "the topics' sizes on disk",
             fatal=False),
        _configs(topics, "ConfigRepository.findByTopic", "the topic's Configs tab is empty"),
        _messages(topics, "RecordRepository.consume"),
        Step("AccessControlListRepository.findAll", "ui", (ApiRequest("DescribeAcls"),),
             "the ACL page (a refusal shows it empty)", fatal=False),
    ]
    if groups:
        steps.append(_groups(groups, topics, "ConsumerGroupRepository.findByName",
                             BREAKS + " (describeConsumerGroups rethrows)"))
    return _workflow("ui-akhq", steps, topics, groups, "AKHQ")


def _workflow(kind: str, steps: list[Step], topics, groups, name: str) -> Workflow:
    wf = Workflow(kind, steps, owned_prefixes={"TOPIC": list(topics), "GROUP": list(groups)})
    wf.notes.append(f"{name} as a read-only user sees topics " + ", ".join(topics)
                    + (" and groups " + ", ".join(groups) if groups else " (no --group: the group pages not checked)")
                    + "; derived from its code (not run live)")
    return wf
