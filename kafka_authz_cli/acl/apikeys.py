"""Kafka request types (``ApiKeys``): the id a request carries and the name the audit log prints."""

from __future__ import annotations

API_KEY_NAMES: dict[int, str] = dict(enumerate((
    "Produce", "Fetch", "ListOffsets", "Metadata", "LeaderAndIsr", "StopReplica", "UpdateMetadata",
    "ControlledShutdown", "OffsetCommit", "OffsetFetch", "FindCoordinator", "JoinGroup", "Heartbeat",
    "LeaveGroup", "SyncGroup", "DescribeGroups", "ListGroups", "SaslHandshake", "ApiVersions",
    "CreateTopics", "DeleteTopics", "DeleteRecords", "InitProducerId", "OffsetForLeaderEpoch",
    "AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn", "WriteTxnMarkers", "TxnOffsetCommit",
    "DescribeAcls", "CreateAcls", "DeleteAcls", "DescribeConfigs", "AlterConfigs",
    "AlterReplicaLogDirs", "DescribeLogDirs", "SaslAuthenticate", "CreatePartitions",
    "CreateDelegationToken", "RenewDelegationToken", "ExpireDelegationToken",
    "DescribeDelegationToken", "DeleteGroups", "ElectLeaders", "IncrementalAlterConfigs",
    "AlterPartitionReassignments", "ListPartitionReassignments", "OffsetDelete",
    "DescribeClientQuotas", "AlterClientQuotas", "DescribeUserScramCredentials",
    "AlterUserScramCredentials", "Vote", "BeginQuorumEpoch", "EndQuorumEpoch", "DescribeQuorum",
    "AlterPartition", "UpdateFeatures", "Envelope", "FetchSnapshot", "DescribeCluster",
    "DescribeProducers", "BrokerRegistration", "BrokerHeartbeat", "UnregisterBroker",
    "DescribeTransactions", "ListTransactions", "AllocateProducerIds", "ConsumerGroupHeartbeat",
    "ConsumerGroupDescribe", "ControllerRegistration", "GetTelemetrySubscriptions", "PushTelemetry",
    "AssignReplicasToDirs", "ListClientMetricsResources", "DescribeTopicPartitions",
    "ShareGroupHeartbeat", "ShareGroupDescribe", "ShareFetch", "ShareAcknowledge", "AddRaftVoter",
    "RemoveRaftVoter", "UpdateRaftVoter", "InitializeShareGroupState", "ReadShareGroupState",
    "WriteShareGroupState", "DeleteShareGroupState", "ReadShareGroupStateSummary",
    "StreamsGroupHeartbeat", "StreamsGroupDescribe", "DescribeShareGroupOffsets",
    "AlterShareGroupOffsets", "DeleteShareGroupOffsets",
)))

_BY_NAME = {name.lower(): key for key, name in API_KEY_NAMES.items()}


def api_key_name(api_key: int | None) -> str:
    if api_key is None:
        return "Unknown"
    return API_KEY_NAMES.get(api_key, f"Unknown({api_key})")


def parse_api_key(text: str | int | None) -> int | None:
    """An api key from its id (``1``) or its name (``Fetch``, any case); None when absent."""
    if text is None or text == "":
        return None
    if isinstance(text, int):
        return text
    text = str(text).strip()
    if text.lstrip("-").isdigit():
        return int(text)
    key = _BY_NAME.get(text.lower())
    if key is None:
        raise ValueError(f"unknown request type {text!r} (expected an ApiKeys id or name such as Fetch)")
    return key
