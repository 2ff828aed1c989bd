"""KIP-201 topic management policy: a declarative policy file, checked as the KIP's interface would.

``topic`` is the policy and its decision: the rules (principals, topics, operations, bounds on
partitions, replication factor and topic configs), the request metadata and cluster state the KIP's
``TopicManagementPolicy`` receives, what the broker refuses before any policy (an existing topic,
fewer partitions, too few brokers), and the request-level verdict combined with the ACL engine (ACLs
first, then the broker, then the policy). ``policy_files`` reads the policy (JSON or TOML), requests (JSON
lines) and cluster state (JSON).

KIP-201 was never merged: brokers run ``CreateTopicPolicy`` and ``AlterConfigPolicy``, which never see
the principal. Pure: no terminal, no Spark, no network. Other packages import what is listed here.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.policy.policy_files import read_cluster_state, read_policy, read_requests, request_from_dict
    from kafka_authz_cli.policy.topic import (
        REQUEST_TYPES,
        ClusterState,
        CombinedVerdict,
        PolicyFileError,
        PolicyRequest,
        PolicyVerdict,
        RequestedState,
        TopicPolicy,
        TopicState,
        decide,
        evaluate,
        parse_policy,
    )

__getattr__, __all__ = lazy_face(__name__, {
    # topic: the policy, the KIP's request metadata and cluster state, the verdicts
    "ClusterState": "topic", "CombinedVerdict": "topic", "PolicyFileError": "topic", "PolicyRequest": "topic",
    "PolicyVerdict": "topic", "REQUEST_TYPES": "topic", "RequestedState": "topic", "TopicPolicy": "topic",
    "TopicState": "topic", "decide": "topic", "evaluate": "topic", "parse_policy": "topic",
    # policy_files
    "read_cluster_state": "policy_files", "read_policy": "policy_files", "read_requests": "policy_files",
    "request_from_dict": "policy_files",
})
