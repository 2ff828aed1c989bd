"""What layer 1 works with: a request as the client sends it, the cluster that answers it, and the
answer, with every authorization check the broker's handler made on the way.

A :class:`Check` is one ``authorize()`` (or ``authorizeByResourceType()``) call, with the engine's
decision and what a denial does to the request: it fails the whole request, fails one resource of it
(the error code is per topic or per group), leaves a resource out of the answer silently, or is one
of two alternatives. A :class:`Call` is the answer the client receives.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from kafka_authz_cli.acl import (
    CLUSTER_NAME,
    AclBinding,
    AclOperation,
    Decision,
    Outcome,
    Request,
    ResourceType,
    StandardAuthorizer,
    parse_api_key,
)
from kafka_authz_cli.apps.bytype import authorize_by_resource_type
from kafka_authz_cli.apps.versions import DEFAULT, KafkaVersion


class OnDeny(enum.Enum):
    """What a denied check does to the request (the handler's own branch, cited at each check)."""

    #: the whole request fails with the error code
    FAILS = "fails the request"
    #: that resource (topic, group) gets the error code; the rest of the request goes on
    RESOURCE = "fails that resource"
    #: that resource is left out of the answer, with no error
    FILTERED = "left out silently"
    #: one of two alternatives: the request goes on to the other check
    FALLBACK = "falls back to the next check"
    #: only what the answer reveals (authorized operations, configs in a CreateTopics answer)
    INFORMATIONAL = "only limits what the answer shows"


@dataclass(frozen=True)
class ApiRequest:
    """One request as a client sends it: the request type (ApiKeys name) and the resources it names."""

    api: str
    topics: tuple[str, ...] = ()
    group: str | None = None
    groups: tuple[str, ...] = ()
    transactional_id: str | None = None
    #: Produce: the batches are transactional (a transactional producer's records)
    transactional: bool = False
    #: Metadata: every topic (a null topic list), as admin listTopics() asks
    all_topics: bool = False
    #: Metadata: allowAutoTopicCreation (the producer's and, with allow.auto.create.topics, the consumer's)
    allow_auto_create: bool = False
    #: InitProducerId: transaction.two.phase.commit.enable (KIP-939)
    two_phase_commit: bool = False
    #: DescribeConfigs / AlterConfigs / IncrementalAlterConfigs: (TOPIC|BROKER|GROUP, name) pairs
    config_resources: tuple[tuple[str, str], ...] = ()
    #: FindCoordinator: GROUP, TRANSACTION or SHARE
    key_type: str = "GROUP"
    #: OffsetFetch: every partition of the group (a null topic list)
    all_partitions: bool = False
    #: AddPartitionsToTxn: version 4+ comes from brokers only (transactions V2)
    from_broker: bool = False
    #: Delegation tokens: the owner a CreateDelegationToken names (None: the requester)
    owner: str | None = None

    def describe(self) -> str:
        parts = []
        if self.transactional_id is not None:
            parts.append(f"transactional.id {self.transactional_id}")
        if self.group is not None:
            parts.append(f"group {self.group}")
        if self.groups:
            parts.append("groups " + ", ".join(self.groups))
        if self.all_topics:
            parts.append("all topics")
        elif self.topics:
            parts.append("topic" + ("s " if len(self.topics) > 1 else " ") + ", ".join(self.topics))
        for rtype, name in self.config_resources:
            parts.append(f"{rtype.lower()} {name} configs")
        return f"{self.api}" + (f" ({'; '.join(parts)})" if parts else "")


@dataclass(frozen=True)
class Cluster:
    """The broker (and controller) a request meets: its ACLs and the settings the handlers read."""

    authorizer: StandardAuthorizer
    version: KafkaVersion = DEFAULT
    #: auto.create.topics.enable (Kafka's default: true)
    auto_create_topics_enable: bool = True
    #: Topics that do not exist (every other topic named is taken to exist)
    absent_topics: frozenset[str] = frozenset()
    #: delete.topic.enable (Kafka's default: true)
    delete_topic_enable: bool = True

    def exists(self, topic: str) -> bool:
        return topic not in self.absent_topics


@dataclass
class Check:
    """One authorization the broker made for a request, and its decision."""

    operation: AclOperation
    resource_type: ResourceType
    #: None for authorizeByResourceType (any resource of the type)
    resource_name: str | None
    allowed: bool
    on_deny: OnDeny
    #: the error code a denial gives (Errors name), None where a denial gives none
    error: str | None
    #: Kafka's rule text (SuperUser, DefaultAllow, DefaultDeny, MatchingAcl(...)) or the by-type verdict
    rule: str
    acl: AclBinding | None
    explanation: str
    #: authorize()'s logIfDenied: a denial is written to the audit log at INFO (else TRACE)
    log_if_denied: bool = True
    #: the handler and the reason for this check
    why: str = ""

    def resource(self) -> str:
        if self.resource_name is None:
            return f"any {self.resource_type.name}"
        return f"{self.resource_type.name} {self.resource_name}"

    def as_dict(self) -> dict:
        return {"operation": self.operation.name, "resource_type": self.resource_type.name,
                "resource_name": self.resource_name, "decision": "ALLOWED" if self.allowed else "DENIED",
                "on_deny": self.on_deny.value, "error": self.error if not self.allowed else None,
                "rule": self.rule, "acl": _acl_dict(self.acl), "explanation": self.explanation,
                "logged_if_denied": self.log_if_denied, "why": self.why}


def _acl_dict(acl: AclBinding | None) -> dict | None:
    if acl is None:
        return None
    return {"resource_type": acl.resource_type.name, "resource_name": acl.resource_name,
            "pattern_type": acl.pattern_type.name, "principal": acl.principal, "host": acl.host,
            "operation": acl.operation.name, "permission": acl.permission.name}


@dataclass
class Call:
    """The broker's answer to one request: its checks, in the handler's order, and the errors."""

    request: ApiRequest
    #: the handler, as Kafka names it (KafkaApis.handleProduceRequest, ControllerApis.handleCreateTopics)
    handler: str
    checks: list[Check] = field(default_factory=list)
    #: the request-level error code (Errors name), None when the request as a whole succeeds
    error: str | None = None
    #: resource name -> error code, for the resources that failed on their own
    resource_errors: dict[str, str] = field(default_factory=dict)
    #: resources left out of the answer, with no error
    filtered: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.resource_errors

    def first_error(self) -> str | None:
        if self.error is not None:
            return self.error
        return next(iter(self.resource_errors.values()), None)

    def as_dict(self) -> dict:
        return {"api": self.request.api, "request": self.request.describe(), "handler": self.handler,
                "checks": [c.as_dict() for c in self.checks], "error": self.error,
                "resource_errors": dict(self.resource_errors), "filtered": list(self.filtered),
                "notes": list(self.notes)}


@dataclass
class Caller:
    """Who sends the request: the principal the broker authenticated and the client's address."""

    principal: str
    host: str = "127.0.0.1"


class Recorder:
    """Runs a handler's authorizations against the engine and records each as a :class:`Check`."""

    def __init__(self, cluster: Cluster, caller: Caller, call: Call):
        self.cluster = cluster
        self.caller = caller
        self.call = call

    def authorize(self, operation: AclOperation, resource_type: ResourceType, name: str, on_deny: OnDeny,
                  error: str | None, why: str = "", log_if_denied: bool = True) -> bool:
        """``AuthHelper.authorize``: one LITERAL resource, one Action."""
        request = Request(self.caller.principal, self.caller.host, operation, resource_type, name,
                          api_key=parse_api_key(self.call.request.api), log_if_denied=log_if_denied)
        decision = self.cluster.authorizer.authorize(request)
        allowed = decision.outcome is Outcome.ALLOWED
        self.call.checks.append(Check(operation, resource_type, name, allowed, on_deny, error,
                                      decision.rule or decision.outcome.value, decision.acl,
                                      _explain(decision), log_if_denied, why))
        return allowed

    def authorize_cluster(self, operation: AclOperation, on_deny: OnDeny, error: str | None, why: str = "",
                          log_if_denied: bool = True) -> bool:
        return self.authorize(operation, ResourceType.CLUSTER, CLUSTER_NAME, on_deny, error, why, log_if_denied)

    def authorize_by_type(self, operation: AclOperation, resource_type: ResourceType, on_deny: OnDeny,
                          error: str | None, why: str = "") -> bool:
        """``Authorizer.authorizeByResourceType``: is the operation allowed on some resource of the type?"""
        verdict = authorize_by_resource_type(self.cluster.authorizer, self.caller.principal, self.caller.host,
                                             operation, resource_type)
        self.call.checks.append(Check(operation, resource_type, None, verdict.allowed, on_deny, error,
                                      verdict.rule, verdict.acl, verdict.explanation, False, why))
        return verdict.allowed

    def filter(self, operation: AclOperation, resource_type: ResourceType, names, on_deny: OnDeny,
               error: str | None, why: str = "", log_if_denied: bool = True) -> list[str]:
        """``AuthHelper.filterByAuthorized``: the names allowed (each distinct name authorized once)."""
        return [n for n in dict.fromkeys(names)
                if self.authorize(operation, resource_type, n, on_deny, error, why, log_if_denied)]


def _explain(decision: Decision) -> str:
    if decision.outcome in (Outcome.ERROR, Outcome.NON_TERMINATING):
        return f"{decision.explain()} (the request fails: the broker answers it with an error or never)"
    return decision.explain()
