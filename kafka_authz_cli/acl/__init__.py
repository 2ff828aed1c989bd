"""Kafka's ACLs and the decision over them: the domain everything else builds on.

``model`` is Kafka's ACL vocabulary (enums with their wire codes, principals, patterns, bindings and
the broker's validation). The authorizer: ``decision`` is what it is asked and answers (a request,
its outcome, the rule, the audit line and the decision in words); ``engine`` decides requests exactly
as the KRaft ``StandardAuthorizer`` does, over an immutable snapshot of bindings and the broker's
settings (``broker_settings``: ``super.users`` and ``allow.everyone.if.no.acl.found``), from the hash
indexes of ``type_index`` and, where Kafka's own quirks decide, the step-by-step walk of its sorted set in
``walk`` (both match ACLs with ``matching``); ``naive`` is the deliberately simple reference the
engine is tested against. Around it: ``filter`` is ``AclBindingFilter`` (what DescribeAcls /
DeleteAcls match); ``apikeys`` names request types; ``compare`` compares two ACL sets as bindings
and, exactly, as decisions; ``registry`` is the table of every format an ACL set is kept in (Kafka's,
the Kroxylicious rules language and configurations, the ecosystem's: how each is told, read and written);
``formats`` reads and writes Kafka's own (authz's canonical JSON, ``kafka-acls --list`` text, Kafka
Security Manager CSV); ``request_files`` reads request files for ``simulate``.

Pure: no terminal, no Spark, no network. Other packages import what is listed here.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.acl.apikeys import api_key_name, parse_api_key
    from kafka_authz_cli.acl.broker_settings import AuthorizerConfigError, BrokerSettings, parse_super_users
    from kafka_authz_cli.acl.compare import (
        FRESH_HOST,
        FRESH_PRINCIPAL,
        DiffResult,
        NameClass,
        NameSpace,
        describe_host,
        describe_names,
        diff,
    )
    from kafka_authz_cli.acl.decision import Decision, Outcome, Request, Rule, matching_acl_rule
    from kafka_authz_cli.acl.engine import StandardAuthorizer
    from kafka_authz_cli.acl.filter import MATCH_ALL, AclFilter, kafka_acls_filters
    from kafka_authz_cli.acl.formats import (
        ACL_FORMATS,
        ACL_SET_EXPECTED,
        AclSet,
        detect_format,
        dump_acls,
        empty_warning,
        load_acls,
        parse_acls,
    )
    from kafka_authz_cli.acl.model import (
        CLUSTER_NAME,
        IMPLIES_DESCRIBE,
        IMPLIES_DESCRIBE_CONFIGS,
        SUPPORTED_OPERATIONS,
        WILDCARD_HOST,
        WILDCARD_PRINCIPAL,
        WILDCARD_RESOURCE,
        AccessControlEntry,
        AclBinding,
        AclError,
        AclOperation,
        AclPermissionType,
        KafkaPrincipal,
        PatternType,
        ResourcePattern,
        ResourceType,
        java_host_address,
        operations_for,
        unmatchable_host_kind,
        unmatchable_host_reason,
        validation_errors,
    )
    from kafka_authz_cli.acl.registry import (
        ACL_SET_READS,
        ECOSYSTEM,
        FORMATS,
        KAFKA,
        KROXYLICIOUS,
        AclSetFormat,
        ecosystem_format_of,
        ecosystem_formats,
        format_of,
        no_reading_options,
        told_apart,
    )
    from kafka_authz_cli.acl.request_files import RequestSpec, iter_requests, parse_expect, parse_requests

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
    "Decision": "decision", "Outcome": "decision", "Request": "decision", "Rule": "decision",
    "matching_acl_rule": "decision",
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
    "load_acls": "formats", "parse_acls": "formats", "ACL_SET_EXPECTED": "formats", "empty_warning": "formats",
    "ACL_SET_READS": "registry", "AclSetFormat": "registry", "FORMATS": "registry", "ecosystem_formats": "registry",
    "ecosystem_format_of": "registry", "format_of": "registry", "no_reading_options": "registry",
    "told_apart": "registry", "KAFKA": "registry", "KROXYLICIOUS": "registry", "ECOSYSTEM": "registry",
    "RequestSpec": "request_files", "iter_requests": "request_files", "parse_expect": "request_files", "parse_requests": "request_files",
})
