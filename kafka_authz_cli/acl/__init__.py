"""Kafka's ACLs and the decision over them: the domain everything else builds on.

``model`` is Kafka's ACL vocabulary (enums with their wire codes, principals, patterns, bindings and
the broker's validation). The authorizer: ``decision`` is what it is asked and answers (a request,
its outcome, the rule, the audit line and the decision in words); ``engine`` decides requests exactly
as the KRaft ``StandardAuthorizer`` does, over an immutable snapshot of bindings and the broker's
settings (``broker_settings``: ``super.users`` and ``allow.everyone.if.no.acl.found``), from the hash
indexes of ``index`` and, where Kafka's own quirks decide, the step-by-step walk of its sorted set in
``walk`` (both match ACLs with ``matching``); ``naive`` is the deliberately simple reference the
engine is tested against. Around it: ``filter`` is ``AclBindingFilter`` (what DescribeAcls /
DeleteAcls match); ``apikeys`` names request types; ``compare`` compares two ACL sets as bindings
and, exactly, as decisions; ``formats`` reads and writes ACL sets (authz's canonical JSON,
``kafka-acls --list`` text, Kafka Security Manager CSV); ``requests`` reads request files for
``simulate``.

Pure: no terminal, no Spark, no network. Other packages import what is listed here.
"""

from kafka_authz_cli import lazy_face

__getattr__, __all__ = lazy_face(__name__, {
    # model
    "AclBinding": "model", "AclError": "model", "AclOperation": "model", "AclPermissionType": "model",
    "AccessControlEntry": "model", "CLUSTER_NAME": "model", "IMPLIES_DESCRIBE": "model",
    "IMPLIES_DESCRIBE_CONFIGS": "model", "KafkaPrincipal": "model", "PatternType": "model",
    "ResourcePattern": "model", "ResourceType": "model", "SUPPORTED_OPERATIONS": "model",
    "WILDCARD_HOST": "model", "WILDCARD_PRINCIPAL": "model", "WILDCARD_RESOURCE": "model",
    "java_host_address": "model", "operations_for": "model", "unmatchable_host_kind": "model",
    "unmatchable_host_reason": "model", "validation_errors": "model",
    # the authorizer: what it is asked and answers, and the engine
    "Decision": "decision", "Outcome": "decision", "Request": "decision",
    "StandardAuthorizer": "engine",
    "AuthorizerConfigError": "broker_settings", "BrokerSettings": "broker_settings",
    "parse_super_users": "broker_settings",
    # filter, apikeys, compare (the decision diff)
    "AclFilter": "filter", "MATCH_ALL": "filter", "kafka_acls_filters": "filter",
    "api_key_name": "apikeys", "parse_api_key": "apikeys",
    "DiffResult": "compare", "describe_host": "compare", "describe_names": "compare", "diff": "compare",
    "NameSpace": "compare", "NameClass": "compare", "FRESH_HOST": "compare", "FRESH_PRINCIPAL": "compare",
    # files
    "ACL_FORMATS": "formats", "AclSet": "formats", "detect_format": "formats", "dump_acls": "formats",
    "load_acls": "formats", "parse_acls": "formats", "ACL_SET_READS": "formats", "ACL_SET_EXPECTED": "formats",
    "empty_warning": "formats",
    "RequestSpec": "requests", "iter_requests": "requests", "parse_expect": "requests", "parse_requests": "requests",
})
