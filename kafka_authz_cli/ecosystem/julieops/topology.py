"""A JulieOps topology as JulieOps' parser builds it: the model the ACL expansion reads.

Followed: ``serdes/TopologyCustomDeserializer``, ``serdes/TopicCustomDeserializer``, ``model/Impl/*``,
``model/users/*`` and ``model/Topic`` of JulieOps 4.4.1. Jackson reads the users (unknown fields are
errors, scalars are read as text, ``idempotence``/``exactlyOnce`` accept true/false); the custom
deserializers read the rest (any other top-level key is a prefix component, any other project key a
custom role).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka_authz_cli.ecosystem import yamlnodes as y
from kafka_authz_cli.ecosystem.julieops.builder_config import Config, render
from kafka_authz_cli.formats import brief

_META = {"principal": "str", "metadata": "map"}
#: the fields Jackson binds for each user class (``model/users/*``, ``User``), and their kinds
USER_FIELDS = {
    "consumers": {**_META, "group": "str"},
    "producers": {**_META, "transactionId": "str", "idempotence": "bool"},
    "streams": {**_META, "topics": "topics", "applicationId": "str", "exactlyOnce": "bool"},
    "connectors": {**_META, "topics": "topics", "status_topic": "str", "offset_topic": "str",
                   "configs_topic": "str", "group": "str", "cluster_id": "str", "connectors": "list"},
    "ksql": {**_META, "topics": "topics", "applicationId": "str", "ksqlDbId": "str"},
    "other": {**_META, "transactionId": "str", "idempotence": "bool", "group": "str", "topic": "str",
              "subject": "str", "connector": "str"},
    "schema_registry": {**_META, "topic": "str", "consumer_offsets_topic": "str", "group": "str"},
    "control_center": {**_META, "appId": "str"},
    "ksql_server": {**_META, "ksqlDbId": "str", "owner": "str"},
}
#: ``projectCoreKeys``: a project's keys that are not custom roles (``rbac`` compared ignoring case)
CORE_KEYS = ("consumers", "producers", "connectors", "streams", "schemas", "ksql")
#: top-level keys that are not prefix components (``excludeAttributes``)
NOT_PREFIX = ("projects", "context", "platform", "special_topics")


@dataclass
class User:
    principal: str
    fields: dict
    path: str
    line: int
    #: the construct, for origins: "consumers entry of project X"
    what: str

    def get(self, key: str):
        return self.fields.get(key)


@dataclass
class Topic:
    name: str
    data_type: str | None
    consumers: list
    producers: list
    path: str
    line: int
    #: "default" (project prefix + name), "name" (special topics: as written) or a Jinja format
    pattern: str
    project_prefix: str = ""
    dlq: str = ""
    #: the project's prefix context (shared by its topics, as ``ProjectImpl.addTopic`` shares it)
    context: dict = field(default_factory=dict)
    what: str = ""

    def full_name(self, cfg: Config) -> str:
        """``Topic.toString``."""
        if self.pattern == "name":
            return self.name
        if self.pattern == "default":
            out = self.project_prefix + self.name
            if self.data_type is not None:
                out += cfg.separator + self.data_type
            if self.dlq:
                out += cfg.separator + self.dlq
            return out
        context = dict(self.context, topic=self.name)
        if self.dlq:
            context["dlq"] = self.dlq
        if self.data_type is not None:
            context["dataType"] = self.data_type
        return render(self.pattern, context)


@dataclass
class Project:
    name: str
    path: str
    line: int
    topics: list = field(default_factory=list)
    users: dict = field(default_factory=dict)  # consumers/producers/streams/ksql/connectors -> [User]
    #: custom role key -> (key line, [User])
    others: dict = field(default_factory=dict)
    #: RBAC-only constructs (schemas, rbac, connectors' names): (line, what), told once
    rbac_only: list = field(default_factory=list)
    prefix_context: dict = field(default_factory=dict)
    order: list = field(default_factory=list)

    def name_prefix(self, cfg: Config) -> str:
        """``ProjectImpl.namePrefix``: with the default format, context, the other top-level values and
        the project name, each followed by the separator (a trailing one included)."""
        if cfg.project_format != "default":
            return render(cfg.project_format, self.prefix_context)
        sep = cfg.separator
        parts = [_str(self.prefix_context.get("context"))] + [_str(self.prefix_context.get(k)) for k in self.order]
        return sep.join(parts) + sep + self.name + sep


def _str(value) -> str:
    return "null" if value is None else str(value)  # StringBuilder.append(null)


@dataclass
class Topology:
    context: str
    path: str
    line: int
    others: dict = field(default_factory=dict)
    order: list = field(default_factory=list)
    projects: list = field(default_factory=list)
    platform: dict = field(default_factory=dict)  # schema_registry/control_center/ksql_server -> [User]
    special_topics: list = field(default_factory=list)
    platform_line: int | None = None
    #: the lower-cased names of its projects (JulieOps merges no two of one name)
    project_names: set = field(default_factory=set)

    def full_context(self) -> dict:
        """``TopologyImpl.asFullContext``: a fresh map of the other keys plus ``context``."""
        out: dict = dict(self.others)
        out["context"] = self.context
        return out

    def add_project(self, project: Project) -> None:
        """``TopologyImpl.addProject``: the project takes a fresh copy of the context and this
        topology's (shared) order list."""
        project.prefix_context = self.full_context()
        project.prefix_context["project"] = project.name
        project.order = self.order
        self.projects.append(project)
        self.project_names.add(project.name.lower())


def shown(name: str) -> str:
    """A name for origins and messages: whole when short, else its start and its length (a 10 MB project name
    is in no origin 1,000 times)."""
    return name if len(name) <= 80 else f"{name[:60]}... ({len(name):,} characters)"


def as_text(node) -> str:
    """Jackson's ``JsonNode.asText``: a scalar's text (``null`` for null, ``true``/``false`` for YAML
    booleans as Jackson's YAML parser reads them), empty for a mapping or a list."""
    if node is None:
        return ""
    if node.id != "scalar":
        return ""
    if y.is_null(node):
        return "null"
    if node.tag == "tag:yaml.org,2002:bool" and node.value.lower() in ("true", "false"):
        return node.value.lower()
    return node.value


def user(node, path: str, kind: str, what: str) -> User | None:
    """One user entry as Jackson binds it (``treeToValue``): None for a null entry."""
    if y.is_null(node):
        return None
    entries = y.mapping(node, path, what)
    allowed = USER_FIELDS[kind]
    fields: dict = {}
    for key, value in entries.items():
        if key not in allowed:
            raise y.error(node, path, f"{what}: unknown field {key!r} (JulieOps' parser refuses it; "
                          f"known: {', '.join(allowed)})")
        fields[key] = _field(value, allowed[key], path, f"{what}.{key}")
    principal = fields.get("principal")
    if principal is None:
        raise y.error(node, path, f"{what} has no principal (JulieOps fails building its ACLs)")
    if ":" not in principal:
        raise y.error(entries["principal"], path, f"{what}: principal {brief(principal)} has no type (User:{principal[:60]}): "
                      "the broker refuses every ACL JulieOps creates for it")
    return User(principal, fields, path, y.line(node), what)


def _field(node, kind: str, path: str, what: str):
    if y.is_null(node):
        return None  # Jdk8Module: Optional.empty
    if kind == "str":
        if node.id != "scalar":
            raise y.error(node, path, f"{what} must be text, got {y.kind_of(node)}")
        return as_text(node)
    if kind == "bool":
        text = node.value.lower() if node.id == "scalar" else ""
        if text not in ("true", "false"):
            raise y.error(node, path, f"{what} must be true or false, got {node.value if node.id == 'scalar' else ''}"
                          f"{y.kind_of(node) if node.id != 'scalar' else ''}")
        return text == "true"
    if kind == "list":
        return [_field(item, "str", path, f"{what}[]") for item in y.sequence(node, path, what)]
    if kind == "map":
        return {k: _field(v, "str", path, f"{what}.{k}") for k, v in y.mapping(node, path, what).items()}
    # topics: {read: [...], write: [...]} (Map<String, List<String>>)
    return {k: (None if y.is_null(v) else _field(v, "list", path, f"{what}.{k}"))
            for k, v in y.mapping(node, path, what).items()}


def users(node, path: str, kind: str, label: str, owner: str) -> list:
    """``JsonSerdesUtils.parseApplicationUser``: a list of entries (null reads as none). Each user's
    ``what`` is "<label> entry of <owner>"."""
    what = f"{label} of {owner}"
    if node is None or y.is_null(node):
        return []
    if node.id != "sequence":
        raise y.error(node, path, f"{what} must be a list of entries, got {y.kind_of(node)} (JulieOps' parser "
                      "reads no entry from it and then fails)")
    out = []
    for item in node.value:
        entry = user(item, path, kind, f"{label} entry of {owner}")
        if entry is None:
            if kind != "ksql":  # AccessControlManager skips a null ksql app; any other null user fails
                raise y.error(item, path, f"{what}: an empty entry (JulieOps fails on it)")
            continue
        out.append(entry)
    return out
