"""The bindings JulieOps 4.4.1's default ACL provider creates for a topology.

``AccessControlManager.updatePlan``: per project, consumers and producers (``buildBasicUsersAcls``, or
``buildOptimizeConsumerAndProducerAcls``), streams, ksql apps, connectors and custom roles; then the
platform instances; then the special topics' users. The bindings themselves are
``roles/acls/AclsBindingsBuilder``'s. Schemas, ``rbac`` and connector names are Confluent RBAC only:
the ACL builder's defaults create nothing for them. ``ResourceFilter`` drops what the managed
prefixes exclude. JulieOps collects a set: each binding is kept once, with its first origin.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.ecosystem import yamlnodes as y
from kafka_authz_cli.ecosystem.julieops import topology as m
from kafka_authz_cli.ecosystem.julieops.builder_config import CCLOUD_ACLS, render
from kafka_authz_cli.ecosystem.yaml_aliases import JACKSON
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import brief, read_text

T, G, C, X = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER, ResourceType.TRANSACTIONAL_ID
LIT, PRE = PatternType.LITERAL, PatternType.PREFIXED
A = AclOperation
ALLOW = AclPermissionType.ALLOW
CLUSTER = "kafka-cluster"
#: ``Connector``'s defaults
CONNECT_DEFAULTS = {"status_topic": "connect-status", "offset_topic": "connect-offsets",
                    "configs_topic": "connect-configs", "group": "connect-cluster"}


class _Out:
    """The bindings of one topology as a set, in the order first made, each with its origin."""

    def __init__(self, reading) -> None:
        self.reading = reading
        self.cfg = reading.cfg
        self.told: set = set()

    def add(self, user: m.User, rtype, name: str, pattern, op, host: str = "*") -> None:
        binding = AclBinding(rtype, name, pattern, user.principal, host, op, ALLOW)
        acl_set = self.reading.acl_set
        if binding in self.reading.seen:
            return
        self.reading.seen.add(binding)
        if not _managed(binding, self.cfg):
            self.reading.unmanaged += 1
            return
        acl_set.add(binding, f"{user.path}:{user.line} ({user.what})")

    def once(self, code: str, user: m.User, message: str) -> None:
        """A finding for ``user`` (told once per entry, however many topics it is expanded on)."""
        if (code, id(user)) not in self.told:
            self.told.add((code, id(user)))
            self.reading.finding(code, user.path, user.line, message)


def expand(reading, topology: m.Topology) -> None:
    out = _Out(reading)
    cfg = reading.cfg
    if cfg.provider in CCLOUD_ACLS:
        reading.warn("topologies applied through Confluent Cloud", topology.path, topology.line,
                     f"{cfg.provider} creates these bindings through Confluent Cloud, which may translate "
                     "service-account principals to their ids")
    roles = _roles(reading, topology)
    for project in topology.projects:
        _project(out, project, roles)
    platform = topology.platform
    for user in platform.get("schema_registry", []):
        _schema_registry(out, user)
    for user in platform.get("control_center", []):
        _control_center(out, user)
    for user in platform.get("ksql_server", []):
        _ksql_server(out, user)
    _basic(out, topology.special_topics, None)
    if reading.unmanaged:
        reading.warn("bindings outside the managed prefixes", topology.path, topology.line,
                     f"{reading.unmanaged} binding(s) are outside topology.*.managed.prefixes: JulieOps does not "
                     "create them")
        reading.unmanaged = 0


def _project(out: _Out, project: m.Project, roles: dict) -> None:
    cfg = out.cfg
    try:
        prefix = project.name_prefix(cfg)
    except ValueError as exc:
        raise InputError(f"project {project.name}: {exc}", project.path, project.line) from None
    if cfg.optimized:
        for user in project.users.get("consumers", []):
            out.once("EA407", user, f"{user.what}: optimized ACLs are PREFIXED on the project prefix {brief(prefix)} "
                     f"(every topic starting with it) for {user.principal}")
            _consumer(out, user, prefix, PRE)
        for user in project.users.get("producers", []):
            out.once("EA407", user, f"{user.what}: optimized ACLs are PREFIXED on the project prefix {brief(prefix)} "
                     f"(every topic starting with it) for {user.principal}")
            _producer(out, user, prefix, PRE)
        _basic(out, project.topics, None)
    else:
        _basic(out, project.topics, project)
    for user in project.users.get("streams", []):
        _streams(out, user, prefix)
    for user in project.users.get("ksql", []):
        _ksql(out, user, prefix)
    for user in project.users.get("connectors", []):
        _connector(out, user)
        if user.get("connectors"):
            project.rbac_only.append((user.line, "connectors names"))
    for line, what in project.rbac_only:
        out.reading.warn("Confluent RBAC constructs (no ACL with the ACL provider)", project.path, line,
                         f"{what} of project {project.name}: JulieOps creates RBAC role bindings for it only with "
                         "the RBAC provider; the ACL provider creates nothing")
    for key, (line, users) in project.others.items():
        for user in users:
            _role(out, roles[key], key, user)


def _basic(out: _Out, topics: list, project: m.Project | None) -> None:
    """``buildBasicUsersAcls``: per topic, its own users, and the project's when ``project`` is given.
    Consumers are a set by principal and group; producers a set by principal only, so the first entry
    of a principal (the topic's own first) is the one whose transactionId and idempotence count."""
    for topic in topics:
        name = topic.full_name(out.cfg)
        for user in _first_by(topic.consumers + (project.users.get("consumers", []) if project else []),
                              lambda u: (u.principal, u.get("group") or "*")):
            _consumer(out, user, name, LIT)
        for user in _first_by(topic.producers + (project.users.get("producers", []) if project else []),
                              lambda u: u.principal):
            _producer(out, user, name, LIT)


def _first_by(users: list, key) -> list:
    seen: dict = {}
    for user in users:
        seen.setdefault(key(user), user)
    return list(seen.values())


def _star(name: str) -> tuple[str, PatternType]:
    """``evaluateResourcePattern``: a name longer than one character ending in ``*`` is PREFIXED."""
    return (name[:-1], PRE) if len(name) > 1 and name.endswith("*") else (name, LIT)


def _consumer(out: _Out, user: m.User, topic: str, pattern) -> None:
    out.add(user, T, topic, pattern, A.DESCRIBE)
    out.add(user, T, topic, pattern, A.READ)
    group = user.get("group")
    if group is None:
        out.once("EA401", user, f"{user.what}: no group, so {user.principal} gets READ on GROUP '*' "
                 "(every consumer group)")
    out.add(user, G, *_star("*" if group is None else group), A.READ)


def _producer(out: _Out, user: m.User, topic: str, pattern) -> None:
    out.add(user, T, topic, pattern, A.DESCRIBE)
    out.add(user, T, topic, pattern, A.WRITE)
    txn = user.get("transactionId")
    if txn is not None:
        out.add(user, X, *_star(txn), A.DESCRIBE)
        out.add(user, X, *_star(txn), A.WRITE)
    if txn is not None or "idempotence" in user.fields:
        if user.get("idempotence") is False and txn is None:
            out.once("EA406", user, f"{user.what}: idempotence: false, yet {user.principal} gets IDEMPOTENT_WRITE "
                     "on the cluster (JulieOps checks only that the key is present)")
        out.add(user, C, CLUSTER, LIT, A.IDEMPOTENT_WRITE)


def _app_prefix(out: _Out, user: m.User, prefix: str, kind: str) -> str:
    app_id = user.get("applicationId")
    if app_id is None:
        out.once("EA402", user, f"{user.what}: no applicationId, so {user.principal} gets ALL on every topic of "
                 f"the project (PREFIXED {brief(prefix)}) and its groups")
        app_id = prefix
    else:
        out.once("EA408", user, f"{user.what}: {user.principal} gets ALL on every topic starting with "
                 f"{brief(app_id)} (PREFIXED, no separator)")
    if not app_id:
        raise InputError(f"{user.what}: the {kind} application prefix is empty (JulieOps: define the "
                         "applicationId or a non-empty project prefix)", user.path, user.line)
    return app_id


def _topics(user: m.User) -> dict:
    if "topics" in user.fields and user.get("topics") is None:
        raise InputError(f"{user.what}: topics is null (JulieOps fails on it)", user.path, user.line)
    return user.get("topics") or {}


def _streams(out: _Out, user: m.User, prefix: str) -> None:
    """``KStreamsAclBindingsBuilder`` and ``streamsAppStream``."""
    topics = _topics(user)
    read, write = topics.get("read") or [], topics.get("write") or []
    if not read:
        raise InputError(f"{user.what}: a Kafka Streams application without read topics (JulieOps refuses it: "
                         "this field is required)", user.path, user.line)
    if "exactlyOnce" in user.fields and user.get("exactlyOnce") is None:
        raise InputError(f"{user.what}: exactlyOnce is null (JulieOps fails on it)", user.path, user.line)
    app = _app_prefix(out, user, prefix, "KStream")
    for name in read:
        out.add(user, T, name, LIT, A.READ)
    for name in write:
        out.add(user, T, name, LIT, A.WRITE)
    out.add(user, T, app, PRE, A.ALL)
    out.add(user, G, app, PRE, A.READ)
    if user.get("exactlyOnce"):
        out.add(user, X, app, PRE, A.WRITE)
        out.add(user, X, app, PRE, A.DESCRIBE)


def _ksql(out: _Out, user: m.User, prefix: str) -> None:
    """``KSqlAppAclBindingsBuilder`` and ``ksqlAppStream``."""
    topics = _topics(user)
    app = _app_prefix(out, user, prefix, "KSqlApp")
    for name in topics.get("read") or []:
        out.add(user, T, name, LIT, A.READ)
    for name in topics.get("write") or []:
        out.add(user, T, name, LIT, A.WRITE)
    out.add(user, T, app, PRE, A.ALL)
    out.add(user, G, app, PRE, A.ALL)


def _connector(out: _Out, user: m.User) -> None:
    """``buildBindingsForConnect``: the internal topics, CREATE on the cluster, the group, the topics."""
    topics = _topics(user)
    shared = [f"{k} {v}" for k, v in CONNECT_DEFAULTS.items() if user.get(k) is None]
    if shared:
        out.once("EA405", user, f"{user.what}: {user.principal} gets the shared defaults ({', '.join(shared)}), "
                 "which every connector without its own shares")
    for key in ("status_topic", "offset_topic", "configs_topic"):
        name = CONNECT_DEFAULTS[key] if user.get(key) is None else user.get(key)
        out.add(user, T, name, LIT, A.READ)
        out.add(user, T, name, LIT, A.WRITE)
    if out.cfg.connector_create:
        out.once("EA404", user, f"{user.what}: {user.principal} gets CREATE on the cluster (any topic); "
                 "topology.connector.allow.topic.create=false removes it")
        out.add(user, C, CLUSTER, LIT, A.CREATE)
    group = user.get("group")
    out.add(user, G, CONNECT_DEFAULTS["group"] if group is None else group, LIT, A.READ)
    for name in topics.get("read") or []:
        out.add(user, T, name, LIT, A.READ)
    for name in topics.get("write") or []:
        out.add(user, T, name, LIT, A.WRITE)


def _schema_registry(out: _Out, user: m.User) -> None:
    topic = user.get("topic")
    topic = "_schemas" if topic is None else topic
    for op in (A.CREATE, A.DESCRIBE_CONFIGS, A.DESCRIBE, A.WRITE, A.READ):
        out.add(user, T, topic, LIT, op)
    offsets = user.get("consumer_offsets_topic")
    out.add(user, T, "__consumer_offsets" if offsets is None else offsets, LIT, A.DESCRIBE)
    group = user.get("group")
    out.add(user, G, "schema-registry" if group is None else group, LIT, A.READ)


def _control_center(out: _Out, user: m.User) -> None:
    app = user.get("appId")
    if app is None:
        raise InputError(f"{user.what}: no appId (JulieOps fails building its ACLs)", user.path, user.line)
    out.once("EA409", user, f"{user.what}: {user.principal} gets CREATE on TOPIC '*' and DESCRIBE on GROUP '*'")
    out.add(user, G, app, PRE, A.READ)
    out.add(user, G, app + "-command", PRE, A.READ)
    out.add(user, G, "*", LIT, A.DESCRIBE)
    cfg = out.cfg
    for topic in (cfg.monitoring_topic, cfg.command_topic, cfg.metrics_topic):
        for op in (A.WRITE, A.READ, A.CREATE, A.DESCRIBE):
            out.add(user, T, topic, LIT, op)
    for op in (A.WRITE, A.READ, A.CREATE, A.DESCRIBE):
        out.add(user, T, "_confluent-controlcenter", PRE, op)
    out.add(user, T, "*", LIT, A.CREATE)
    out.add(user, C, CLUSTER, LIT, A.DESCRIBE)
    out.add(user, C, CLUSTER, LIT, A.DESCRIBE_CONFIGS)


def _ksql_server(out: _Out, user: m.User) -> None:
    ksql_id = user.get("ksqlDbId")
    if ksql_id is None:
        out.reading.warn("ksql server instances without ksqlDbId (their names hold 'null')", user.path, user.line,
                         f"{user.what}: no ksqlDbId, so JulieOps names its resources with 'null' "
                         "(_confluent-ksql-null)")
        ksql_id = "null"
    out.add(user, C, CLUSTER, LIT, A.DESCRIBE_CONFIGS)
    out.add(user, T, f"_confluent-ksql-{ksql_id}", PRE, A.ALL)
    out.add(user, T, f"{ksql_id}ksql_processing_log", LIT, A.ALL)
    out.add(user, G, f"_confluent-ksql-{ksql_id}", PRE, A.ALL)


# --- custom roles (JulieRoles) -----------------------------------------------------------------------

#: Kafka's enums as their ``fromString`` reads them (upper-cased names), without UNKNOWN
_RESOURCE = {t.name: t for t in ResourceType if t is not ResourceType.UNKNOWN}
_PATTERN = {p.name: p for p in PatternType if p is not PatternType.UNKNOWN}
_OPERATION = {o.name: o for o in AclOperation if o not in (AclOperation.UNKNOWN, AclOperation.TWO_PHASE_COMMIT)}


def _roles(reading, topology: m.Topology) -> dict:
    """``Configuration.getJulieRoles`` and ``JulieRoles.validateTopology``."""
    used = [(p, key, line) for p in topology.projects for key, (line, _) in p.others.items()]
    if not used:
        return {}
    project, key, line = used[0]
    path = reading.cfg.roles
    if path is None:
        raise InputError(f"project {project.name}: {key!r} is a custom role, and no roles file is given "
                         "(--option julie.roles=FILE; JulieOps fails without it)", project.path, line)
    roles = _read_roles(path)
    for project, key, line in used:
        if key not in roles:
            raise InputError(f"project {project.name}: role {key!r} is not in the roles file {path} "
                             f"({', '.join(roles)})", project.path, line)
    return roles


def _read_roles(path: str) -> dict:
    text = read_text(Path(path))
    docs = list(y.documents(text, path, JACKSON))  # JulieRoles: Jackson's YAML too (an alias is text)
    if len(docs) != 1:
        raise InputError("a roles file holds one YAML document with 'roles'", path)
    top = y.mapping(docs[0], path, "a roles file")
    if set(top) != {"roles"}:
        raise y.error(docs[0], path, "a roles file holds exactly 'roles' (JulieRoles)")
    roles: dict = {}
    for node in y.sequence(top["roles"], path, "roles"):
        entries = y.mapping(node, path, "a role")
        name = y.optional_string(entries, "name", path, "role")
        if name in roles:
            raise y.error(node, path, f"role {name!r} is given twice (JulieRoles fails: duplicate key)")
        acls = [_role_acl(a, path) for a in y.sequence(entries.get("acls"), path, f"role {name}.acls")] \
            if "acls" in entries and not y.is_null(entries["acls"]) else []
        roles[name] = (path, acls)
    return roles


_ACL_KEYS = ("resourceType", "resourceName", "patternType", "host", "operation", "role", "permissionType")


def _role_acl(node, path: str) -> dict:
    entries = y.mapping(node, path, "a role acl")
    for key in entries:
        if key not in _ACL_KEYS:
            raise y.error(node, path, f"a role acl: unknown field {key!r} (known: {', '.join(_ACL_KEYS)})")
    acl: dict[str, Any] = {k: (None if y.is_null(v) else m.as_text(v)) for k, v in entries.items()}
    acl["operation"] = acl.get("operation", acl.get("role"))  # @JsonAlias("role")
    acl["line"] = y.line(node)
    return acl


def _role(out: _Out, role: tuple, name: str, user: m.User) -> None:
    """``BuildBindingsForRole`` and ``buildBindingsForJulieRole``: every acl of the role, its
    resourceName rendered over the user's fields, for the user's principal, ALLOW."""
    path, acls = role
    context = {"topic": user.get("topic") or "", "group": user.get("group") or "*"}
    for key in ("subject", "connector", "transactionId"):
        if user.get(key) is not None:
            context[key] = user.get(key)
    for acl in acls:
        where = f"{path}:{acl['line']}"
        rtype = _RESOURCE.get((acl.get("resourceType") or "").upper())
        pattern = _PATTERN.get((acl.get("patternType") or "").upper())
        op = _OPERATION.get((acl.get("operation") or "").upper())
        if rtype is None or pattern is None or op is None:
            raise InputError(f"role {name}: unknown ACL setting resourceType={acl.get('resourceType')}, patternType="
                             f"{acl.get('patternType')}, operation={acl.get('operation')} (JulieOps fails on it)",
                             path, acl["line"])
        if rtype is ResourceType.ANY or pattern in (PatternType.ANY, PatternType.MATCH) or op is AclOperation.ANY:
            raise InputError(f"role {name}: ANY/MATCH cannot be created as an ACL (Kafka refuses it)", path,
                             acl["line"])
        if acl.get("host") is None or acl.get("resourceName") is None:
            raise InputError(f"role {name}: an acl without host or resourceName (JulieOps fails on it)", path,
                             acl["line"])
        try:
            resource = render(acl["resourceName"], context)
        except ValueError as exc:
            raise InputError(f"role {name}: {exc}", path, acl["line"]) from None
        permission = acl.get("permissionType")
        if (permission or "").upper() != "ALLOW":
            out.once("EA403", user, f"{user.what} (role {name}, {where}): permissionType {permission!r} is created "
                     f"as ALLOW for {user.principal}")
        out.add(m.User(user.principal, user.fields, user.path, user.line, f"{user.what}, custom role {name}"),
                rtype, resource, pattern, op, acl["host"])


def _managed(binding: AclBinding, cfg) -> bool:
    """``ResourceFilter.matchesManagedPrefixList``."""
    def matches(prefixes, item):
        return not prefixes or any(item.startswith(p) for p in prefixes)

    def by_type():
        if binding.resource_type is T:
            return matches(cfg.topic_prefixes, binding.resource_name)
        if binding.resource_type is G:
            return matches(cfg.group_prefixes, binding.resource_name)
        return True

    if cfg.principal_prefixes or binding.resource_name == "*":
        if binding.resource_name == "*":
            return matches(cfg.principal_prefixes, binding.principal)
        return matches(cfg.principal_prefixes, binding.principal) and by_type()
    if cfg.topic_prefixes or cfg.group_prefixes:
        return by_type()
    return True
