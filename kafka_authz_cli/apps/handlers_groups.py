"""Layer 1, the coordinators: consumer groups (classic and KIP-848), share groups (KIP-932), transactions,
as Kafka 4.1's ``KafkaApis`` checks their requests before handing them to the group coordinator
(``org.apache.kafka.coordinator.group``), the share coordinator or the transaction coordinator
(``kafka.coordinator.transaction.TransactionCoordinator``); the coordinators themselves make no
authorization of their own.
"""

from __future__ import annotations

from kafka_authz_cli.acl import CLUSTER_NAME, AclOperation, ResourceType
from kafka_authz_cli.apps.calls import ApiRequest, OnDeny, Recorder
from kafka_authz_cli.apps.handlers_data import TOPIC, TOPIC_FAILED, _topic_errors

GROUP = ResourceType.GROUP
TXN = ResourceType.TRANSACTIONAL_ID
GROUP_FAILED = "GROUP_AUTHORIZATION_FAILED"
TXN_FAILED = "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"
CLUSTER_FAILED = "CLUSTER_AUTHORIZATION_FAILED"


def _group(q: ApiRequest) -> str:
    return q.group if q.group is not None else ""


def _require(r: Recorder, op: AclOperation, rtype: ResourceType, name: str, error: str, why: str) -> bool:
    """A check whose denial fails the whole request with ``error`` (``AuthHelper.authorizeClusterOperation``
    for the cluster: it throws ClusterAuthorizationException, which the request's error answer carries)."""
    if rtype is ResourceType.CLUSTER:
        name = CLUSTER_NAME
    if r.authorize(op, rtype, name, OnDeny.FAILS, error, why):
        return True
    r.call.error = error
    return False


def find_coordinator(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.getCoordinator: DESCRIBE on the group or on the transactional id; a share coordinator
    # lookup (key type SHARE) is for brokers only (CLUSTER_ACTION).
    if q.key_type == "TRANSACTION":
        _require(r, AclOperation.DESCRIBE, TXN, q.transactional_id or "", TXN_FAILED,
                 "find the transaction coordinator")
    elif q.key_type == "SHARE":
        _require(r, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME, CLUSTER_FAILED,
                 "share coordinator lookups come from brokers")
    else:
        _require(r, AclOperation.DESCRIBE, GROUP, _group(q), GROUP_FAILED, "find the group coordinator")


def group_member(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleJoinGroupRequest / handleSyncGroupRequest / handleHeartbeatRequest /
    # handleLeaveGroupRequest: READ on the group.
    _require(r, AclOperation.READ, GROUP, _group(q), GROUP_FAILED, "be a member of the group")


def offset_commit(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleOffsetCommitRequest: READ on the group (the request fails), then READ on each topic.
    if not _require(r, AclOperation.READ, GROUP, _group(q), GROUP_FAILED, "commit offsets for the group"):
        return
    allowed = r.filter(AclOperation.READ, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED,
                       "commit an offset of the topic")
    _topic_errors(r, q, allowed)


def offset_fetch(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleOffsetFetchRequest: DESCRIBE on the group; then DESCRIBE on each topic: asked by name,
    # an unauthorized topic gets TOPIC_AUTHORIZATION_FAILED; asked for all partitions, it is left out.
    if not _require(r, AclOperation.DESCRIBE, GROUP, _group(q), GROUP_FAILED, "read the group's committed offsets"):
        return
    if q.all_partitions:
        allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.FILTERED, None,
                           "offsets of topics it may not describe are left out")
        r.call.filtered.extend(t for t in dict.fromkeys(q.topics) if t not in allowed)
        return
    allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED,
                       "read the committed offset of the topic")
    _topic_errors(r, q, allowed, check_exists=False)


def offset_delete(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleOffsetDeleteRequest: DELETE on the group, then READ on each topic.
    if not _require(r, AclOperation.DELETE, GROUP, _group(q), GROUP_FAILED, "delete the group's offsets"):
        return
    allowed = r.filter(AclOperation.READ, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED,
                       "delete the committed offset of the topic")
    _topic_errors(r, q, allowed)


def describe_groups(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleDescribeGroupsRequest (and handleConsumerGroupDescribe / handleShareGroupDescribe):
    # DESCRIBE on each group, an error per group.
    for group in dict.fromkeys(q.groups or (_group(q),)):
        if not r.authorize(AclOperation.DESCRIBE, GROUP, group, OnDeny.RESOURCE, GROUP_FAILED, "describe the group"):
            r.call.resource_errors[group] = GROUP_FAILED


def modern_describe(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleConsumerGroupDescribe / handleShareGroupDescribe: DESCRIBE on each group, then
    # DESCRIBE on every topic its members are assigned or subscribe to: one the client may not describe
    # fails the group with TOPIC_AUTHORIZATION_FAILED.
    describe_groups(r, q)
    groups = [g for g in dict.fromkeys(q.groups or (_group(q),)) if g not in r.call.resource_errors]
    if groups and q.topics:
        allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED,
                           "the group's members use the topic")
        if len(allowed) < len(set(q.topics)):
            for g in groups:
                r.call.resource_errors[g] = TOPIC_FAILED


def list_groups(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleListGroupsRequest: with DESCRIBE on the cluster every group is listed; otherwise
    # each group only with DESCRIBE on it. No denial is an error: groups are left out. Since 3.4 the
    # denials are not logged either (KAFKA-14236: before, every group a client could not see was an INFO
    # "Denied" line in the audit log, for every ListGroups).
    logged = not r.cluster.version.at_least(3, 4)
    if r.authorize_cluster(AclOperation.DESCRIBE, OnDeny.FALLBACK, None, "list every group", log_if_denied=logged):
        return
    allowed = r.filter(AclOperation.DESCRIBE, GROUP, q.groups, OnDeny.FILTERED, None,
                       "a group it may not describe is left out", log_if_denied=logged)
    r.call.filtered.extend(g for g in dict.fromkeys(q.groups) if g not in allowed)


def delete_groups(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleDeleteGroupsRequest: DELETE on each group.
    for group in dict.fromkeys(q.groups or (_group(q),)):
        if not r.authorize(AclOperation.DELETE, GROUP, group, OnDeny.RESOURCE, GROUP_FAILED, "delete the group"):
            r.call.resource_errors[group] = GROUP_FAILED


def modern_heartbeat(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleConsumerGroupHeartbeat (KIP-848) and handleShareGroupHeartbeat (KIP-932): READ on the
    # group, then DESCRIBE on every subscribed topic: if any is denied the whole heartbeat fails with
    # TOPIC_AUTHORIZATION_FAILED. (A regex subscription is resolved by the coordinator, which leaves out
    # the topics the member may not describe.)
    if not _require(r, AclOperation.READ, GROUP, _group(q), GROUP_FAILED, "be a member of the group"):
        return
    if q.topics:
        allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.FAILS, TOPIC_FAILED,
                           "subscribe to the topic")
        if len(allowed) < len(set(q.topics)):
            r.call.error = TOPIC_FAILED


def streams_heartbeat(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleStreamsGroupHeartbeat (KIP-1071, early access in 4.1): READ on the group, DESCRIBE on
    # the topology's source and internal topics (the request fails), and for internal topics to create
    # CREATE on the cluster or on each topic (missing ones are reported in the status, not as an error).
    modern_heartbeat(r, q)


def share_fetch(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleShareFetchRequest / handleShareAcknowledgeRequest: READ on the share group (the
    # request fails), then READ on each topic.
    if not _require(r, AclOperation.READ, GROUP, _group(q), GROUP_FAILED, "fetch as a member of the share group"):
        return
    allowed = r.filter(AclOperation.READ, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "read records")
    _topic_errors(r, q, allowed)


def describe_share_group_offsets(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleDescribeShareGroupOffsetsRequest: DESCRIBE on the group, DESCRIBE on each topic.
    if not r.authorize(AclOperation.DESCRIBE, GROUP, _group(q), OnDeny.RESOURCE, GROUP_FAILED,
                       "describe the share group's offsets"):
        r.call.resource_errors[_group(q)] = GROUP_FAILED
        return
    allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "the topic's offsets")
    _topic_errors(r, q, allowed, check_exists=False)


def alter_share_group_offsets(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleAlterShareGroupOffsetsRequest: READ on the group, READ on each topic.
    if not _require(r, AclOperation.READ, GROUP, _group(q), GROUP_FAILED, "alter the share group's offsets"):
        return
    allowed = r.filter(AclOperation.READ, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "the topic's offsets")
    _topic_errors(r, q, allowed)


def delete_share_group_offsets(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleDeleteShareGroupOffsetsRequest: DELETE on the group, READ on each topic.
    if not _require(r, AclOperation.DELETE, GROUP, _group(q), GROUP_FAILED, "delete the share group's offsets"):
        return
    allowed = r.filter(AclOperation.READ, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "the topic's offsets")
    _topic_errors(r, q, allowed)


def init_producer_id(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleInitProducerIdRequest. With a transactional id: WRITE on it, and with two-phase
    # commit (KIP-939, 4.1+) TWO_PHASE_COMMIT on it too. Without (an idempotent producer):
    # IDEMPOTENT_WRITE on the cluster (a denial not logged) or else WRITE on *any* topic
    # (authorizeByResourceType, KIP-679: Kafka 2.8+), else CLUSTER_AUTHORIZATION_FAILED.
    if q.transactional_id is not None:
        if not _require(r, AclOperation.WRITE, TXN, q.transactional_id, TXN_FAILED, "initialize the transactional producer"):
            return
        if q.two_phase_commit:
            _require(r, AclOperation.TWO_PHASE_COMMIT, TXN, q.transactional_id, TXN_FAILED,
                     "transaction.two.phase.commit.enable=true")
        return
    if r.authorize_cluster(AclOperation.IDEMPOTENT_WRITE, OnDeny.FALLBACK, None,
                           "an idempotent producer id: IDEMPOTENT_WRITE on the cluster ...", log_if_denied=False):
        return
    if not r.authorize_by_type(AclOperation.WRITE, TOPIC, OnDeny.FAILS, CLUSTER_FAILED,
                               "... or WRITE on any topic (KIP-679)"):
        r.call.error = CLUSTER_FAILED


def add_partitions_to_txn(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleAddPartitionsToTxnRequest. Versions 0-3 come from clients (transactions V1): WRITE on
    # the transactional id, then WRITE on each topic (internal topics unchecked): any failed topic fails
    # the whole transaction's add. Version 4+ comes from partition leaders verifying a transaction
    # (transactions V2 and KIP-890's verification): CLUSTER_ACTION.
    if q.from_broker:
        _require(r, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, CLUSTER_NAME, CLUSTER_FAILED,
                 "AddPartitionsToTxn v4+ comes from brokers")
        return
    if not _require(r, AclOperation.WRITE, TXN, q.transactional_id or "", TXN_FAILED,
                    "add partitions to the transaction"):
        return
    internal = [t for t in q.topics if t.startswith("__")]
    allowed = r.filter(AclOperation.WRITE, TOPIC, [t for t in q.topics if t not in internal], OnDeny.RESOURCE,
                       TOPIC_FAILED, "add the topic's partitions to the transaction") + internal
    _topic_errors(r, q, allowed)


def add_offsets_to_txn(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleAddOffsetsToTxnRequest (transactions V1 only): WRITE on the transactional id, then
    # READ on the group.
    if _require(r, AclOperation.WRITE, TXN, q.transactional_id or "", TXN_FAILED, "add offsets to the transaction"):
        _require(r, AclOperation.READ, GROUP, _group(q), GROUP_FAILED, "commit offsets for the group in the transaction")


def end_txn(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleEndTxnRequest: WRITE on the transactional id.
    _require(r, AclOperation.WRITE, TXN, q.transactional_id or "", TXN_FAILED, "commit or abort the transaction")


def txn_offset_commit(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleTxnOffsetCommitRequest: WRITE on the transactional id, READ on the group (each fails
    # the request), then READ on each topic.
    if not _require(r, AclOperation.WRITE, TXN, q.transactional_id or "", TXN_FAILED,
                    "commit offsets in the transaction"):
        return
    if not _require(r, AclOperation.READ, GROUP, _group(q), GROUP_FAILED, "commit offsets for the group"):
        return
    allowed = r.filter(AclOperation.READ, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED,
                       "commit an offset of the topic")
    _topic_errors(r, q, allowed)


def describe_transactions(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleDescribeTransactionsRequest: DESCRIBE on the transactional id (an error for it), then
    # its partitions only of topics the client may describe (the rest left out).
    if not r.authorize(AclOperation.DESCRIBE, TXN, q.transactional_id or "", OnDeny.RESOURCE, TXN_FAILED,
                       "describe the transaction"):
        r.call.resource_errors[q.transactional_id or ""] = TXN_FAILED
        return
    allowed = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.FILTERED, None,
                       "the transaction's partitions of this topic")
    r.call.filtered.extend(t for t in dict.fromkeys(q.topics) if t not in allowed)


def list_transactions(r: Recorder, q: ApiRequest) -> None:
    # KafkaApis.handleListTransactionsRequest: each transactional id only with DESCRIBE on it.
    ids = (q.transactional_id,) if q.transactional_id is not None else ()
    for tid in ids:
        if not r.authorize(AclOperation.DESCRIBE, TXN, tid, OnDeny.FILTERED, None, "list the transaction"):
            r.call.filtered.append(tid)


HANDLERS = {
    "FindCoordinator": ("KafkaApis.handleFindCoordinatorRequest", find_coordinator),
    "JoinGroup": ("KafkaApis.handleJoinGroupRequest", group_member),
    "SyncGroup": ("KafkaApis.handleSyncGroupRequest", group_member),
    "Heartbeat": ("KafkaApis.handleHeartbeatRequest", group_member),
    "LeaveGroup": ("KafkaApis.handleLeaveGroupRequest", group_member),
    "OffsetCommit": ("KafkaApis.handleOffsetCommitRequest", offset_commit),
    "OffsetFetch": ("KafkaApis.handleOffsetFetchRequest", offset_fetch),
    "OffsetDelete": ("KafkaApis.handleOffsetDeleteRequest", offset_delete),
    "DescribeGroups": ("KafkaApis.handleDescribeGroupsRequest", describe_groups),
    "ListGroups": ("KafkaApis.handleListGroupsRequest", list_groups),
    "DeleteGroups": ("KafkaApis.handleDeleteGroupsRequest", delete_groups),
    "ConsumerGroupHeartbeat": ("KafkaApis.handleConsumerGroupHeartbeat", modern_heartbeat),
    "ConsumerGroupDescribe": ("KafkaApis.handleConsumerGroupDescribe", modern_describe),
    "ShareGroupHeartbeat": ("KafkaApis.handleShareGroupHeartbeat", modern_heartbeat),
    "ShareGroupDescribe": ("KafkaApis.handleShareGroupDescribe", modern_describe),
    "ShareFetch": ("KafkaApis.handleShareFetchRequest", share_fetch),
    "ShareAcknowledge": ("KafkaApis.handleShareAcknowledgeRequest", share_fetch),
    "DescribeShareGroupOffsets": ("KafkaApis.handleDescribeShareGroupOffsetsRequest", describe_share_group_offsets),
    "AlterShareGroupOffsets": ("KafkaApis.handleAlterShareGroupOffsetsRequest", alter_share_group_offsets),
    "DeleteShareGroupOffsets": ("KafkaApis.handleDeleteShareGroupOffsetsRequest", delete_share_group_offsets),
    "StreamsGroupHeartbeat": ("KafkaApis.handleStreamsGroupHeartbeat", streams_heartbeat),
    "StreamsGroupDescribe": ("KafkaApis.handleStreamsGroupDescribe", modern_describe),
    "InitProducerId": ("KafkaApis.handleInitProducerIdRequest", init_producer_id),
    "AddPartitionsToTxn": ("KafkaApis.handleAddPartitionsToTxnRequest", add_partitions_to_txn),
    "AddOffsetsToTxn": ("KafkaApis.handleAddOffsetsToTxnRequest", add_offsets_to_txn),
    "EndTxn": ("KafkaApis.handleEndTxnRequest", end_txn),
    "TxnOffsetCommit": ("KafkaApis.handleTxnOffsetCommitRequest", txn_offset_commit),
    "DescribeTransactions": ("KafkaApis.handleDescribeTransactionsRequest", describe_transactions),
    "ListTransactions": ("KafkaApis.handleListTransactionsRequest", list_transactions),
}
