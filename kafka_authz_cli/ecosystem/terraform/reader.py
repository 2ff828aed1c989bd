"""Terraform ``kafka_acl`` (Mongey) and ``confluent_kafka_acl`` (Confluent) resources: the ACLs they create.

Followed: Mongey/terraform-provider-kafka 0.13.1+ (``678b3c7``) and confluentinc/terraform-provider-confluent
2.83 (``e58ae68``). Read from ``.tf`` files (HCL), ``terraform show -json`` output and ``terraform.tfstate``
(v4). One resource is one binding:

- ``kafka_acl`` (``kafka/resource_kafka_acl.go``, ``kafka/kafka_acls.go``): every value is matched by
  exact string (``stringToACLResource``, ``stringToOperation``, ``stringToAclPermissionType``,
  ``stringToACLPrefix``): ``Topic``, ``Read``, ``Allow``; ``resource_pattern_type_filter`` defaults to
  ``Literal`` and is validated to ``Literal``/``Prefixed``; ``Any``/``Unknown`` (and ``Match``) reach the
  broker, which refuses them. Names and principals are not interpreted.
- ``confluent_kafka_acl`` (``internal/provider/resource_kafka_acl.go``): Kafka's enum spellings, exact
  case (``validation.StringInSlice(..., false)``); ``pattern_type`` is required; ``kafka_cluster``,
  ``rest_endpoint`` and ``credentials`` say where, not what, and are not evaluated.
- In ``.tf`` files only what the files state is evaluated (``hcl``: each reference target once,
  within stated bounds), ``count``/``for_each`` up to :data:`MAX_INSTANCES`; ``count`` 0 creates none;
  ``for_each``, references to other resources and ``module`` blocks are not evaluated: the resource is
  an error naming the attribute, or with ``--option unevaluated=skip`` left out with EA504.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, AclSet, PatternType, ResourceType
from kafka_authz_cli.codes import FindingCode
from kafka_authz_cli.ecosystem.source_reading import record
from kafka_authz_cli.ecosystem.terraform import hcl, state
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.formats import WarningTally, json_type

_OPS = ("ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS",
        "ALTER_CONFIGS", "IDEMPOTENT_WRITE")
_TYPES = ("TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN")


def _camel(name: str) -> str:
    return "".join(w.capitalize() for w in name.split("_"))


@dataclass(frozen=True)
class Provider:
    """One provider's ACL resource: its attribute names and the exact strings it takes."""

    resource: str
    #: binding field -> attribute name, in the order of the import ID fields of kafka_acl
    attributes: Mapping[str, str]
    types: Mapping[str, ResourceType]
    patterns: Mapping[str, PatternType]
    operations: Mapping[str, AclOperation]
    permissions: Mapping[str, AclPermissionType]
    #: the pattern attribute's default (None: required)
    default_pattern: str | None
    #: strings the provider passes on that the broker refuses (``Any``, ``Unknown``, ``Match``)
    refused: tuple[str, ...]


MONGEY = Provider(
    "kafka_acl",
    {"principal": "acl_principal", "host": "acl_host", "operation": "acl_operation",
     "permission": "acl_permission_type", "resource_type": "resource_type", "resource_name": "resource_name",
     "pattern_type": "resource_pattern_type_filter"},
    {("TransactionalID" if t == "TRANSACTIONAL_ID" else _camel(t)): ResourceType[t] for t in _TYPES},
    {"Literal": PatternType.LITERAL, "Prefixed": PatternType.PREFIXED},
    {_camel(o): AclOperation[o] for o in _OPS},
    {"Allow": AclPermissionType.ALLOW, "Deny": AclPermissionType.DENY},
    "Literal", ("Any", "Unknown", "Match"))
CONFLUENT = Provider(
    "confluent_kafka_acl",
    {"principal": "principal", "host": "host", "operation": "operation", "permission": "permission",
     "resource_type": "resource_type", "resource_name": "resource_name", "pattern_type": "pattern_type"},
    {t: ResourceType[t] for t in _TYPES},
    {"LITERAL": PatternType.LITERAL, "PREFIXED": PatternType.PREFIXED},
    {o: AclOperation[o] for o in _OPS},
    {"ALLOW": AclPermissionType.ALLOW, "DENY": AclPermissionType.DENY},
    None, ("ANY", "UNKNOWN", "MATCH"))
PROVIDERS = {p.resource: p for p in (MONGEY, CONFLUENT)}

FINDINGS = (
    FindingCode(
        "EA501", "literal-name-ends-in-star", "warning",
        "A Literal resource name ending in '*' matches only that exact name.",
        "The providers pass resource_name to Kafka unchanged: with the Literal pattern, 'orders-*' is the "
        "literal name 'orders-*', which no topic is called. Kafka has no glob: Prefixed 'orders-' matches "
        "the names it starts, Literal '*' matches every name.",
        'resource "kafka_acl" "a" {\n  resource_name       = "orders-*"\n  resource_type       = "Topic"\n'
        '  acl_principal       = "User:alice"\n  acl_host            = "*"\n  acl_operation       = "Read"\n'
        '  acl_permission_type = "Allow"\n}\n'),
    FindingCode(
        "EA502", "prefix-star", "warning",
        "A Prefixed resource name '*' matches only names that begin with '*'.",
        "Prefixed patterns compare the start of the name: Prefixed '*' is not every name (that is "
        "Literal '*'), it is the names whose first character is '*'.",
        'resource "kafka_acl" "a" {\n  resource_name                = "*"\n  resource_type                = "Topic"\n'
        '  resource_pattern_type_filter = "Prefixed"\n  acl_principal                = "User:alice"\n'
        '  acl_host                     = "*"\n  acl_operation                = "Read"\n'
        '  acl_permission_type          = "Allow"\n}\n'),
    FindingCode(
        "EA506", "prefix-ends-in-star", "warning",
        "A Prefixed resource name ending in '*' matches only names that contain that '*'.",
        "Prefixed 'events-*' matches the names that begin with 'events-*', star included: the '*' is no "
        "wildcard. Prefixed 'events-' is what matches every name beginning with 'events-'.",
        'resource "kafka_acl" "a" {\n  resource_name                = "events-*"\n  resource_type                = "Topic"\n'
        '  resource_pattern_type_filter = "Prefixed"\n  acl_principal                = "User:alice"\n'
        '  acl_host                     = "*"\n  acl_operation                = "Read"\n'
        '  acl_permission_type          = "Allow"\n}\n'),
    FindingCode(
        "EA503", "principal-glob", "warning",
        "A principal holding '*' other than User:* is a literal name, not a pattern.",
        "Kafka matches principals exactly; only 'User:*' is its wildcard. 'User:CN=*.example.com' or "
        "'User:app-*' is granted to a client only if its principal is literally that string.",
        'resource "kafka_acl" "a" {\n  resource_name       = "orders"\n  resource_type       = "Topic"\n'
        '  acl_principal       = "User:app-*"\n  acl_host            = "*"\n  acl_operation       = "Read"\n'
        '  acl_permission_type = "Allow"\n}\n'),
    FindingCode(
        "EA504", "resource-not-evaluated", "warning",
        "An ACL resource whose values authz cannot evaluate was left out (--option unevaluated=skip).",
        "Its values come from other resources, for_each, functions or variables without a default: Terraform "
        "knows them at plan time, a reading of the files does not. The ACL set read lacks what the resource "
        "creates; read `terraform show -json` (the state) to have every ACL.",
        'resource "kafka_acl" "a" {\n  resource_name       = "orders"\n  resource_type       = "Topic"\n'
        '  acl_principal       = "User:${kafka_user.app.name}"\n  acl_host            = "*"\n'
        '  acl_operation       = "Read"\n  acl_permission_type = "Allow"\n}\n'),
    FindingCode(
        "EA505", "module-not-read", "warning",
        "A module block may create ACLs that are not read.",
        "authz reads the resources of the files given; the resources of a called module are created by "
        "Terraform too. Read the module's directory as well, or the state (`terraform show -json`).",
        'module "acls" {\n  source = "./acls"\n}\n'),
)
_CODES = {f.code: f for f in FINDINGS}
_INTEGER_ID = re.compile(r"User:[0-9]+")


def sniff(text: str) -> bool:
    """Terraform's HCL (any block of a module: the variables and locals of a directory's other files count), or
    Terraform's JSON (show -json, tfstate v4)."""
    head = text[:16384].lstrip("\ufeff \t\r\n")
    if head.startswith("{"):
        return bool(_SHOW.search(head) or (_STATE.search(head) and '"resources"' in head))
    return bool(_BLOCK.search(text))


_BLOCK = re.compile(r'^(?:resource|data|variable|locals|module|provider|terraform|output)(?:[ \t]+"[\w-]*")*[ \t]*\{',
                    re.M)
_SHOW = re.compile(r'"format_version"\s*:\s*"[^"]*"[\s\S]*"(?:planned_)?values"\s*:\s*\{|"values"\s*:\s*\{\s*"root_module"')
_STATE = re.compile(r'"version"\s*:\s*4\s*,[\s\S]*"terraform_version"\s*:|"terraform_version"\s*:[^,]*,\s*"serial"')


class _Reading:
    def __init__(self, source: str, skip: bool) -> None:
        self.source = source
        self.skip = skip
        self.acl_set = AclSet([], [], source, "terraform")
        self.tally = WarningTally()
        self.seen: set[AclBinding] = set()
        self.plain: list[str] = []
        self.clusters: set[str] = set()
        #: instances made by count and for_each so far (bounded: _expansion)
        self.instances = 0

    def warn(self, code: str, where: str, message: str) -> None:
        self.tally.add(f"{code} {_CODES[code].summary[:-1].lower()}", where, f"{code} {message}")
        path, _, line = where.rpartition(":")
        located = line.isdigit()
        record(self.acl_set, _CODES[code], path if located else where, int(line) if located else 1, 0, message)

    def add(self, binding: AclBinding, origin: str, provider: "Provider | None" = None) -> None:
        if binding not in self.seen:  # the broker holds a set: two resources for one ACL are one ACL
            self.seen.add(binding)
            self.acl_set.add(binding, origin)
        where = origin.split(" (", 1)[0]
        _findings(self, binding, where)
        if provider is CONFLUENT and _INTEGER_ID.fullmatch(binding.principal):
            # principalWithIntegerIdToPrincipalWithResourceId: older states hold Confluent Cloud's integer ids
            self.tally.add("confluent_kafka_acl principals are integer ids", where,
                           f"principal {binding.principal} is an integer id: the provider maps it to the service "
                           "account's resource id (User:sa-...) when it reads the ACL; the cluster's ACL names that")


def _findings(reading: _Reading, b: AclBinding, where: str) -> None:
    if b.pattern_type is PatternType.LITERAL and b.resource_name.endswith("*") and b.resource_name != "*":
        reading.warn("EA501", where, f"Literal name {b.resource_name!r} matches only that exact name (Kafka has no "
                     f"glob; Prefixed {b.resource_name[:-1]!r} matches the names it starts)")
    if b.pattern_type is PatternType.PREFIXED and b.resource_name == "*":
        reading.warn("EA502", where, "Prefixed '*' matches only names that begin with '*' (every name is Literal '*')")
    if b.pattern_type is PatternType.PREFIXED and b.resource_name.endswith("*") and b.resource_name != "*":
        reading.warn("EA506", where, f"Prefixed {b.resource_name!r} matches only names beginning with that '*' "
                     f"(Prefixed {b.resource_name.rstrip('*')!r} matches the names it starts)")
    if "*" in b.principal and b.principal != "User:*":
        reading.warn("EA503", where, f"principal {b.principal!r} is a literal name: Kafka's only principal wildcard "
                     "is User:*")


def read(text: str, path: str, options: Mapping[str, str] | None = None) -> AclSet:
    """One ``.tf`` file, ``terraform show -json`` output or ``terraform.tfstate`` as the ACLs it creates."""
    return read_many([(text, path)], path, options)


def read_many(files: Iterable[tuple[str, str]], source: str, options: Mapping[str, str] | None = None) -> AclSet:
    """Several files as one ACL set: the ``.tf`` files of a directory are one module (their variables and
    locals are shared), state files are read as they are."""
    mode = (options or {}).get("unevaluated", "error")
    if mode not in ("error", "skip"):
        raise OptionError(f"unevaluated={mode}: expected error or skip", "--option")
    reading = _Reading(source, mode == "skip")
    hcl_files = []
    for text, path in files:
        if text.lstrip("\ufeff \t\r\n").startswith("{"):
            _read_json(reading, text, path)
        else:
            hcl_files.append((text, path))
    if hcl_files:
        _read_hcl(reading, hcl_files)
    acl_set = reading.acl_set
    acl_set.warnings.extend(reading.plain)
    acl_set.warnings.extend(reading.tally.lines())
    if len(reading.clusters) > 1:
        acl_set.warnings.append(f"{source}: confluent_kafka_acl resources of {len(reading.clusters)} Kafka clusters "
                                f"({', '.join(sorted(reading.clusters)[:5])}) are read as one ACL set")
    if not acl_set.bindings:
        acl_set.warnings.append(f"{source}: no kafka_acl or confluent_kafka_acl resources create an ACL here")
    return acl_set


class _Bad(Exception):
    """A value the provider or the broker refuses: ``field`` names the attribute."""

    def __init__(self, attribute: str, reason: str):
        self.attribute = attribute
        self.reason = reason


def binding_of(provider: Provider, value: Callable[[str], Any], strict: bool = False) -> AclBinding:
    """The binding of one resource; ``value(attribute)`` is its value (None: not set). Raises _Bad.

    A number or bool becomes its text, as Terraform converts it for a string argument; ``strict`` (the
    provider's own JSON) takes strings only."""
    a = provider.attributes
    got = {}
    for key, attribute in a.items():
        v = value(attribute)
        if v is None and key == "pattern_type" and provider.default_pattern is not None:
            v = provider.default_pattern
        if v is None:
            raise _Bad(attribute, f"{provider.resource} needs {attribute} (required by the provider's schema)")
        if strict and not isinstance(v, str):
            raise _Bad(attribute, f"{attribute} must be a string (the provider writes one), got {json_type(v)}")
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, (int, float)):
            v = str(v)
        elif not isinstance(v, str):
            raise _Bad(attribute, f"{attribute} must be a string, got {_kind(v)}")
        got[key] = v
    return AclBinding(
        _enum(provider, a["resource_type"], got["resource_type"], provider.types), got["resource_name"],
        _enum(provider, a["pattern_type"], got["pattern_type"], provider.patterns), got["principal"], got["host"],
        _enum(provider, a["operation"], got["operation"], provider.operations),
        _enum(provider, a["permission"], got["permission"], provider.permissions))


def _enum(provider: Provider, attribute: str, text: str, values: Mapping[str, Any]):
    if text in values:
        return values[text]
    if text in provider.refused:
        raise _Bad(attribute, f"{attribute} {text!r}: the broker refuses it in an ACL (one of {', '.join(values)})")
    near = next((k for k in values if _folded(k) == _folded(text)), None)
    hint = f"; the provider takes exactly {near!r}" if near else ""
    raise _Bad(attribute, f"{attribute} {text!r} is not one of {', '.join(values)} (the provider matches exact "
                          f"strings{hint})")


def _folded(text: str) -> str:
    return text.lower().replace("_", "").replace("-", "")


# ----------------------------------------------------------------------------------------------
# .tf files

def _read_hcl(reading: _Reading, files: list[tuple[str, str]]) -> None:
    parsed = [(text, path, hcl.parse(text, path)) for text, path in files]
    scope = hcl.Scope({path: text for text, path, _ in parsed})
    for _, _, blocks in parsed:
        for block in blocks:
            scope.add(block)
    defined: dict[str, str] = {}
    for text, path, blocks in parsed:
        for block in blocks:
            if block.type == "resource" and len(block.labels) == 2 and block.labels[0] in PROVIDERS:
                address = ".".join(block.labels)
                if address in defined:  # Terraform: "Duplicate resource configuration"
                    raise InputError(f"{address} is defined again (first at {defined[address]}): Terraform refuses "
                                     "a module with two", path, block.line, block.col)
                defined[address] = f"{path}:{block.line}"
            if block.type == "module" and block.labels:
                where = f"{path}:{block.line}"
                src = block.attributes.get("source")
                try:
                    value = hcl.evaluate(src, scope, text) if src is not None else None
                except (hcl.Unevaluable, hcl.Refused):
                    value = None
                named = f" (source {value[:200]})" if isinstance(value, str) else ""
                reading.warn("EA505", where, f"module {block.labels[0]}{named}: the ACLs it creates are not read")
            elif block.type == "resource" and len(block.labels) == 2 and block.labels[0] in PROVIDERS:
                _resource(reading, PROVIDERS[block.labels[0]], block, scope, text, path)
    if scope.defaults_used:
        names = ", ".join(f"{n} ({w})" for n, w in list(scope.defaults_used.items())[:5])
        reading.plain.append(f"{reading.source}: values are the defaults of variable(s) {names}; -var, a .tfvars file "
                             "or TF_VAR_ overrides them")
        found = _variable_files({str(Path(p).parent) for _, p, _ in parsed if p not in ("-", "<input>")})
        if found:
            reading.plain.append(f"{reading.source}: Terraform also loads {', '.join(found[:5])}, which authz does not "
                                 "read: the variables they set are not their defaults")


def _variable_files(directories: set[str]) -> list[str]:
    """The variable files Terraform loads by itself beside the configuration (terraform.tfvars[.json],
    *.auto.tfvars[.json])."""
    out: list[str] = []
    for directory in sorted(directories):
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        out.extend(str(Path(directory, n)) for n in names
                   if n in ("terraform.tfvars", "terraform.tfvars.json") or n.endswith((".auto.tfvars", ".auto.tfvars.json")))
    return out


def _resource(reading: _Reading, provider: Provider, block: hcl.Block, scope: hcl.Scope, text: str, path: str) -> None:
    address = f"{block.labels[0]}.{block.labels[1]}"
    where = f"{path}:{block.line}"
    wanted = set(provider.attributes.values())
    try:
        made = []
        for suffix, each, index in _instances(reading, block, scope, text, address):
            scope.each, scope.count_index = each, index
            # in file order, so that the first value authz cannot evaluate is the one named
            values = {a: hcl.evaluate(node, scope, text) for a, node in block.attributes.items() if a in wanted}
            made.append((binding_of(provider, values.get), f"{where} ({address}{suffix})"))
    except hcl.Unevaluable as e:
        attribute = next((k for k, n in block.attributes.items() if _contains(n, e.node)), "a value")
        line, col = hcl.where(e.node)
        if not reading.skip:
            raise InputError(f"{address}: {attribute} = {e.what}: {e.why}; authz cannot know the ACL it creates "
                             "(read `terraform show -json` output, or --option unevaluated=skip to leave it out)",
                             path, line or block.line, col or None) from None
        reading.warn("EA504", f"{path}:{line or block.line}", f"{address} left out: {attribute} = {e.what} ({e.why})")
        return
    except _Bad as e:
        node = block.attributes.get(e.attribute)
        line, col = hcl.where(node) if node is not None else (block.line, block.col)
        raise InputError(f"{address}: {e.reason}", path, line, col) from None
    except RecursionError:  # a last resort: MAX_DEPTH keeps evaluation far from Python's limit
        raise InputError(f"{address}: an expression nested too deeply for authz to evaluate", path, block.line,
                         block.col) from None
    except hcl.Refused as e:  # past authz's bounds: an error whatever --option unevaluated says
        line, col = hcl.where(e.node) if e.node is not None else (0, 0)
        raise InputError(f"{address}: {e.reason}", e.path or path, line or block.line, col or None) from None
    finally:
        scope.each, scope.count_index = None, None
    for binding, origin in made:
        reading.add(binding, origin, provider)


def _instances(reading: _Reading, block: hcl.Block, scope: hcl.Scope, text: str, address: str) -> list[tuple]:
    """``(address suffix, each (key, value) or None, count.index or None)`` of each instance Terraform makes."""
    where = f"{block.path}:{block.line}"
    if "for_each" in block.attributes:
        value = hcl.evaluate(block.attributes["for_each"], scope, text)
        if isinstance(value, dict):  # a map: one instance per key, in key order
            pairs = sorted(value.items())
        elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):  # a set of strings
            pairs = [(v, v) for v in value]
        else:
            raise _Bad("for_each", "for_each must be a map or a set of strings (Terraform refuses a list: toset() it)")
        if not pairs:
            reading.tally.add("resources with no instance (count 0, empty for_each)", where,
                              f"{address}: for_each is empty, Terraform creates no ACL for it")
        _expansion(reading, "for_each", len(pairs))
        return [(f"[{json.dumps(str(k))}]", (str(k), v), None) for k, v in pairs]
    if "count" in block.attributes:
        count = hcl.evaluate(block.attributes["count"], scope, text)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            shown = repr(count) if isinstance(count, (int, float, bool)) or count is None else _kind(count)
            raise _Bad("count", f"count must be a whole number, got {shown}")
        _expansion(reading, "count", count)
        if count == 0:
            reading.tally.add("resources with no instance (count 0, empty for_each)", where,
                              f"{address}: count is 0, Terraform creates no ACL for it")
        return [(f"[{i}]", None, i) for i in range(count)]
    return [("", None, None)]


#: instances one resource's count or for_each may make, and all resources' together: authz's bound (Terraform
#: has none), far above any ACL module, so that `count = 100000000` is one error instead of 10^8 bindings
MAX_INSTANCES = 10_000
MAX_INSTANCES_IN_ALL = 100_000


def _expansion(reading: _Reading, attribute: str, size: int) -> None:
    reading.instances += size
    if size > MAX_INSTANCES or reading.instances > MAX_INSTANCES_IN_ALL:
        raise _Bad(attribute, f"{attribute} = {size:,}: authz expands at most {MAX_INSTANCES:,} instances of a resource "
                   f"and {MAX_INSTANCES_IN_ALL:,} in all (read `terraform show -json` output for larger ones)")


def _kind(value: Any) -> str:
    """A value's kind in words, never its text (shared lists and maps can stand for exponentially many)."""
    kinds: dict[type, str] = {str: "a string", list: "a list", tuple: "a set", dict: "a map"}
    return kinds.get(type(value), type(value).__name__)


def _contains(tree, node) -> bool:
    """Whether ``node`` is in ``tree`` (a loop: an expression may nest thousands of levels)."""
    pending = [tree]
    while pending:
        current = pending.pop()
        if current is node:
            return True
        pending.extend(getattr(current, "children", ()))
    return False


# ----------------------------------------------------------------------------------------------
# terraform show -json, terraform.tfstate

def _read_json(reading: _Reading, text: str, path: str) -> None:
    """Every kafka_acl / confluent_kafka_acl of Terraform's JSON, read strictly (``state``): the
    values are the provider's, so each must be a string (a number where the provider writes a string is a
    forged or broken file, not Terraform's type conversion)."""
    for resource in state.resources(text, path):
        provider = PROVIDERS.get(resource.type) if isinstance(resource.type, str) else None
        if provider is None or resource.mode not in (None, "managed"):
            continue
        values = resource.values
        if values is None:
            raise InputError(f"{resource.address}: no attribute values (is this a plan, not state?)", path,
                             resource.line)
        try:
            binding = binding_of(provider, values.get, strict=True)
        except _Bad as e:
            if e.attribute in values:
                raise state.error(text, path, resource.values_path + [e.attribute],
                                  f"{resource.address}: {e.reason}") from None
            raise InputError(f"{resource.address}: {e.reason} (in a plan: known only after apply; read the state)",
                             path, resource.line) from None
        label = resource.address
        cluster = values.get("kafka_cluster")
        if isinstance(cluster, list) and cluster and isinstance(cluster[0], dict) and isinstance(cluster[0].get("id"),
                                                                                                 str):
            reading.clusters.add(cluster[0]["id"])
            label += f", cluster {cluster[0]['id']}"
        reading.add(binding, f"{path}:{resource.line} ({label})", provider)
