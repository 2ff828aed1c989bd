"""Layer 1, the data plane: Produce, Fetch, ListOffsets, Metadata and the other requests on topics, checked
as Kafka 4.1's ``KafkaApis`` checks them (``kafka.server.KafkaApis`` and ``AuthHelper``; the same checks
in every 3.x release unless a comment says otherwise).

Every handler takes the :class:`~kafka_authz_cli.apps.calls.Recorder` of one call and the request, makes
the broker's authorizations in the broker's order, and sets the call's errors.
"""

from __future__ import annotations

from kafka_authz_cli.acl import AclOperation, ResourceType
from kafka_authz_cli.apps.calls import ApiRequest, OnDeny, Recorder

TOPIC = ResourceType.TOPIC
TOPIC_FAILED = "TOPIC_AUTHORIZATION_FAILED"
UNKNOWN_TOPIC = "UNKNOWN_TOPIC_OR_PARTITION"


def _topic_errors(r: Recorder, q: ApiRequest, authorized: list[str], check_exists: bool = True) -> None:
    """Each topic not authorized gets TOPIC_AUTHORIZATION_FAILED, then each missing one
    UNKNOWN_TOPIC_OR_PARTITION (the handlers test authorization before existence: an unauthorized
    client never learns whether a topic exists)."""
    for topic in dict.fromkeys(q.topics):
        if topic not in authorized:
            r.call.resource_errors[topic] = TOPIC_FAILED
        elif check_exists and not r.cluster.exists(topic):
            r.call.resource_errors[topic] = UNKNOWN_TOPIC


def produce(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleProduceRequest: transactional batches need WRITE on the transactional id first (the
    # whole request fails), then WRITE on each topic (filterByAuthorized: per partition errors).
    if q.transactional:
        if q.transactional_id is None or not r.authorize(
                AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, q.transactional_id, OnDeny.FAILS,
                "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "transactional records: WRITE on the transactional id"):
            r.call.error = "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"
            return
    allowed = r.filter(AclOperation.WRITE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "write records")
    _topic_errors(r, q, allowed)


def fetch(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleFetchRequest, a consumer's fetch (not a follower's, which needs CLUSTER_ACTION):
    # READ on each topic, per partition errors.
    allowed = r.filter(AclOperation.READ, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "read records")
    _topic_errors(r, q, allowed)


def list_offsets(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleListOffsetRequest: DESCRIBE on each topic (partitionSeqByAuthorized).
    allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED,
                       "look up offsets (offset reset, end offsets, lag)")
    _topic_errors(r, q, allowed)


def offset_for_leader_epoch(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleOffsetForLeaderEpochRequest: CLUSTER_ACTION on the cluster (brokers), else DESCRIBE
    # on each topic (a consumer validating its position after a leader change).
    if r.authorize_cluster(AclOperation.CLUSTER_ACTION, OnDeny.FALLBACK, None, "replica fetchers",
                           log_if_denied=False):
        return
    allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED,
                       "validate the fetch position")
    _topic_errors(r, q, allowed)


def metadata(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleTopicMetadataRequest: DESCRIBE on each topic (a denial is not logged for an
    # all-topics request, whose answer just leaves the topic out); then, for topics that do not exist,
    # when the request allows auto-creation and auto.create.topics.enable is true, CREATE on the cluster
    # (logIfDenied=false) or else CREATE on each such topic.
    if q.all_topics:
        allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.FILTERED, None,
                           "list topics: a topic it may not describe is left out", log_if_denied=False)
        r.call.filtered.extend(t for t in dict.fromkeys(q.topics) if t not in allowed)
        return
    allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED,
                       "topic metadata: partitions and leaders")
    missing = [t for t in allowed if not r.cluster.exists(t)]
    created: list[str] = []
    if missing and q.allow_auto_create and r.cluster.auto_create_topics_enable:
        if r.authorize_cluster(AclOperation.CREATE, OnDeny.FALLBACK, None,
                               "auto-create a missing topic: CREATE on the cluster, else on the topic",
                               log_if_denied=False):
            created = missing
        else:
            created = r.filter(AclOperation.CREATE, TOPIC, missing, OnDeny.RESOURCE, TOPIC_FAILED,
                               "auto-create a missing topic")
        if created:
            # DefaultAutoTopicCreationManager forwards a CreateTopics to the controller in the client's
            # name (an envelope): ControllerApis.handleCreateTopics decides CREATE again, alike.
            r.call.notes.append("auto-created (auto.create.topics.enable=true): " + ", ".join(created)
                                + "; the first answer is LEADER_NOT_AVAILABLE and the client retries")
    for topic in dict.fromkeys(q.topics):
        if topic not in allowed:
            r.call.resource_errors[topic] = TOPIC_FAILED
        elif not r.cluster.exists(topic) and topic not in created:
            if topic in missing and q.allow_auto_create and r.cluster.auto_create_topics_enable:
                r.call.resource_errors[topic] = TOPIC_FAILED
            else:
                r.call.resource_errors[topic] = UNKNOWN_TOPIC
                if q.allow_auto_create and not r.cluster.auto_create_topics_enable:
                    r.call.notes.append(f"{topic} does not exist and auto.create.topics.enable=false")


def describe_topic_partitions(r: Recorder, q: ApiRequest) -> None:
    # DescribeTopicPartitionsRequestHandler (KIP-966, Kafka 3.7+; admin describeTopics uses it): DESCRIBE
    # on each topic, an error per topic asked by name, left out of an all-topics answer.
    if q.all_topics:
        allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.FILTERED, None, "list topics")
        r.call.filtered.extend(t for t in dict.fromkeys(q.topics) if t not in allowed)
        return
    allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "describe topics")
    _topic_errors(r, q, allowed)


def delete_records(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleDeleteRecordsRequest: DELETE on each topic.
    allowed = r.filter(AclOperation.DELETE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED,
                       "delete records before an offset")
    _topic_errors(r, q, allowed)


def describe_producers(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleDescribeProducersRequest: READ on each topic.
    allowed = r.filter(AclOperation.READ, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "describe producers")
    _topic_errors(r, q, allowed)


def no_authorization(r: Recorder, q: ApiRequest) -> None:
    # ApiVersions, SaslHandshake, SaslAuthenticate: answered before (or without) authorization.
    r.call.notes.append("no ACL is consulted for this request")


HANDLERS = {
    "Produce": ("KafkaApis.handleProduceRequest", produce),
    "Fetch": ("KafkaApis.handleFetchRequest", fetch),
    "ListOffsets": ("KafkaApis.handleListOffsetRequest", list_offsets),
    "OffsetForLeaderEpoch": ("KafkaApis.handleOffsetForLeaderEpochRequest", offset_for_leader_epoch),
    "Metadata": ("KafkaApis.handleTopicMetadataRequest", metadata),
    "DescribeTopicPartitions": ("DescribeTopicPartitionsRequestHandler", describe_topic_partitions),
    "DeleteRecords": ("KafkaApis.handleDeleteRecordsRequest", delete_records),
    "DescribeProducers": ("KafkaApis.handleDescribeProducersRequest", describe_producers),
    "ApiVersions": ("KafkaApis.handleApiVersionsRequest", no_authorization),
    "SaslHandshake": ("KafkaApis.handleSaslHandshakeRequest", no_authorization),
    "SaslAuthenticate": ("KafkaApis.handleSaslAuthenticateRequest", no_authorization),
}
