"""What the authorizer is asked and what it answers: a request, its outcome, and the decision in words.

A :class:`Decision` carries Kafka's own rule text (a :class:`Rule`: ``SuperUser``, ``DefaultAllow`` or
``DefaultDeny``; or ``MatchingAcl(acl=StandardAcl(...))``, :func:`matching_acl_rule`), the line Kafka writes to ``kafka.authorizer.logger`` for it
(:attr:`Decision.audit`, at the level :attr:`Decision.audit_level` says) and an explanation for people
(:meth:`Decision.explain`). Where Kafka throws or never returns there is no decision, only an
:class:`Outcome` and what the broker does.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from kafka_authz_cli.acl.apikeys import api_key_name
from kafka_authz_cli.acl.model import (
    WILDCARD_HOST,
    WILDCARD_RESOURCE,
    AclBinding,
    AclOperation,
    AclPermissionType,
    KafkaPrincipal,
    PatternType,
    ResourceType,
)


class Outcome(enum.Enum):
    ALLOWED = "ALLOWED"
    DENIED = "DENIED"
    #: Kafka throws AuthorizerNotReadyException: the initial ACL load has not completed.
    NOT_READY = "NOT_READY"
    #: Kafka's authorize() throws (a bug or a malformed stored ACL); the request fails.
    ERROR = "ERROR"
    #: Kafka's authorize() never returns (the wildcard re-scan bug); the request thread spins.
    NON_TERMINATING = "NON_TERMINATING"


class Rule(enum.StrEnum):
    """The rules that decide without an ACL, as Kafka's ``StandardAuthorizerData`` names them in the
    audit line (``SuperUserRule``, and ``DefaultRule`` for each outcome); an ACL's rule is the text
    of :func:`matching_acl_rule`. A member is its text (a ``str``), so it renders and serialises as
    Kafka writes it, and compares equal to that text as read from a log."""

    SUPER_USER = "SuperUser"
    DEFAULT_ALLOW = "DefaultAllow"
    DEFAULT_DENY = "DefaultDeny"


# The members as module constants, for the decide path: as cheap as a literal, where `Rule.X` is a
# lookup on the enum's class each time.
SUPER_USER, DEFAULT_ALLOW, DEFAULT_DENY = Rule.SUPER_USER, Rule.DEFAULT_ALLOW, Rule.DEFAULT_DENY


def matching_acl_rule(acl: AclBinding) -> str:
    """Kafka's ``MatchingRule`` text for the ACL that decided: ``MatchingAcl(acl=StandardAcl(...))``."""
    return f"MatchingAcl(acl={acl.standard_acl_str()})"


# Not frozen=True, as AclBinding (model.py): a frozen __init__ costs a microsecond more per request,
# and a request file may hold millions. Nothing assigns to a request's fields; treat it as immutable.
@dataclass(slots=True, unsafe_hash=True)
class Request:
    """One ``authorize()`` call: a principal acting from a host on one LITERAL resource."""

    principal: str
    host: str
    operation: AclOperation
    resource_type: ResourceType
    resource_name: str
    api_key: int | None = None
    resource_ref_count: int = 1
    log_if_allowed: bool = True
    log_if_denied: bool = True

    def __reduce__(self):
        # Pickled as its fields (every protocol; the frozen dataclass had its own __getstate__).
        return (Request, (self.principal, self.host, self.operation, self.resource_type, self.resource_name,
                          self.api_key, self.resource_ref_count, self.log_if_allowed, self.log_if_denied))


@dataclass(slots=True)
class Decision:
    """What ``authorize()`` answers for one request, and which rule answered."""

    request: Request
    outcome: Outcome
    #: Kafka's rule text: a :class:`Rule`, or MatchingAcl(acl=StandardAcl(...)) for an ACL.
    rule: Rule | str | None
    acl: AclBinding | None
    client_address: str
    #: For ERROR / NOT_READY / NON_TERMINATING: the Java exception or what the broker does.
    error: str | None = None
    #: For DefaultDeny: whether some ACL covers the resource (else the configured default applied).
    has_resource_acls: bool = True

    @property
    def decision(self) -> str | None:
        outcome = self.outcome
        return outcome._value_ if outcome is Outcome.ALLOWED or outcome is Outcome.DENIED else None

    @property
    def allowed(self) -> bool:
        return self.outcome is Outcome.ALLOWED

    @property
    def audit_level(self) -> str | None:
        if self.outcome is Outcome.ALLOWED:
            return "DEBUG" if self.request.log_if_allowed else "TRACE"
        if self.outcome is Outcome.DENIED:
            return "INFO" if self.request.log_if_denied else "TRACE"
        return None

    @property
    def audit(self) -> str | None:
        """The message Kafka writes to ``kafka.authorizer.logger`` for this decision."""
        if self.decision is None:
            return None
        r = self.request
        principal = _principal_text(r.principal)
        verb = "Allowed" if self.allowed else "Denied"
        return (f"Principal = {principal} is {verb} operation = {r.operation.name} from host = "
                f"{self.client_address} on resource = {r.resource_type.pascal}:LITERAL:{r.resource_name} "
                f"for request = {api_key_name(r.api_key)} with resourceRefCount = {r.resource_ref_count} "
                f"based on rule {self.rule}")

    def explain(self) -> str:
        """The decision in words, for people."""
        r = self.request
        if self.outcome is Outcome.NOT_READY:
            return "the authorizer has not finished loading ACLs: only super users get an answer"
        if self.outcome in (Outcome.ERROR, Outcome.NON_TERMINATING):
            return self.error or self.outcome.value
        if self.rule == SUPER_USER:
            return f"{r.principal} is listed in super.users: allowed before any ACL is consulted"
        if self.rule == DEFAULT_ALLOW:
            return (f"no ACL exists for any {r.resource_type.name} matching {r.resource_name!r}; "
                    "allow.everyone.if.no.acl.found=true allows it")
        if self.rule == DEFAULT_DENY:
            return _explain_default_deny(self)
        assert self.acl is not None
        acl = self.acl
        who = "everyone (User:*)" if acl.principal == "User:*" else acl.principal
        host = "any host" if acl.host == WILDCARD_HOST else f"host {acl.host}"
        if acl.pattern_type is PatternType.PREFIXED:
            res = f"{acl.resource_type.name} names starting with {acl.resource_name!r}"
        elif acl.resource_name == WILDCARD_RESOURCE:
            res = f"every {acl.resource_type.name} (wildcard '*')"
        else:
            res = f"{acl.resource_type.name} {acl.resource_name!r}"
        verb = "allows" if acl.permission is AclPermissionType.ALLOW else "denies"
        op = acl.operation.name
        implied = ""
        if acl.permission is AclPermissionType.ALLOW and acl.operation not in (r.operation, AclOperation.ALL):
            implied = f" ({op} implies {r.operation.name})"
        elif acl.operation is AclOperation.ALL and r.operation is not AclOperation.ALL:
            implied = " (ALL covers every operation)"
        return f"{acl.permission.name} ACL {verb} {op} on {res} to {who} from {host}{implied}"


def _explain_default_deny(d: Decision) -> str:
    r = d.request
    if not d.has_resource_acls:
        return (f"no ACL covers {r.resource_type.name} {r.resource_name!r} and "
                "allow.everyone.if.no.acl.found is false")
    return (f"ACLs exist for this {r.resource_type.name}, but none allows {r.principal} to "
            f"{r.operation.name} from {d.client_address} (an ACL for anyone on a resource switches the "
            "no-ACL default off for everyone)")


@functools.lru_cache(maxsize=4096)
def _principal_text(principal: str) -> str:
    """KafkaPrincipal.toString() of a request's principal, as the audit line shows it."""
    return str(KafkaPrincipal.parse(principal))
