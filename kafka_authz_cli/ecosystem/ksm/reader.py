"""Kafka Security Manager's YAML ACL files: the bindings KSM applies for them, and bindings written as one.

Followed: KSM 1.1.0 (conduktor/kafka-security-manager at 7cbc9df, built on Kafka 2.8.1); the YAML
parser came in 0.10. KSM's CSV is Kafka's own ``csv`` format here. ``YamlAclParser.aclsFromReader``:

- ``users: {<name>: {topics|groups|transactional_ids|clusters: {<resource>: [<entry>, ...]}}}``; the
  principal is always ``User:<name>`` (``new KafkaPrincipal("User", userName)``); other keys are
  ignored by circe's decoder (a misspelt ``cluster:`` drops its ACLs: warned here).
- A resource name is trimmed; ending in ``*`` (and not ``*`` itself) it is PREFIXED without the ``*``
  (``getResource``), else LITERAL.
- An entry is split on ``,`` (Java ``String.split``: trailing empty fields dropped, nothing trimmed):
  ``Op,Permission,Host``, or one field: ``Op`` (ALLOW from ``*``), or on topics ``Consume`` (DESCRIBE,
  READ) and ``Produce`` (DESCRIBE, CREATE, WRITE, and CREATE on CLUSTER ``*``: warned, it widens).
  Names are Kafka 2.8's ``kafka.security.auth`` ones, case-insensitive (``Operation.fromString``).
- KSM keeps a set: duplicates collapse.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, AclSet, PatternType, ResourceType
from kafka_authz_cli.codes import FindingCode
from kafka_authz_cli.ecosystem import yamlnodes as y
from kafka_authz_cli.ecosystem.source_reading import SourceReading
from kafka_authz_cli.ecosystem.yaml_aliases import SNAKEYAML

#: ``kafka.security.auth.Operation.values`` (Kafka 2.8), matched with ``equalsIgnoreCase``
OPERATIONS = {"Read": AclOperation.READ, "Write": AclOperation.WRITE, "Create": AclOperation.CREATE,
              "Delete": AclOperation.DELETE, "Alter": AclOperation.ALTER, "Describe": AclOperation.DESCRIBE,
              "ClusterAction": AclOperation.CLUSTER_ACTION, "AlterConfigs": AclOperation.ALTER_CONFIGS,
              "DescribeConfigs": AclOperation.DESCRIBE_CONFIGS, "IdempotentWrite": AclOperation.IDEMPOTENT_WRITE,
              "All": AclOperation.ALL}
PERMISSIONS = {"Allow": AclPermissionType.ALLOW, "Deny": AclPermissionType.DENY}
#: ``AclResources``' fields, in the order ``aclsFromReader`` reads them
SECTIONS = {"topics": ResourceType.TOPIC, "groups": ResourceType.GROUP,
            "transactional_ids": ResourceType.TRANSACTIONAL_ID, "clusters": ResourceType.CLUSTER}
_OPS = {k.lower(): v for k, v in OPERATIONS.items()}
_PERMS = {k.lower(): v for k, v in PERMISSIONS.items()}
#: the helpers (``parseAcl``, topics only): what each adds, on the topic unless a resource is given
_HELPERS: dict[str, list[AclOperation | tuple[ResourceType, str, AclOperation]]] = {
    "consume": [AclOperation.DESCRIBE, AclOperation.READ],
    "produce": [AclOperation.DESCRIBE, AclOperation.CREATE, AclOperation.WRITE,
                (ResourceType.CLUSTER, "*", AclOperation.CREATE)]}

# -- coded findings: what KSM applies differently from how the file reads --------------------------------
PRODUCE_CREATES_TOPICS = FindingCode(
    "EA201", "ksm-produce-creates-topics", "warning", "Produce entries also grant CREATE on CLUSTER * (any topic)",
    "KSM's `Produce` helper is DESCRIBE, CREATE and WRITE on the topic plus ALLOW CREATE on CLUSTER `*` "
    "(YamlAclParser.parseAcl, the README's \"Cluster Create\"): the user may create any topic, not only this "
    "one. Write `Describe`, `Write` (and `Create`) entries instead.",
    "users:\n  alice:\n    topics:\n      orders:\n        - Produce\n")
SECTION_IGNORED = FindingCode(
    "EA202", "ksm-section-ignored", "warning", "sections KSM ignores (their ACLs are dropped)",
    "KSM's YAML decoder reads only `topics`, `groups`, `transactional_ids` and `clusters` under a user and "
    "ignores other keys silently: a misspelt `cluster:` (or KSM's own export's `transactionalids:`) drops "
    "every ACL under it, and KSM then deletes those ACLs from the cluster.",
    "users:\n  alice:\n    cluster:\n      kafka-cluster:\n        - Create\n")
USER_PREFIXED = FindingCode(
    "EA203", "ksm-user-prefixed", "warning", "user names start with 'User:'",
    "KSM always makes the principal `User:<key>`: a key `User:alice` is the principal `User:User:alice`, which "
    "no client authenticates as.",
    "users:\n  'User:alice':\n    topics:\n      orders:\n        - Read\n")
CLUSTER_NAME_UNUSED = FindingCode(
    "EA204", "ksm-cluster-name-unused", "warning", "cluster entries name neither kafka-cluster nor *",
    "The broker checks cluster operations only against CLUSTER `kafka-cluster` (and `*`): a cluster entry "
    "under another name grants nothing.",
    "users:\n  alice:\n    clusters:\n      prod:\n        - Create\n")
FINDINGS = (PRODUCE_CREATES_TOPICS, SECTION_IGNORED, USER_PREFIXED, CLUSTER_NAME_UNUSED)


def sniff(text: str) -> bool:
    """A mapping whose only top-level key is ``users``, with a KSM section under it."""
    lines = [ln for ln in text.removeprefix("\ufeff").splitlines()
             if ln.strip() and not ln.lstrip().startswith("#") and ln.strip() != "---"]
    if not lines or lines[0].rstrip() not in ("users:", "'users':", '"users":'):
        return False
    if any(not ln[0].isspace() for ln in lines[1:]):
        return False
    return any(ln.strip().split(":")[0].strip("'\"") in SECTIONS for ln in lines[1:])


class _Reading(SourceReading):
    def __init__(self, source: str) -> None:
        super().__init__(source, "ksm-yaml")
        self.seen: set[AclBinding] = set()

    def add(self, binding: AclBinding, origin: str) -> None:
        if binding not in self.seen:  # KSM keeps a Set[(Resource, Acl)]
            self.seen.add(binding)
            self.acl_set.add(binding, origin)


def read(text: str, path: str, options: Mapping[str, str] | None = None) -> AclSet:
    """A KSM YAML file as the bindings KSM applies for it."""
    return read_many([(text, path)], path, options)


def read_many(files: Iterable[tuple[str, str]], source: str, options: Mapping[str, str] | None = None) -> AclSet:
    """Several KSM YAML files as one ACL set (KSM reads one file per source; a directory is their union)."""
    reading = _Reading(source)
    for text, path in files:
        reading.path = path
        # circe-yaml composes with SnakeYAML: at most 50 aliases of collections (LoaderOptions' default)
        for i, doc in enumerate(y.documents(text.removeprefix("\ufeff"), path, SNAKEYAML)):
            if i:  # circe-yaml's parser composes one document (SnakeYAML: "expected a single document")
                raise y.error(doc, path, "a KSM YAML file holds one document; KSM refuses a second one")
            _document(reading, doc)
    reading.finish()
    if not reading.acl_set.bindings:
        # AclSynchronizer: KSM removes every ACL of the cluster that the source does not hold
        reading.acl_set.warnings.append(f"{source}: no ACLs; KSM applying this file deletes every ACL of the cluster")
    reading.path = source
    return reading.acl_set


def _keyed(reading: _Reading, node, what: str) -> list[tuple[object, str, object]]:
    """A mapping's ``(key node, key, value node)``: circe-yaml takes any scalar key as its text; a key
    given twice is warned (the later value is the one decoded)."""
    path = reading.path
    if node.id != "mapping":
        raise y.error(node, path, f"{what} must be a mapping, got {y.kind_of(node)}")
    out: dict[str, tuple] = {}
    for key, value in node.value:
        if key.id != "scalar":
            raise y.error(key, path, f"{what}: keys must be names, got {y.kind_of(key)}")
        if key.value == "<<":
            raise y.error(key, path, f"{what}: YAML merge keys ('<<') are not read here; write the entries out")
        if key.value in out:
            reading.warn("keys are given twice (the later one counts)", key,
                         f"{what}: {key.value!r} is given twice; KSM's decoder keeps the later one")
        out[key.value] = (key, key.value, value)
    return list(out.values())


def _document(reading: _Reading, node) -> None:
    path = reading.path
    top = {k: (kn, v) for kn, k, v in _keyed(reading, node, "a KSM YAML file")}
    if "users" not in top:
        raise y.error(node, path, "a KSM YAML file needs 'users' (YamlAclParser's AclYaml)")
    for key, (kn, _) in top.items():
        if key != "users":
            reading.warn("top-level keys KSM ignores", kn, f"{key!r} is not read by KSM (only 'users')")
    users = top["users"][1]
    if y.is_null(users):
        raise y.error(users, path, "users must be a mapping of user names, got null (KSM fails to decode it)")
    for name_node, name, resources in _keyed(reading, users, "users"):
        if name.startswith("User:"):
            reading.find(USER_PREFIXED, name_node,
                         f"user {name!r} is the principal User:{name} (KSM always prefixes 'User:')")
        _user(reading, name_node, f"User:{name}", name, resources)


def _user(reading: _Reading, name_node, principal: str, name: str, node) -> None:
    path = reading.path
    if y.is_null(node):
        raise y.error(name_node, path, f"user {name!r} has null, not a mapping of sections (KSM fails to decode it)")
    for key_node, key, value in _keyed(reading, node, f"user {name}"):
        rtype = SECTIONS.get(key)
        if rtype is None:
            reading.find(SECTION_IGNORED, key_node,
                         f"user {name}: {key!r} is not a section KSM reads ({', '.join(SECTIONS)}); "
                         "its ACLs are silently dropped by KSM")
            continue
        if y.is_null(value):
            continue
        for res_node, res_name, entries in _keyed(reading, value, f"user {name}.{key}"):
            _resource(reading, principal, name, rtype, res_node, res_name, entries, key)


def _resource(reading: _Reading, principal: str, user: str, rtype: ResourceType, res_node, res_name: str,
              entries, section: str) -> None:
    path = reading.path
    trimmed = res_name.strip()  # getResource trims the name
    if trimmed.endswith("*") and trimmed != "*":
        name, pattern = trimmed[:-1], PatternType.PREFIXED
    else:
        name, pattern = trimmed, PatternType.LITERAL
    if rtype is ResourceType.CLUSTER and (name, pattern) not in (("kafka-cluster", PatternType.LITERAL),
                                                                 ("*", PatternType.LITERAL)):
        reading.find(CLUSTER_NAME_UNUSED, res_node,
                     f"user {user}: cluster {res_name!r} is not kafka-cluster: the broker checks only "
                     "CLUSTER kafka-cluster, so these ACLs grant nothing")
    if y.is_null(entries):
        raise y.error(res_node, path, f"user {user}.{section}.{res_name}: null, not a list of ACLs")
    for item in y.sequence(entries, path, f"user {user}.{section}.{res_name}"):
        text = y.string(item, path, f"user {user}.{section}.{res_name}[]")
        origin = f"{path}:{y.line(item)} (KSM user {user})"
        for target, op, permission, host in _entry(reading, item, text, rtype, user):
            rt, rn, rp = target or (rtype, name, pattern)
            reading.add(AclBinding(rt, rn, rp, principal, host, op, permission), origin)


def _entry(reading: _Reading, node, text: str, rtype: ResourceType, user: str) -> list:
    """``parseAcl``: the (resource or None, operation, permission, host) of one entry."""
    path = reading.path
    fields = text.split(",")
    while fields and fields[-1] == "":
        fields.pop()  # Java's String.split drops trailing empty strings
    if len(fields) == 3:
        op, perm, host = fields
        if op.lower() not in _OPS:
            raise y.error(node, path, f"{text!r}: {op!r} is not an operation ({', '.join(OPERATIONS)}; nothing is "
                          "trimmed: KSM's Operation.fromString fails)")
        if perm.lower() not in _PERMS:
            raise y.error(node, path, f"{text!r}: {perm!r} is not Allow or Deny (nothing is trimmed: KSM's "
                          "PermissionType.fromString fails)")
        return [(None, _OPS[op.lower()], _PERMS[perm.lower()], host)]
    if len(fields) != 1:
        raise y.error(node, path, f"{text!r}: an ACL is 'Operation' or 'Operation,Permission,Host' (KSM: pattern "
                      "not supported)")
    word = fields[0].lower()
    if rtype is ResourceType.TOPIC and word in _HELPERS:
        if word == "produce":
            reading.find(PRODUCE_CREATES_TOPICS, node,
                         f"user {user}: Produce adds ALLOW CREATE on CLUSTER '*' (YamlAclParser.parseAcl): "
                         "this user may create any topic")
        return [((ResourceType.CLUSTER, x[1], PatternType.LITERAL), x[2], AclPermissionType.ALLOW, "*")
                if isinstance(x, tuple) else (None, x, AclPermissionType.ALLOW, "*") for x in _HELPERS[word]]
    if word not in _OPS:
        raise y.error(node, path, f"{text!r} is not an operation ({', '.join(OPERATIONS)}"
                      f"{'; Consume and Produce only on topics' if word in _HELPERS else ''})")
    return [(None, _OPS[word], AclPermissionType.ALLOW, "*")]
