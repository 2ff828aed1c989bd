"""kafka-gitops desired state files: the bindings kafka-gitops applies for them.

Followed: kafka-gitops 0.2.15 (devshawn/kafka-gitops, the last release; the expansion is unchanged on
master 8f3afc9, whose only ACL change, custom ACLs' ``host`` defaulting to ``*`` and ``permission`` to
``ALLOW`` (#69), is followed too: 0.2.15 itself refuses a custom ACL without them). It is read as
``ParserService`` (Jackson: unknown keys and duplicate keys are errors) and ``StateManager`` read it:

- ``settings.files.{services,topics,users}`` name files, relative to the state file, whose
  ``services``/``topics``/``users`` are merged in (``putAll``: a name given again replaces the first);
  nothing else of those files is read.
- ``services.<name>`` by ``type`` (``ServiceDetails``' ``@JsonSubTypes``: ``application``,
  ``kafka-streams``, ``kafka-connect``; no other type exists), expanded by :mod:`.expand`;
  then ``customServiceAcls.<name>``. ``users.<name>``: ``roles`` (``RoleService``), then
  ``customUserAcls.<name>``. Custom ACLs of names that are not defined are ignored.
- Every ACL is put into one map under ``<service or user>-<index>`` (``DesiredState.putAcls``,
  services first): a user named like a service replaces that service's ACLs index by index.
- ``settings.ccloud.enabled``: every principal is ``User:<service-account id>`` of the account named
  after the service (``user-<name>`` for a user), looked up with the ccloud CLI; here the ids come from
  ``--option ccloud-service-accounts=...``.
- ``settings.topics`` (defaults, the prefixed blacklist) and kafka-streams service names only protect
  topics from deletion, not ACLs: checked, not read as ACLs. ``topics`` need a ``replication`` unless
  a default is set (``StateManager.validateTopics``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, AclSet, PatternType, ResourceType
from kafka_authz_cli.codes import FindingCode
from kafka_authz_cli.ecosystem import yamlnodes as y
from kafka_authz_cli.ecosystem.kafka_gitops.expand import (
    Acl,
    expand_role,
    expand_service,
    fields,
    keyed,
    optional_text,
    text,
    texts,
)
from kafka_authz_cli.ecosystem.ksm import reader as ksm
from kafka_authz_cli.ecosystem.source_reading import record
from kafka_authz_cli.ecosystem.yaml_aliases import JACKSON
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import WarningTally, loads, read_text

TOP_KEYS = ("settings", "topics", "services", "users", "customServiceAcls", "customUserAcls")
#: the Kafka 2.4 client enums ``CustomAclDetails.validate`` accepts (exact case; ANY and UNKNOWN refused)
RESOURCE_TYPES = {t.name: t for t in (ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER,
                                      ResourceType.TRANSACTIONAL_ID, ResourceType.DELEGATION_TOKEN)}
PATTERNS = {"LITERAL": PatternType.LITERAL, "PREFIXED": PatternType.PREFIXED}
OPERATIONS = {o.name: o for o in (AclOperation.ALL, AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE,
                                  AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE,
                                  AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
                                  AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE)}
PERMISSIONS = {"DENY": AclPermissionType.DENY, "ALLOW": AclPermissionType.ALLOW}
CUSTOM_KEYS = ("name", "type", "pattern", "principal", "host", "operation", "permission")

_EX_CUSTOM = ("      name: orders\n      type: TOPIC\n      pattern: LITERAL\n      operation: READ\n"
              "      principal: User:a\n      host: '*'\n      permission: ALLOW\n")
FINDINGS = (
    FindingCode("EA301", "role-grants-every-topic", "warning",
                "A user's reader, writer or operator role grants on every topic and group (LITERAL '*').",
                "kafka-gitops' built-in roles (RoleService) are cluster-wide: reader is READ on every topic and "
                "group, writer WRITE on every topic, operator DESCRIBE/DESCRIBE_CONFIGS on every topic, READ and "
                "DESCRIBE on every group and DESCRIBE on the cluster. Give the user customUserAcls on the topics "
                "it needs instead.",
                "users:\n  alice:\n    principal: User:alice\n    roles: [reader]\n"),
    FindingCode("EA302", "streams-internal-prefix", "warning",
                "A kafka-streams service gets ALL but CLUSTER_ACTION on every topic whose name starts with its "
                "application id (PREFIXED, no separator), and DESCRIBE_CONFIGS on the cluster.",
                "KafkaStreamsService.getInternalAcls grants READ, WRITE, DESCRIBE, DELETE, CREATE, ALTER, "
                "ALTER_CONFIGS and DESCRIBE_CONFIGS on TOPIC PREFIXED <application-id> (no '-' appended: id "
                "'orders' also covers 'orders2' and 'ordersX...', other applications' topics), READ, DESCRIBE and "
                "DELETE on its group and DESCRIBE_CONFIGS on the cluster. Choose application ids that no other "
                "topic name starts with.",
                "services:\n  orders:\n    type: kafka-streams\n    principal: User:orders\n"),
    FindingCode("EA303", "service-and-user-share-a-name", "warning",
                "A user named like a service replaces that service's ACLs index by index.",
                "kafka-gitops keys every generated ACL '<name>-<index>' in one map (DesiredState.putAcls), services "
                "first: the user's n-th ACL replaces the service's n-th, so the service loses those ACLs (and "
                "apply removes them from the cluster). Rename one of them.",
                "services:\n  x:\n    type: application\n    principal: User:x\n    produces: [t]\n"
                "users:\n  x:\n    principal: User:y\n    roles: []\ncustomUserAcls:\n  x:\n    read:\n"
                + _EX_CUSTOM),
    FindingCode("EA304", "custom-acls-of-undefined-names", "warning",
                "customServiceAcls or customUserAcls of a name not defined under services or users are ignored.",
                "StateManager only iterates the defined services and users: custom ACLs under any other name are "
                "validated but never applied (and apply removes them from the cluster). Define the service or "
                "user, or move the ACLs under one.",
                "users:\n  a:\n    principal: User:a\n    roles: []\ncustomUserAcls:\n  a:\n    read:\n" + _EX_CUSTOM
                + "  ghost:\n    read:\n" + _EX_CUSTOM),
    FindingCode("EA305", "custom-name-is-no-wildcard", "warning",
                "A custom ACL's LITERAL name ending in '*' or PREFIXED '*' matches (almost) nothing.",
                "Kafka has no glob: LITERAL 'orders*' matches only the topic named exactly 'orders*', PREFIXED "
                "'*' only names starting with '*'. kafka-gitops passes names through unchanged. Use PREFIXED "
                "'orders' or LITERAL '*'.",
                "customUserAcls:\n  a:\n    read:\n      name: orders*\n      type: TOPIC\n      pattern: LITERAL\n"
                "      operation: READ\n      host: '*'\n      permission: ALLOW\n"
                "users:\n  a:\n    principal: User:a\n    roles: []\n"),
    FindingCode("EA306", "included-file-parts-ignored", "warning",
                "A file named by settings.files holds sections kafka-gitops does not take from it.",
                "ParserService takes only 'services' from the services file, 'topics' from the topics file and "
                "'users' from the users file; their settings, custom ACLs and other sections are ignored.",
                {"state.yaml": "settings:\n  files:\n    services: services.yaml\n",
                 "services.yaml": "services:\n  s:\n    type: application\n    principal: User:s\n    produces: [t]\n"
                                  "customServiceAcls:\n  s:\n    read:\n" + _EX_CUSTOM}),
    FindingCode("EA308", "custom-acl-without-host-or-permission", "warning",
                "A custom ACL without host or permission: kafka-gitops 0.2.15 refuses the file, later builds "
                "default them to '*' and ALLOW.",
                "In kafka-gitops 0.2.15 (the last release) host and permission of a custom ACL are required "
                "(CustomAclDetails: 'Not set'); master since #69 (unreleased) defaults them to '*' and ALLOW, which "
                "is how it is read here. Write both out so that every kafka-gitops build applies the same ACL.",
                "users:\n  a:\n    principal: User:a\n    roles: []\ncustomUserAcls:\n  a:\n    read:\n"
                "      name: orders\n      type: TOPIC\n      pattern: LITERAL\n      operation: READ\n"),
    FindingCode("EA307", "no-acls", "warning",
                "The state file yields no ACL: kafka-gitops apply removes every ACL of the cluster.",
                "kafka-gitops plans the cluster's ACLs against the file (PlanManager.planAcls): every ACL the file "
                "does not generate is removed, unless plan/apply run with --no-delete or --skip-acls.",
                "topics:\n  t:\n    partitions: 1\n    replication: 1\n"),
)
_CODE = {f.code: f for f in FINDINGS}
_SERVICE_LINE = re.compile(r"^[ \t]+(?:principal:|type:[ \t]*[\"']?(?:application|kafka-streams|kafka-connect)\b)", re.M)
_TOP_LINE = re.compile(r"[\"']?([A-Za-z]+)[\"']?[ \t]*:(?:[ \t]|$)")


def sniff(text: str) -> bool:
    """A mapping whose top-level keys are all among kafka-gitops' six (and not a KSM YAML file)."""
    keys = []
    for ln in text.removeprefix("\ufeff")[:65536].splitlines():
        if not ln.strip() or ln.lstrip().startswith("#") or ln.strip() == "---" or ln[0] in " \t-":
            continue
        m = _TOP_LINE.match(ln)
        if m is None or m[1] not in TOP_KEYS:
            return False
        keys.append(m[1])
    if keys == ["services"] and not _SERVICE_LINE.search(text):
        return False  # services alone: a docker-compose file, unless a kafka-gitops service is in sight
    return bool(keys) and not ksm.sniff(text)


@dataclass
class _File:
    path: str
    settings: dict = field(default_factory=dict)
    services: dict = field(default_factory=dict)  # name -> (key node, value node)
    topics: dict = field(default_factory=dict)
    users: dict = field(default_factory=dict)
    custom_services: dict = field(default_factory=dict)  # name -> (key node, [(label, node, fields)])
    custom_users: dict = field(default_factory=dict)
    top: dict = field(default_factory=dict)


class _Reading:
    def __init__(self, source: str, options: Mapping[str, str]) -> None:
        self.source = source
        self.options = options
        self.acl_set = AclSet([], [], source, "kafka-gitops")
        self.tally = WarningTally()
        self.seen: set[AclBinding] = set()

    def alias_warning(self, path: str):
        """``warn(line, message)`` for the aliases of ``path`` (read as text, as Jackson reads them)."""
        return lambda line, message: self.tally.add(
            "YAML aliases (kafka-gitops' YAML parser, Jackson's, reads each as the anchor's name, not its value)",
            f"{path}:{line}", message)

    def warn(self, code: str, path: str, node, message: str) -> None:
        finding = _CODE[code]
        self.tally.add(f"{code} {finding.name}", f"{path}:{y.line(node)}", f"{code} {message}")
        record(self.acl_set, finding, path, y.line(node), node.start_mark.column, message)


def read(text: str, path: str, options: Mapping[str, str] | None = None) -> AclSet:
    """A kafka-gitops state file (and the files its settings.files name) as the ACLs kafka-gitops applies."""
    return read_many([(text, path)], path, options)


def read_many(files: Iterable[tuple[str, str]], source: str, options: Mapping[str, str] | None = None) -> AclSet:
    """Several state files as one ACL set; a file that another one names in settings.files is read
    through that one only."""
    reading = _Reading(source, options or {})
    given = {os.path.abspath(p): (t, p) for t, p in files}
    parsed = {k: _parse(t, p, reading) for k, (t, p) in given.items()}
    included = {os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(f.path)), name))
                for f in parsed.values() for name, _ in _settings_files(f).values()}
    states = [state for key, state in parsed.items() if key not in included or len(parsed) == 1]
    for state in states:
        _state(reading, state, dict(parsed))
    if len(states) > 1:
        reading.acl_set.warnings.append(
            f"{source}: {len(states)} kafka-gitops state files ({', '.join(s.path for s in states[:3])}"
            f"{', ...' if len(states) > 3 else ''}) are read as one ACL set: kafka-gitops applies one state file, "
            "and removes every ACL it does not generate")
    reading.acl_set.warnings.extend(reading.tally.lines())
    if not reading.acl_set.bindings:
        said = "no ACLs: kafka-gitops apply removes every ACL of the cluster (unless --no-delete or --skip-acls)"
        reading.acl_set.warnings.append(f"{source}: EA307 {said}")
        record(reading.acl_set, _CODE["EA307"], source, 1, 0, said)
    return reading.acl_set


# -- parsing (ParserService: Jackson into DesiredStateFile) ----------------------------------------------

def _boolean(node, path: str, what: str) -> bool:
    if node.id == "scalar" and node.value.lower() in ("true", "false"):
        return node.value.lower() == "true"
    raise y.error(node, path, f"{what} must be true or false, got {y.kind_of(node)}")


def _integer(node, path: str, what: str) -> int:
    if node.id == "scalar" and re.fullmatch(r"[-+]?\d+", node.value):
        digits = node.value.lstrip("+-").lstrip("0")
        value = int(node.value) if len(digits) <= 10 else None  # never int() of thousands of digits
        if value is None or not -2**31 <= value < 2**31:  # Jackson binds an Integer
            raise y.error(node, path, f"Numeric value ({node.value[:20]}{'...' if len(node.value) > 20 else ''}) out of "
                          f"range of int (-2147483648 - 2147483647): [{what}]")
        return value
    raise y.error(node, path, f"Value '{node.value if node.id == 'scalar' else '...'}' is not a valid format for: "
                  f"[{what}] (an integer)")


def _parse(raw: str, path: str, reading: "_Reading") -> _File:
    # ParserService reads with Jackson's YAMLFactory: an alias is the anchor's name, as text
    docs = list(y.documents(raw.removeprefix("\ufeff"), path, JACKSON, reading.alias_warning(path)))
    if len(docs) > 1:  # Jackson's readValue reads the first document only
        raise y.error(docs[1], path, "a kafka-gitops state file holds one YAML document")
    state = _File(path)
    if not docs:
        return state
    state.top = top = fields(docs[0], path, "state file", TOP_KEYS)
    state.settings = _settings(top.get("settings"), path)
    for key, attr in (("services", "services"), ("topics", "topics"), ("users", "users")):
        if key in top and not y.is_null(top[key]):
            setattr(state, attr, keyed(top[key], path, key))
    for key, attr in (("customServiceAcls", "custom_services"), ("customUserAcls", "custom_users")):
        if key in top and not y.is_null(top[key]):
            setattr(state, attr, {name: (kn, _customs(v, path, f"{key} -> {name}"))
                                  for name, (kn, v) in keyed(top[key], path, key).items()})
    return state


def _settings(node, path: str) -> dict:
    """The settings that matter here: describe ACLs, ccloud, files, the default replication."""
    if node is None or y.is_null(node):
        return {}
    top = fields(node, path, "settings", ("ccloud", "topics", "services", "files"))
    out: dict = {}
    if not y.is_null(top.get("ccloud")) and "ccloud" in top:
        ccloud = fields(top["ccloud"], path, "settings -> ccloud", ("enabled",), ("enabled",))
        if _boolean(ccloud["enabled"], path, "settings -> ccloud -> enabled"):
            out["ccloud"] = ccloud["enabled"]
    if "topics" in top and not y.is_null(top["topics"]):
        topics = fields(top["topics"], path, "settings -> topics", ("defaults", "blacklist"))
        if "defaults" in topics and not y.is_null(topics["defaults"]):
            defaults = fields(topics["defaults"], path, "settings -> topics -> defaults", ("replication",))
            if "replication" in defaults and not y.is_null(defaults["replication"]):
                out["replication"] = (_integer(defaults["replication"], path, "replication"), defaults["replication"])
        if "blacklist" in topics and not y.is_null(topics["blacklist"]):
            texts(fields(topics["blacklist"], path, "settings -> topics -> blacklist", ("prefixed",)),
                  "prefixed", path, "settings -> topics -> blacklist")
    if "services" in top and not y.is_null(top["services"]):
        services = fields(top["services"], path, "settings -> services", ("acls",))
        if "acls" in services and not y.is_null(services["acls"]):
            acls = fields(services["acls"], path, "settings -> services -> acls", ("describeTopicEnabled",))
            node = acls.get("describeTopicEnabled")
            out["describe"] = node is not None and not y.is_null(node) and _boolean(
                node, path, "settings -> services -> acls -> describeTopicEnabled")
    if "files" in top and not y.is_null(top["files"]):
        files = fields(top["files"], path, "settings -> files", ("services", "topics", "users"))
        out["files"] = {k: (text(v, path, f"settings -> files -> {k}"), v) for k, v in files.items()
                        if not y.is_null(v)}
    return out


def _settings_files(state: _File) -> dict:
    return state.settings.get("files", {})


def _customs(node, path: str, what: str) -> list[tuple[str, object, dict]]:
    """``Map<String, CustomAclDetails>``: required name, type, pattern, operation; enums checked later."""
    if y.is_null(node):
        return []
    out = []
    for label, (key_node, value) in keyed(node, path, what).items():
        entries = fields(value, path, f"{what} -> {label}", CUSTOM_KEYS, ("name", "type", "pattern", "operation"))
        out.append((label, key_node, entries))
    return out


# -- the desired state (StateManager.getDesiredState) ------------------------------------------------------

def _state(reading: _Reading, state: _File, parsed: dict) -> None:
    services, topics, users = dict(state.services), dict(state.topics), dict(state.users)
    for kind, (name, node) in _settings_files(state).items():
        included = _included(reading, state, kind, name, node, parsed)
        {"services": services, "topics": topics, "users": users}[kind].update(getattr(included, kind))
    paths = _paths(parsed)
    _validate_topics(state, topics, paths)
    for section, customs in (("service", state.custom_services), ("user", state.custom_users)):
        for owner, (_, entries) in customs.items():
            for label, key_node, entries_ in entries:
                _validate_custom(state.path, f"{section} '{owner}'", label, key_node, entries_)
    describe = bool(state.settings.get("describe"))
    accounts = _accounts(reading, state) if "ccloud" in state.settings else None
    acls: dict[str, tuple[AclBinding, str]] = {}
    owners: dict[str, str] = {}
    for name, (key_node, node) in services.items():
        path = paths.get(id(key_node), state.path)
        generated = expand_service(name, key_node, node, path, describe)
        internal = [a for a in generated if a.pattern_type is PatternType.PREFIXED]
        if internal:
            reading.warn("EA302", path, internal[0].node, f"kafka-streams service {name}: "
                         f"{', '.join(a.operation.name for a in internal)} on every topic starting with "
                         f"{internal[0].resource_name!r} (PREFIXED, no separator) and DESCRIBE_CONFIGS on the cluster: "
                         f"{len(internal) + 4} binding(s) (KafkaStreamsService.getInternalAcls)")
        custom = state.custom_services.get(name, (None, []))[1]
        principal = None if accounts is None else _account(reading, accounts, name, key_node, path, state)
        _put_all(reading, acls, owners, name, "service", generated, custom, principal, state.path, path)
    for name, (key_node, node) in users.items():
        path = paths.get(id(key_node), state.path)
        user = fields(node, path, f"users -> {name}", ("principal", "roles"))
        own, own_node = optional_text(user, "principal", path, f"users -> {name}")
        if accounts is not None:
            own = _account(reading, accounts, f"user-{name}", key_node, path, state)
        elif own is None:
            raise y.error(key_node, path, f"Missing principal for user {name} (kafka-gitops: "
                          "MissingConfigurationException)")
        generated = []
        for role, role_node in texts(user, "roles", path, f"users -> {name}"):
            role_acls = expand_role(role, role_node, path, name)
            reading.warn("EA301", path, role_node, f"user {name}'s role {role} grants "
                         f"{', '.join(sorted({a.operation.name for a in role_acls}))} on every topic/group ('*'): "
                         f"{len(role_acls)} binding(s) (RoleService)")
            generated.extend(a.with_principal(own) for a in role_acls)
        custom = state.custom_users.get(name, (None, []))[1]
        _put_all(reading, acls, owners, name, "user", generated, custom,
                 own if accounts is not None else None, state.path, path, default_principal=own)
    _ignored_customs(reading, state, services, users)
    for binding, origin in acls.values():
        if binding not in reading.seen:
            reading.seen.add(binding)
            reading.acl_set.add(binding, origin)


def _paths(parsed: dict) -> dict[int, str]:
    """The file each service, user and topic node comes from (by node identity)."""
    return {id(kn): f.path for f in parsed.values() for section in (f.services, f.users, f.topics)
            for kn, _ in section.values()}


def _included(reading: _Reading, state: _File, kind: str, name: str, node, parsed: dict) -> _File:
    path = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(state.path)), name))
    if path not in parsed:
        if not os.path.isfile(path):
            raise y.error(node, state.path, f"{kind.capitalize()} file '{name}' could not be found (relative to "
                          "the state file)")
        shown = os.path.join(os.path.dirname(state.path), name)
        parsed[path] = _parse(read_text(shown), shown, reading)
    included = parsed[path]
    for key, value in included.top.items():
        if key != kind and not y.is_null(value):
            reading.warn("EA306", included.path, value, f"{key} in {included.path} is ignored: kafka-gitops "
                         f"takes only its {kind} (it is settings.files.{kind} of {state.path})")
    return included


def _validate_topics(state: _File, topics: dict, paths: dict[int, str]) -> None:
    """StateManager.validateTopics: a topic needs a replication unless the settings give a default."""
    default = state.settings.get("replication")
    if default is not None and default[0] < 1:
        raise y.error(default[1], state.path, "The default replication factor must be a positive integer.")
    for name, (key_node, node) in topics.items():
        path = paths.get(id(key_node), state.path)
        topic = fields(node, path, f"topics -> {name}", ("partitions", "replication", "configs"), ("partitions",))
        if default is None and ("replication" not in topic or y.is_null(topic["replication"])):
            raise y.error(key_node, path, f"Not set: [replication] in state file definition: topics -> {name}")


def _validate_custom(path: str, owner: str, label: str, key_node, entries: dict) -> None:
    """CustomAclDetails.validate: exact Kafka 2.4 enum names; MATCH passes it but Kafka refuses it."""
    for key, values, extra in (("type", RESOURCE_TYPES, ()), ("pattern", PATTERNS, ("MATCH",)),
                               ("operation", OPERATIONS, ()), ("permission", PERMISSIONS, ())):
        if key not in entries or y.is_null(entries[key]):
            continue
        value = text(entries[key], path, f"{label} -> {key}")
        if value == "MATCH" and key == "pattern":
            raise y.error(entries[key], path, f"Custom ACL definition for {owner} ({label}): pattern MATCH passes "
                          "kafka-gitops' validation but Kafka refuses to create it (ResourcePattern: patternType "
                          "must not be MATCH)")
        if value not in values:
            raise y.error(entries[key], path, f"Custom ACL definition for {owner} is invalid for field '{key}': "
                          f"{value!r}. Allowed values: [{', '.join((*extra, *values))}]")


def _custom_acl(path: str, label: str, entries: dict, construct: str) -> Acl:
    name, _ = optional_text(entries, "name", path, label)
    host, _ = optional_text(entries, "host", path, label)
    permission, _ = optional_text(entries, "permission", path, label)
    return Acl(RESOURCE_TYPES[text(entries["type"], path, label)], name or "",
               PATTERNS[text(entries["pattern"], path, label)], OPERATIONS[text(entries["operation"], path, label)],
               PERMISSIONS[permission or "ALLOW"], "*" if host is None else host, entries["type"], construct)


def _put_all(reading: _Reading, acls: dict, owners: dict, name: str, kind: str, generated: list[Acl],
             custom: list, principal: str | None, state_path: str, path: str, default_principal: str | None = None
             ) -> None:
    """Put one service's or user's ACLs under ``<name>-<index>``, as StateManager does."""
    out = [(a, a.principal if principal is None else principal, path) for a in generated]
    section = "customServiceAcls" if kind == "service" else "customUserAcls"
    who: str | None
    for label, key_node, entries in custom:
        acl = _custom_acl(state_path, label, entries, f"{section} entry {label} of {kind} {name}")
        acl.node = key_node
        own, _ = optional_text(entries, "principal", state_path, label)
        if principal is not None:
            who = principal
        elif own is not None:
            who = own
        elif default_principal is not None:
            who = default_principal
        else:
            raise y.error(key_node, state_path, f"Missing principal for custom service ACL {label} (kafka-gitops: "
                          "MissingConfigurationException)")
        _narrow_name(reading, state_path, key_node, acl, label)
        missing = [k for k in ("host", "permission") if k not in entries or y.is_null(entries[k])]
        if missing:
            reading.warn("EA308", state_path, key_node, f"{section} entry {label} of {kind} {name} has no "
                         f"{' and no '.join(missing)}: kafka-gitops 0.2.15 refuses it ('Not set'); read as later builds "
                         "do ('*', ALLOW)")
        out.append((acl, who, state_path))
    for index, (acl, who, where) in enumerate(out):
        if who is None:
            raise y.error(acl.node, where, f"Missing required configuration: Not set: [principal] for service: {name}")
        key = f"{name}-{index}"
        if key in owners and owners[key] != kind:
            reading.warn("EA303", where, acl.node, f"{kind} {name}'s ACL {index} replaces the {owners[key]} "
                         f"{name}'s ({acls[key][0]}): DesiredState keys both '{key}'")
        owners[key] = kind
        binding = AclBinding(acl.resource_type, acl.resource_name, acl.pattern_type, who, acl.host, acl.operation,
                             acl.permission)
        acls[key] = (binding, f"{where}:{y.line(acl.node)} ({acl.construct})")


def _narrow_name(reading: _Reading, path: str, node, acl: Acl, label: str) -> None:
    if acl.pattern_type is PatternType.PREFIXED and acl.resource_name == "*":
        reading.warn("EA305", path, node, f"{label}: PREFIXED '*' matches only names starting with '*' (not every "
                     "name: that is LITERAL '*')")
    elif acl.pattern_type is PatternType.LITERAL and acl.resource_name.endswith("*") and acl.resource_name != "*":
        reading.warn("EA305", path, node, f"{label}: LITERAL {acl.resource_name!r} matches only that exact name "
                     "(Kafka has no glob; PREFIXED without the '*' matches the names it starts)")


def _ignored_customs(reading: _Reading, state: _File, services: dict, users: dict) -> None:
    for section, customs, defined in (("customServiceAcls", state.custom_services, services),
                                      ("customUserAcls", state.custom_users, users)):
        for owner, (key_node, entries) in customs.items():
            if owner not in defined and entries:
                reading.warn("EA304", state.path, key_node, f"{section} of {owner!r}: no such "
                             f"{'service' if section == 'customServiceAcls' else 'user'} is defined, so "
                             f"kafka-gitops ignores its {len(entries)} ACL(s)")


# -- Confluent Cloud (StateManager.generateConfluentCloud*Acls) --------------------------------------------

def _accounts(reading: _Reading, state: _File) -> dict[str, str]:
    value = reading.options.get("ccloud-service-accounts")
    node = state.settings["ccloud"]
    if value is None:
        raise y.error(node, state.path, "settings.ccloud.enabled: kafka-gitops takes every principal from the "
                      "Confluent Cloud service-account ids (ccloud service-account list); give them with --option "
                      "ccloud-service-accounts=NAME=ID,... or =FILE (that command's -o json output)")
    if "=" not in value and os.path.isfile(value):
        # the strict JSON reader: duplicate keys and excessive nesting are located errors
        listed = loads(read_text(value), value, expected="the JSON of `ccloud service-account list -o json`")
        # ids are numbers in the ccloud CLI kafka-gitops calls (ServiceAccount's Integer id), strings in later CLIs
        if not isinstance(listed, list) or not all(
                isinstance(a, dict) and isinstance(a.get("id"), (str, int)) and not isinstance(a.get("id"), bool)
                and isinstance(a.get("name"), str) for a in listed):
            raise InputError("expected the JSON of `ccloud service-account list -o json` (a list of objects with an "
                             "id and a string name)", value)
        return {a["name"]: str(a["id"]) for a in listed}
    out = {}
    for pair in value.split(","):
        name, sep, ident = pair.partition("=")
        if not sep or not name or not ident:
            raise InputError(f"ccloud-service-accounts: {pair!r} is not NAME=ID (nor a file)", "--option")
        out[name] = ident
    return out


def _account(reading: _Reading, accounts: dict, name: str, node, path: str, state: _File) -> str:
    if name not in accounts:
        raise y.error(node, path, f"Service account '{name}' was not found (settings.ccloud: kafka-gitops needs a "
                      "Confluent Cloud service account of that name; --option ccloud-service-accounts has none)")
    return f"User:{accounts[name]}"
