"""KIP-201 topic management policy, declared instead of coded, checked as the KIP's interface would.

KIP-201 proposes one ``TopicManagementPolicy`` receiving, for every topic creation, alteration
(configs, partitions), deletion and record deletion, the request metadata (topic, principal, requested
state: partitions, replication factor, replica assignments, the configs as they will be and the configs
in the request) and the cluster state (current topic states, cluster size). The KIP was never merged:
Kafka brokers (the KRaft controller) run ``CreateTopicPolicy`` on CreateTopics and ``AlterConfigPolicy`` on
(Incremental)AlterConfigs, and neither receives the principal; DeleteTopics, DeleteRecords and
CreatePartitions have no policy hook. authz's check is what the KIP's policy would decide; the
principal-dependent parts can only be enforced on a real broker with ACLs.

A policy file declares rules, tried in order, the first whose principals and topics match deciding:

    {"version": 1, "default": "deny", "internal_topics": "deny",
     "rules": [{"name": "team-a", "principals": ["User:team-a-*"], "topics": ["team-a.*"],
                "operations": ["create", "alter", "delete"],
                "partitions": {"min": 1, "max": 48}, "replication_factor": {"min": 3, "max": 3},
                "configs": {"min.insync.replicas": {"min": 2}, "retention.ms": {"max": 604800000},
                            "cleanup.policy": {"allowed": ["delete", "compact"]},
                            "segment.bytes": {"forbidden": true}}}]}

Names ending in ``*`` are prefixes; ``*`` alone matches everything. Config bounds apply to the value the
topic will have: the request's, else the topic's current one, else the broker default (its topic config
synonym, e.g. ``log.retention.hours`` for ``retention.ms``). Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_authz_cli.config import BrokerConfigSources, KafkaConfigs, kafka_configs, resolve_key
from kafka_authz_cli.policy.values import Effective, cleanup_items, compact_only_note, effective, invalid_config
from kafka_authz_cli.policy.values import violations as bound_violations

if TYPE_CHECKING:
    from kafka_authz_cli.acl import Decision

OPERATIONS = ("create", "alter", "delete", "delete_records")
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})

# request names -> (KIP-201 operation, ACL operation on the topic, what Kafka runs on a broker)
REQUEST_TYPES = {
    "create": ("create", "CREATE", "CreateTopicPolicy (no principal)"),
    "createtopics": ("create", "CREATE", "CreateTopicPolicy (no principal)"),
    "alter": ("alter", None, None),
    "alterconfigs": ("alter", "ALTER_CONFIGS", "AlterConfigPolicy (no principal)"),
    "incrementalalterconfigs": ("alter", "ALTER_CONFIGS", "AlterConfigPolicy (no principal)"),
    "createpartitions": ("alter", "ALTER", "none (no policy hook for CreatePartitions)"),
    "delete": ("delete", "DELETE", "none (no policy hook for DeleteTopics)"),
    "deletetopics": ("delete", "DELETE", "none (no policy hook for DeleteTopics)"),
    "delete_records": ("delete_records", "DELETE", "none (no policy hook for DeleteRecords)"),
    "deleterecords": ("delete_records", "DELETE", "none (no policy hook for DeleteRecords)"),
}


class PolicyFileError(ValueError):
    def __init__(self, message: str, where: str = ""):
        self.where = where
        super().__init__(message)


def _pattern_matches(pattern: str, value: str) -> bool:
    if pattern == "*":
        return True
    if pattern.endswith("*"):
        return value.startswith(pattern[:-1])
    return value == pattern


@dataclass(frozen=True)
class Bound:
    min: float | None = None
    max: float | None = None
    allowed: tuple[str, ...] | None = None
    forbidden: bool = False
    required: bool = False


@dataclass(frozen=True)
class PolicyRule:
    index: int
    name: str
    principals: tuple[str, ...]
    topics: tuple[str, ...]
    operations: frozenset[str]
    partitions: Bound | None
    replication_factor: Bound | None
    configs: dict[str, Bound]

    def label(self) -> str:
        return f"rule {self.index + 1}" + (f" ({self.name})" if self.name and self.name != str(self.index + 1) else "")

    def matches(self, principal: str, topic: str) -> bool:
        return (any(_pattern_matches(p, principal) for p in self.principals)
                and any(_pattern_matches(t, topic) for t in self.topics))


@dataclass(frozen=True)
class TopicPolicy:
    rules: tuple[PolicyRule, ...]
    default: str = "deny"
    internal_topics: str = "deny"


def _bound(spec, where: str, numeric_only: bool = False) -> Bound:
    if not isinstance(spec, dict):
        raise PolicyFileError("a bound is an object like {\"min\": 1, \"max\": 10}", where)
    unknown = set(spec) - {"min", "max", "allowed", "forbidden", "required"}
    if numeric_only:
        unknown |= set(spec) & {"allowed", "forbidden", "required"}
    if unknown:
        raise PolicyFileError(f"unknown key(s) {sorted(unknown)}", where)
    for k in ("min", "max"):
        if k in spec and (isinstance(spec[k], bool) or not isinstance(spec[k], (int, float))):
            raise PolicyFileError(f"{k} must be a number", where)
    allowed = spec.get("allowed")
    if allowed is not None and (not isinstance(allowed, list) or not all(isinstance(a, str) for a in allowed)):
        raise PolicyFileError("allowed must be a list of strings", where)
    b = Bound(spec.get("min"), spec.get("max"), tuple(allowed) if allowed is not None else None,
              bool(spec.get("forbidden", False)), bool(spec.get("required", False)))
    if b.min is not None and b.max is not None and b.min > b.max:
        raise PolicyFileError(f"min {b.min} is above max {b.max}", where)
    return b


def _strings(value, where: str, default: list[str]) -> tuple[str, ...]:
    if value is None:
        return tuple(default)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise PolicyFileError("must be a non-empty list of non-empty strings", where)
    return tuple(value)


def parse_policy(doc: dict, where: str = "policy") -> TopicPolicy:
    if not isinstance(doc, dict):
        raise PolicyFileError("a policy is an object with rules", where)
    unknown = set(doc) - {"version", "default", "internal_topics", "rules"}
    if unknown:
        raise PolicyFileError(f"unknown top-level key(s) {sorted(unknown)}", where)
    if doc.get("version", 1) != 1:
        raise PolicyFileError(f"unsupported version {doc.get('version')!r} (authz reads version 1)", where)
    default = doc.get("default", "deny")
    internal = doc.get("internal_topics", "deny")
    if default not in ("deny", "allow"):
        raise PolicyFileError("default must be deny or allow", f"{where}: default")
    if internal not in ("deny", "allow", "rules"):
        raise PolicyFileError("internal_topics must be deny, allow or rules", f"{where}: internal_topics")
    rules = []
    for i, r in enumerate(doc.get("rules") or []):
        at = f"{where}: rules[{i}]"
        if not isinstance(r, dict):
            raise PolicyFileError("a rule is an object", at)
        bad = set(r) - {"name", "principals", "topics", "operations", "partitions", "replication_factor", "configs"}
        if bad:
            raise PolicyFileError(f"unknown key(s) {sorted(bad)}", at)
        ops = _strings(r.get("operations"), f"{at}.operations", list(OPERATIONS))
        wrong = [o for o in ops if o not in OPERATIONS]
        if wrong:
            raise PolicyFileError(f"unknown operation(s) {wrong}; operations are {', '.join(OPERATIONS)}",
                                  f"{at}.operations")
        configs = r.get("configs") or {}
        if not isinstance(configs, dict):
            raise PolicyFileError("configs maps topic config names to bounds", f"{at}.configs")
        rules.append(PolicyRule(
            i, str(r.get("name", i + 1)), _strings(r.get("principals"), f"{at}.principals", ["*"]),
            _strings(r.get("topics"), f"{at}.topics", ["*"]), frozenset(ops),
            _bound(r["partitions"], f"{at}.partitions", True) if "partitions" in r else None,
            _bound(r["replication_factor"], f"{at}.replication_factor", True) if "replication_factor" in r else None,
            {k: _bound(v, f"{at}.configs.{k}") for k, v in configs.items()}))
    return TopicPolicy(tuple(rules), default, internal)


# -- the KIP's request metadata and cluster state ------------------------------------------------------


@dataclass(frozen=True)
class TopicState:
    partitions: int
    replication_factor: int
    configs: dict[str, str] = field(default_factory=dict)
    internal: bool = False
    replica_assignments: dict[int, list[int]] | None = None


@dataclass(frozen=True)
class ClusterState:
    topics: dict[str, TopicState] = field(default_factory=dict)
    brokers: int | None = None

    def topic(self, name: str) -> TopicState | None:
        return self.topics.get(name)


@dataclass(frozen=True)
class PolicyRequest:
    request: str  # the request name as given (create, AlterConfigs, ...)
    operation: str  # create | alter | delete | delete_records
    principal: str
    topic: str
    partitions: int | None = None
    replication_factor: int | None = None
    replica_assignments: dict[int, list[int]] | None = None
    configs: dict[str, str] = field(default_factory=dict)  # requestedConfigs
    delete_configs: tuple[str, ...] = ()
    replace_configs: bool = False  # legacy AlterConfigs replaces the whole set
    offsets: dict[int, int] | None = None
    host: str = "127.0.0.1"
    expect: str | None = None
    origin: str = ""

    @property
    def acl_operation(self) -> str:
        kind = REQUEST_TYPES[self.request.lower()][1]
        if kind is not None:
            return kind
        # generic "alter": partitions change -> CreatePartitions (ALTER), otherwise configs (ALTER_CONFIGS)
        return "ALTER" if self.partitions is not None and not self.configs and not self.delete_configs \
            else "ALTER_CONFIGS"

    @property
    def broker_hook(self) -> str:
        hook = REQUEST_TYPES[self.request.lower()][2]
        if hook is not None:
            return hook
        return ("none (no policy hook for CreatePartitions)" if self.acl_operation == "ALTER"
                else "AlterConfigPolicy (no principal)")


@dataclass(frozen=True)
class RequestedState:
    partitions: int | None
    replication_factor: int | None
    configs: dict[str, str]
    requested_configs: dict[str, str]


@dataclass(frozen=True)
class PolicyVerdict:
    allowed: bool
    rule: str | None  # which rule decided ("default" when none matched)
    violations: tuple[str, ...] = ()
    broker_error: str | None = None  # the broker refuses before any policy (TOPIC_ALREADY_EXISTS ...)
    notes: tuple[str, ...] = ()
    state: RequestedState | None = None

    @property
    def message(self) -> str:
        """The PolicyViolationException message a client would receive (POLICY_VIOLATION)."""
        return "; ".join(self.violations)


def requested_state(req: PolicyRequest, current: TopicState | None) -> RequestedState:
    """``RequestedTopicState``: current configs with the request's applied (KIP-201 definition)."""
    if req.operation == "create":
        rf = req.replication_factor
        if req.replica_assignments:
            first = req.replica_assignments.get(0) or next(iter(req.replica_assignments.values()))
            rf = len(first)
        partitions = req.partitions if req.partitions is not None else (
            len(req.replica_assignments) if req.replica_assignments else None)
        return RequestedState(partitions, rf, dict(req.configs), dict(req.configs))
    base = {} if current is None or req.replace_configs else dict(current.configs)
    for k in req.delete_configs:
        base.pop(k, None)
    base.update(req.configs)
    return RequestedState(req.partitions if req.partitions is not None else (current.partitions if current else None),
                          current.replication_factor if current else None, base, dict(req.configs))


def _broker_default(config: str, broker: BrokerConfigSources | None,
                    kafka: KafkaConfigs) -> tuple[str | None, str | None]:
    """The broker-level default a topic config falls back to (its first broker synonym, resolved with
    that synonym's own synonyms: ``log.retention.ms`` from ``log.retention.hours``, in ms), and where
    it comes from; a topic config without a broker synonym falls back to LogConfig's default."""
    d = kafka.topic.get(config)
    if d is None:
        return None, None
    if not d.synonyms:
        return (d.default, "Kafka's default") if d.default is not None else (None, None)
    r = resolve_key(d.synonyms[0][0], broker or BrokerConfigSources(), kafka)
    if r.source is None or r.value is None:
        return None, None
    where = {"DEFAULT_CONFIG": "Kafka's default", "STATIC_BROKER_CONFIG": "server.properties"}.get(r.source, r.source)
    if r.name != r.key and r.from_value is not None:
        return r.value, f"{r.name}={r.from_value}, {where}"
    return r.value, f"{r.name}, {where}"


def _check_bound(what: str, value, bound: Bound, out: list[str]) -> None:
    """A bound on a whole number authz was given (partitions, replication factor)."""
    if value is None:
        return
    out += bound_violations(what, Effective(value, str(value)), bound.min, bound.max)


def evaluate(policy: TopicPolicy, req: PolicyRequest, cluster: ClusterState,
             broker: BrokerConfigSources | None = None, kafka: KafkaConfigs | None = None) -> PolicyVerdict:
    """What a KIP-201 TopicManagementPolicy declared by ``policy`` decides for ``req`` (configs read as
    ``kafka``'s ConfigDefs read them; the newest Kafka read by default)."""
    kafka = kafka if kafka is not None else kafka_configs()
    current = cluster.topic(req.topic)
    # What the broker refuses before any policy is asked.
    unknown = _unknown_or_existing_topic(req, current, cluster)
    if unknown is not None:
        return PolicyVerdict(False, None, broker_error=unknown)
    notes: list[str] = []
    if current is None and req.operation != "create":
        notes.append(f"no cluster state for topic '{req.topic}': current partitions and configs unknown")
    state = requested_state(req, current)
    # The controller validates the configs (ConfigurationControlManager: INVALID_CONFIG) before it
    # checks partitions and replicas.
    refused = invalid_config(state.requested_configs, kafka) or _invalid_request(req, current, cluster, state)
    if refused is not None:
        return PolicyVerdict(False, None, broker_error=refused, state=state)
    rule, verdict = _deciding_rule(policy, req, current)
    if rule is None:
        allowed, label, violation = verdict
        return PolicyVerdict(allowed, label, () if allowed else (violation,), state=state, notes=tuple(notes))
    violations: list[str] = []
    if req.operation in ("create", "alter"):
        _check_sizes(rule, req, state, violations, notes)
        for key, bound in rule.configs.items():
            _check_config(key, bound, req, current, state, broker, violations, notes, kafka)
    return PolicyVerdict(not violations, rule.label(), tuple(violations), state=state, notes=tuple(notes))


def _unknown_or_existing_topic(req: PolicyRequest, current: TopicState | None, cluster: ClusterState) -> str | None:
    if req.operation == "create" and current is not None:
        return f"TOPIC_ALREADY_EXISTS: Topic '{req.topic}' already exists."
    if req.operation != "create" and current is None and cluster.topics:
        return "UNKNOWN_TOPIC_OR_PARTITION: This server does not host this topic-partition."
    return None


def _invalid_request(req: PolicyRequest, current: TopicState | None, cluster: ClusterState,
                     state: RequestedState) -> str | None:
    """A replication factor above the broker count, or partitions that would not grow."""
    if req.operation == "create" and cluster.brokers is not None and state.replication_factor is not None \
            and state.replication_factor > cluster.brokers:
        return (f"INVALID_REPLICATION_FACTOR: Unable to replicate the partition {state.replication_factor} time(s): "
                f"The target replication factor of {state.replication_factor} cannot be reached because only "
                f"{cluster.brokers} broker(s) are registered.")
    if req.operation == "alter" and req.partitions is not None and current is not None \
            and req.partitions <= current.partitions:
        if req.partitions < current.partitions:
            return (f"INVALID_PARTITIONS: Topic currently has {current.partitions} partitions, which is higher than "
                    f"the requested {req.partitions}.")
        return f"INVALID_PARTITIONS: Topic already has {current.partitions} partitions."
    return None


def _deciding_rule(policy: TopicPolicy, req: PolicyRequest,
                   current: TopicState | None) -> tuple[PolicyRule | None, tuple[bool, str, str]]:
    """The rule whose bounds apply, or (None, (allowed, what decided, the violation if refused)) when the
    request is decided without bounds: an internal topic, no matching rule, an operation the rule
    does not allow."""
    what = req.operation.replace("_", " ")
    internal = req.topic in INTERNAL_TOPICS or (current is not None and current.internal)
    if internal and policy.internal_topics != "rules":
        return None, (policy.internal_topics == "allow", f"internal_topics: {policy.internal_topics}",
                      f"Topic '{req.topic}' is internal: the policy refuses to {what} it")
    rule = next((r for r in policy.rules if r.matches(req.principal, req.topic)), None)
    if rule is None:
        return None, (policy.default == "allow", f"default: {policy.default}",
                      f"No rule of the policy lets {req.principal} {what} topic '{req.topic}'")
    if req.operation not in rule.operations:
        return None, (False, rule.label(), f"{rule.label()} does not let {req.principal} {what} topic '{req.topic}' "
                                           f"(it allows {', '.join(sorted(rule.operations))})")
    return rule, (True, rule.label(), "")


def _check_sizes(rule: PolicyRule, req: PolicyRequest, state: RequestedState, violations: list[str],
                 notes: list[str]) -> None:
    if rule.partitions is not None:
        _check_bound(f"Topic '{req.topic}': partitions", state.partitions, rule.partitions, violations)
    if rule.replication_factor is not None:
        _check_bound(f"Topic '{req.topic}': replication factor", state.replication_factor,
                     rule.replication_factor, violations)
        if state.replication_factor is None and req.operation == "create":
            notes.append("replication factor not given (the broker's default.replication.factor applies)")


def _check_config(key: str, bound: Bound, req: PolicyRequest, current: TopicState | None, state: RequestedState,
                  broker: BrokerConfigSources | None, violations_out: list[str], notes: list[str],
                  kafka: KafkaConfigs) -> None:
    """One config bound, on the value the topic will have: the request's, the topic's current one, or
    the broker default; numbers as Kafka reads them, special values as what they mean."""
    if bound.forbidden and key in state.requested_configs:
        violations_out.append(f"Topic '{req.topic}': {key} may not be set")
        return
    if key not in kafka.topic:
        notes.append(f"{key}: not a topic config of Kafka {kafka.version} (LogConfig): no topic can set it")
    value = state.configs.get(key)
    source = "request" if key in state.requested_configs else "current topic config"
    checks_value = bound.min is not None or bound.max is not None or bound.allowed is not None
    if value is None and req.operation == "alter" and current is None:
        if checks_value or bound.required:
            notes.append(f"{key}: the topic's current value is unknown (no --cluster-state): not checked")
        return
    if value is None:
        if bound.required:
            violations_out.append(f"Topic '{req.topic}': {key} must be set")
            return
        value, default_source = _broker_default(key, broker, kafka)
        if value is None:
            if checks_value:
                notes.append(f"{key}: not set and its broker default is unknown: not checked")
            return
        source = f"broker default {default_source}"
    what = f"Topic '{req.topic}': {key} ({source})"
    if bound.min is not None or bound.max is not None:
        def lookup(other: str) -> str | None:
            return state.configs[other] if other in state.configs else _broker_default(other, broker, kafka)[0]

        number = effective(key, value, kafka, lookup)
        if number is None:
            violations_out.append(f"{what} {value!r} is not a number")
        else:
            violations_out += bound_violations(what, number, bound.min, bound.max)
        note = compact_only_note(key, lookup)
        if note:
            notes.append(note)
    if bound.allowed is not None and any(item not in bound.allowed for item in _config_items(key, value, kafka)):
        shown = "empty (no cleanup: retained indefinitely)" if key == "cleanup.policy" and not value.strip() \
            else repr(value)
        violations_out.append(f"{what} value {shown} is not one of {', '.join(bound.allowed)}")


def _config_items(key: str, value: str, kafka: KafkaConfigs) -> list[str]:
    """The values a config holds, as the broker reads them. A LIST config (``cleanup.policy``, the
    throttled-replica lists; ``org.apache.kafka.storage.internals.log.LogConfig``) is split as
    ``ConfigDef.parseType`` splits it: trimmed, then at commas with the whitespace around them; the
    items are compared as given (``ValidList.in("compact", "delete")`` is case-sensitive). An empty
    ``cleanup.policy`` is no cleanup at all (segments kept forever): it passes ``allowed`` only if the
    policy lists ``""``, and it makes the retention configs unbounded (see ``values``)."""
    d = kafka.topic.get(key)
    if d is None or d.type != "LIST":
        return [value]
    return cleanup_items(value)


# -- combined with the ACL engine ------------------------------------------------------------------------


@dataclass(frozen=True)
class CombinedVerdict:
    verdict: str  # ALLOWED | DENIED
    refused_by: str | None  # acls | broker | policy | None
    error: str | None  # the error code and message a client sees
    acl_decision: Decision  # of the deciding check
    acl_checks: tuple[str, ...]
    policy: PolicyVerdict


def decide(authorizer, policy: TopicPolicy, req: PolicyRequest, cluster: ClusterState,
           broker: BrokerConfigSources | None = None, kafka: KafkaConfigs | None = None) -> CombinedVerdict:
    """Authorized by the ACLs, then not refused by the broker, then allowed by the policy (the broker
    checks authorization first: an unauthorized topic never reaches a policy)."""
    from kafka_authz_cli.acl import CLUSTER_NAME, AclOperation, Request, ResourceType

    op = req.acl_operation
    checks = []
    decision = None
    if op == "CREATE":
        # CreateTopics: CREATE on the cluster, else CREATE on the topic.
        cluster_req = Request(req.principal, req.host, AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME,
                              log_if_denied=False)
        decision = authorizer.authorize_many([cluster_req])[0]
        checks.append(f"CREATE CLUSTER:{CLUSTER_NAME} {decision.decision or decision.outcome.value}")
        if decision.decision != "ALLOWED":
            decision = authorizer.authorize_many([Request(req.principal, req.host, AclOperation.CREATE,
                                                          ResourceType.TOPIC, req.topic)])[0]
            checks.append(f"CREATE TOPIC:{req.topic} {decision.decision or decision.outcome.value}")
    else:
        decision = authorizer.authorize_many([Request(req.principal, req.host, AclOperation[op], ResourceType.TOPIC,
                                                      req.topic)])[0]
        checks.append(f"{op} TOPIC:{req.topic} {decision.decision or decision.outcome.value}")
    pv = evaluate(policy, req, cluster, broker, kafka)
    if decision.decision != "ALLOWED":
        return CombinedVerdict("DENIED", "acls", "TOPIC_AUTHORIZATION_FAILED: Authorization failed.", decision,
                               tuple(checks), pv)
    if pv.broker_error:
        return CombinedVerdict("DENIED", "broker", pv.broker_error, decision, tuple(checks), pv)
    if not pv.allowed:
        return CombinedVerdict("DENIED", "policy", f"POLICY_VIOLATION: {pv.message}", decision, tuple(checks), pv)
    return CombinedVerdict("ALLOWED", None, None, decision, tuple(checks), pv)
