"""Layer 1: one request, checked as the broker's handler for its type checks it.

:func:`handle` dispatches on the request type (an ``ApiKeys`` name) to the handlers of
``handlers_data`` (topics), ``handlers_groups`` (group, share and transaction coordinators) and
``handlers_admin`` (the controller's and the admin requests), and returns the :class:`Call`: every check
in order with its decision, and the errors the client receives.
"""

from __future__ import annotations

from kafka_authz_cli.acl import parse_api_key
from kafka_authz_cli.acl.apikeys import api_key_name
from kafka_authz_cli.apps import handlers_admin, handlers_data, handlers_groups
from kafka_authz_cli.apps.calls import ApiRequest, Call, Caller, Cluster, Recorder

HANDLERS = {**handlers_data.HANDLERS, **handlers_groups.HANDLERS, **handlers_admin.HANDLERS}

#: What each request names, for `authz simulate --api` (resource options it needs).
NEEDS = {
    **{api: ("topic",) for api in ("Produce", "Fetch", "ListOffsets", "OffsetForLeaderEpoch", "Metadata",
                                   "DescribeTopicPartitions", "DeleteRecords", "DescribeProducers", "CreateTopics",
                                   "DeleteTopics", "CreatePartitions")},
    **{api: ("group",) for api in ("JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetCommit",
                                   "OffsetFetch", "OffsetDelete", "ConsumerGroupHeartbeat", "ShareGroupHeartbeat",
                                   "ShareFetch", "ShareAcknowledge", "StreamsGroupHeartbeat",
                                   "DescribeShareGroupOffsets", "AlterShareGroupOffsets", "DeleteShareGroupOffsets")},
    **{api: ("transactional_id",) for api in ("AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn", "TxnOffsetCommit",
                                              "DescribeTransactions")},
}


#: Requests newer than Kafka 3.0, and the release whose brokers first answer them (ApiKeys and the KIPs:
#: KIP-848 and KIP-966 in 3.7, KIP-932 share groups in 4.0 and their offsets admin in 4.1, KIP-1071 in 4.1).
INTRODUCED = {
    "ConsumerGroupHeartbeat": (3, 7), "ConsumerGroupDescribe": (3, 7), "DescribeTopicPartitions": (3, 7),
    "ShareGroupHeartbeat": (4, 0), "ShareGroupDescribe": (4, 0), "ShareFetch": (4, 0), "ShareAcknowledge": (4, 0),
    "DescribeShareGroupOffsets": (4, 1), "AlterShareGroupOffsets": (4, 1), "DeleteShareGroupOffsets": (4, 1),
    "StreamsGroupHeartbeat": (4, 1), "StreamsGroupDescribe": (4, 1),
}


class UnknownApi(ValueError):
    pass


def canonical_api(name: str) -> str:
    """The ApiKeys name (``Produce``) of a name in any case or an api key id."""
    try:
        key = parse_api_key(name)
    except ValueError:
        key = None
    canonical = api_key_name(key) if key is not None else None
    if canonical not in HANDLERS:
        known = ", ".join(sorted(HANDLERS))
        raise UnknownApi(f"no client request named {name!r} is modelled; known: {known}")
    return canonical


def check_available(api: str, version) -> None:
    """Raises UnknownApi when brokers of ``version`` do not answer ``api``."""
    since = INTRODUCED.get(api)
    if since is not None and version.line < since:
        raise UnknownApi(f"{api} is answered from Kafka {since[0]}.{since[1]}, not by Kafka {version} brokers")


def handle(cluster: Cluster, caller: Caller, request: ApiRequest) -> Call:
    handler_name, handler = HANDLERS[request.api]
    call = Call(request, handler_name)
    handler(Recorder(cluster, caller, call), request)
    return call
