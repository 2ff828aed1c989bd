"""Strimzi ``KafkaUser`` resources: the bindings the User Operator creates for them.

Followed: Strimzi 1.2.0 for ``kafka.strimzi.io/v1`` (the only version 1.x serves) and 0.51.0, the last
release serving them, for ``v1beta2``/``v1beta1``/``v1alpha1`` (they differ only in the deprecated
``operation`` field). IBM Event Streams' copy of the CRD (``eventstreams.ibm.com``) reads the same.

- Principal (``KafkaUserModel.getUserName``): ``User:CN=<name>`` for ``tls`` and ``tls-external``,
  ``User:<name>`` for ``scram-sha-512`` and for a user without ``authentication``.
- ``spec.authorization`` absent: the operator manages the user with no ACLs at all
  (``SimpleAclOperator.reconcile(..., null)``); ``type: simple`` is the only type.
- One binding per operation (``SimpleAclRule.fromCrd``); ``cluster`` is always LITERAL
  ``kafka-cluster`` whatever name is given (``SimpleAclRuleResource.fromCrd``); ``type`` defaults to
  ``allow``, ``host`` to ``*``, ``patternType`` to ``literal`` (api ``AclRule``, ``AclRule*Resource``);
  the operator keeps a set, so duplicates collapse.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, AclSet, PatternType, ResourceType
from kafka_authz_cli.codes import FindingCode
from kafka_authz_cli.ecosystem import yamlnodes as y
from kafka_authz_cli.ecosystem.source_reading import SourceReading
from kafka_authz_cli.ecosystem.yaml_aliases import KUBERNETES
from kafka_authz_cli.errors import InputError

GROUPS = ("kafka.strimzi.io", "eventstreams.ibm.com")
VERSIONS = ("v1", "v1beta2", "v1beta1", "v1alpha1")
AUTHENTICATIONS = ("tls", "tls-external", "scram-sha-512")
CLUSTER_LABEL = "strimzi.io/cluster"
#: the CRD's enum spellings (api ``AclOperation``/``StrimziAclOperation``), exact case
OPERATIONS = {"Read": AclOperation.READ, "Write": AclOperation.WRITE, "Create": AclOperation.CREATE,
              "Delete": AclOperation.DELETE, "Alter": AclOperation.ALTER, "Describe": AclOperation.DESCRIBE,
              "ClusterAction": AclOperation.CLUSTER_ACTION, "AlterConfigs": AclOperation.ALTER_CONFIGS,
              "DescribeConfigs": AclOperation.DESCRIBE_CONFIGS, "IdempotentWrite": AclOperation.IDEMPOTENT_WRITE,
              "All": AclOperation.ALL}
RESOURCE_TYPES = {"topic": ResourceType.TOPIC, "group": ResourceType.GROUP, "cluster": ResourceType.CLUSTER,
                  "transactionalId": ResourceType.TRANSACTIONAL_ID}
PATTERNS = {"literal": PatternType.LITERAL, "prefix": PatternType.PREFIXED}
PERMISSIONS = {"allow": AclPermissionType.ALLOW, "deny": AclPermissionType.DENY}
CLUSTER_NAME = "kafka-cluster"
#: Kubernetes object names: DNS-1123 subdomains (k8s.io/apimachinery IsDNS1123Subdomain)
K8S_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
#: ``KafkaUserModel.validateTlsUsername``: the CN of a certificate holds at most 64 characters
TLS_NAME_MAX = 64
_API = re.compile(r"^[ \t]*(?:- )?apiVersion:[ \t]*[\"']?(?:kafka\.strimzi\.io|eventstreams\.ibm\.com)/", re.M)
_KIND = re.compile(r"^[ \t]*(?:- )?[\"']?kind[\"']?[ \t]*:[ \t]*[\"']?KafkaUser[\"']?[ \t]*,?[ \t]*\r?$", re.M)
_JSON_KIND = re.compile(r'"kind"\s*:\s*"KafkaUser"')

# -- coded findings: what the User Operator applies differently from how the file reads ----------------
_USER = ("apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\nmetadata:\n  name: app\n  labels:\n"
         "    strimzi.io/cluster: prod\nspec:\n  authentication:\n    type: tls\n  authorization:\n"
         "    type: simple\n    acls:\n")
PREFIX_STAR = FindingCode(
    "EA101", "strimzi-prefix-star", "warning", "rules use prefix '*', which matches only names starting with '*'",
    "`patternType: prefix` with `name: '*'` becomes Kafka's PREFIXED '*', which matches only names that begin "
    "with '*'. Every name is the literal '*' (`patternType: literal`, the default). The author almost surely "
    "meant every name; what the operator applies grants almost nothing.",
    _USER + "      - resource: {type: topic, name: '*', patternType: prefix}\n        operations: [Read]\n")
LITERAL_GLOB = FindingCode(
    "EA102", "strimzi-literal-glob", "warning", "rules use a literal name ending in '*' (no wildcard)",
    "A literal name like `orders-*` matches only the topic called exactly `orders-*`: Kafka has no globs. "
    "`name: orders-` with `patternType: prefix` matches the names starting with `orders-`.",
    _USER + "      - resource: {type: topic, name: orders-*}\n        operations: [Read]\n")
CLUSTER_NAME_IGNORED = FindingCode(
    "EA103", "strimzi-cluster-name-ignored", "warning", "cluster resources give a name or patternType the operator "
    "ignores",
    "The User Operator creates every cluster ACL on LITERAL kafka-cluster (SimpleAclRuleResource.fromCrd), "
    "whatever name or patternType the rule gives: a rule meant for one cluster of several applies to each.",
    _USER + "      - resource: {type: cluster, name: other}\n        operations: [Describe]\n")
V1_OPERATION_DROPPED = FindingCode(
    "EA104", "strimzi-v1-operation", "warning", "v1 rules give 'operation', which the v1 CRD does not have",
    "kafka.strimzi.io/v1 has only `operations`; the API server prunes the unknown `operation` field, so the "
    "rule keeps only its `operations` (and none at all if it had only `operation`).",
    _USER + "      - resource: {type: topic, name: t}\n        operation: Read\n        operations: [Write]\n")
FINDINGS = (PREFIX_STAR, LITERAL_GLOB, CLUSTER_NAME_IGNORED, V1_OPERATION_DROPPED)


def sniff(text: str) -> bool:
    """A Strimzi ``KafkaUser`` (alone, among other documents, or in a ``kind: List``); CRLF line ends and a
    byte-order mark are YAML's own (kubectl reads them), so they count for nothing here."""
    if "KafkaUser" not in text:
        return False
    text = text.removeprefix("\ufeff")
    return bool(_API.search(text) or '"apiVersion"' in text) and bool(_KIND.search(text) or _JSON_KIND.search(text))


class _Reading(SourceReading):
    """One source's users (a file, or every file of a directory): bindings, origins, warnings (one line
    per kind for the whole source), and which user was defined where."""

    def __init__(self, source: str, cluster: str | None = None) -> None:
        super().__init__(source, "strimzi")
        #: only the users of this cluster (``--option cluster=NAME``), or all
        self.cluster = cluster
        self.skipped = 0
        self.users: dict[tuple, str] = {}  # (cluster, namespace, name) -> where first defined
        self.clusters: dict[str | None, int] = {}
        self.others: dict[str, int] = {}


def read(text: str, path: str, options: Mapping[str, str] | None = None) -> AclSet:
    """Every ``KafkaUser`` of a (multi-document) YAML text as the bindings the User Operator creates."""
    return read_many([(text, path)], path, options)


def read_many(files: Iterable[tuple[str, str]], source: str, options: Mapping[str, str] | None = None) -> AclSet:
    """The KafkaUsers of several files (``(text, path)``) as one ACL set, as one operator sees them: a
    user defined in two files, or users of several clusters, are told once for the whole set.
    ``options``: ``cluster`` keeps only the users of that cluster (by their label)."""
    reading = _Reading(source, (options or {}).get("cluster"))
    for text, path in files:
        reading.path = path
        # as kubectl decodes each document: its aliases bounded as go-yaml's decoder bounds them, an empty
        # document skipped (StreamVisitor)
        for doc in y.documents(text.removeprefix("\ufeff"), path, KUBERNETES, skip_empty=True):
            _document(reading, doc)
    return _finish(reading)


def _finish(reading: _Reading) -> AclSet:
    acl_set = reading.finish()
    labelled = [c for c in reading.clusters if c is not None]
    if len(labelled) > 1:
        acl_set.warnings.append(
            f"{reading.source}: KafkaUsers of {len(labelled)} clusters ({', '.join(sorted(labelled)[:5])}"
            f"{', ...' if len(labelled) > 5 else ''}, by their {CLUSTER_LABEL} label) are read as one ACL set: "
            "each User Operator applies only its own cluster's")
    if reading.cluster is not None:
        if reading.skipped:
            acl_set.warnings.append(f"{reading.source}: {reading.skipped} KafkaUser(s) of other clusters (or with no "
                                    f"{CLUSTER_LABEL} label) skipped: only cluster {reading.cluster} is read")
        if not reading.users:
            acl_set.warnings.append(f"{reading.source}: no KafkaUser of cluster {reading.cluster}")
            return acl_set
    if not reading.users:
        others = ", ".join(f"{n} {k}" for k, n in reading.others.items())
        acl_set.warnings.append(f"{reading.source}: no KafkaUser resources" + (f" (only {others})" if others else ""))
    return acl_set


def _document(reading: _Reading, node) -> None:
    """One resource; the items of a ``kind: List`` (and of lists in it) in order, without recursion (kubectl's
    FlattenListVisitor flattens lists of lists)."""
    pending = [node]
    while pending:
        node = pending.pop()
        top = y.mapping(node, reading.path, "a Kubernetes resource")
        kind = y.optional_string(top, "kind", reading.path, "resource") or ""
        if kind == "List" or kind.endswith("List") and "items" in top:
            items = y.sequence(top["items"], reading.path, f"{kind}.items") if "items" in top else []
            pending.extend(reversed(items))
            continue
        _listed(reading, node, top, kind)


def _listed(reading: _Reading, node, top: dict, kind: str) -> None:
    """One resource of the file (a KafkaUser, a Kafka, anything else counted)."""
    path = reading.path
    api = y.optional_string(top, "apiVersion", path, "resource") or ""
    group, _, version = api.partition("/")
    if kind != "KafkaUser" or group not in GROUPS:
        if kind == "Kafka" and group in GROUPS:
            _super_users(reading, top)
        reading.others[kind or "untyped"] = reading.others.get(kind or "untyped", 0) + 1
        return
    if version not in VERSIONS:
        reading.warn("KafkaUsers have an apiVersion this authz does not know", top.get("apiVersion", node),
                     f"apiVersion {api}: not one of {', '.join(VERSIONS)}; read as {VERSIONS[0]}")
    _user(reading, node, top, version)


def _super_users(reading: _Reading, top: dict) -> None:
    """A ``Kafka`` resource's ``superUsers`` bypass every ACL: say so (they are broker settings)."""
    path = reading.path
    spec = top.get("spec")
    kafka = y.mapping(spec, path, "spec").get("kafka") if spec is not None and not y.is_null(spec) else None
    auth = y.mapping(kafka, path, "spec.kafka").get("authorization") if kafka is not None else None
    if auth is None or y.is_null(auth):
        return
    users = y.mapping(auth, path, "spec.kafka.authorization").get("superUsers")
    if users is not None and not y.is_null(users):
        names = [y.string(u, path, "superUsers[]") for u in y.sequence(users, path, "superUsers")]
        reading.warn("Kafka resources list superUsers", users,
                     f"the Kafka resource's superUsers ({', '.join(names[:5])}) bypass every ACL on that cluster; "
                     f"they are broker settings, not read as ACLs (give them to --super-users: "
                     f"{','.join('User:' + n if ':' not in n else n for n in names[:5])})")


def _metadata(reading: _Reading, node, top: dict) -> tuple[str, str | None, str | None]:
    path = reading.path
    if "metadata" not in top:
        raise y.error(node, path, "KafkaUser has no metadata (metadata.name is the user name)")
    meta = y.mapping(top["metadata"], path, "metadata")
    if "name" not in meta:
        raise y.error(top["metadata"], path, "KafkaUser has no metadata.name (the user name)")
    name = y.string(meta["name"], path, "metadata.name")
    if len(name) > 253 or not K8S_NAME.fullmatch(name):
        raise y.error(meta["name"], path, f"KafkaUser name {name!r} is not a Kubernetes object name (lower-case "
                      "letters, digits, '-' and '.', at most 253): the API server refuses this resource")
    namespace = y.optional_string(meta, "namespace", path, "metadata")
    labels = meta.get("labels")
    cluster = None
    if labels is not None and not y.is_null(labels):
        cluster = y.optional_string(y.mapping(labels, path, "metadata.labels"), CLUSTER_LABEL, path, "metadata.labels")
    if cluster is None and reading.cluster is None:
        reading.warn("KafkaUsers have no strimzi.io/cluster label", top["metadata"],
                     f"KafkaUser {name} has no {CLUSTER_LABEL} label: no User Operator selects it, so none "
                     "applies these ACLs; read as if one did")
    return name, namespace, cluster


def _principal(reading: _Reading, name: str, spec: dict) -> str:
    path = reading.path
    node = spec.get("authentication")
    if node is None or y.is_null(node):
        return f"User:{name}"  # KafkaUserModel.getUserName: neither tls nor scram -> the bare name
    auth = y.mapping(node, path, "spec.authentication")
    if "type" not in auth:
        raise y.error(node, path, "spec.authentication has no type (tls, tls-external or scram-sha-512)")
    kind = y.string(auth["type"], path, "spec.authentication.type")
    if kind not in AUTHENTICATIONS:
        raise y.error(auth["type"], path, f"authentication type {kind!r}: expected one of "
                      f"{', '.join(AUTHENTICATIONS)} (the CRD's enum)")
    if kind == "scram-sha-512":
        return f"User:{name}"
    if len(name) > TLS_NAME_MAX:
        raise y.error(auth["type"], path, f"KafkaUser {name}: a {kind} user name holds at most {TLS_NAME_MAX} "
                      "characters (KafkaUserModel.validateTlsUsername: the certificate's CN limit)")
    if kind == "tls-external":
        reading.warn("tls-external KafkaUsers", auth["type"],
                     f"KafkaUser {name} (tls-external): its ACLs are for User:CN={name}, which a client matches "
                     f"only if its certificate's subject maps to exactly CN={name} (ssl.principal.mapping.rules)")
    return f"User:CN={name}"


def _user(reading: _Reading, node, top: dict, version: str) -> None:
    path = reading.path
    name, namespace, cluster = _metadata(reading, node, top)
    if reading.cluster is not None and cluster != reading.cluster:
        reading.skipped += 1
        return
    key = (cluster, namespace, name)
    where = f"{path}:{y.line(node)}"
    if key in reading.users:
        reading.warn("KafkaUsers are defined twice", node,
                     f"KafkaUser {name} is defined again (first at {reading.users[key]}): Kubernetes keeps one "
                     "resource per name, the one applied last; both are read")
    reading.users.setdefault(key, where)
    reading.clusters[cluster] = reading.clusters.get(cluster, 0) + 1
    spec_node = top.get("spec")
    spec = {} if spec_node is None or y.is_null(spec_node) else y.mapping(spec_node, path, "spec")
    principal = _principal(reading, name, spec)
    authz = spec.get("authorization")
    if authz is None or y.is_null(authz):
        return  # the operator deletes every ACL of both principal forms: this user has none
    authz_map = y.mapping(authz, path, "spec.authorization")
    kind = y.optional_string(authz_map, "type", path, "spec.authorization")
    if kind != "simple":
        raise y.error(authz_map.get("type", authz), path, f"authorization type {kind!r}: the User Operator "
                      "manages only 'simple' (Kafka ACLs)")
    if "acls" not in authz_map:
        raise y.error(authz, path, "spec.authorization has no acls (required with type simple)")
    seen: set[AclBinding] = set()
    label = f"KafkaUser {name}" + (f", cluster {cluster}" if cluster else "")
    for i, rule in enumerate(y.sequence(authz_map["acls"], path, "spec.authorization.acls")):
        origin = f"{path}:{y.line(rule)} ({label})"
        for binding in _rule(reading, rule, i, principal, version):
            if binding not in seen:  # the operator keeps a Set<SimpleAclRule>
                seen.add(binding)
                reading.acl_set.add(binding, origin)


def _rule(reading: _Reading, node, i: int, principal: str, version: str) -> list[AclBinding]:
    path = reading.path
    what = f"acls[{i}]"
    rule = y.mapping(node, path, what)
    permission = _enum(rule, "type", PERMISSIONS, "allow", path, what)
    if "resource" not in rule:
        raise y.error(node, path, f"{what} has no resource")
    rtype, name, pattern = _resource(reading, rule["resource"], path, f"{what}.resource")
    host = y.optional_string(rule, "host", path, what)
    host = "*" if host is None else host
    operations = _operations(reading, node, rule, path, what, version)
    return [AclBinding(rtype, name, pattern, principal, host, op, permission) for op in operations]


def _enum(entries: dict, key: str, values: dict, default, path: str, what: str):
    node = entries.get(key)
    if y.is_null(node):
        if default is None:
            reason = f"{what}.{key} is required (one of {', '.join(values)})"
            raise y.error(node, path, reason) if node is not None else InputError(reason, path)
        return values[default]
    text = y.string(node, path, f"{what}.{key}")
    if text not in values:
        raise y.error(node, path, f"{what}.{key}: {text!r} is not one of {', '.join(values)} (the CRD's enum, "
                      "exact case)")
    return values[text]


def _resource(reading: _Reading, node, path: str, what: str) -> tuple[ResourceType, str, PatternType]:
    resource = y.mapping(node, path, what)
    if "type" not in resource:
        raise y.error(node, path, f"{what} has no type (topic, group, cluster or transactionalId)")
    rtype = _enum(resource, "type", RESOURCE_TYPES, None, path, what)
    if rtype is ResourceType.CLUSTER:
        if "name" in resource or "patternType" in resource:
            reading.find(CLUSTER_NAME_IGNORED, node, f"{what}: a cluster resource is always LITERAL {CLUSTER_NAME} "
                         "(SimpleAclRuleResource.fromCrd); its name/patternType are ignored")
        return rtype, CLUSTER_NAME, PatternType.LITERAL
    name = y.optional_string(resource, "name", path, what)
    if name is None:
        raise y.error(node, path, f"{what} has no name (SimpleAclRuleResource: 'Name is required')")
    pattern = _enum(resource, "patternType", PATTERNS, "literal", path, what)
    if name == "*" and pattern is PatternType.PREFIXED:
        reading.find(PREFIX_STAR, node, f"{what}: patternType prefix with name '*' is PREFIXED '*' in Kafka, which "
                     "matches only names that begin with '*' (not every name: that is literal '*')")
    elif name.endswith("*") and len(name) > 1 and pattern is PatternType.LITERAL:
        reading.find(LITERAL_GLOB, node, f"{what}: literal name {name!r} matches only that exact name; Kafka has no "
                     "glob (patternType prefix without the '*' matches the names it starts)")
    return rtype, name, pattern


def _operations(reading: _Reading, node, rule: dict, path: str, what: str, version: str) -> list[AclOperation]:
    has_list = not y.is_null(rule.get("operations"))
    has_one = not y.is_null(rule.get("operation"))
    if version == "v1":
        if has_one:
            # Not in the v1 schema: the API server prunes it (structural schemas drop unknown fields).
            reading.find(V1_OPERATION_DROPPED, rule["operation"], f"{what}.operation is not in the "
                         "kafka.strimzi.io/v1 schema: the API server drops it; use operations")
        if not has_list:
            # SimpleAclRule.fromCrd (1.x): no operations, no ACLs ("should not happen" with the v1 CRD)
            reading.warn("rules have no operations (they grant nothing)", node,
                         f"{what} has no operations: the v1 CRD requires them; Strimzi 1.x creates no ACL for it")
            return []
    else:
        if has_list and has_one:
            raise y.error(node, path, f"{what}: both operations and operation are given (Strimzi 0.51 "
                          "SimpleAclRule.fromCrd: InvalidResourceException)")
        if not has_list and not has_one:
            raise y.error(node, path, f"{what}: neither operations nor operation is given (Strimzi 0.51 "
                          "SimpleAclRule.fromCrd: InvalidResourceException)")
        if has_one:
            return [_enum(rule, "operation", OPERATIONS, None, path, what)]
    items = y.sequence(rule["operations"], path, f"{what}.operations")
    if not items:
        reading.warn("rules have no operations (they grant nothing)", node,
                     f"{what}: operations is empty, so this rule creates no ACL")
    return [_enum({"operations": item}, "operations", OPERATIONS, None, path, what) for item in items]
