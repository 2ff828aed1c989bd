"""What a file is, from its content: the one sniffer, for telling formats apart and for every reader's
failure path.

A reader that cannot read a file should say what the file looks like instead of reporting the
first token it choked on (a ``server.properties`` given as ACLs is not "a rules syntax error").
Kafka's own ACL formats and rules files are told by it (``acl/registry.py``: each format names its
kinds); the ecosystem formats, told by tests of their own, use it for messages only.

The interface, kept small on purpose:

- :func:`what_is` ``(text) -> Kind | None``: the kind a text looks like, or None when it looks like
  nothing authz knows. Looks at the first few kilobytes only, never raises, never reads a file.
- :class:`Kind`: ``key`` (stable, for code: ``"server-properties"``) and ``name`` (for people:
  ``"a Kafka broker configuration (server.properties)"``).
- :func:`wrong_kind` ``(text, path, expected, reads) -> InputError``: the one-line error
  ``FILE: this looks like X, expected Y (formats authz reads here: ...)``.
- :func:`other_kind` ``(text, label, expected) -> InputError | None``: the same error for a reader that
  failed, but only when the text is clearly another kind (the JSON readers in ``strict_input`` use it).
- :func:`is_rules` ``(text) -> bool``: a Kroxylicious rules file, valid or not (exactly when ``what_is``
  says ``RULES``); :func:`looks_like` ``(text) -> str | None``: ``what_is``'s answer in words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from kafka_authz_cli.errors import InputError

#: How much of a text the sniffer looks at: enough for any header, cheap on a 1 GB file.
HEAD = 16_384


@dataclass(frozen=True)
class Kind:
    key: str
    name: str

    def __str__(self) -> str:
        return self.name


def _k(key: str, name: str) -> Kind:
    return Kind(key, name)


ACL_JSON = _k("acl-json", "an authz ACL JSON")
ZK_ACL_JSON = _k("zk-acl-json", "a Kafka ACL JSON (ZooKeeper /kafka-acl node)")
KAFKA_ACLS = _k("kafka-acls", "kafka-acls output")
KAFKA_CONFIGS = _k("kafka-configs", "kafka-configs --describe output")
KSM_CSV = _k("ksm-csv", "a Kafka Security Manager CSV")
RULES = _k("rules", "a Kroxylicious rules file")
SERVER_PROPERTIES = _k("server-properties", "a Kafka broker configuration (server.properties)")
CONNECTOR_PROPERTIES = _k("connector-properties", "a Kafka Connect connector configuration (.properties)")
WORKER_PROPERTIES = _k("worker-properties", "a Kafka Connect worker configuration (.properties)")
CLIENT_PROPERTIES = _k("client-properties", "Kafka client properties")
ZOOKEEPER_PROPERTIES = _k("zookeeper-properties", "a ZooKeeper configuration (zookeeper.properties)")
LOG4J_PROPERTIES = _k("log4j-properties", "a log4j configuration")
PROPERTIES = _k("properties", "a Java .properties file")
AUTHORIZER_LOG = _k("authorizer-log", "an authorizer log (log4j)")
CONFLUENT_AUDIT = _k("confluent-audit", "Confluent audit-log events (CloudEvents; authz whatif --logs reads them)")
LOG = _k("log", "a log file")
KAFKA_USER = _k("strimzi-kafkauser", "a Strimzi KafkaUser resource")
KSM_YAML = _k("ksm-yaml", "a Kafka Security Manager YAML file")
JULIEOPS = _k("julieops", "a JulieOps topology")
JIKKOU = _k("jikkou", "Jikkou KafkaPrincipalAuthorization/KafkaPrincipalRole resources")
KAFKA_GITOPS = _k("kafka-gitops", "a kafka-gitops desired state file")
KAFKA_CONNECTOR = _k("strimzi-kafkaconnector", "a Strimzi KafkaConnector resource")
KROXYLICIOUS_CONFIG = _k("kroxylicious-config", "a Kroxylicious proxy configuration")
CONNECTOR_JSON = _k("connector-json", "a Kafka Connect connector configuration (REST JSON)")
DYNAMIC_JSON = _k("dynamic-config-json", "an authz dynamic broker config JSON")
TYPES_JSON = _k("types-json", "a rules-language types file")
SCRAM_JSON = _k("scram-json", "a SCRAM credential record")
JSON = _k("json", "JSON")
JSON_LINES = _k("json-lines", "JSON lines")
YAML = _k("yaml", "YAML")
PEM = _k("pem", "a PEM certificate")
PEM_KEY = _k("pem-key", "a PEM private key")
JAAS = _k("jaas", "a JAAS file")
CSV = _k("csv", "CSV")
HTML = _k("html", "HTML")
XML = _k("xml", "XML")
TERRAFORM = _k("terraform", "a Terraform file")
TERRAFORM_STATE = _k("terraform-state", "Terraform JSON (terraform show -json output or a terraform.tfstate)")
BINARY = _k("binary", "a binary file")
MARKDOWN = _k("markdown", "Markdown text")
PYTHON = _k("python", "Python source")
SHELL_SCRIPT = _k("shell-script", "a shell script")

# A Kroxylicious rules file, as its grammar (AclRules.g4) starts: ``rule: importStmt* denyRule* allowRule*
# endRule``. Its first statement is ``from ... import ...;``, ``deny``/``allow <Type> with ...`` or
# ``otherwise deny;``, after the whitespace and comments the proxy's lexer skips; keywords compared
# case-insensitively (``Allow User with`` is a rules file the proxy will refuse, and lint must say so).
# A line starting ``otherwise deny;`` also makes one (a rules file whose first statement is broken).
# Python's ``from a import b`` has no ``;``; a ``.properties`` key ``allow.everyone.if.no.acl.found``
# is followed by ``.``, not a type and ``with``. Decided by content, never by name: the proxy reads
# whatever ``aclFile`` names. Possessive skipping: linear on any input.
_SKIPPED = r"(?:\s|//[^\n]*\n|/\*.*?\*/)*+"
_IDENT = r"[A-Za-z][A-Za-z0-9_]*"
_FIRST_STATEMENT = re.compile(
    "\ufeff?" + _SKIPPED + r"(?:"
    rf"from\s+{_IDENT}(?:\s*\.\s*{_IDENT})*\s+import\s+{_IDENT}(?:\s+as\s+{_IDENT})?"
    rf"(?:\s*,\s*{_IDENT}(?:\s+as\s+{_IDENT})?)*\s*;"
    rf"|(?:allow|deny)\s+{_IDENT}\s+with\b"
    r"|otherwise\s+deny\s*;)",
    re.IGNORECASE | re.DOTALL)
_END_LINE = re.compile(r"^otherwise[ \t]+deny[ \t]*;", re.MULTILINE | re.IGNORECASE)

#: How much of a text tells a rules file: its first statement may follow long comments.
RULES_HEAD = 64 * 1024


def is_rules(text: str) -> bool:
    """Does ``text`` read as a Kroxylicious rules file (valid or not)? Looks at its first 64 KB."""
    head = text[:RULES_HEAD]
    return bool(_FIRST_STATEMENT.match(head) or _END_LINE.search(head))


_BROKER_KEYS = {"broker.id", "node.id", "process.roles", "log.dirs", "log.dir", "zookeeper.connect",
                "controller.quorum.voters", "controller.quorum.bootstrap.servers", "controller.listener.names",
                "inter.broker.listener.name", "num.network.threads", "num.io.threads", "log.retention.hours",
                "num.partitions", "authorizer.class.name", "super.users", "advertised.listeners"}
_WORKER_KEYS = {"group.id", "key.converter", "value.converter", "offset.storage.topic", "offset.storage.file.filename",
                "config.storage.topic", "plugin.path", "connector.client.config.override.policy"}
_PROP_LINE = re.compile(r"^[ \t\f]*[A-Za-z_][\w.\-\[\]]*[ \t\f]*[=:]")
_YAML_KEY = re.compile(r"^(?:- )?[A-Za-z_][\w.\-]*:(?:[ \t]|$)")
_K8S_KIND = re.compile(r"^kind:[ \t]*[\"']?(\w+)", re.M)
#: a KafkaUser inside a `kind: List` (`kubectl get kafkausers -o yaml`): its kind is indented
_LISTED_KAFKA_USER = re.compile(r"^[ \t]+(?:- )?kind:[ \t]*[\"']?KafkaUser\b", re.M)
_JIKKOU_API = re.compile(r"^[ \t]*(?:- )?apiVersion:[ \t]*[\"']?kafka\.jikkou\.io/", re.M)
_LISTED_JIKKOU = re.compile(r"^[ \t]+(?:- )?kind:[ \t]*[\"']?KafkaPrincipal(?:Authorization|Role)\b", re.M)
_PEM = re.compile(r"^-----BEGIN [A-Z0-9 ]+-----[ \t\r]*$", re.M)
_LOG_LINE = re.compile(r"^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d")
_AUTHZ_LOG = re.compile(r"Principal = \S.* is (?:Allowed|Denied) Operation")
_JAAS = re.compile(r"^\s*[\w.\-]+\s*\{\s*$[\s\S]*?LoginModule\s+(?:required|requisite|sufficient|optional)", re.M)
_ACLS_HEADER = re.compile(r"[ \t]*(?:Current|Adding) ACLs for resource `|^[ \t]*ACLs for principal `", re.M)
_CONFIGS_HEADER = re.compile(r"^[ \t]*(?:(?:Dynamic|All) configs for broker |Default configs? for brokers in the cluster are:|"
                             r"Configs for broker \S+ are:|Configs for (?:brokers '|default brokers are))", re.M)


_CONFLUENT_EVENT = re.compile(r'"type"\s*:\s*"io\.confluent\.kafka\.server/')


def _json_kind(head: str, text: str) -> Kind:
    if _CONFLUENT_EVENT.search(head) and '"data"' in head:
        return CONFLUENT_AUDIT
    try:
        doc = json.loads(text if len(text) <= 4 * HEAD else "")
    except (ValueError, RecursionError):
        doc = None
    if doc is None:
        lines = [ln for ln in head.splitlines() if ln.strip()]
        if len(lines) > 1 and all(_is_json(ln) for ln in lines[:20] if ln is not lines[-1] or len(head) < HEAD):
            return JSON_LINES
        return ACL_JSON if re.search(r'"acls"\s*:', head) and '"resource_type"' in head else JSON
    return _json_object_kind(doc) if isinstance(doc, dict) else JSON


#: a JSON object's "kind" (Kubernetes resources in JSON)
_JSON_RESOURCE_KINDS = {"KafkaUser": KAFKA_USER, "KafkaConnector": KAFKA_CONNECTOR}


def _json_object_kind(doc: dict) -> Kind:
    """A JSON object by its keys."""
    keys = set(doc)
    acls = doc.get("acls")
    if isinstance(acls, list):
        first = acls[0] if acls and isinstance(acls[0], dict) else {}
        if "permissionType" in first or "operations" in first:
            return ZK_ACL_JSON
        return ACL_JSON
    if doc.get("kind") in _JSON_RESOURCE_KINDS:
        return _JSON_RESOURCE_KINDS[doc["kind"]]
    if "context" in keys and keys & {"projects", "platform"}:
        return JULIEOPS
    if "connector.class" in keys or isinstance(doc.get("config"), dict) and "connector.class" in doc["config"]:
        return CONNECTOR_JSON
    if keys & {"cluster_default", "brokers"} and keys <= {"cluster_default", "brokers"}:
        return DYNAMIC_JSON
    if keys & {"principal_types", "resource_types", "default_imports"}:
        return TYPES_JSON
    if keys & {"storedKey", "serverKey"}:
        return SCRAM_JSON
    if "format_version" in keys and keys & {"values", "planned_values"} or {"terraform_version", "resources"} <= keys:
        return TERRAFORM_STATE
    return JSON


def _is_json(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def _properties_kind(lines: list[str]) -> Kind | None:
    meaningful = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith(("#", "!"))]
    if not meaningful:
        return None
    props = [ln for ln in meaningful if _PROP_LINE.match(ln)]
    if len(props) < max(1, (len(meaningful) * 3) // 4):
        return None
    keys = {re.split(r"[ \t\f]*[=:]", ln.strip(), maxsplit=1)[0] for ln in props}
    if "connector.class" in keys:
        return CONNECTOR_PROPERTIES
    if any(k.startswith(("log4j.", "log4j2.", "appender.", "logger.", "rootLogger")) for k in keys):
        return LOG4J_PROPERTIES
    if {"dataDir", "clientPort"} <= keys:
        return ZOOKEEPER_PROPERTIES
    if keys & _BROKER_KEYS or "listeners" in keys and "bootstrap.servers" not in keys:
        return SERVER_PROPERTIES
    if len(keys & _WORKER_KEYS) >= 2:
        return WORKER_PROPERTIES
    if keys & {"bootstrap.servers", "security.protocol", "sasl.mechanism", "sasl.jaas.config"}:
        return CLIENT_PROPERTIES
    return PROPERTIES


def _ksm_users(lines: list[str]) -> bool:
    """``users:`` is the only top-level key (KSM's ``AclYaml``)."""
    keyed = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#") and ln.strip() != "---"]
    return bool(keyed) and keyed[0].rstrip().strip("'\"").rstrip(":").strip("'\"") == "users" and \
        keyed[0].rstrip().endswith(":") and all(ln[0] in " \t" for ln in keyed[1:])
_JULIE_CONTEXT = re.compile(r"^[\"']?context[\"']?[ \t]*:", re.M)
_JULIE_OTHER = re.compile(r"^[\"']?(?:projects|platform)[\"']?[ \t]*:", re.M)
_GITOPS_KEYS = ("settings", "topics", "services", "users", "customServiceAcls", "customUserAcls")
_GITOPS_SERVICE = re.compile(r"[ \t]+(?:principal:|type:[ \t]*[\"']?(?:application|kafka-streams|kafka-connect)\b)")
_TOP_KEY = re.compile(r"[\"']?([A-Za-z]+)[\"']?[ \t]*:(?:[ \t]|$)")


def _gitops_keys(lines: list[str]) -> bool:
    """Every top-level key is one of kafka-gitops' ``DesiredStateFile`` (unknown keys are errors there)."""
    top = [ln for ln in lines if ln.strip() and ln[0] not in " \t-#" and ln.strip() != "---"]
    keys = [m[1] if (m := _TOP_KEY.match(ln)) is not None else "" for ln in top]
    if keys == ["services"]:  # services alone: a docker-compose file, unless a kafka-gitops service shows
        return any(_GITOPS_SERVICE.match(ln) for ln in lines)
    return bool(keys) and all(k in _GITOPS_KEYS for k in keys)


_KSM_SECTION = re.compile(r"^[ \t]+[\"']?(?:topics|groups|transactional_ids|clusters)[\"']?:", re.M)


def _yaml_kind(head: str, lines: list[str]) -> Kind | None:
    kinds = _K8S_KIND.findall(head)
    if "KafkaUser" in kinds or "List" in kinds and _LISTED_KAFKA_USER.search(head):
        return KAFKA_USER
    if "KafkaConnector" in kinds:
        return KAFKA_CONNECTOR
    if _JIKKOU_API.search(head) and ({"KafkaPrincipalAuthorization", "KafkaPrincipalRole"} & set(kinds)
                                     or _LISTED_JIKKOU.search(head)):
        return JIKKOU
    if _ksm_users(lines) and _KSM_SECTION.search(head):
        return KSM_YAML  # KSM's YamlAclParser: `users:` alone at the top, sections under each user
    if _JULIE_CONTEXT.search(head) and _JULIE_OTHER.search(head):
        return JULIEOPS  # JulieOps' TopologyCustomDeserializer: `context` and `projects` (or `platform`)
    if _gitops_keys(lines):
        return KAFKA_GITOPS  # kafka-gitops' DesiredStateFile: only its six top-level keys
    if re.search(r"^(?:virtualClusters|filterDefinitions|filters|adminHttp|defaultFilters):", head, re.M):
        return KROXYLICIOUS_CONFIG
    if kinds and re.search(r"^apiVersion:\s*[\"']?kafka\.strimzi\.io/", head, re.M):
        names = "/".join(dict.fromkeys(kinds))
        return Kind(f"strimzi-{kinds[0].lower()}", f"a Strimzi {names} resource")
    if kinds and re.search(r"^apiVersion:", head, re.M):
        return Kind(f"k8s-{kinds[0].lower()}", f"a Kubernetes {kinds[0]} resource")
    keyed = [ln for ln in lines if _YAML_KEY.match(ln.lstrip()) or ln.strip() == "---"]
    if keyed and len(keyed) * 2 >= len([ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]):
        return YAML
    return None


def _csv_kind(lines: list[str]) -> Kind | None:
    rows = [ln for ln in lines if ln.strip()][:20]
    if not rows or "," not in rows[0]:
        return None
    if "KafkaPrincipal" in rows[0]:
        return KSM_CSV
    widths = {ln.count(",") for ln in rows if '"' not in ln}
    if len(widths) == 1 and next(iter(widths)) >= 1 and not _PROP_LINE.match(rows[0]):
        return CSV
    return None


def _acl_text(head: str, lines: list[str]) -> Kind | None:
    """The ACL texts authz writes: by their first line, which decides even where a name further down
    holds another format's text (a PEM line, '<html>', a log line, a NUL); else kafka-acls output by a
    header on any line (a warning pasted first)."""
    first = next(ln for ln in lines if ln.strip())
    if _ACLS_HEADER.match(first):
        return KAFKA_ACLS
    if "KafkaPrincipal" in first and "," in first:
        return KSM_CSV
    return KAFKA_ACLS if _ACLS_HEADER.search(head) else None


_SHEBANG = re.compile(r"#![ \t]*(?:/usr)?/bin/(?:env[ \t]+(?:-\S+[ \t]+)*)?(?P<interpreter>[\w.-]+)")
#: Statements that open Python lines and no format authz reads: a rules file's ``from a import b;`` ends
#: with ``;`` (and is told first), a properties key is followed by ``=``, ``:`` or a blank and a value.
_PYTHON_LINE = re.compile(r"^(?:import[ \t]+[\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*$"
                          r"|from[ \t]+[\w.]+[ \t]+import[ \t]+[\w*(][^;\n]*$"
                          r"|(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(.*:[ \t]*(?:#.*)?$"
                          r"|class[ \t]+\w+[ \t]*(?:\(.*\))?[ \t]*:[ \t]*(?:#.*)?$"
                          r"|if[ \t]+__name__[ \t]*==)", re.M)


def _script_kind(head: str, lines: list[str]) -> Kind | None:
    """A script, by its ``#!`` line (its interpreter named directly or through ``env``), or Python
    source without one by two lines only Python starts so (imports, ``def``, ``class``)."""
    shebang = _SHEBANG.match(lines[0]) if lines else None
    if shebang:
        interpreter = shebang["interpreter"]
        if interpreter.startswith("python"):
            return PYTHON
        if interpreter in ("sh", "bash", "dash", "ksh", "zsh"):
            return SHELL_SCRIPT
    return PYTHON if len(_PYTHON_LINE.findall(head)) >= 2 else None


_MD_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.M)
_MD_FENCE = re.compile(r"^[ \t]{0,3}(?:```|~~~)", re.M)
_MD_LINK = re.compile(r"!?\[[^\]\n]+\]\([^)\s]+(?:[ \t]+\"[^\"\n]*\")?\)")
_MD_TABLE_RULE = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*\|", re.M)


def _markdown_kind(head: str) -> Kind | None:
    """CommonMark's block structure: an ATX heading with a fenced code block, an inline link or a table
    rule (GFM), or a code fence with a link. A heading alone is not enough: `# comment` lines open
    properties files and shell scripts, which is also why this is tried last."""
    heading = _MD_HEADING.search(head) is not None
    fence = len(_MD_FENCE.findall(head)) >= 2
    link = _MD_LINK.search(head) is not None
    table = _MD_TABLE_RULE.search(head) is not None
    return MARKDOWN if (heading and (fence or link or table)) or (fence and link) else None


def what_is(text: str) -> Kind | None:
    """The kind ``text`` looks like, or None. Never raises."""
    if is_rules(text):
        return RULES
    head = text[:HEAD].lstrip("\ufeff")
    stripped = head.strip()
    if not stripped:
        return None
    lines = head.splitlines()
    json_text = stripped[0] in "{[" and not stripped.startswith("[20")
    acl_text = None if json_text else _acl_text(head, lines)
    if acl_text is not None:
        return acl_text  # before the test for binary: a name in an ACL may hold any character
    if "\x00" in head:
        return BINARY
    low = stripped[:200].lower()
    if json_text:
        return _json_kind(head, text.lstrip("\ufeff"))
    if _CONFIGS_HEADER.search(head):
        return KAFKA_CONFIGS
    if low.startswith(("<!doctype html", "<html")) or "<html" in low:
        return HTML
    if low.startswith("<?xml") or low.startswith("<"):
        return XML
    pem = _PEM.search(head)
    if pem:
        return PEM_KEY if "PRIVATE KEY" in pem.group(0) else PEM
    if _AUTHZ_LOG.search(head):
        return AUTHORIZER_LOG
    if sum(1 for ln in lines[:50] if _LOG_LINE.match(ln)) >= max(1, min(len(lines), 50) // 3):
        return LOG
    if _JAAS.search(head):
        return JAAS
    if re.search(r'^\s*(?:resource|provider|variable|module)\s+"[\w-]+"', head, re.M):
        return TERRAFORM
    return (_script_kind(head, lines) or _csv_kind(lines) or _yaml_kind(head, lines) or _properties_kind(lines)
            or _markdown_kind(head))


def looks_like(text: str) -> str | None:
    """What ``text`` looks like, in words (``what_is``'s name; "an empty file" when blank), or None."""
    if not text[:HEAD].lstrip("\ufeff").strip():
        return "an empty file"
    kind = what_is(text)
    return kind.name if kind else None


#: Kinds that are JSON: a JSON reader's own located error says more about them than their kind does.
JSON_KINDS = frozenset({ACL_JSON.key, ZK_ACL_JSON.key, CONNECTOR_JSON.key, DYNAMIC_JSON.key, TYPES_JSON.key,
                        SCRAM_JSON.key, JSON.key, JSON_LINES.key, CONFLUENT_AUDIT.key})


def other_kind(text: str, label: str, expected: str, same: frozenset[str] = JSON_KINDS) -> InputError | None:
    """For a reader that just failed on ``text``: ``label: this looks like X, expected Y`` when the text
    is clearly something else than what the reader reads (a log given as JSON), else None (the
    reader's own located error is the better one: a JSON file with a typo stays a JSON error)."""
    kind = what_is(text)
    if kind is None or kind.key in same:
        return None
    return InputError(f"this looks like {kind.name}, expected {expected}", label)


def wrong_kind(text: str, path: str, expected: str, reads: str) -> InputError:
    """``path: this looks like X, expected Y (formats authz reads here: ...)``: one line, exit 2."""
    kind = what_is(text)
    what = f"this looks like {kind.name}" if kind else "cannot tell what this is"
    return InputError(f"{what}, expected {expected} (formats authz reads here: {reads})", path)
