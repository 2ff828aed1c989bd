"""`authz app check|acls|list` and `authz simulate --api`: applications and requests against an ACL set.

The files are read here (the ACL set, the application's client .properties, the broker's
server.properties); who the application connects as comes from ``--principal`` or from its client
configuration (SASL PLAIN/SCRAM username, a TLS certificate's DN mapped by the broker's
``ssl.principal.mapping.rules``, a Kerberos name by its auth_to_local rules). The domain
(``kafka_authz_cli.apps``) does the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

from kafka_authz_cli._java import parse_properties, parse_properties_with_lines
from kafka_authz_cli.acl import (
    AclBinding,
    AclError,
    AclSet,
    BrokerSettings,
    KafkaPrincipal,
    PatternType,
    ResourceType,
    java_host_address,
)
from kafka_authz_cli.apps.appsfile import (
    APP_CONFIG_REFUSED,
    APP_INCOMPLETE,
    APP_NO_PRINCIPAL,
    APP_UNKNOWN_KIND,
    APPS_UNREADABLE,
    DeclaredApp,
    looks_like_apps,
    read_apps,
)
from kafka_authz_cli.apps.calls import ApiRequest, Call, Caller, Cluster
from kafka_authz_cli.apps.catalogue import AppSpec, SpecError, Workflow
from kafka_authz_cli.apps.clientconfig import ClientConfig
from kafka_authz_cli.apps.kinds import KINDS
from kafka_authz_cli.apps.minimal import Proof, Repair, prove, repair
from kafka_authz_cli.apps.verdict import Verdict, evaluate
from kafka_authz_cli.apps.versions import DEFAULT, KafkaVersion, VersionError
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.formats import read_text
from kafka_authz_cli.rules import LintResult
from kafka_authz_cli.services.acl_sources import acl_set_from
from kafka_authz_cli.services.settings import broker_settings

if TYPE_CHECKING:
    from kafka_authz_cli.rules.lint import CodedFinding


@dataclass(frozen=True)
class AppOptions:
    """What `authz app check` / `app acls` were asked, as plain values."""

    kind: str
    acls: Optional[Path] = None
    acls_format: Optional[str] = None
    acls_options: Optional[Mapping[str, str]] = None
    principal: Optional[str] = None
    host: str = "127.0.0.1"
    topics: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    topic_absent: bool = False
    stateful: bool = False
    client_config: Optional[Path] = None
    configs: tuple[str, ...] = ()
    broker_config: Optional[Path] = None
    kafka_version: Optional[str] = None
    super_users: Optional[str] = None
    allow_everyone: Optional[bool] = None
    listener: Optional[str] = None


@dataclass
class Identity:
    principal: str
    #: where it comes from: --principal, the JAAS username, a certificate's DN mapped by the broker
    source: str


@dataclass
class AppCheck:
    options: AppOptions
    identity: Identity
    version: KafkaVersion
    workflow: Workflow
    verdict: Verdict
    #: what to add for it to work (None when it works)
    repair: Optional[Repair] = None


@dataclass
class AppAcls:
    options: AppOptions
    identity: Identity
    version: KafkaVersion
    workflow: Workflow
    acls: list[AclBinding]
    #: the application with the set (it works) and without each ACL (it fails)
    with_all: Verdict
    proofs: list[Proof]
    blocked: Optional[str] = None
    notes: list[str] = field(default_factory=list)


# ---- reading the options -----------------------------------------------------------------------------


def _version(text: Optional[str]) -> KafkaVersion:
    if text is None:
        return DEFAULT
    try:
        return KafkaVersion.parse(text)
    except VersionError as exc:
        raise OptionError(str(exc), "--kafka-version") from None


def client_config(path: Optional[Path], configs: tuple[str, ...]) -> ClientConfig:
    cfg = ClientConfig()
    if path is not None:
        for key, (value, line) in parse_properties_with_lines(read_text(path), str(path)).items():
            cfg = cfg.with_value(key, value, f"{path}:{line}")
    for item in configs:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise OptionError(f"{item!r}: expected KEY=VALUE", "--config")
        cfg = cfg.with_value(key.strip(), value, "--config")
    return cfg


def _broker_props(path: Optional[Path]) -> dict[str, str]:
    return parse_properties(read_text(path), str(path)) if path is not None else {}


def _flag(props: dict[str, str], key: str, default: bool, path: Optional[Path]) -> bool:
    raw = props.get(key)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise InputError(f"{key} must be true or false, got {raw!r}", str(path))
    return value == "true"


def identity(options: AppOptions, cfg: ClientConfig) -> Identity:
    """Who the application connects as: --principal, else what its client configuration says."""
    if options.principal is not None:
        try:
            KafkaPrincipal.parse(options.principal)
        except AclError as exc:
            raise OptionError(str(exc), "--principal") from None
        return Identity(options.principal, "--principal")
    from kafka_authz_cli.connect import identity as client_identity

    if options.client_config is None and not any(k.startswith(("security.", "sasl.", "ssl.")) for k in cfg.values):
        raise OptionError("who does the application connect as? Give --principal, or its --client-config "
                          "(security.protocol and sasl.jaas.config or ssl.keystore.location)", "--principal")
    ident = client_identity(cfg.values)
    if ident.error is not None:
        raise InputError(ident.error, _origin(cfg, "sasl.jaas.config"))
    if ident.principal is not None:
        return Identity(ident.principal, f"{ident.how} ({_origin(cfg, 'sasl.jaas.config')})")
    if ident.tls_keystore is not None or ident.kerberos_name is not None:
        return _mapped_identity(options, cfg, ident)
    raise OptionError(f"cannot tell who the application connects as: {ident.how}; give --principal", "--principal")


def _origin(cfg: ClientConfig, key: str) -> str:
    return cfg.origins.get(key, "--client-config") or "--client-config"


def _mapped_identity(options: AppOptions, cfg: ClientConfig, ident) -> Identity:
    from kafka_authz_cli.services.principal import map_connection

    if ident.kerberos_name is not None:
        row = map_connection(None, ident.kerberos_name, None, None, None, options.broker_config, options.listener)
        what = f"Kerberos name {ident.kerberos_name}"
    else:
        dn = _certificate_dn(cfg)
        row = map_connection(dn, None, None, None, None, options.broker_config, options.listener)
        what = f"certificate DN {dn}"
    assert row is not None  # a name or a DN was given to map
    if not row["ok"]:
        raise InputError(f"the broker cannot map the {what}: {row.get('broker') or row.get('error')}",
                         str(options.broker_config or "--broker-config"))
    rules = row.get("rules_source") or "Kafka's default rules"
    return Identity(row["principal"], f"{what}, mapped by {rules}")


def _certificate_dn(cfg: ClientConfig) -> str:
    from kafka_authz_cli.principal import read_cert_subjects

    location = cfg.get("ssl.keystore.location")
    if location is None:
        raise OptionError("the client's certificate is inline (ssl.keystore.certificate.chain): give --principal",
                          "--principal")
    keystore_type = (cfg.get("ssl.keystore.type") or "JKS").strip().upper()
    if keystore_type != "PEM" and not location.endswith((".pem", ".crt", ".cer", ".der")):
        raise OptionError(f"ssl.keystore.location {location} is a {keystore_type} keystore, which authz does not "
                          "open: give --principal (or point a PEM certificate at it)", "--principal")
    subjects = read_cert_subjects(location)
    return subjects[0].text


def _cluster(options: AppOptions, acl_set: AclSet, settings: BrokerSettings, version: KafkaVersion,
             absent: frozenset[str]) -> Cluster:
    props = _broker_props(options.broker_config)
    return Cluster(_factory(settings)(acl_set.bindings), version,
                   auto_create_topics_enable=_flag(props, "auto.create.topics.enable", True, options.broker_config),
                   absent_topics=absent,
                   delete_topic_enable=_flag(props, "delete.topic.enable", True, options.broker_config))


def _spec(options: AppOptions, cfg: ClientConfig, version: KafkaVersion) -> AppSpec:
    if options.kind not in KINDS:
        raise OptionError(f"unknown application kind {options.kind!r}; `authz app list` shows the catalogue: "
                          + ", ".join(KINDS), "KIND")
    return AppSpec(options.kind, options.topics, options.inputs, options.outputs, options.groups, options.stateful,
                   cfg, version)


def _prepared(options: AppOptions):
    version = _version(options.kafka_version)
    try:
        java_host_address(options.host)
    except AclError as exc:
        raise OptionError(str(exc), "--host") from None
    cfg = client_config(options.client_config, options.configs)
    ident = identity(options, cfg)
    workflow = _workflow(options, cfg, version)
    settings = broker_settings(options.super_users, options.allow_everyone, options.broker_config)
    named = options.topics + options.inputs + options.outputs + tuple(
        t for t in workflow.owned_prefixes.get("TOPIC", ()) if t not in options.topics)
    absent = frozenset(named) if options.topic_absent else frozenset()
    return version, cfg, ident, workflow, settings, absent


def _workflow(options: AppOptions, cfg: ClientConfig, version: KafkaVersion) -> Workflow:
    """The application's workflow, as its kind builds it from the options and its configuration."""
    spec = _spec(options, cfg, version)  # an unknown kind is refused here, by name
    try:
        return KINDS[options.kind].build(spec, version)
    except SpecError as exc:
        raise OptionError(str(exc), "KIND") from None


def check_app(options: AppOptions, command_config: Optional[Path] = None) -> AppCheck:
    """Will the application work with the ACL set (a file, or ``cluster:HOST:PORT`` read live), and if not,
    where it fails and what it needs."""
    if options.acls is None:
        raise OptionError("give the ACL set to check against", "ACLS")
    acl_set = acl_set_from(options.acls, options.acls_format, command_config, options=options.acls_options)
    return _check_against(options, acl_set)


def _check_against(options: AppOptions, acl_set: AclSet, prepared: Optional[tuple] = None) -> AppCheck:
    version, _, ident, workflow, settings, absent = prepared or _prepared(options)
    cluster = _cluster(options, acl_set, settings, version, absent)
    caller = Caller(ident.principal, options.host)
    verdict = evaluate(workflow, cluster, caller)
    result = AppCheck(options, ident, version, workflow, verdict)
    if not verdict.works:
        factory = _factory(settings)
        result.repair = repair(workflow, cluster, caller, factory, list(acl_set.bindings))
    return result


def _factory(settings: BrokerSettings):
    from kafka_authz_cli.acl import StandardAuthorizer

    return lambda bindings: StandardAuthorizer(bindings, settings)


def app_acls(options: AppOptions, prefixed: bool = False) -> AppAcls:
    """The smallest ACL set the application needs on its own (no other ACLs), and the proof."""
    version, _, ident, workflow, settings, absent = _prepared(options)
    empty = AclSet([], [], "<none>", "json")
    cluster = _cluster(options, empty, settings, version, absent)
    caller = Caller(ident.principal, options.host)
    factory = _factory(settings)
    found = repair(workflow, cluster, caller, factory, [], prefixed=prefixed)
    with_all, proofs = prove(workflow, cluster, caller, factory, found.added)
    return AppAcls(options, ident, version, workflow, found.added, with_all, proofs, found.blocked)


def list_apps() -> list[dict]:
    return [{"kind": k.name, "what": k.summary, "reads": list(k.reads), "kafka_versions": k.versions,
             "verified": k.verified} for k in KINDS.values()]


# ---- the answers in words and as documents (`app check|acls --format json`, the sentence, the fix) --------

_RESOURCE_FLAGS = {ResourceType.TOPIC: "--topic", ResourceType.GROUP: "--group",
                   ResourceType.TRANSACTIONAL_ID: "--transactional-id", ResourceType.CLUSTER: "--cluster",
                   ResourceType.DELEGATION_TOKEN: "--delegation-token", ResourceType.USER: "--user-principal"}


def acl_words(acl: AclBinding) -> str:
    """``ALLOW READ on GROUP billing for User:alice``: an ACL as the answers say it."""
    if acl.resource_type is ResourceType.CLUSTER:
        what = "the CLUSTER"
    elif acl.pattern_type is PatternType.PREFIXED:
        what = f"{acl.resource_type.name} names starting with {acl.resource_name}"
    else:
        what = f"{acl.resource_type.name} {acl.resource_name}"
    host = "" if acl.host == "*" else f" from {acl.host}"
    return f"{acl.permission.name} {acl.operation.name} on {what} for {acl.principal}{host}"


def kafka_acls_command(acl: AclBinding) -> str:
    """The `kafka-acls --add` command line that creates ``acl``."""
    side = "allow" if acl.permission.name == "ALLOW" else "deny"
    parts = ["kafka-acls --bootstrap-server BROKER --add", f"--{side}-principal {_quote(acl.principal)}"]
    if acl.host != "*":
        parts.append(f"--{side}-host {acl.host}")
    parts.append(f"--operation {acl.operation.pascal}")
    flag = _RESOURCE_FLAGS[acl.resource_type]
    parts.append(flag if acl.resource_type is ResourceType.CLUSTER else f"{flag} {_quote(acl.resource_name)}")
    if acl.pattern_type is PatternType.PREFIXED:
        parts.append("--resource-pattern-type prefixed")
    return " ".join(parts)


def _quote(text: str) -> str:
    return text if text and all(c.isalnum() or c in "-_.:=" for c in text) else "'" + text.replace("'", "'\\''") + "'"


#: What the application cannot do when a request fails, by request type ({t}: the topic, {g}: the group,
#: {x}: the transactional id).
_ACTIONS = {
    "Metadata": "read the metadata of topic {t}", "Produce": "write to topic {t}", "Fetch": "read topic {t}",
    "ListOffsets": "look up the offsets of topic {t}", "InitProducerId": "get a producer id",
    "FindCoordinator": "find the coordinator of {k}", "JoinGroup": "join group {g}", "SyncGroup": "join group {g}",
    "Heartbeat": "stay in group {g}", "ConsumerGroupHeartbeat": "join group {g}", "ShareGroupHeartbeat": "join share group {g}",
    "OffsetFetch": "read the committed offsets of group {g}", "OffsetCommit": "commit offsets in group {g}",
    "ShareFetch": "fetch from topic {t} in share group {g}", "ShareAcknowledge": "acknowledge records in share group {g}",
    "AddPartitionsToTxn": "add topic {t} to its transaction", "AddOffsetsToTxn": "add offsets to its transaction",
    "TxnOffsetCommit": "commit offsets of group {g} in its transaction", "EndTxn": "commit its transaction",
    "CreateTopics": "create topic {t}", "DeleteTopics": "delete topic {t}", "DescribeConfigs": "read the configs of {c}",
    "IncrementalAlterConfigs": "change the configs of {c}", "DeleteRecords": "delete records of topic {t}",
    "ListGroups": "see group {g} in the group list", "DescribeGroups": "describe group {g}",
    "ConsumerGroupDescribe": "describe group {g}", "DescribeTopicPartitions": "describe topic {t}",
}


def _action(call, check) -> str:
    q = call.request
    name = check.resource_name if check is not None and check.resource_name is not None else None
    topic = name if check is not None and check.resource_type is ResourceType.TOPIC and name else ", ".join(q.topics)
    group = name if check is not None and check.resource_type is ResourceType.GROUP and name else (
        q.group or ", ".join(q.groups) or ", ".join(call.filtered))
    key = f"transactional id {q.transactional_id}" if q.key_type == "TRANSACTION" else f"group {q.group}"
    configs = ", ".join(f"{k.lower()} {n}" for k, n in q.config_resources)
    template = _ACTIONS.get(q.api, q.api + " ({t})")
    return template.format(t=topic, g=group, x=q.transactional_id, k=key, c=configs)


def check_sentence(result: AppCheck) -> str:
    """The verdict as a developer reads it: what it cannot do, which permission, what it throws, the fix."""
    v, kind = result.verdict, result.options.kind
    if v.works:
        return f"this {kind} works: every request it makes is authorized"
    if v.failing_check is None and v.exception is not None and result.workflow.config_error is not None:
        return f"this {kind} never starts: {v.exception} in {v.step}: {result.workflow.config_error}"
    where = f"{v.step}()" + (f" ({v.phase})" if v.phase else "")
    throws = (f"{where} throws {v.exception}" + (f" (wrapped in {v.surfaced_as})" if v.surfaced_as else "")
              if v.exception else f"nothing throws: {v.silent}")
    check, call = v.failing_check or _filtered(v), v.failing_call
    if call is None or check is None:
        return f"this {kind} does not work: {throws}"
    if check.acl is not None and check.acl.permission.name == "DENY":
        state = f"is denied by {acl_words(check.acl)}"
    elif check.resource_name is None:
        state = ("is missing, and so is IDEMPOTENT_WRITE on the CLUSTER (an idempotent producer needs one of them, "
                 "KIP-679)")
    else:
        state = "is missing"
    text = f"this {kind} cannot {_action(call, check)}: {check.operation.name} on {check.resource()} {state}; {throws}"
    repair = result.repair
    if repair is not None and repair.blocked is None and repair.added:
        text += "; add " + "; ".join(acl_words(a) for a in repair.added)
    return text


def _filtered(v):
    call = v.failing_call
    if call is None:
        return None
    return next((c for c in reversed(call.checks) if not c.allowed and c.resource_name in call.filtered), None)


def check_document(result: AppCheck) -> dict:
    """`authz app check --format json` (and each application of `authz access --apps`)."""
    v = result.verdict
    repair = result.repair
    return {
        "kind": result.options.kind, "principal": result.identity.principal,
        "principal_source": result.identity.source, "host": result.options.host,
        "kafka_version": str(result.version), "works": v.works, "exception": v.exception,
        "surfaced_as": v.surfaced_as, "step": v.step, "phase": v.phase, "silent": v.silent,
        "message": check_sentence(result),
        "calls": [{"step": step.name, "phase": step.phase or None, **call.as_dict()} for step, call in v.calls],
        "missing": [a.as_dict() for a in repair.added] if repair is not None else [],
        "missing_kafka_acls": [kafka_acls_command(a) for a in repair.added] if repair is not None else [],
        "blocked": repair.blocked if repair is not None else None,
        "denies": [a.as_dict() for a in repair.denies] if repair is not None else [],
        "notes": v.notes, "warnings": v.warnings,
    }


def call_rows(result: AppCheck) -> list[dict]:
    """`authz app check --format csv|jsonl`: one row per check of each request (a request without checks: one)."""
    rows = []
    for step, call in result.verdict.calls:
        for check in call.checks or (None,):
            rows.append({"step": step.name, "phase": step.phase, "api": call.request.api,
                         "request": call.request.describe(), "handler": call.handler,
                         "operation": check.operation.name if check else None,
                         "resource": check.resource() if check else None,
                         "decision": ("ALLOWED" if check.allowed else "DENIED") if check else None,
                         "on_deny": check.on_deny.value if check else None, "rule": check.rule if check else None,
                         "error": call.first_error()})
    return rows


def acls_document(result: AppAcls, to: str, text: str) -> dict:
    """`authz app acls --format json`: the set (``text``: written in the format ``to``) and its proof."""
    proof = [{"acl": p.acl.as_dict(), "without_it": {"works": p.without.works, "exception": p.without.exception,
                                                     "step": p.without.step, "phase": p.without.phase,
                                                     "silent": p.without.silent}}
             for p in result.proofs]
    return {"kind": result.options.kind, "principal": result.identity.principal,
            "principal_source": result.identity.source, "kafka_version": str(result.version),
            "acls": [a.as_dict() for a in result.acls], "format": to, "text": text,
            "works_with_them": result.with_all.works, "blocked": result.blocked, "proof": proof,
            "notes": result.workflow.notes}


# ---- `authz simulate --api` ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ApiOptions:
    api: str
    principal: str
    host: str = "127.0.0.1"
    topics: tuple[str, ...] = ()
    group: Optional[str] = None
    transactional_id: Optional[str] = None
    allow_auto_create: bool = False
    all_topics: bool = False
    topic_absent: bool = False
    two_phase_commit: bool = False
    cluster_configs: bool = False
    kafka_version: Optional[str] = None


def simulate_api(options: ApiOptions, acl_set: AclSet, settings: BrokerSettings,
                 broker_config: Optional[Path]) -> Call:
    """One request checked as the broker's handler checks it."""
    from kafka_authz_cli.apps.api_requests import UnknownApi, canonical_api, check_available

    version = _version(options.kafka_version)
    try:
        api = canonical_api(options.api)
        check_available(api, version)
    except UnknownApi as exc:
        raise OptionError(str(exc), "--api") from None
    props = _broker_props(broker_config)
    cluster = Cluster(_factory(settings)(acl_set.bindings), version,
                      auto_create_topics_enable=_flag(props, "auto.create.topics.enable", True, broker_config),
                      absent_topics=frozenset(options.topics) if options.topic_absent else frozenset(),
                      delete_topic_enable=_flag(props, "delete.topic.enable", True, broker_config))
    request = _api_request(api, options)
    from kafka_authz_cli.apps.api_requests import handle

    return handle(cluster, Caller(options.principal, options.host), request)


def _api_request(api: str, o: ApiOptions) -> ApiRequest:
    from kafka_authz_cli.apps.api_requests import NEEDS

    for need in NEEDS.get(api, ()):
        if need == "topic" and not o.topics and not o.all_topics:
            raise OptionError(f"--api {api} names topics: give --topic", "--topic")
        if need == "group" and o.group is None:
            raise OptionError(f"--api {api} names a group: give --group", "--group")
        if need == "transactional_id" and o.transactional_id is None:
            raise OptionError(f"--api {api} names a transactional id: give --transactional-id", "--transactional-id")
    key_type = "TRANSACTION" if api == "FindCoordinator" and o.transactional_id is not None and o.group is None \
        else "GROUP"
    configs: tuple[tuple[str, str], ...] = ()
    if api in ("DescribeConfigs", "AlterConfigs", "IncrementalAlterConfigs"):
        configs = tuple(("TOPIC", t) for t in o.topics) + ((("GROUP", o.group),) if o.group else ()) + (
            (("BROKER", "1"),) if o.cluster_configs else ())
    many_groups = api in ("DescribeGroups", "ListGroups", "DeleteGroups", "ConsumerGroupDescribe",
                          "ShareGroupDescribe", "StreamsGroupDescribe")
    return ApiRequest(api, topics=o.topics, group=None if many_groups else o.group,
                      groups=(o.group,) if o.group and many_groups else (), transactional_id=o.transactional_id,
                      transactional=api == "Produce" and o.transactional_id is not None,
                      all_topics=o.all_topics, allow_auto_create=o.allow_auto_create,
                      two_phase_commit=o.two_phase_commit, config_resources=configs, key_type=key_type,
                      all_partitions=api == "OffsetFetch" and not o.topics)


# ---- a team's declared applications (an apps file) -------------------------------------------------------


@dataclass
class DeclaredCheck:
    """One application of an apps file against an ACL set: its check, or why it could not be checked."""

    app: DeclaredApp
    check: Optional[AppCheck] = None
    problem: Optional[str] = None


def read_apps_file(path: Path) -> list[DeclaredApp]:
    text = read_text(path)
    if not looks_like_apps(text, whole=True):
        raise InputError("this is no apps file (a YAML `apps:` list of entries with a `kind:`; see `authz app "
                         "list`)", str(path))
    return read_apps(text, str(path))


def _app_options(app: DeclaredApp, where: Path, settings: BrokerSettings, broker_config: Optional[Path]) -> AppOptions:
    client = (where.parent / app.client_config) if app.client_config is not None else None
    return AppOptions(kind=app.kind, principal=app.principal, host=app.host, topics=app.topics, inputs=app.inputs,
                      outputs=app.outputs, groups=app.groups, topic_absent=app.topic_absent, stateful=app.stateful,
                      client_config=client, configs=app.configs, broker_config=broker_config,
                      kafka_version=app.kafka_version, super_users=settings.super_users,
                      allow_everyone=settings.allow_everyone_if_no_acl_found)


def check_declared(path: Path, acl_set: AclSet, settings: BrokerSettings, principal: Optional[str] = None,
                   broker_config: Optional[Path] = None) -> list[DeclaredCheck]:
    """Each application of the apps file ``path`` (those connecting as ``principal`` when given) against
    the ACL set, as `authz app check` would answer for it alone."""
    out = []
    for app in read_apps_file(path):
        options = _app_options(app, path, settings, broker_config)
        try:
            prepared = _prepared(options)
            if principal is not None and prepared[2].principal != principal:
                continue
            out.append(DeclaredCheck(app, check=_check_against(options, acl_set, prepared)))
        except (OptionError, InputError) as exc:
            if principal is None or app.principal in (None, principal):  # maybe its own: say why
                out.append(DeclaredCheck(app, problem=_problem(exc)))
    return out


def declared_document(found: DeclaredCheck) -> dict:
    """One application of an apps file in `authz access --apps`'s JSON: `authz app check`'s object with its
    name and where it is declared, or the problem that kept it from being checked."""
    app = found.app
    head = {"name": app.name, "declared_at": f"{app.line}:{app.col}"}
    if found.check is None:
        return {**head, "kind": app.kind, "principal": app.principal, "works": None, "problem": found.problem}
    return {**head, **check_document(found.check), "problem": None}


#: `authz app check`'s options as an apps file's keys, for messages about an entry of one.
_AS_KEYS = (("--client-config", "`client-config:`"), ("--principal", "`principal:`"), ("--topic", "`topics:`"),
            ("--input", "`inputs:`"), ("--output", "`outputs:`"), ("--group", "`groups:`"), ("--config", "`config:`"),
            ("--kafka-version", "`kafka-version:`"), ("--host", "`host:`"))


def _problem(exc: Exception) -> str:
    """Why an entry could not be checked, in the apps file's words (its keys, not the options)."""
    text = str(exc.render() if isinstance(exc, InputError) else exc).strip()  # with the file it is about
    for option, key in _AS_KEYS:
        text = re.sub(re.escape(option) + r"(?![\w-])", key, text)
    return text


def lint_apps(path: Path, text: str) -> LintResult:
    """What `authz lint` says of an apps file: each application that cannot be checked or cannot run
    (whatever the ACLs), at its entry (codes AP001-AP005, :mod:`..apps.appsfile`)."""
    from kafka_authz_cli.ecosystem import SourceFinding

    def finding(code, line: int, col: int, message: str) -> SourceFinding:
        return SourceFinding(code.code, str(path), line, col, message, code.severity, code.name)

    try:
        apps = read_apps(text, str(path))
    except InputError as exc:
        return LintResult(str(path), [finding(APPS_UNREADABLE, exc.line or 1, (exc.col or 1) - 1, exc.reason)])
    findings: list[CodedFinding] = []
    for app in apps:
        found = _lint_app(app, path)
        if found is not None:
            findings.append(finding(found[0], app.line, app.col - 1, f"{app.name}: {found[1]}"))
    return LintResult(str(path), findings)


def _lint_app(app: DeclaredApp, path: Path):
    """(code, message) for an application that cannot be checked or cannot run, else None."""
    if app.kind not in KINDS:
        return APP_UNKNOWN_KIND, f"unknown kind {app.kind!r}; `authz app list` shows the catalogue"
    options = _app_options(app, path, broker_settings(None, None, None), None)
    try:
        version = _version(options.kafka_version)
        cfg = client_config(options.client_config, options.configs)
        workflow = _workflow(options, cfg, version)
    except (OptionError, InputError) as exc:
        return APP_INCOMPLETE, _problem(exc)
    if workflow.config_error is not None:
        return APP_CONFIG_REFUSED, f"the client refuses its configuration: {workflow.config_error}"
    try:
        identity(options, cfg)
    except (OptionError, InputError) as exc:
        return APP_NO_PRINCIPAL, _problem(exc)
    return None
