"""The smallest ACL set an application needs, found by running it, and the proof.

:func:`repair` runs the application (``verdict.evaluate``) and, while it fails, grants exactly the
permission its failing check asks for, then runs it again: so the set follows the broker's own checks,
alternatives included (CREATE on the topic rather than on the cluster, the WRITE it already needs rather
than IDEMPOTENT_WRITE). It then drops every granted ACL the application works without (a DESCRIBE that a
later READ implies). The proof (:func:`prove`) is the same runs: with the set the application works, and
without each of its ACLs it fails (the exception and step saying how).

Names the client makes up (Kafka Streams' internal topics and transactional ids) are granted on their
PREFIXED pattern; ``prefixed=True`` grants every name of the application on a prefix (the team style:
the names it owns and anything that starts with them).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from kafka_authz_cli.acl import (
    CLUSTER_NAME,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    StandardAuthorizer,
)
from kafka_authz_cli.apps.calls import Caller, Check, Cluster, OnDeny
from kafka_authz_cli.apps.catalogue import Workflow
from kafka_authz_cli.apps.verdict import Verdict, evaluate

#: Builds the authorizer for a set of bindings under the broker's settings (super.users, no-ACL default).
AuthorizerFactory = Callable[[list[AclBinding]], StandardAuthorizer]

#: More grants than any workflow of the catalogue needs: a loop that does not converge stops here.
MAX_GRANTS = 64


@dataclass
class Repair:
    #: the ACLs to add (minimal: the application fails without any one of them)
    added: list[AclBinding]
    #: the verdict with them added
    verdict: Verdict
    #: why no ACL can make it work, when none can (a DENY, a missing topic, a refused configuration)
    blocked: str | None = None
    #: the DENY ACLs that decide a check the application needs
    denies: list[AclBinding] = field(default_factory=list)


@dataclass
class Proof:
    acl: AclBinding
    #: the application without this ACL
    without: Verdict


def _with(cluster: Cluster, factory: AuthorizerFactory, bindings: list[AclBinding]) -> Cluster:
    return replace(cluster, authorizer=factory(bindings))


def _name_pattern(workflow: Workflow, rtype: ResourceType, name: str, prefixed: bool) -> tuple[str, PatternType]:
    if rtype is ResourceType.CLUSTER:
        return CLUSTER_NAME, PatternType.LITERAL
    for prefix in workflow.generated_prefixes.get(rtype.name, ()):
        if name.startswith(prefix):
            return prefix, PatternType.PREFIXED
    if prefixed:
        owned = [p for p in workflow.owned_prefixes.get(rtype.name, ()) if name.startswith(p)]
        return (min(owned, key=len) if owned else name), PatternType.PREFIXED
    return name, PatternType.LITERAL


def _grant(workflow: Workflow, verdict: Verdict, caller: Caller, acl_host: str, prefixed: bool) -> AclBinding | None:
    check = verdict.failing_check or _filtered_check(verdict) or _refused_creation(verdict)
    if check is None:
        return None
    operation, rtype, name = check.operation, check.resource_type, check.resource_name
    if name is None:
        # authorizeByResourceType (an idempotent producer id): the WRITE the application needs on the
        # first topic it produces to stands in for IDEMPOTENT_WRITE on the cluster (KIP-679).
        topic = next((t for s in workflow.steps for q in s.requests if q.api == "Produce" for t in q.topics), None)
        if topic is None:
            operation, rtype, name = AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, CLUSTER_NAME
        else:
            name = topic
    name, pattern = _name_pattern(workflow, rtype, name, prefixed)
    return AclBinding(rtype, name, pattern, caller.principal, acl_host, operation, AclPermissionType.ALLOW)


def _refused_creation(verdict: Verdict) -> Check | None:
    """A topic that does not exist because an earlier, non-fatal creation was refused (Connect's
    TopicAdmin only logs it): granting that CREATE is what makes it exist."""
    call = verdict.failing_call
    if call is None or call.first_error() != "UNKNOWN_TOPIC_OR_PARTITION":
        return None
    missing = {n for n, e in call.resource_errors.items() if e == "UNKNOWN_TOPIC_OR_PARTITION"}
    for result in verdict.steps:
        for earlier in result.calls:
            if earlier.request.api != "CreateTopics":
                continue
            for check in earlier.checks:
                if not check.allowed and check.resource_name in missing and check.on_deny is OnDeny.RESOURCE:
                    return check
    return None


def _filtered_check(verdict: Verdict) -> Check | None:
    call = verdict.failing_call
    if call is None or not call.filtered:
        return None
    return next((c for c in reversed(call.checks) if not c.allowed and c.on_deny is OnDeny.FILTERED
                 and c.resource_name in call.filtered), None)


def repair(workflow: Workflow, cluster: Cluster, caller: Caller, factory: AuthorizerFactory,
           base: list[AclBinding], acl_host: str = "*", prefixed: bool = False) -> Repair:
    """The fewest ALLOW ACLs to add to ``base`` for the application to work (or why none can)."""
    added: list[AclBinding] = []
    verdict = evaluate(workflow, _with(cluster, factory, base), caller)
    while not verdict.works:
        blocked = _why_blocked(workflow, verdict)
        grant = None if blocked else _grant(workflow, verdict, caller, acl_host, prefixed)
        if grant is None or grant in added or grant in base or len(added) >= MAX_GRANTS:
            failing = verdict.failing_check
            deny = failing.acl if failing is not None else None
            denies = [deny] if deny is not None and deny.permission is AclPermissionType.DENY else []
            reason = blocked or (f"a DENY decides {failing.operation.name} on "
                                 f"{failing.resource()}: no ALLOW can override it" if failing is not None and denies
                                 else "no ACL makes it work")
            return Repair(_minimize(workflow, cluster, caller, factory, base, added), verdict, reason, denies)
        added.append(grant)
        verdict = evaluate(workflow, _with(cluster, factory, base + added), caller)
    added = _minimize(workflow, cluster, caller, factory, base, added)
    return Repair(added, evaluate(workflow, _with(cluster, factory, base + added), caller))


def _why_blocked(workflow: Workflow, verdict: Verdict) -> str | None:
    if workflow.config_error is not None:
        return f"the client refuses its configuration: {workflow.config_error}"
    call = verdict.failing_call
    if call is not None and call.first_error() == "UNKNOWN_TOPIC_OR_PARTITION" and _refused_creation(verdict) is None:
        return (f"a topic does not exist ({', '.join(n for n, e in call.resource_errors.items() if e == call.first_error())})"
                " and nothing creates it: create it, or enable auto.create.topics.enable")
    if call is not None and call.first_error() in ("TOPIC_ALREADY_EXISTS", "TOPIC_DELETION_DISABLED"):
        return f"{call.request.api} fails with {call.first_error()}, which no ACL changes"
    return None


def _minimize(workflow, cluster, caller, factory, base, added) -> list[AclBinding]:
    kept = list(added)
    for acl in list(added):
        trial = [a for a in kept if a != acl]
        if evaluate(workflow, _with(cluster, factory, base + trial), caller).works:
            kept = trial
    return kept


def prove(workflow: Workflow, cluster: Cluster, caller: Caller, factory: AuthorizerFactory,
          acls: list[AclBinding], base: Sequence[AclBinding] = ()) -> tuple[Verdict, list[Proof]]:
    """The application with ``base + acls``, and without each of ``acls`` in turn."""
    base = list(base)
    with_all = evaluate(workflow, _with(cluster, factory, base + acls), caller)
    proofs = [Proof(acl, evaluate(workflow, _with(cluster, factory, base + [a for a in acls if a != acl]), caller))
              for acl in acls]
    return with_all, proofs
