"""Layer 1: each request checked as Kafka 4.1's handlers check it (the order, what a denial does, the error)."""

from __future__ import annotations

import pytest

from kafka_authz_cli.acl import AclBinding, StandardAuthorizer
from kafka_authz_cli.apps.api_requests import HANDLERS, UnknownApi, canonical_api, handle
from kafka_authz_cli.apps.calls import ApiRequest, Caller, Cluster, OnDeny

P = "User:alice"


def acls(*lines: str) -> list[AclBinding]:
    """'TOPIC orders READ' / 'TOPIC ord PREFIXED READ DENY' for User:alice from any host."""
    out = []
    for line in lines:
        parts = line.split()
        rtype, name = parts[0], parts[1]
        pattern = parts[2] if parts[2] in ("LITERAL", "PREFIXED") else "LITERAL"
        rest = parts[3:] if parts[2] in ("LITERAL", "PREFIXED") else parts[2:]
        op, permission = rest[0], rest[1] if len(rest) > 1 else "ALLOW"
        out.append(AclBinding.of(rtype, name, pattern, P, "*", op, permission))
    return out


def call(request: ApiRequest, *lines: str, **cluster):
    return handle(Cluster(StandardAuthorizer(acls(*lines)), **cluster), Caller(P), request)


def checks(c) -> list[tuple[str, str, str | None, bool]]:
    return [(k.operation.name, k.resource_type.name, k.resource_name, k.allowed) for k in c.checks]


def test_produce_checks_the_transactional_id_before_any_topic():
    c = call(ApiRequest("Produce", topics=("t",), transactional=True, transactional_id="tx"), "TOPIC t WRITE")
    assert checks(c) == [("WRITE", "TRANSACTIONAL_ID", "tx", False)]
    assert c.error == "TRANSACTIONAL_ID_AUTHORIZATION_FAILED" and c.checks[0].on_deny is OnDeny.FAILS


def test_produce_fails_per_topic_and_authorization_comes_before_existence():
    c = call(ApiRequest("Produce", topics=("a", "b", "gone")), "TOPIC a WRITE", "TOPIC gone WRITE",
             absent_topics=frozenset({"gone", "b"}))
    assert c.error is None
    assert c.resource_errors == {"b": "TOPIC_AUTHORIZATION_FAILED", "gone": "UNKNOWN_TOPIC_OR_PARTITION"}


def test_metadata_auto_creation_needs_create_on_the_cluster_or_else_on_the_topic():
    request = ApiRequest("Metadata", topics=("new",), allow_auto_create=True)
    denied = call(request, "TOPIC new DESCRIBE", absent_topics=frozenset({"new"}))
    assert checks(denied) == [("DESCRIBE", "TOPIC", "new", True), ("CREATE", "CLUSTER", "kafka-cluster", False),
                              ("CREATE", "TOPIC", "new", False)]
    assert denied.checks[1].on_deny is OnDeny.FALLBACK and not denied.checks[1].log_if_denied
    assert denied.resource_errors == {"new": "TOPIC_AUTHORIZATION_FAILED"}
    created = call(request, "TOPIC new DESCRIBE", "TOPIC new CREATE", absent_topics=frozenset({"new"}))
    assert created.ok and any("auto-created" in n for n in created.notes)
    by_cluster = call(request, "TOPIC new DESCRIBE", "CLUSTER kafka-cluster CREATE", absent_topics=frozenset({"new"}))
    assert by_cluster.ok and len(by_cluster.checks) == 2
    disabled = call(request, "TOPIC new DESCRIBE", "TOPIC new CREATE", absent_topics=frozenset({"new"}),
                    auto_create_topics_enable=False)
    assert disabled.resource_errors == {"new": "UNKNOWN_TOPIC_OR_PARTITION"} and len(disabled.checks) == 1


def test_metadata_of_all_topics_leaves_out_silently_and_does_not_log_the_denial():
    c = call(ApiRequest("Metadata", topics=("a", "b"), all_topics=True), "TOPIC a DESCRIBE")
    assert c.ok and c.filtered == ["b"]
    assert [k.log_if_denied for k in c.checks] == [False, False]


def test_init_producer_id_idempotent_write_or_write_on_any_topic():
    c = call(ApiRequest("InitProducerId"), "TOPIC elsewhere WRITE")
    assert checks(c) == [("IDEMPOTENT_WRITE", "CLUSTER", "kafka-cluster", False), ("WRITE", "TOPIC", None, True)]
    assert c.ok
    denied = call(ApiRequest("InitProducerId"), "TOPIC t READ")
    assert denied.error == "CLUSTER_AUTHORIZATION_FAILED"
    cluster = call(ApiRequest("InitProducerId"), "CLUSTER kafka-cluster IDEMPOTENT_WRITE")
    assert cluster.ok and len(cluster.checks) == 1


def test_init_producer_id_transactional_and_two_phase_commit():
    c = call(ApiRequest("InitProducerId", transactional_id="tx", two_phase_commit=True), "TRANSACTIONAL_ID tx WRITE")
    assert checks(c) == [("WRITE", "TRANSACTIONAL_ID", "tx", True), ("TWO_PHASE_COMMIT", "TRANSACTIONAL_ID", "tx", False)]
    assert c.error == "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"
    # DESCRIBE (FindCoordinator's) is not WRITE
    assert call(ApiRequest("InitProducerId", transactional_id="tx"), "TRANSACTIONAL_ID tx DESCRIBE").error


def test_offset_commit_group_first_then_topics():
    c = call(ApiRequest("OffsetCommit", group="g", topics=("t",)), "TOPIC t READ")
    assert checks(c) == [("READ", "GROUP", "g", False)] and c.error == "GROUP_AUTHORIZATION_FAILED"
    c = call(ApiRequest("OffsetCommit", group="g", topics=("t",)), "GROUP g READ", "TOPIC t DESCRIBE")
    assert c.resource_errors == {"t": "TOPIC_AUTHORIZATION_FAILED"}


def test_find_coordinator_needs_describe_which_read_and_write_imply():
    assert call(ApiRequest("FindCoordinator", group="g"), "GROUP g READ").ok
    assert call(ApiRequest("FindCoordinator", key_type="TRANSACTION", transactional_id="tx"),
                "TRANSACTIONAL_ID tx WRITE").ok
    assert call(ApiRequest("FindCoordinator", group="g"), "GROUP h READ").error == "GROUP_AUTHORIZATION_FAILED"


def test_consumer_group_heartbeat_fails_whole_when_one_subscribed_topic_is_not_describable():
    c = call(ApiRequest("ConsumerGroupHeartbeat", group="g", topics=("a", "b")), "GROUP g READ", "TOPIC a READ")
    assert c.error == "TOPIC_AUTHORIZATION_FAILED" and c.resource_errors == {}


def test_list_groups_cluster_describe_or_each_group_silently():
    c = call(ApiRequest("ListGroups", groups=("a", "b")), "GROUP a DESCRIBE")
    assert c.ok and c.filtered == ["b"]
    assert checks(c)[0] == ("DESCRIBE", "CLUSTER", "kafka-cluster", False)
    assert call(ApiRequest("ListGroups", groups=("a", "b")), "CLUSTER kafka-cluster DESCRIBE").filtered == []


def test_create_topics_cluster_or_topic_and_configs_only_shown():
    c = call(ApiRequest("CreateTopics", topics=("n",)), "TOPIC n CREATE", absent_topics=frozenset({"n"}))
    assert c.ok and [k.on_deny for k in c.checks] == [OnDeny.FALLBACK, OnDeny.RESOURCE, OnDeny.INFORMATIONAL]
    assert any("DESCRIBE_CONFIGS" in n for n in c.notes)
    assert call(ApiRequest("CreateTopics", topics=("n",)), "TOPIC n CREATE").resource_errors == {
        "n": "TOPIC_ALREADY_EXISTS"}


def test_delete_topics_needs_describe_and_delete():
    assert call(ApiRequest("DeleteTopics", topics=("t",)), "TOPIC t DELETE").ok  # DELETE implies DESCRIBE
    assert call(ApiRequest("DeleteTopics", topics=("t",)), "TOPIC t DESCRIBE").resource_errors == {
        "t": "TOPIC_AUTHORIZATION_FAILED"}


def test_config_resources_get_their_own_error_codes():
    c = call(ApiRequest("DescribeConfigs", config_resources=(("TOPIC", "t"), ("GROUP", "g"), ("BROKER", "1"))))
    assert c.resource_errors == {"TOPIC:t": "TOPIC_AUTHORIZATION_FAILED", "GROUP:g": "GROUP_AUTHORIZATION_FAILED",
                                 "BROKER:1": "CLUSTER_AUTHORIZATION_FAILED"}
    assert call(ApiRequest("IncrementalAlterConfigs", config_resources=(("TOPIC", "t"),)), "TOPIC t ALTER_CONFIGS").ok


def test_txn_offset_commit_order():
    c = call(ApiRequest("TxnOffsetCommit", transactional_id="tx", group="g", topics=("t",)), "GROUP g READ")
    assert checks(c) == [("WRITE", "TRANSACTIONAL_ID", "tx", False)]
    c = call(ApiRequest("TxnOffsetCommit", transactional_id="tx", group="g", topics=("t",)), "TRANSACTIONAL_ID tx WRITE",
             "TOPIC t READ")
    assert c.error == "GROUP_AUTHORIZATION_FAILED"


def test_add_partitions_to_txn_v4_comes_from_brokers():
    c = call(ApiRequest("AddPartitionsToTxn", transactional_id="tx", topics=("t",), from_broker=True),
             "TRANSACTIONAL_ID tx WRITE", "TOPIC t WRITE")
    assert c.error == "CLUSTER_AUTHORIZATION_FAILED"
    internal = call(ApiRequest("AddPartitionsToTxn", transactional_id="tx", topics=("__consumer_offsets",)),
                    "TRANSACTIONAL_ID tx WRITE")
    assert internal.ok and len(internal.checks) == 1


def test_share_fetch_group_then_topics():
    c = call(ApiRequest("ShareFetch", group="sg", topics=("t",)), "TOPIC t READ")
    assert c.error == "GROUP_AUTHORIZATION_FAILED"
    assert call(ApiRequest("ShareFetch", group="sg", topics=("t",)), "GROUP sg READ", "TOPIC t READ").ok


def test_a_deny_decides_even_with_an_allow():
    c = call(ApiRequest("Fetch", topics=("t",)), "TOPIC t READ", "TOPIC t PREFIXED READ DENY")
    assert c.resource_errors == {"t": "TOPIC_AUTHORIZATION_FAILED"}
    assert c.checks[0].acl.permission.name == "DENY"


@pytest.mark.parametrize("name", ["produce", "PRODUCE", "0", "Produce"])
def test_api_names_in_any_spelling(name):
    assert canonical_api(name) == "Produce"


def test_an_unknown_api_is_refused_naming_the_known_ones():
    with pytest.raises(UnknownApi, match="known: .*Produce"):
        canonical_api("Frobnicate")
    with pytest.raises(UnknownApi):
        canonical_api("LeaderAndIsr")  # a real ApiKeys name, but between brokers only: not modelled


def test_every_handler_runs_on_an_empty_request():
    for api in HANDLERS:
        handle(Cluster(StandardAuthorizer([])), Caller(P), ApiRequest(api))


def test_list_groups_denials_are_logged_before_3_4_only():
    from kafka_authz_cli.apps.versions import KafkaVersion

    old = call(ApiRequest("ListGroups", groups=("a",)), version=KafkaVersion.parse("3.3"))
    new = call(ApiRequest("ListGroups", groups=("a",)))
    assert [k.log_if_denied for k in old.checks] == [True, True]  # KAFKA-14236
    assert [k.log_if_denied for k in new.checks] == [False, False]
