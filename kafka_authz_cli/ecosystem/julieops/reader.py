"""JulieOps topologies (kafka-ops/julie): the Kafka ACLs its default ACL provider creates for them.

Followed: JulieOps 4.4.1 (tag ``v4.4.1``, ``54bf9bab``; the code after it, to ``e75d005e``, changes
no ACL). Read as ``TopologyObjectBuilder`` and the serdes read a file or a directory; expanded as
``AccessControlManager.updatePlan`` with ``AclsBindingsBuilder`` (``acl_provider``), with the
settings of ``--option`` (``builder_config``). Every binding is ALLOW; JulieOps keeps a set.

- ``context`` is required; every other top-level key but ``projects``, ``platform`` and
  ``special_topics`` is a prefix component, in file order. Project prefix (``ProjectImpl.namePrefix``):
  ``context.<other values>.<project>.``, a trailing separator included; a topic's full name is that
  prefix, its name, and ``.<dataType>`` if given (``Topic.toString``).
- A directory: its files (not its subdirectories, as 4.4.1), in name order, one topology per
  context; projects of later files with the same context join the first file's topology, whose
  platform and special topics are the only ones read (``TopologyObjectBuilder.build``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Mapping

from kafka_authz_cli.acl import AclSet
from kafka_authz_cli.codes import FindingCode
from kafka_authz_cli.ecosystem import yamlnodes as y
from kafka_authz_cli.ecosystem.julieops import acl_provider
from kafka_authz_cli.ecosystem.julieops import topology as m
from kafka_authz_cli.ecosystem.julieops.builder_config import config
from kafka_authz_cli.ecosystem.source_reading import record
from kafka_authz_cli.ecosystem.yaml_aliases import JACKSON
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import WarningTally, brief

__all__ = ["FINDINGS", "sniff", "read", "read_many"]

_EX = 'context: "c"\nprojects:\n  - name: "p"\n    topics:\n      - name: "t"\n'
FINDINGS = (
    FindingCode("EA401", "julieops-consumer-any-group", "warning",
                "a consumer without group may use every consumer group",
                "JulieOps gives a consumer with no `group` READ on GROUP `*` (Consumer.groupString): it may "
                "join, and commit offsets into, any team's consumer group.",
                _EX + '    consumers:\n      - principal: "User:app"\n'),
    FindingCode("EA402", "julieops-app-without-application-id", "warning",
                "a streams or ksql app without applicationId gets ALL on the whole project prefix",
                "Without `applicationId` the prefix of a streams or ksql app is the project prefix "
                "(KStreamsAclBindingsBuilder, KSqlAppAclBindingsBuilder): ALL, including DELETE and ALTER_CONFIGS, "
                "on every topic of the project, present and future, and its groups.",
                _EX + '    streams:\n      - principal: "User:app"\n        topics:\n          read: ["x"]\n'),
    FindingCode("EA403", "julieops-role-deny-is-allow", "warning",
                "a custom role ACL that is not ALLOW is created as ALLOW",
                "AclsBindingsBuilder.buildBindingsForJulieRole reads `permissionType` and creates every role ACL "
                "with ALLOW: a role written to DENY grants. (The example needs a roles file whose `app` role "
                "has an acl with permissionType DENY, given as --option julie.roles=FILE.)",
                _EX + '    app:\n      - principal: "User:r"\n        topic: "t."\n'),
    FindingCode("EA404", "julieops-connector-cluster-create", "warning",
                "a connector may create any topic",
                "With topology.connector.allow.topic.create (default true) every connector gets CREATE on the "
                "cluster (AclsBindingsBuilder.buildBindingsForConnect): it may create any topic.",
                _EX + '    connectors:\n      - principal: "User:c"\n        group: "g"\n        status_topic: "s"\n'
                      '        offset_topic: "o"\n        configs_topic: "f"\n'),
    FindingCode("EA405", "julieops-connector-shared-defaults", "warning",
                "a connector without its own internal topics or group shares the default ones",
                "A connector without `status_topic`, `offset_topic`, `configs_topic` or `group` gets READ and "
                "WRITE on `connect-status`, `connect-offsets`, `connect-configs` and READ on group `connect-cluster` "
                "(Connector's defaults), the names every other such connector shares. (The example needs "
                "--option topology.connector.allow.topic.create=false, else EA404 comes with it.)",
                _EX + '    connectors:\n      - principal: "User:c"\n', ),
    FindingCode("EA406", "julieops-idempotence-false", "warning",
                "idempotence: false still grants IDEMPOTENT_WRITE",
                "A producer with the `idempotence` key gets IDEMPOTENT_WRITE on the cluster whatever its value "
                "(AclsBindingsBuilder checks Optional.isPresent).",
                _EX + '    producers:\n      - principal: "User:p"\n        idempotence: false\n'),
    FindingCode("EA407", "julieops-optimized-prefix", "warning",
                "optimized ACLs are PREFIXED on the project prefix",
                "With topology.acls.optimized=true, project-level consumers and producers get PREFIXED ACLs on "
                "the project prefix: every future topic of the project, and any topic whose name merely starts "
                "with it. (The example needs --option topology.acls.optimized=true.)",
                _EX + '    producers:\n      - principal: "User:p"\n'),
    FindingCode("EA408", "julieops-application-id-prefix", "warning",
                "a streams or ksql app gets ALL on every topic starting with its applicationId",
                "The applicationId is used as a PREFIXED name without a separator: app `orders` gets ALL on "
                "`orders-archive`, `ordersX`, any topic that starts with it.",
                _EX + '    streams:\n      - principal: "User:app"\n        applicationId: "app"\n'
                      '        topics:\n          read: ["x"]\n'),
    FindingCode("EA409", "julieops-control-center-wildcards", "warning",
                "a Control Center instance may create any topic and describe every group",
                "AclsBindingsBuilder gives each platform.control_center instance CREATE on TOPIC `*` and "
                "DESCRIBE on GROUP `*`.",
                'context: "c"\nplatform:\n  control_center:\n    instances:\n      - principal: "User:cc"\n'
                '        appId: "cc"\n'),
)
CODES = {f.code: f for f in FINDINGS}
#: the warning kind of aliases (Jackson reads each as the anchor's name)
ALIASES = "YAML aliases (JulieOps' YAML parser, Jackson's, reads each as the anchor's name, not its value)"

_YAML_CONTEXT = re.compile(r"^[\"']?context[\"']?[ \t]*:", re.M)
_YAML_OTHER = re.compile(r"^[\"']?(?:projects|platform)[\"']?[ \t]*:", re.M)
_JSON_CONTEXT = re.compile(r'"context"\s*:')
_JSON_OTHER = re.compile(r'"(?:projects|platform)"\s*:')


def sniff(text: str) -> bool:
    """A mapping with ``context`` and ``projects`` (or ``platform``), in YAML or JSON, wherever in the file
    (a topology whose ``projects`` come after a long context or comments is one too)."""
    head = text.lstrip("\ufeff")
    if head.lstrip().startswith("{"):
        return bool(_JSON_CONTEXT.search(head) and _JSON_OTHER.search(head))
    return bool(_YAML_CONTEXT.search(head) and _YAML_OTHER.search(head))


class Reading:
    """One source: its topologies, warnings (one line per kind) and bindings."""

    def __init__(self, source: str, options: Mapping[str, str] | None) -> None:
        self.source = source
        self.cfg = config(options)
        self.tally = WarningTally()
        self.acl_set = AclSet([], [], source, "julieops")
        #: the bindings made so far (JulieOps keeps a set), and how many the managed prefixes dropped
        self.seen: set = set()
        self.unmanaged = 0

    def warn(self, kind: str, path: str, line: int | None, message: str) -> None:
        self.tally.add(kind, f"{path}:{line}" if line else path, message)

    def finding(self, code: str, path: str, line: int | None, message: str) -> None:
        self.warn(f"{code} {CODES[code].summary}", path, line, f"{code} {message}")
        record(self.acl_set, CODES[code], path, line or 1, 0, message)


def read(text: str, path: str, options: Mapping[str, str] | None = None) -> AclSet:
    """A JulieOps topology file as the ACLs JulieOps creates for it."""
    return read_many([(text, path)], path, options)


def read_many(files: Iterable[tuple[str, str]], source: str, options: Mapping[str, str] | None = None) -> AclSet:
    """A directory of topologies as ``TopologyObjectBuilder.build`` merges them."""
    reading = Reading(source, options)
    merged: dict[str, m.Topology] = {}
    root = Path(source)
    skipped = 0
    for text, path in files:
        if path != source and Path(path).parent != root:
            skipped += 1  # Files.list: JulieOps 4.4.1 reads no subdirectory
            continue
        topology = parse(reading, text.removeprefix("\ufeff"), path)
        _merge(reading, merged, topology)
    if skipped:
        reading.acl_set.warnings.append(f"{source}: {skipped} file(s) in subdirectories skipped: JulieOps 4.4.1 "
                                        "reads only the directory's own files")
    for topology in merged.values():
        acl_provider.expand(reading, topology)
    reading.acl_set.warnings.extend(reading.tally.lines())
    return reading.acl_set


def _merge(reading: Reading, merged: dict, topology: m.Topology) -> None:
    main = merged.get(topology.context)
    if main is None:
        if merged and len(merged) == 1 and not reading.cfg.multiple_contexts:
            raise InputError(f"context {brief(topology.context)}: topologies from different contexts are not allowed "
                             "in one directory (JulieOps' TopologyObjectBuilder; "
                             "julie.multiple.context.per.dir.enabled=true allows them)", topology.path, topology.line)
        merged[topology.context] = topology
        return
    names = main.project_names  # kept as projects are added: a directory of 50,000 files is not quadratic
    for project in topology.projects:
        if project.name.lower() in names:
            raise InputError(f"project {brief(project.name)} is already in context {brief(main.context)} (first file "
                             f"{main.path}): JulieOps does not merge projects", project.path, project.line)
    for project in topology.projects:
        main.add_project(project)
    for key in topology.order:
        if key not in main.order:
            # appended to the order every project of the context shares, but absent from the context each
            # project copied when it was added: ProjectImpl.namePrefix then appends "null"
            main.order.append(key)
            main.others[key] = topology.full_context().get(key)
            reading.warn("files adding top-level keys to a context read before (project prefixes hold 'null')",
                         topology.path, topology.line,
                         f"{brief(key)} is not a top-level key of {main.path}, the first file of context "
                         f"{brief(main.context)}: JulieOps appends it to that context's prefix order, so the project "
                         "prefixes used by streams and ksql apps without applicationId and by optimized ACLs "
                         "hold 'null' in its place")
    if topology.platform or topology.special_topics:
        reading.warn("files whose platform or special_topics JulieOps ignores", topology.path,
                     topology.platform_line or topology.line,
                     f"context {brief(topology.context)} was first read from {main.path}: JulieOps keeps only that "
                     "file's platform and special_topics; these create no ACL")


def parse(reading: Reading, text: str, path: str) -> m.Topology:
    """One file as ``TopologyCustomDeserializer`` reads it."""
    docs = list(y.documents(text, path, JACKSON, lambda line, message: reading.warn(ALIASES, path, line, message)))
    if not docs:
        raise InputError("an empty file is no topology (JulieOps needs context)", path)
    if len(docs) > 1:  # ObjectMapper.readValue reads one value; trailing documents are not looked at
        reading.warn("files with several YAML documents (JulieOps reads only the first)", path, y.line(docs[1]),
                     f"{len(docs) - 1} more document(s) after the first: JulieOps ignores them (split them into "
                     "files of a directory)")
    node = docs[0]
    _last_wins(reading, node, path)
    top = y.mapping(node, path, "a JulieOps topology")
    if "context" not in top:
        raise y.error(node, path, "context is a required field in the topology (JulieOps' "
                      "JsonSerdesUtils.validateRequiresKeys)")
    topology = m.Topology(m.as_text(top["context"]), path, y.line(node))
    for key, value in top.items():
        if key not in m.NOT_PREFIX:
            topology.order.append(key)
            topology.others[key] = m.as_text(value)
            if value.id != "scalar":
                reading.warn("top-level keys that are not text (a prefix component, read as empty)", path,
                             y.line(value), f"{brief(key)} is a prefix component of every topic name; JulieOps reads "
                             f"{y.kind_of(value)} as an empty one")
    if "platform" in top and not y.is_null(top["platform"]):
        topology.platform_line = y.line(top["platform"])
        _platform(topology, top["platform"], path)
    projects = top.get("projects")
    if projects is not None and not y.is_null(projects):
        for node_p in y.sequence(projects, path, "projects"):
            project = _project(reading, topology, node_p, path)
            topology.add_project(project)
    special = top.get("special_topics")
    if special is not None and not y.is_null(special):
        for node_t in y.sequence(special, path, "special_topics"):
            topic = _topic(reading, node_t, path, "special topic", "name")
            topic.what = f"special topic {m.shown(topic.name)}"
            topology.special_topics.append(topic)
    return topology


def _last_wins(reading: Reading, node, path: str) -> None:
    """Jackson's tree keeps the last of a key given twice (no duplicate detection): drop the earlier
    ones, and say so."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.id == "sequence":
            stack.extend(current.value)
        elif current.id == "mapping":
            last = {k.value: i for i, (k, _) in enumerate(current.value) if k.id == "scalar"}
            for i, (key, _) in enumerate(current.value):
                if key.id == "scalar" and last[key.value] != i:
                    reading.warn("keys given twice (JulieOps reads the last one)", path, y.line(key),
                                 f"{brief(key.value)} is given again further down: JulieOps reads only the last one")
            current.value = [(k, v) for i, (k, v) in enumerate(current.value)
                             if k.id != "scalar" or last[k.value] == i]
            stack.extend(v for _, v in current.value)


_PLATFORM = {"kafka": ("instances", "rbac"), "kafka_connect": ("rbac",), "schema_registry": ("instances", "rbac"),
             "control_center": ("instances",), "ksql": ("instances",)}
_INSTANCE_KIND = {"schema_registry": "schema_registry", "control_center": "control_center", "ksql": "ksql_server"}


def _platform(topology: m.Topology, node, path: str) -> None:
    platform = y.mapping(node, path, "platform")
    for key, value in platform.items():
        if key not in _PLATFORM or y.is_null(value):
            continue  # TopologyCustomDeserializer reads only these keys
        entries = y.mapping(value, path, f"platform.{key}")
        for field_name in entries:
            if field_name not in _PLATFORM[key]:
                raise y.error(value, path, f"platform.{key}: unknown field {field_name!r} (JulieOps' parser refuses "
                              f"it; known: {', '.join(_PLATFORM[key])})")
        kind = _INSTANCE_KIND.get(key)
        if kind and "instances" in entries:
            topology.platform[kind] = m.users(entries["instances"], path, kind, "instances", f"platform.{key}")


def _project(reading: Reading, topology: m.Topology, node, path: str) -> m.Project:
    entries = y.mapping(node, path, "a project")
    if "name" not in entries:
        raise y.error(node, path, "a project has no name (JulieOps fails reading it)")
    name = m.as_text(entries["name"])
    project = m.Project(name, path, y.line(node))
    owner = f"project {m.shown(name)}"  # in every origin of the project: never a whole 10 MB name
    for key, value in entries.items():
        if key in ("name", "topics"):
            continue
        if key == "rbac" or key.lower() == "rbac":
            if not y.is_null(value):
                project.rbac_only.append((y.line(value), "rbac"))
            continue
        if key in ("connectors", "ksql"):
            value = _access_control(reading, project, key, value, path)
        if key == "schemas":
            # Confluent RBAC only: the ACL provider reads nothing of it (not even its principals)
            if not y.is_null(value) and y.sequence(value, path, f"schemas of {owner}"):
                project.rbac_only.append((y.line(value), "schemas"))
            continue
        kind = key if key in m.CORE_KEYS else "other"
        listed = m.users(value, path, kind, key, owner)
        if kind == "other":
            project.others[key] = (y.line(entries_key_line(node, key)), listed)
        else:
            project.users[key] = listed
    # ProjectImpl.addTopic sets each topic's prefix from the file's own topology
    project.prefix_context = topology.full_context()
    project.prefix_context["project"] = name
    project.order = topology.order
    topics = entries.get("topics")
    if topics is not None and not y.is_null(topics):
        for node_t in y.sequence(topics, path, f"topics of {owner}"):
            topic = _topic(reading, node_t, path, owner, reading.cfg.topic_format)
            _add_topic(reading, project, topic)
    return project


def entries_key_line(node, key: str):
    """The key node of ``key`` in a mapping node (for the line a custom role is named at)."""
    return next(k for k, _ in node.value if k.value == key)


def _access_control(reading: Reading, project: m.Project, key: str, value, path: str):
    """``doKafkaConnectElements``/``doKSqlElements``: a list, or an object whose ``access_control``
    holds it (its ``artefacts``/``artifacts`` deploy connectors and queries, no ACL)."""
    if value.id != "mapping":
        return value
    entries = y.mapping(value, path, key)
    if "access_control" in entries:
        return entries["access_control"]
    # no access_control: Jackson reads a null entry per key; JulieOps drops a single one (its "hack" for
    # connectors, a null ksql app adds nothing), more than one fails
    if key == "connectors" and len(entries) > 1:
        raise y.error(value, path, f"connectors of project {project.name}: an object without access_control "
                      "holding several keys (JulieOps fails on it)")
    return None


def _topic(reading: Reading, node, path: str, owner: str, pattern: str) -> m.Topic:
    """``TopicCustomDeserializer``: name (required), dataType, topic-level consumers and producers."""
    entries = y.mapping(node, path, "a topic")
    if "name" not in entries:
        raise y.error(node, path, "name is a required field in the topology (a topic without name)")
    name = m.as_text(entries["name"])
    where = f"topic {m.shown(name)} of {owner}" if owner != "special topic" else f"special topic {m.shown(name)}"
    data_type = m.as_text(entries["dataType"]) if "dataType" in entries else None
    consumers = m.users(entries.get("consumers"), path, "consumers", "consumers", where)
    producers = m.users(entries.get("producers"), path, "producers", "producers", where)
    if "plan" in entries:
        reading.warn("topics naming a plan (JulieOps needs its plans file; plans change no ACL)", path,
                     y.line(entries["plan"]), f"{where} uses plan {m.as_text(entries['plan'])!r}: JulieOps refuses "
                     "the topology without its --plans file; plans set topic configs only, no ACL")
    topic = m.Topic(name, data_type, consumers, producers, path, y.line(node), pattern)
    topic.what = where
    return topic


#: Kafka's longest topic name (org.apache.kafka.common.internals.Topic.MAX_NAME_LENGTH)
TOPIC_MAX = 249
_TOPIC_NAME = re.compile(r"^[\x00-\x7F._-]+$")


def _add_topic(reading: Reading, project: m.Project, topic: m.Topic) -> None:
    """``ProjectImpl.addTopic``, and the dead-letter topic ``parseProject`` adds after it."""
    cfg = reading.cfg
    project.topics.append(_prefixed(reading, project, topic))
    if cfg.dlq_generate:
        name = _full_name(reading, topic)
        if (not cfg.dlq_allow or any(p.fullmatch(name) for p in cfg.dlq_allow)) and \
                not any(p.fullmatch(name) for p in cfg.dlq_deny):
            dlq = m.Topic(topic.name, topic.data_type, topic.consumers, topic.producers, topic.path, topic.line,
                          cfg.dlq_format, dlq=cfg.dlq_label, what=f"dead-letter topic of {topic.what}")
            project.topics.append(_prefixed(reading, project, dlq))


def _prefixed(reading: Reading, project: m.Project, topic: m.Topic) -> m.Topic:
    topic.project_prefix = _render(reading, topic, lambda: project.name_prefix(reading.cfg))
    topic.context = project.prefix_context
    name = _full_name(reading, topic)
    if len(name) > TOPIC_MAX:  # JulieOps creates its topics before their ACLs, and Kafka refuses such a name
        raise InputError(f"topic name {brief(name)} is longer than Kafka's {TOPIC_MAX} characters (Topic.validate): "
                         "JulieOps fails creating the topic, before any ACL", topic.path, topic.line)
    if not _TOPIC_NAME.match(name):  # TopologyCustomDeserializer.validateEncodingForTopicName
        raise InputError(f"topic name {brief(name)} is illegal: it contains a character other than ASCII "
                         "alphanumerics, '.', '_' and '-' (JulieOps refuses the topology)", topic.path, topic.line)
    return topic


def _full_name(reading: Reading, topic: m.Topic) -> str:
    return _render(reading, topic, lambda: topic.full_name(reading.cfg))


def _render(reading: Reading, topic: m.Topic, make) -> str:
    try:
        return make()
    except ValueError as exc:
        raise InputError(f"{exc} (topic {topic.name})", topic.path, topic.line) from None
