"""`authz simulate`: decide requests exactly as Kafka's StandardAuthorizer would, and say which rule decided.

The requests come from flags (one) or a request file (many), for a principal given or mapped from a
TLS DN or a Kerberos name as the broker maps it. They are decided by the ACL engine under the broker's
settings, or by a rules file as the Kroxylicious proxy would. A single request may instead ask for
every operation the principal may perform (KIP-430), or for the request-level verdict of a KIP-201
topic policy combined with the ACLs. :func:`run_simulation` returns one of the result types below;
the command renders it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Optional, Union

from kafka_authz_cli.acl import (
    CLUSTER_NAME,
    AclBinding,
    AclError,
    AclOperation,
    AclSet,
    Decision,
    KafkaPrincipal,
    Request,
    RequestSpec,
    ResourceType,
    StandardAuthorizer,
    iter_requests,
    java_host_address,
    parse_api_key,
)
from kafka_authz_cli.errors import AuthzError, InputError, OptionError
from kafka_authz_cli.formats import read_text, text_lines
from kafka_authz_cli.services.acl_sources import load_source
from kafka_authz_cli.services.settings import broker_settings

if TYPE_CHECKING:
    from kafka_authz_cli.apps import Call

#: From this many requests on, progress is reported every PROGRESS_CHUNK requests.
PROGRESS_FROM = 100_000
PROGRESS_CHUNK = 20_000

#: progress(advance, total): ``advance`` more requests decided (``total`` None: not known while streaming).
Progress = Callable[[int, Optional[int]], None]


@dataclass(frozen=True)
class SimulateOptions:
    """What `authz simulate` was asked, as plain values."""

    acls: Optional[Path] = None
    acls_format: Optional[str] = None
    #: the ACL set's format's reading options (``--option KEY=VALUE``)
    acls_options: Optional[Mapping[str, str]] = None
    principal: Optional[str] = None
    operation: Optional[str] = None
    topic: Optional[str] = None
    group: Optional[str] = None
    transactional_id: Optional[str] = None
    cluster: bool = False
    delegation_token: Optional[str] = None
    user_principal: Optional[str] = None
    host: str = "127.0.0.1"
    request_type: Optional[str] = None
    requests: Optional[Path] = None
    rules: Optional[Path] = None
    types: Optional[Path] = None
    super_users: Optional[str] = None
    allow_everyone: Optional[bool] = None
    broker_config: Optional[Path] = None
    authorized_operations: bool = False
    tls_dn: Optional[str] = None
    kerberos_principal: Optional[str] = None
    ssl_mapping_rules: Optional[str] = None
    kerberos_rules: Optional[list[str]] = None
    kerberos_realm: Optional[str] = None
    listener: Optional[str] = None
    topic_policy: Optional[Path] = None
    partitions: Optional[int] = None
    replication_factor: Optional[int] = None
    topic_configs: list[str] = field(default_factory=list)
    cluster_state: Optional[Path] = None
    #: --api: one client request checked as the broker's handler checks it (services/apps.py)
    api: Optional[str] = None
    #: every --topic given (--api takes several)
    topics: tuple[str, ...] = ()
    allow_auto_create: bool = False
    all_topics: bool = False
    topic_absent: bool = False
    two_phase_commit: bool = False
    kafka_version: Optional[str] = None


@dataclass
class MappingFailed:
    """The TLS DN or Kerberos name maps to no principal: the connection never reaches authorization."""

    mapping: dict


@dataclass
class AuthorizedOperations:
    request: Request
    operations: list[AclOperation]
    mapping: Optional[dict]


@dataclass
class TopicPolicyVerdict:
    row: dict
    mapping: Optional[dict]


@dataclass
class ApiCall:
    """--api: the request as the broker's handler checks it (``kafka_authz_cli.apps.Call``)."""

    call: Call
    mapping: Optional[dict]

    def document(self) -> dict:
        """`authz simulate --api --format json`: the call, and how the connection was mapped (None: not)."""
        return {**self.call.as_dict(), "mapping": self.mapping}


@dataclass
class RulesDecisions:
    """Decisions of a rules file, as the proxy makes them."""

    rows: list[dict]
    #: How many requests say what must happen (an `expect` column).
    expected: int

    @property
    def failures(self) -> list[dict]:
        return [r for r in self.rows if r.get("ok") is False]


#: Distinct requests whose decision is remembered (a repeated request is not decided again).
MEMO_REQUESTS = 4096
#: Rows kept of the requests whose expectation failed (the rest are counted).
KEPT_FAILURES = 200


@dataclass
class DecisionTally:
    """What the decisions add up to, counted while they stream (complete once the rows are consumed)."""

    total: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    #: How many requests say what must happen (an `expect` column), and how many of those failed.
    expected: int = 0
    failed: int = 0
    #: The first KEPT_FAILURES rows whose expectation failed.
    failed_rows: list[dict] = field(default_factory=list)
    #: Requests with no decision (ERROR / NON_TERMINATING) that nobody expected, and where the first is.
    no_decision: int = 0
    first_no_decision: Optional[str] = None

    def add(self, spec: RequestSpec, d: Decision, row: dict) -> None:
        self.total += 1
        key = d.outcome._value_  # the value without Enum's descriptor (twice per request)
        self.outcomes[key] = self.outcomes.get(key, 0) + 1
        if spec.expect is not None:
            self.expected += 1
            if not row["ok"]:
                self.failed += 1
                if len(self.failed_rows) < KEPT_FAILURES:
                    self.failed_rows.append(row)
        elif d.decision is None:
            self.no_decision += 1
            if self.first_no_decision is None:
                self.first_no_decision = spec.origin


@dataclass
class Decisions:
    """The engine's decisions as rows, made one request at a time as the rows are consumed: memory
    does not grow with the number of requests. ``tally`` is complete once ``rows`` is exhausted."""

    rows: Iterator[dict]
    tally: DecisionTally
    mapping: Optional[dict]


SimulationResult = Union[ApiCall, MappingFailed, AuthorizedOperations, TopicPolicyVerdict, RulesDecisions, Decisions]


def run_simulation(o: SimulateOptions, progress: Optional[Progress] = None) -> SimulationResult:
    mapping = _mapped_connection(o)
    if mapping is not None and not mapping["ok"]:
        return MappingFailed(mapping)
    principal = mapping["principal"] if mapping is not None else o.principal
    if o.api is not None:
        return _api_call(o, principal, mapping)
    specs = _request_specs(o, principal)
    if o.rules is not None:
        if o.acls is not None:
            raise OptionError("give either ACLS or --rules, not both", param_hint="--rules")
        return decide_with_rules(o.rules, o.types, list(specs))
    if o.acls is None:
        raise OptionError("an ACL file is required (or --rules FILE)", param_hint="ACLS")
    settings = broker_settings(o.super_users, o.allow_everyone, o.broker_config)
    acl_set = load_source(o.acls, o.acls_format, options=o.acls_options)
    authorizer = StandardAuthorizer(acl_set.bindings, settings)
    if o.authorized_operations:
        r = next(specs).request
        ops = authorizer.authorized_operations(r.principal, r.host, r.resource_type, r.resource_name)
        return AuthorizedOperations(r, ops, mapping)
    if o.topic_policy is not None:
        row = _topic_policy_row(o, specs, authorizer)
        if mapping is not None:
            row["mapping"] = mapping
        return TopicPolicyVerdict(row, mapping)
    tally = DecisionTally()
    return Decisions(_decision_rows(specs, authorizer, acl_set, mapping, tally, progress), tally, mapping)


def _api_call(o: SimulateOptions, principal: Optional[str], mapping: Optional[dict]) -> ApiCall:
    from kafka_authz_cli.services.apps import ApiOptions, simulate_api

    if o.requests is not None or o.rules is not None or o.operation is not None or o.authorized_operations:
        raise OptionError("--api checks one request as the broker does: not with --requests, --rules, --operation or "
                          "--authorized-operations", param_hint="--api")
    if principal is None:
        raise OptionError("--api needs --principal (or --tls-dn / --kerberos-principal)", param_hint="--principal")
    if o.acls is None:
        raise OptionError("an ACL file is required", param_hint="ACLS")
    assert o.api is not None  # called for --api
    try:
        KafkaPrincipal.parse(principal)
        java_host_address(o.host)
    except AclError as exc:
        raise OptionError(str(exc), param_hint="--principal") from None
    settings = broker_settings(o.super_users, o.allow_everyone, o.broker_config)
    acl_set = load_source(o.acls, o.acls_format, options=o.acls_options)
    options = ApiOptions(o.api, principal, o.host, o.topics, o.group, o.transactional_id, o.allow_auto_create,
                         o.all_topics, o.topic_absent, o.two_phase_commit, o.cluster, o.kafka_version)
    return ApiCall(simulate_api(options, acl_set, settings, o.broker_config), mapping)


def _mapped_connection(o: SimulateOptions) -> Optional[dict]:
    """The principal a --tls-dn or --kerberos-principal becomes on the broker (None without either)."""
    if o.tls_dn is None and o.kerberos_principal is None and o.ssl_mapping_rules is None and not o.kerberos_rules:
        return None
    from kafka_authz_cli.services.principal import map_connection

    mapping = map_connection(o.tls_dn, o.kerberos_principal, o.ssl_mapping_rules, o.kerberos_rules,
                             o.kerberos_realm, o.broker_config, o.listener)
    if mapping is not None and (o.principal is not None or o.requests is not None):
        raise OptionError("--tls-dn/--kerberos-principal replace --principal and --requests", param_hint="--tls-dn")
    return mapping


def _single_resource(o: SimulateOptions) -> tuple[ResourceType, str]:
    given = [(ResourceType.TOPIC, o.topic), (ResourceType.GROUP, o.group),
             (ResourceType.TRANSACTIONAL_ID, o.transactional_id),
             (ResourceType.CLUSTER, CLUSTER_NAME if o.cluster else None),
             (ResourceType.DELEGATION_TOKEN, o.delegation_token), (ResourceType.USER, o.user_principal)]
    chosen = [(t, n) for t, n in given if n is not None]
    if len(chosen) != 1:
        raise OptionError("give exactly one of --topic, --group, --transactional-id, --cluster, "
                          "--delegation-token, --user-principal", param_hint="resource")
    return chosen[0]


def _request_specs(o: SimulateOptions, principal: Optional[str]) -> Iterator[RequestSpec]:
    """The requests to decide: the --requests file's (read as they are decided), or the one the flags
    describe."""
    if o.requests is not None:
        if any(v is not None for v in (principal, o.operation, o.topic, o.group, o.transactional_id,
                                       o.delegation_token, o.user_principal)) or o.cluster:
            raise OptionError("--requests cannot be combined with a single-request option", param_hint="--requests")
        if o.authorized_operations:
            raise OptionError("--authorized-operations takes a single request from flags",
                              param_hint="--authorized-operations")
        specs = iter_requests(text_lines(o.requests), str(o.requests))
        first = next(specs, None)
        if first is None:
            raise InputError("no requests in file", str(o.requests))
        return itertools.chain((first,), specs)
    if principal is None:
        raise OptionError("give --principal (or --requests FILE)", param_hint="--principal")
    if o.operation is None and not o.authorized_operations:
        raise OptionError("give --operation", param_hint="--operation")
    rtype, name = _single_resource(o)
    try:
        op = AclOperation.parse(o.operation) if o.operation else AclOperation.ALL
        KafkaPrincipal.parse(principal)
        java_host_address(o.host)
        api_key = parse_api_key(o.request_type)
    except (AclError, ValueError) as exc:
        raise AuthzError(str(exc)) from None
    return iter([RequestSpec(Request(principal, o.host, op, rtype, name, api_key=api_key), None, "flags")])


def _decision_rows(specs: Iterable[RequestSpec], authorizer: StandardAuthorizer, acl_set: AclSet,
                   mapping: Optional[dict], tally: DecisionTally, progress: Optional[Progress]) -> Iterator[dict]:
    origins = _Origins(acl_set, authorizer)
    authorize, notes = authorizer.authorize, authorizer.notes
    # Request files repeat requests (a test suite per team, a replayed log): each distinct one is
    # decided once while it is among the last MEMO_REQUESTS distinct ones; memory stays bounded.
    memo: dict[Request, tuple[Decision, dict]] = {}
    parts: dict = {}
    for spec in specs:
        hit = memo.get(spec.request)
        if hit is None:
            d = authorize(spec.request)
            row = decision_row(spec, d, notes(d), origins, parts)
            if len(memo) >= MEMO_REQUESTS:
                memo.clear()
            memo[spec.request] = (d, row)
        else:
            d, row = hit[0], _row_for(spec, hit[0], hit[1])
        if mapping is not None:
            row["mapping"] = mapping
        tally.add(spec, d, row)
        if progress is not None and tally.total % PROGRESS_CHUNK == 0 and tally.total >= PROGRESS_FROM:
            progress(PROGRESS_CHUNK if tally.total > PROGRESS_FROM else PROGRESS_FROM, None)
        yield row


def _row_for(spec: RequestSpec, d: Decision, decided: dict) -> dict:
    """The row of a request decided before (same request, maybe another place and expectation)."""
    row = {k: v for k, v in decided.items() if k not in ("expect", "ok")}
    row["origin"] = spec.origin
    if spec.expect is not None:
        row["expect"] = spec.expect
        row["ok"] = _met(spec, d)
    return row


class _Origins:
    """Where each ACL was read (its first place), looked up only for the ACLs that decide something.

    The engine keeps the very binding objects it was given (the first of duplicates) and where each
    was in the list: the place of a deciding ACL costs a look into its bucket, not a map of a
    million bindings."""

    def __init__(self, acl_set: AclSet, authorizer: StandardAuthorizer) -> None:
        self._acl_set = acl_set
        self._authorizer = authorizer
        self._found: dict[int, tuple[AclBinding, Optional[str]]] = {}
        self._by_value: Optional[dict] = None

    def get(self, acl) -> Optional[str]:
        found = self._found.get(id(acl))
        if found is not None and found[0] is acl:
            return found[1]
        bindings, origins = self._acl_set.bindings, self._acl_set.origins
        i = self._authorizer.position(acl)
        origin: Optional[str]
        if i is not None and i < len(bindings) and bindings[i] is acl:
            origin = origins[i]
        else:
            if self._by_value is None:
                self._by_value = {}
                for binding, place in zip(bindings, origins):
                    self._by_value.setdefault(binding, place)
            origin = self._by_value.get(acl)
        if len(self._found) >= MEMO_REQUESTS:
            self._found.clear()
        self._found[id(acl)] = (acl, origin)
        return origin


def _met(spec: RequestSpec, d: Decision) -> bool:
    return (d.decision or d.outcome.value) == spec.expect


def decision_row(spec: RequestSpec, d: Decision, notes: list[str], origins: _Origins,
                 parts: Optional[dict] = None) -> dict:
    """The row of a decision. ``parts`` memoises what depends on the deciding ACL and the operation
    only (its fields, its place, the explanation): a run decides many requests by the same ACL."""
    r = spec.request
    acl = d.acl
    if acl is None:
        acl_dict = origin = None
        explanation = d.explain()
    else:
        key = (id(acl), r.operation, d.rule)
        found = parts.get(key) if parts is not None else None
        if found is None or found[0] is not acl:
            found = (acl, acl.as_dict(), origins.get(acl), d.explain())
            if parts is not None:
                if len(parts) >= MEMO_REQUESTS:
                    parts.clear()
                parts[key] = found
        acl_dict, origin, explanation = found[1], found[2], found[3]
    # _value_ and _name_: Enum's own attributes, read without its descriptors (the hot path).
    outcome = d.outcome._value_
    row = {
        "principal": r.principal,
        "host": r.host,
        "operation": r.operation._name_,
        "resource_type": r.resource_type._name_,
        "resource_name": r.resource_name,
        "decision": outcome if outcome in _DECIDED else None,
        "outcome": outcome,
        "rule": d.rule,
        "explanation": explanation,
        "audit": d.audit,
        "audit_level": d.audit_level,
        "client_address": d.client_address,
        "acl": acl_dict,
        "acl_origin": origin,
        "notes": notes,
        "error": d.error,
        "origin": spec.origin,
    }
    if spec.expect is not None:
        row["expect"] = spec.expect
        row["ok"] = _met(spec, d)
    return row


_DECIDED = ("ALLOWED", "DENIED")


def _topic_policy_row(o: SimulateOptions, specs: Iterable[RequestSpec], authorizer: StandardAuthorizer) -> dict:
    from kafka_authz_cli.services.policy import simulate_topic_policy

    if o.requests is not None:
        raise OptionError("--topic-policy takes one request from flags on a --topic (use `authz policy "
                          "check --acls` for many)", param_hint="--topic-policy")
    r = next(iter(specs)).request
    assert o.topic_policy is not None  # called for --topic-policy
    if r.resource_type is not ResourceType.TOPIC:
        raise OptionError("--topic-policy takes one request from flags on a --topic (use `authz policy "
                          "check --acls` for many)", param_hint="--topic-policy")
    return simulate_topic_policy(o.topic_policy, authorizer, r.principal, r.host, r.operation.name, r.resource_name,
                                 o.partitions, o.replication_factor, o.topic_configs, o.cluster_state, o.broker_config)


def decide_with_rules(rules: Path, types: Optional[Path], specs: list[RequestSpec]) -> RulesDecisions:
    """The requests decided by a rules file as the Kroxylicious proxy would (and as its docs say)."""
    from kafka_authz_cli.rules import decide_requests, load_checked
    from kafka_authz_cli.services.acl_sources import load_registry

    registry = load_registry(types)
    checked = load_checked(read_text(rules), str(rules), registry)
    results = decide_requests(checked, [s.request for s in specs])
    rows = []
    for spec, res in zip(specs, results):
        r = spec.request
        row: dict[str, object] = {"principal": r.principal, "operation": r.operation.name, "resource_type": r.resource_type.name,
               "resource_name": r.resource_name, "decision": res.decision, "rule": res.rule,
               "documented_decision": res.documented_decision, "quirk": res.quirk, "origin": spec.origin}
        if spec.expect is not None:
            row["expect"] = spec.expect
            row["ok"] = res.decision == spec.expect
        rows.append(row)
    return RulesDecisions(rows, sum(1 for s in specs if s.expect))
