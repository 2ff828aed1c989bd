"""Live clusters: the kafka-python adapter, and changes to a cluster's ACLs that never widen access.

``kafka_adapter`` is the only module of authz that imports kafka-python (and only when a cluster is
reached): conversions between authz's ACL model and kafka-python's admin objects, the client
settings of a Java ``--command-config`` file, and the admin calls (ACLs, SCRAM users, broker
configs, and a bounded read of a topic) with kafka-python's failures turned into one-line errors. ``rollout`` plans an ACL set
within a scope and applies it in an order that never grants what neither the old nor the new set
grants, drift-checked; ``guard`` holds the delete guard and the errors that say nothing changed.

Importing this package imports no kafka-python. Other packages import what is listed here.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.cluster.guard import DEFAULT_MAX_DELETES, Declined, DriftError, confirm_changes, delete_guard
    from kafka_authz_cli.cluster.kafka_adapter import (
        DEFAULT_TIMEOUT,
        ClusterError,
        KafkaAclAdmin,
        TopicRead,
        client_config,
        follow_records,
        open_admin,
        pick_broker,
        topic_records,
    )
    from kafka_authz_cli.cluster.rollout import (
        ApplyReport,
        Batch,
        Drift,
        Plan,
        Scope,
        batches,
        check_drift,
        execute,
        make_plan,
        phases,
    )

__getattr__, __all__ = lazy_face(__name__, {
    # kafka_adapter (kafka-python is imported by its functions, when a cluster is reached)
    "DEFAULT_TIMEOUT": "kafka_adapter", "ClusterError": "kafka_adapter", "KafkaAclAdmin": "kafka_adapter",
    "client_config": "kafka_adapter", "open_admin": "kafka_adapter", "pick_broker": "kafka_adapter",
    "TopicRead": "kafka_adapter", "topic_records": "kafka_adapter", "follow_records": "kafka_adapter",
    # rollout
    "ApplyReport": "rollout", "Batch": "rollout", "Drift": "rollout", "Plan": "rollout", "Scope": "rollout",
    "batches": "rollout", "check_drift": "rollout", "execute": "rollout", "make_plan": "rollout", "phases": "rollout",
    # guard
    "DEFAULT_MAX_DELETES": "guard", "Declined": "guard", "DriftError": "guard", "confirm_changes": "guard",
    "delete_guard": "guard",
})
