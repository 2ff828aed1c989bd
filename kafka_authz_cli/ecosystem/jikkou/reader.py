"""Jikkou ``KafkaPrincipalAuthorization`` and ``KafkaPrincipalRole`` resources: the bindings Jikkou creates.

Followed: Jikkou 1.1.0 (streamthoughts/jikkou tag ``v1.1.0``, ``providers/jikkou-provider-kafka``), which
serves these kinds as ``kafka.jikkou.io/v1`` only and reads any other version of the group (``v1beta2``, what
its docs still show) as v1 (``LatestApiVersionResourceTypeResolver``): so does authz, with a warning.

- Every resource file is rendered as a Jinja template first (``TemplateResourceReader``; the CLI always
  configures the renderer): a file holding ``{{``, ``{%`` or ``{#`` needs evaluating, and is refused.
- Principal = ``metadata.name`` as written (``LiteralKafkaAclBindingBuilder.getPrincipalFromResource``).
- Roles (``KafkaPrincipalAuthorizationTransformation``): each name of ``spec.roles`` is a
  ``KafkaPrincipalRole`` among all the resources read (a missing one fails the run); its ``acls`` are
  appended to the principal's own. Two authorizations (or roles) of one name fail validation
  (``NoDuplicatePrincipalAllowedValidation``, ``NoDuplicatePrincipalRoleValidation``).
- One binding per operation (``AbstractKafkaAclBindingBuilder.buildAclBindings``). Enum values are Kafka's
  names, case-insensitive (``core/io/Jackson.java``: ``ACCEPT_CASE_INSENSITIVE_ENUMS``). ``type``, ``host``
  and ``patternType`` have no working default: Jackson builds ``V1KafkaPrincipalAcl`` and
  ``V1KafkaResourceMatcher`` through their ``@ConstructorProperties`` constructors, so an absent one is
  null, which Kafka's ``AccessControlEntry``/``ResourcePattern`` refuse: refused here too.
- ``patternType: MATCH`` (``TopicMatchingAclRulesBuilder``): on TOPIC only, a Java regex matched against
  the whole name of every topic existing at plan time, each match a LITERAL binding; on other types it is
  dropped (neither builder takes it). The topics come from ``--option topics=FILE``; the matching is
  bounded (``match``: RE2 where it reads the pattern as Java does, else a CPU budget).
- Resources are read with Jackson's ``YAMLMapper``: an alias is the anchor's name, as text (``yaml_aliases``).
- ``jikkou.io/delete: true``: every ACL of the principal is deleted (``ResourceChangeFactory.createChange``);
  ``jikkou.io/ignore: true``: the resource is left out (``ExcludeIgnoreResourceTransformation``).
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, AclSet, PatternType, ResourceType
from kafka_authz_cli.codes import FindingCode
from kafka_authz_cli.ecosystem import yamlnodes as y
from kafka_authz_cli.ecosystem.jikkou.match import compile_match
from kafka_authz_cli.ecosystem.source_reading import record
from kafka_authz_cli.ecosystem.yaml_aliases import JACKSON
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.formats import WarningTally, read_text

GROUP = "kafka.jikkou.io"
AUTHORIZATION = "KafkaPrincipalAuthorization"
ROLE = "KafkaPrincipalRole"
DELETE = "jikkou.io/delete"
IGNORE = "jikkou.io/ignore"
#: Kafka's enums as Jackson reads them (case-insensitive); the values Kafka refuses in an ACL are left out
OPERATIONS = {op.name: op for op in AclOperation if op not in (AclOperation.ANY, AclOperation.UNKNOWN)}
RESOURCE_TYPES = {t.name: t for t in ResourceType if t not in (ResourceType.ANY, ResourceType.UNKNOWN)}
PATTERNS = {"LITERAL": PatternType.LITERAL, "PREFIXED": PatternType.PREFIXED, "MATCH": PatternType.MATCH}
PERMISSIONS = {"ALLOW": AclPermissionType.ALLOW, "DENY": AclPermissionType.DENY}
_REFUSED_BY_KAFKA = {"ANY", "UNKNOWN"}
TEMPLATE = re.compile(r"\{[{%#]")
_API = re.compile(r"""^[ \t]*(?:- )?["']?apiVersion["']?[ \t]*:[ \t]*["']?kafka\.jikkou\.io/""", re.M)
_KIND = re.compile(r"""^[ \t]*(?:- )?["']?kind["']?[ \t]*:[ \t]*["']?(?:KafkaPrincipalAuthorization|KafkaPrincipalRole)\b""",
                   re.M)
#: Kafka's legal topic names (``org.apache.kafka.common.internals.Topic.validate``)
_TOPIC = re.compile(r"[a-zA-Z0-9._-]{1,249}")

MATCH_SNAPSHOT = "EA601"
MATCH_NOT_TOPIC = "EA602"
DELETED = "EA603"
GLOB_NAME = "EA604"
IGNORED = "EA605"

_ACL = """apiVersion: kafka.jikkou.io/v1
kind: KafkaPrincipalAuthorization
metadata:
  name: "User:alice"
{meta}spec:
  acls:
    - resource:
        type: TOPIC
        pattern: "{pattern}"
        patternType: {pattern_type}
      type: ALLOW
      operations: [READ]
      host: "*"
"""
FINDINGS = (
    FindingCode(MATCH_SNAPSHOT, "jikkou-match-is-a-snapshot", "warning",
                "a MATCH rule is expanded against today's topics; topics created later get nothing",
                "Jikkou (TopicMatchingAclRulesBuilder) lists the cluster's topics when it plans and creates one "
                "LITERAL ACL per topic whose whole name the regex matches. The bindings authz reads are that "
                "snapshot, for the topics given with --option topics=FILE: a topic created after the apply has "
                "no ACL until Jikkou runs again, and the ACLs of a deleted topic stay. (The example is read with "
                "a topics file listing orders-eu, orders-us and payments.)",
                _ACL.format(meta="", pattern="orders-.*", pattern_type="MATCH")),
    FindingCode(MATCH_NOT_TOPIC, "jikkou-match-not-on-topic", "warning",
                "a MATCH rule on another resource type than TOPIC grants nothing",
                "Only TOPIC rules are expanded by TopicMatchingAclRulesBuilder, and LiteralKafkaAclBindingBuilder "
                "skips every MATCH rule: a MATCH rule on a group, transactional id or cluster is silently dropped "
                "by Jikkou, so it creates no ACL.",
                _ACL.format(meta="", pattern="orders-.*", pattern_type="MATCH").replace("type: TOPIC", "type: GROUP")),
    FindingCode(DELETED, "jikkou-principal-deleted", "warning",
                "a principal annotated jikkou.io/delete has all its ACLs deleted, whatever its acls say",
                "With metadata.annotations jikkou.io/delete: true, Jikkou deletes every ACL the cluster has for "
                "the principal (ResourceChangeFactory.createChange) and creates none: its acls and roles are "
                "not read as bindings.",
                _ACL.format(meta="  annotations:\n    jikkou.io/delete: true\n", pattern="orders",
                            pattern_type="LITERAL")),
    FindingCode(GLOB_NAME, "jikkou-glob-name", "warning",
                "a LITERAL name ending in '*', or a PREFIXED '*', is no wildcard",
                "Jikkou passes names to Kafka as written. LITERAL 'orders-*' matches only the topic named "
                "exactly 'orders-*' and PREFIXED '*' only names that begin with '*'; the wildcard is LITERAL '*', "
                "a prefix is written without the '*'.",
                _ACL.format(meta="", pattern="orders-*", pattern_type="LITERAL")),
    FindingCode(IGNORED, "jikkou-resource-ignored", "warning",
                "a resource annotated jikkou.io/ignore is left out by Jikkou",
                "ExcludeIgnoreResourceTransformation drops every resource annotated jikkou.io/ignore: true "
                "before planning: its ACLs are neither created nor deleted, and it is not read as bindings.",
                _ACL.format(meta="  annotations:\n    jikkou.io/ignore: true\n", pattern="orders",
                            pattern_type="LITERAL")),
)
_CODE = {f.code: f for f in FINDINGS}
#: the topics the example of MATCH_SNAPSHOT is read with
EXAMPLE_TOPICS = ("orders-eu", "orders-us", "payments")


def sniff(text: str) -> bool:
    """A Jikkou principal authorization or role (alone, among other documents, or in a list)."""
    if "KafkaPrincipal" not in text or "jikkou.io/" not in text:
        return False
    text = text.removeprefix("\ufeff")  # a byte-order mark is YAML's own (Jackson's reader skips it)
    return bool(_API.search(text)) and bool(_KIND.search(text))


class _Resource:
    """One authorization or role as read: where, its name, its acl nodes, its role names."""

    __slots__ = ("path", "node", "name", "acls", "roles", "deleted")

    def __init__(self, path: str, node, name: str, acls: list, roles: list, deleted: bool) -> None:
        self.path, self.node, self.name, self.acls, self.roles, self.deleted = path, node, name, acls, roles, deleted

    @property
    def where(self) -> str:
        return f"{self.path}:{y.line(self.node)}"


class _Reading:
    def __init__(self, source: str, topics: list[str] | None, topics_file: str | None) -> None:
        self.source = source
        self.path = source
        self.topics = topics
        self.topics_file = topics_file
        self.acl_set = AclSet([], [], source, "jikkou")
        self.tally = WarningTally()
        self.seen: set[AclBinding] = set()
        self.authorizations: dict[str, _Resource] = {}
        self.roles: dict[str, _Resource] = {}
        self.others: dict[str, int] = {}

    def warn(self, code: str, kind: str, where: str, message: str) -> None:
        self.tally.add(f"{code} {kind}", where, f"{code} {message}")
        path, _, line = where.rpartition(":")
        located = line.isdigit()
        record(self.acl_set, _CODE[code], path if located else where, int(line) if located else 1, 0, message)

    def alias_warning(self, path: str):
        """``warn(line, message)`` for the aliases of ``path`` (read as text, as Jackson reads them)."""
        return lambda line, message: self.tally.add(
            "YAML aliases (Jikkou's YAML parser, Jackson's, reads each as the anchor's name, not its value)",
            f"{path}:{line}", message)

    def add(self, binding: AclBinding, origin: str) -> None:
        if binding not in self.seen:  # Jikkou creates each KafkaAclBinding once (equals without the delete flag)
            self.seen.add(binding)
            self.acl_set.add(binding, origin)


def read(text: str, path: str, options: Mapping[str, str] | None = None) -> AclSet:
    """Every principal authorization of a (multi-document) YAML text as the bindings Jikkou creates."""
    return read_many([(text, path)], path, options)


def read_many(files: Iterable[tuple[str, str]], source: str, options: Mapping[str, str] | None = None) -> AclSet:
    """The resources of several files (``(text, path)``) as one ACL set, as one ``jikkou apply`` sees them:
    roles are looked up among all of them. ``options``: ``topics`` names the file of the cluster's topics
    that MATCH rules are expanded against."""
    topics_file = (options or {}).get("topics")
    reading = _Reading(source, read_topics(topics_file) if topics_file is not None else None, topics_file)
    for text, path in files:
        reading.path = path
        text = text.removeprefix("\ufeff")
        _refuse_template(text, path)
        # Jackson's YAMLMapper reads the resources: an alias is the anchor's name, as text
        for doc in y.documents(text, path, JACKSON, reading.alias_warning(path)):
            _document(reading, doc)
    for resource in reading.authorizations.values():
        _expand(reading, resource)
    acl_set = reading.acl_set
    acl_set.warnings.extend(reading.tally.lines())
    if not reading.authorizations:
        others = ", ".join(f"{n} {k}" for k, n in reading.others.items())
        acl_set.warnings.append(f"{source}: no {AUTHORIZATION} resources read" + (f" (only {others})" if others else ""))
    return acl_set


def read_topics(path: str) -> list[str]:
    """The topic names of ``path``: one a line; blank lines and ``#`` comments skipped (no topic name holds
    '#' or a space); a line that is no legal topic name is an error at its line."""
    try:
        text = read_text(path)
    except InputError as exc:
        raise OptionError(f"topics={path}: cannot read it ({exc})", "--option") from None
    topics = []
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        name = raw.strip()
        if not name or name.startswith("#"):
            continue
        if not _TOPIC.fullmatch(name) or name in (".", ".."):
            raise InputError(f"{name[:60]!r} is not a Kafka topic name (letters, digits, '.', '_', '-'; the "
                             "topics file holds one name a line)", path, number, 1)
        topics.append(name)
    return list(dict.fromkeys(topics))


def _refuse_template(text: str, path: str) -> None:
    found = TEMPLATE.search(text)
    if found:
        line = text.count("\n", 0, found.start()) + 1
        col = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
        raise InputError(f"{found[0]!r}: Jikkou renders every resource file as a Jinja template (values, labels) "
                         "before reading it; authz does not evaluate templates: read the output of `jikkou prepare` "
                         "instead", path, line, col)


def _document(reading: _Reading, node) -> None:
    path = reading.path
    top = y.mapping(node, path, "a Jikkou resource")
    kind = _scalar(top.get("kind"), path, "kind") or ""
    api = _scalar(top.get("apiVersion"), path, "apiVersion") or ""
    if kind.endswith("List") and "items" in top:
        for item in y.sequence(top["items"], path, f"{kind}.items") if not y.is_null(top["items"]) else ():
            _document(reading, item)
        return
    group, _, version = api.partition("/")
    if kind not in (AUTHORIZATION, ROLE) or group != GROUP:
        reading.others[kind or "untyped"] = reading.others.get(kind or "untyped", 0) + 1
        return
    if version != "v1":
        # LatestApiVersionResourceTypeResolver: a version the registry lacks resolves to the group's latest
        reading.tally.add(f"resources of apiVersion {api}", f"{path}:{y.line(node)}",
                          f"apiVersion {api}: Jikkou 1.1.0 serves only {GROUP}/v1 and reads any other version of "
                          "the group as v1 (LatestApiVersionResourceTypeResolver); read as v1")
    _resource(reading, node, top, kind)


def _resource(reading: _Reading, node, top: dict, kind: str) -> None:
    path = reading.path
    if "metadata" not in top or y.is_null(top["metadata"]):
        raise y.error(node, path, f"{kind} has no metadata.name ({'the principal' if kind == AUTHORIZATION else 'the role name'})")
    meta = y.mapping(top["metadata"], path, "metadata")
    name = _scalar(meta.get("name"), path, "metadata.name")
    if name is None:
        raise y.error(top["metadata"], path, f"{kind} has no metadata.name")
    annotations = meta.get("annotations")
    notes = {} if y.is_null(annotations) else y.mapping(annotations, path, "metadata.annotations")
    if _annotated(notes, IGNORE, path):
        reading.others[f"ignored {kind}"] = reading.others.get(f"ignored {kind}", 0) + 1
        reading.warn(IGNORED, "resources annotated jikkou.io/ignore (left out by Jikkou)", f"{path}:{y.line(node)}",
                     f"{kind} {name} is annotated {IGNORE}: true; Jikkou leaves it out, and so does authz")
        return
    spec_node = top.get("spec")
    if y.is_null(spec_node):
        raise y.error(node, path, f"{kind} {name} has no spec (Jikkou fails on it: spec is required)")
    spec = y.mapping(spec_node, path, "spec")
    acls = [] if y.is_null(spec.get("acls")) else y.sequence(spec["acls"], path, "spec.acls")
    roles = []
    if kind == AUTHORIZATION and not y.is_null(spec.get("roles")):
        roles = y.sequence(spec["roles"], path, "spec.roles")
    resource = _Resource(path, node, name, acls, roles, _annotated(notes, DELETE, path))
    table = reading.authorizations if kind == AUTHORIZATION else reading.roles
    if name in table:
        what = "NoDuplicatePrincipalAllowedValidation" if kind == AUTHORIZATION else "NoDuplicatePrincipalRoleValidation"
        raise y.error(meta.get("name", node), path, f"{kind} {name} is defined again (first at {table[name].where}): "
                      f"Jikkou refuses the run ({what})")
    table[name] = resource


def _annotated(notes: dict, key: str, path: str) -> bool:
    """``CoreAnnotations.isAnnotatedWith``: the value converted to a boolean (true, "true" in any case)."""
    node = notes.get(key)
    if node is None or y.is_null(node):
        return False
    if node.id != "scalar":
        raise y.error(node, path, f"metadata.annotations.{key} must be true or false, got {y.kind_of(node)}")
    return node.value.strip().lower() == "true"


def _expand(reading: _Reading, resource: _Resource) -> None:
    """The bindings of one principal: its own acls, then each role's (the transformation's order)."""
    principal = resource.name
    if ":" not in principal:
        raise y.error(resource.node, resource.path, f"metadata.name {principal!r} is no principal (Type:name, e.g. "
                      "User:alice): Kafka refuses its ACLs")
    label = f"{AUTHORIZATION} {principal}"
    rules = [(resource.path, rule, label) for rule in resource.acls]
    for role_node in resource.roles:
        role_name = _scalar(role_node, resource.path, "spec.roles[]")
        role = reading.roles.get(role_name or "")
        if role is None:
            raise y.error(role_node, resource.path, f"role {role_name!r} of {principal}: no {ROLE} of that name among "
                          "the resources read (Jikkou fails the run; give the file that defines it)")
        rules.extend((role.path, rule, f"{ROLE} {role.name} at {role.where}, granted to {principal} at "
                                       f"{resource.where}") for rule in role.acls)
    parsed = [(path, rule, label, _rule(reading, path, rule)) for path, rule, label in rules]
    if resource.deleted:
        reading.warn(DELETED, f"principals annotated {DELETE} (every ACL of theirs deleted)", resource.where,
                     f"{principal} is annotated {DELETE}: true; Jikkou deletes every ACL of this principal, so "
                     f"its {len(parsed)} acl entr{'y is' if len(parsed) == 1 else 'ies are'} not read")
        return
    for path, rule, label, (rtype, name, pattern, permission, host, operations) in parsed:
        origin = f"{path}:{y.line(rule)} ({label})"
        if pattern is not PatternType.MATCH:
            for op in operations:
                reading.add(AclBinding(rtype, name, pattern, principal, host, op, permission), origin)
        elif rtype is not ResourceType.TOPIC:
            reading.warn(MATCH_NOT_TOPIC, "MATCH rules on other resources than topics (dropped by Jikkou)",
                         f"{path}:{y.line(rule)}", f"{label}: MATCH on {rtype.name} {name!r} creates no ACL "
                         "(Jikkou expands MATCH on topics only)")
        else:
            _match(reading, path, rule, label, principal, (name, permission, host, operations))


def _match(reading: _Reading, path: str, rule, label: str, principal: str, parts: tuple) -> None:
    regex_text, permission, host, operations = parts
    resource = y.mapping(rule, path, "acl")["resource"]
    pattern_node = y.mapping(resource, path, "resource").get("pattern")
    if reading.topics is None:
        raise y.error(pattern_node, path, f"{label}: patternType MATCH is a regex Jikkou matches against the "
                      "cluster's topics when it plans; give them with --option topics=FILE (one name a line, "
                      "kafka-topics.sh --list)")
    regex = compile_match(regex_text, pattern_node, path)  # RE2, or a bounded backtracking match
    matched = [t for t in reading.topics if regex.matches(t)]
    origin = f"{path}:{y.line(rule)} ({label}, MATCH {regex_text!r})"
    for topic in matched:
        for op in operations:
            reading.add(AclBinding(ResourceType.TOPIC, topic, PatternType.LITERAL, principal, host, op, permission),
                        origin)
    shown = ", ".join(matched[:5]) + (", ..." if len(matched) > 5 else "")
    reading.warn(MATCH_SNAPSHOT, "MATCH rules expanded against a snapshot of the topics", f"{path}:{y.line(rule)}",
                 f"{label}: MATCH {regex_text!r} matches {len(matched)} of the {len(reading.topics)} topics of "
                 f"{reading.topics_file} ({shown or 'none'}): {len(matched) * len(operations)} LITERAL binding(s); "
                 "topics created after Jikkou's apply get nothing until it runs again")


def _rule(reading: _Reading, path: str, node) -> tuple:
    """One ``V1KafkaPrincipalAcl``: (type, pattern, pattern type, permission, host, operations)."""
    rule = y.mapping(node, path, "acl")
    _unknown_keys(reading, rule, ("resource", "operations", "type", "host"), path, "acl")
    if y.is_null(rule.get("resource")):
        raise y.error(node, path, "acl has no resource (Jikkou fails on it)")
    resource = y.mapping(rule["resource"], path, "resource")
    _unknown_keys(reading, resource, ("type", "pattern", "patternType"), path, "resource")
    rtype = _enum(resource, "type", RESOURCE_TYPES, node, path, "resource")
    name = _scalar(resource.get("pattern"), path, "resource.pattern")
    if name is None:
        raise y.error(rule["resource"], path, "resource has no pattern (Kafka's ResourcePattern refuses a null name)")
    pattern = _enum(resource, "patternType", PATTERNS, rule["resource"], path, "resource")
    permission = _enum(rule, "type", PERMISSIONS, node, path, "acl")
    host = _scalar(rule.get("host"), path, "host")
    if host is None:
        raise y.error(node, path, "acl has no host: Jikkou 1.1.0 passes null (its model's constructor, not the "
                      "schema's default '*') and Kafka's AccessControlEntry refuses it; write host: \"*\"")
    operations_node = rule.get("operations")
    items = [] if y.is_null(operations_node) else y.sequence(operations_node, path, "operations")
    operations = [_enum({"operations": item}, "operations", OPERATIONS, item, path, "acl") for item in items]
    if not operations:
        reading.tally.add("acls without operations (they create no ACL)", f"{path}:{y.line(node)}",
                          "this acl has no operations: Jikkou creates no ACL for it")
    if pattern is not PatternType.MATCH and (name.endswith("*") and name != "*" and pattern is PatternType.LITERAL
                                             or name == "*" and pattern is PatternType.PREFIXED):
        reading.warn(GLOB_NAME, "names that look like globs but are not", f"{path}:{y.line(node)}",
                     f"{pattern.name} {name!r} matches only names {'equal to' if pattern is PatternType.LITERAL else 'starting with'} "
                     f"{name!r}: Kafka has no glob (the wildcard is LITERAL '*', a prefix is PREFIXED without '*')")
    return rtype, name, pattern, permission, host, operations


def _unknown_keys(reading: _Reading, entries: dict, known: tuple, path: str, what: str) -> None:
    for key in entries:
        if key not in known:
            reading.tally.add("keys Jikkou ignores", f"{path}:{y.line(entries[key])}",
                              f"{what}.{key} is not read by Jikkou (only {', '.join(known)}): ignored")


def _enum(entries: dict, key: str, values: dict, at, path: str, what: str):
    """A Kafka enum value by name, case-insensitive (Jackson's ACCEPT_CASE_INSENSITIVE_ENUMS)."""
    node = entries.get(key)
    text = _scalar(node, path, f"{what}.{key}")
    if text is None or text == "":  # ACCEPT_EMPTY_STRING_AS_NULL_OBJECT: "" is null too
        raise y.error(node if node is not None else at, path, f"{what}.{key} is missing: Jikkou 1.1.0 passes null "
                      f"(no default applies) and Kafka refuses it; one of {', '.join(values)}")
    found = values.get(text.upper())
    if found is None and node is not None and node.tag == "tag:yaml.org,2002:int":
        raise y.error(node, path, f"{what}.{key}: {text}: Jackson reads a number as the position in Kafka's enum "
                      f"(UNKNOWN, ANY, ...), not read here; write the name, one of {', '.join(values)}")
    if found is None:
        kafka = " (a filter value: Kafka refuses it in an ACL)" if text.upper() in _REFUSED_BY_KAFKA else ""
        raise y.error(node, path, f"{what}.{key}: {text!r} is not one of {', '.join(values)}{kafka}")
    return found


def _scalar(node, path: str, what: str) -> str | None:
    """A scalar's text as Jackson gives it to a String field (a number or boolean as written); None if absent."""
    if y.is_null(node):
        return None
    if node.id != "scalar":
        raise y.error(node, path, f"{what} must be a string, got {y.kind_of(node)}")
    return node.value
