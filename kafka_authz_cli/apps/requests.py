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


def handle(cluster: Cluster, caller: Caller, request: ApiRequest) -> Call:
    handler_name, handler = HANDLERS[request.api]
    call = Call(request, handler_name)
    handler(Recorder(cluster, caller, call), request)
    return call
