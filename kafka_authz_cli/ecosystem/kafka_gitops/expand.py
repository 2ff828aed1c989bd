"""What kafka-gitops generates for a service and for a role (0.2.15, ``domain/state/service/*``,
``service/RoleService``): every ACL LITERAL unless said, host ``*``, ALLOW (``AbstractService``), in
the order the code adds them (the order decides which ACLs a same-named user replaces)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from kafka_authz_cli.acl import AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.ecosystem import yamlnodes as y

SERVICE_TYPES = ("application", "kafka-streams", "kafka-connect")
ROLES = ("reader", "writer", "operator")
_O = AclOperation
#: ``KafkaStreamsService.getInternalAcls``: on TOPIC PREFIXED <application id>, then on its GROUP
STREAMS_TOPIC_OPS = (_O.READ, _O.WRITE, _O.DESCRIBE, _O.DELETE, _O.CREATE, _O.ALTER, _O.ALTER_CONFIGS,
                     _O.DESCRIBE_CONFIGS)
STREAMS_GROUP_OPS = (_O.READ, _O.DESCRIBE, _O.DELETE)
CLUSTER = "kafka-cluster"


@dataclass
class Acl:
    """One generated ACL before its principal is final (ccloud replaces it), with where it came from."""

    resource_type: ResourceType
    resource_name: str
    pattern_type: PatternType
    operation: AclOperation
    permission: AclPermissionType
    host: str
    node: object
    construct: str
    principal: str | None = None

    def with_principal(self, principal: str | None) -> "Acl":
        return replace(self, principal=principal)


# -- Jackson-bound YAML (ParserService) --

def keyed(node, path: str, what: str) -> dict:
    """key -> (key node, value node); any scalar key is its text (Jackson); duplicates are errors."""
    if node.id != "mapping":
        raise y.error(node, path, f"{what} must be a mapping, got {y.kind_of(node)}")
    out: dict = {}
    for key, value in node.value:
        if key.id != "scalar" or y.is_null(key):
            raise y.error(key, path, f"{what}: keys must be names, got {y.kind_of(key)}")
        if key.value == "<<":
            raise y.error(key, path, f"{what}: YAML merge keys ('<<') are not read here; write the entries out")
        if key.value in out:  # ParserService: STRICT_DUPLICATE_DETECTION
            raise y.error(key, path, f"{what}: duplicate field {key.value!r} (kafka-gitops refuses the file)")
        out[key.value] = (key, value)
    return out


def fields(node, path: str, what: str, allowed: Iterable[str], required: Iterable[str] = ()) -> dict:
    """A Jackson-bound object: key -> value node; unknown and missing required fields are errors."""
    if y.is_null(node):
        node_map: dict = {}
    else:
        node_map = keyed(node, path, what)
    allowed = tuple(allowed)
    for key, (key_node, _) in node_map.items():
        if key not in allowed:
            raise y.error(key_node, path, f"Unrecognized field: [{key}] in state file definition: {what} "
                          f"(known: {', '.join(allowed)})")
    for key in required:
        if key not in node_map or y.is_null(node_map[key][1]):
            raise y.error(node, path, f"Not set: [{key}] in state file definition: {what}")
    return {k: v for k, (_, v) in node_map.items()}


def text(node, path: str, what: str) -> str:
    """A string field: any scalar is its text (Jackson coerces numbers and booleans to String)."""
    if node.id != "scalar" or y.is_null(node):
        raise y.error(node, path, f"{what} must be a string, got {y.kind_of(node)}")
    return node.value


def optional_text(entries: dict, key: str, path: str, what: str) -> tuple[str | None, object]:
    node = entries.get(key)
    return (None, node) if node is None or y.is_null(node) else (text(node, path, f"{what} -> {key}"), node)


def texts(entries: dict, key: str, path: str, what: str) -> list[tuple[str, object]]:
    """A list of strings (absent: empty; null or a single string: Jackson refuses them)."""
    node = entries.get(key)
    if node is None:
        return []
    if node.id != "sequence":
        raise y.error(node, path, f"{what} -> {key} must be a list, got {y.kind_of(node)}")
    return [(text(item, path, f"{what} -> {key}[]"), item) for item in node.value]


def _acl(rtype: ResourceType, name: str, op: AclOperation, node, construct: str, principal: str | None,
         pattern: PatternType = PatternType.LITERAL) -> Acl:
    return Acl(rtype, name, pattern, op, AclPermissionType.ALLOW, "*", node, construct, principal)


def expand_service(name: str, key_node, node, path: str, describe: bool) -> list[Acl]:
    """``ServiceDetails.getAcls`` of ``services.<name>`` (``describe``: describeTopicEnabled)."""
    what = f"services -> {name}"
    if y.is_null(node) or node.id != "mapping":
        raise y.error(node if not y.is_null(node) else key_node, path, f"{what} must be a mapping with a type")
    raw = {k.value: v for k, v in node.value if k.id == "scalar"}
    if "type" not in raw or y.is_null(raw["type"]):
        raise y.error(key_node, path, f"missing type id property 'type' in state file definition: {what} "
                      f"({', '.join(SERVICE_TYPES)})")
    kind = raw["type"].value if raw["type"].id == "scalar" else ""
    if kind not in SERVICE_TYPES:
        raise y.error(raw["type"], path, f"service type {kind!r} does not exist in kafka-gitops 0.2.15 (known: "
                      f"{', '.join(SERVICE_TYPES)})")
    if kind == "application":
        entries = fields(node, path, what, ("type", "principal", "group-id", "produces", "consumes"))
    elif kind == "kafka-streams":
        entries = fields(node, path, what, ("type", "principal", "application-id", "produces", "consumes"))
    else:
        entries = fields(node, path, what, ("type", "principal", "group-id", "storage-topics", "produces",
                                            "connectors"))
    principal, _ = optional_text(entries, "principal", path, what)
    label = f"{kind} service {name}"
    if kind == "kafka-connect":
        return _connect(name, key_node, entries, path, describe, principal, label)
    acls = _produce_consume(entries, path, what, describe, principal, label)
    if kind == "application":
        if "consumes" in entries and entries["consumes"].value:
            group, group_node = optional_text(entries, "group-id", path, what)
            acls.append(_acl(ResourceType.GROUP, group or name, _O.READ, group_node if group else key_node,
                             f"consumer group of {label}", principal))
        return acls
    app_id, id_node = optional_text(entries, "application-id", path, what)
    app_id, id_node = (app_id, id_node) if app_id is not None else (name, key_node)
    internal = f"internal topics and group of {label}: application id {app_id!r}"
    acls.extend(_acl(ResourceType.TOPIC, app_id, op, id_node, internal, principal, PatternType.PREFIXED)
                for op in STREAMS_TOPIC_OPS)
    acls.extend(_acl(ResourceType.GROUP, app_id, op, id_node, internal, principal) for op in STREAMS_GROUP_OPS)
    acls.append(_acl(ResourceType.CLUSTER, CLUSTER, _O.DESCRIBE_CONFIGS, id_node, internal, principal))
    return acls


def _produce_consume(entries: dict, path: str, what: str, describe: bool, principal: str | None,
                     label: str) -> list[Acl]:
    """WRITE per produces, READ per consumes, then with describe DESCRIBE per topic of consumes then
    produces (``HelperUtil.uniqueCombine``)."""
    produces = texts(entries, "produces", path, what)
    consumes = texts(entries, "consumes", path, what)
    acls = [_acl(ResourceType.TOPIC, t, _O.WRITE, n, f"produces of {label}", principal) for t, n in produces]
    acls += [_acl(ResourceType.TOPIC, t, _O.READ, n, f"consumes of {label}", principal) for t, n in consumes]
    if describe:
        both = dict.fromkeys(t for t, _ in consumes + produces)
        nodes = {t: n for t, n in reversed(consumes + produces)}
        acls += [_acl(ResourceType.TOPIC, t, _O.DESCRIBE, nodes[t], f"describeTopicEnabled for {label}", principal)
                 for t in both]
    return acls


def _connect(name: str, key_node, entries: dict, path: str, describe: bool, principal: str | None,
             label: str) -> list[Acl]:
    """``KafkaConnectService.getAcls``: worker produces, storage topics, worker group, connectors."""
    what = f"services -> {name}"
    produces = texts(entries, "produces", path, what)
    acls = [_acl(ResourceType.TOPIC, t, _O.WRITE, n, f"produces of {label}", principal) for t, n in produces]
    if describe:
        acls += [_acl(ResourceType.TOPIC, t, _O.DESCRIBE, n, f"describeTopicEnabled for {label}", principal)
                 for t, n in produces]
    storage = {}
    if "storage-topics" in entries and not y.is_null(entries["storage-topics"]):
        storage = fields(entries["storage-topics"], path, f"{what} -> storage-topics", ("config", "offset", "status"))
    topics = []
    for key, default in (("config", "connect-configs"), ("offset", "connect-offsets"), ("status", "connect-status")):
        given, node = optional_text(storage, key, path, f"{what} -> storage-topics")
        topics.append((given, node) if given is not None else (f"{default}-{name}", key_node))
    for op in (_O.READ, _O.WRITE):
        acls += [_acl(ResourceType.TOPIC, t, op, n, f"storage topics of {label}", principal) for t, n in topics]
    group, group_node = optional_text(entries, "group-id", path, what)
    acls.append(_acl(ResourceType.GROUP, group or name, _O.READ, group_node if group else key_node,
                     f"worker group of {label}", principal))
    connectors = entries.get("connectors")
    if connectors is None or y.is_null(connectors):
        return acls
    for connector, (c_key, c_node) in keyed(connectors, path, f"{what} -> connectors").items():
        c_what = f"{what} -> connectors -> {connector}"
        c_entries = fields(c_node, path, c_what, ("produces", "consumes"))
        c_label = f"connector {connector} of {label}"
        acls += _produce_consume(c_entries, path, c_what, describe, principal, c_label)
        if texts(c_entries, "consumes", path, c_what):
            acls.append(_acl(ResourceType.GROUP, f"connect-{connector}", _O.READ, c_key, f"consumer group of {c_label}",
                             principal))
    return acls


def expand_role(role: str, node, path: str, user: str) -> list[Acl]:
    """``RoleService.getAcls`` (the role matched case-insensitively), principal not yet set."""
    construct = f"role {role} of user {user}"
    kind = role.lower()
    if kind == "reader":
        made = [(ResourceType.TOPIC, "*", _O.READ), (ResourceType.GROUP, "*", _O.READ)]
    elif kind == "writer":
        made = [(ResourceType.TOPIC, "*", _O.WRITE)]
    elif kind == "operator":
        made = [(ResourceType.CLUSTER, CLUSTER, _O.DESCRIBE), (ResourceType.TOPIC, "*", _O.DESCRIBE),
                (ResourceType.TOPIC, "*", _O.DESCRIBE_CONFIGS), (ResourceType.GROUP, "*", _O.READ),
                (ResourceType.GROUP, "*", _O.DESCRIBE)]
    else:
        raise y.error(node, path, f"Role '{role}' does not exist. Supported roles: 'reader', 'writer', 'operator'.")
    return [_acl(rt, rn, op, node, construct, None) for rt, rn, op in made]
