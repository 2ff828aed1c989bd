"""ACL sets on disk: canonical JSON, ``kafka-acls --list`` text, Kafka Security Manager CSV.

Readers return bindings and raise :class:`InputError` with file:line[:col] for anything they
cannot read; nothing is dropped silently. Writers are exact inverses of the readers.
"""

from __future__ import annotations

import csv
import io
import json
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from kafka_authz_cli.acl.model import (
    AclBinding,
    AclError,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import (
    LineIndex,
    array_element_offsets,
    brief,
    csv_table,
    json_type,
    loads,
    locate,
    paused_gc,
    read_text,
    source_label,
)

JSON_VERSION = 1
ACL_FORMATS = ("json", "kafka-acls", "csv")
KSM_COLUMNS = ["KafkaPrincipal", "ResourceType", "PatternType", "ResourceName", "Operation", "PermissionType", "Host"]
JSON_FIELDS = ["resource_type", "resource_name", "pattern_type", "principal", "host", "operation", "permission"]


@dataclass
class AclSet:
    """Bindings read from one source, with where each came from (``file:line``)."""

    bindings: list[AclBinding]
    #: ``file:line`` per binding (a list, or a :class:`LineOrigins` that makes them when asked).
    origins: Sequence[str]
    source: str
    format: str


# ---------------------------------------------------------------------------------------------
# Detection

def detect_format(text: str) -> str | None:
    """``json``, ``kafka-acls``, ``csv`` or ``rules`` from the content, or None."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped:
        return None
    if stripped[0] in "{[":
        return "json"
    if "ACLs for resource `ResourcePattern(" in text or stripped.startswith("ACLs for principal `"):
        return "kafka-acls"
    first_line = stripped.splitlines()[0]
    if "KafkaPrincipal" in first_line and "," in first_line:
        return "csv"
    if re.match(r"(?:from|allow|deny|otherwise|//|/\*|#)", stripped):
        return "rules"
    return None


# ---------------------------------------------------------------------------------------------
# Canonical JSON

def _binding_from_fields(fields: dict, where) -> AclBinding:
    missing = [f for f in JSON_FIELDS if f not in fields]
    if missing:
        raise where(f"ACL is missing field(s) {', '.join(missing)}")
    for f in JSON_FIELDS:
        if not isinstance(fields[f], str):
            raise where(f"field {f!r} must be a string, got {json_type(fields[f])}")
    unknown = sorted(set(fields) - set(JSON_FIELDS) - {"comment", "id"})
    if unknown:
        raise where(f"unknown field(s) {', '.join(brief(u) for u in unknown)} (expected {', '.join(JSON_FIELDS)})")
    try:
        return AclBinding.of(fields["resource_type"], fields["resource_name"], fields["pattern_type"],
                             fields["principal"], fields["host"], fields["operation"], fields["permission"])
    except AclError as exc:
        raise where(str(exc)) from None


def read_json(text: str, path: str) -> AclSet:
    doc = loads(text, path)
    items, array_at = _acl_items(doc, text, path)
    bindings, fast = _bindings_fast(items)
    # After the array, only scalars: no '{' of another object can pass for an element's.
    if fast and (isinstance(doc, list) or not any(isinstance(v, (dict, list)) for k, v in doc.items() if k != "acls")):
        lines = _element_lines_fast(text, array_at, len(items))
        if lines is not None:
            return AclSet(bindings, LineOrigins(path, lines), path, "json")
    return _read_json_items(items, text, array_at, path)


def _acl_items(doc, text: str, path: str) -> tuple[list, int]:
    """The list of ACL objects of a canonical JSON document, and where its '[' is."""

    def at(where, reason):
        line_col_ = locate(text, where)
        return InputError(reason, path, *(line_col_ or (None, None)))

    if isinstance(doc, list):
        items, array_at = doc, text.index("[")
    elif isinstance(doc, dict):
        if "acls" not in doc:
            hint = ""
            if "principal_types" in doc or "resource_types" in doc:
                hint = " (this looks like a rules-language types file)"
            elif {"storedKey", "serverKey"} & set(doc):
                hint = " (this looks like a SCRAM credential record)"
            raise InputError('expected an object with an "acls" list (canonical ACL JSON)' + hint, path, 1)
        version = doc.get("version", JSON_VERSION)
        if isinstance(version, bool) or not isinstance(version, int):
            raise at(["version"], f'"version" must be a number, got {json_type(version)}')
        if version != JSON_VERSION:
            raise at(["version"], f"unsupported ACL JSON version {version} (this authz reads version {JSON_VERSION})")
        unknown = sorted(set(doc) - {"version", "acls", "comment"})
        if unknown:
            raise at([unknown[0]], f"unknown top-level field(s) {', '.join(brief(k) for k in unknown)} "
                                   '(expected "version" and "acls")')
        items = doc["acls"]
        if not isinstance(items, list):
            raise at(["acls"], f'"acls" must be a list, got {json_type(items)}')
        match = re.search(r'"acls"\s*:\s*\[', text)
        array_at = match.end() - 1 if match else 0
    else:
        raise InputError(f"expected a JSON object or list of ACLs, got {json_type(doc)}", path, 1)
    return items, array_at


def _read_json_items(items: list, text: str, array_at: int, path: str) -> AclSet:
    """Every item read carefully, each error located at its element."""
    try:
        offsets = array_element_offsets(text, array_at)
    except (json.JSONDecodeError, ValueError):  # pragma: no cover - the text decoded above
        offsets = []
    bindings, origins = [], []
    index = LineIndex(text)
    for i, item in enumerate(items):
        line, col = index.line_col(offsets[i]) if i < len(offsets) else (None, None)

        def where(reason, line=line, col=col, i=i):
            return InputError(f"acls[{i}]: {reason}", path, line, col)

        if not isinstance(item, dict):
            raise where(f"each ACL must be a JSON object, got {json_type(item)}")
        bindings.append(_binding_from_fields(item, where))
        origins.append(f"{path}:{line}" if line else f"{path}:acls[{i}]")
    return AclSet(bindings, origins, path, "json")


class LineOrigins(Sequence):
    """``path:line`` of each ACL, made when asked: a million ACLs keep a million ints, not strings."""

    __slots__ = ("path", "lines")

    def __init__(self, path: str, lines: array) -> None:
        self.path = path
        self.lines = lines

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [f"{self.path}:{line}" for line in self.lines[i]]
        return f"{self.path}:{self.lines[i]}"


def _exact_members(cls) -> dict:
    return {m.name: m for m in cls.concrete()}


_TYPES, _PATTERNS = _exact_members(ResourceType), _exact_members(PatternType)
_OPERATIONS, _PERMISSIONS = _exact_members(AclOperation), _exact_members(AclPermissionType)
#: A line whose first character (after blanks) opens an object: outside any string, since JSON strings
#: hold no raw line breaks.
_LINE_OPENS_OBJECT = re.compile(r"\n[ \t]*\{")


def _bindings_fast(items: list) -> tuple[list[AclBinding], bool]:
    """Bindings of ACL objects written as authz writes them (exactly the seven fields, all strings,
    Kafka's enum names): a million in a second or two. ``False`` at the first other item: the
    careful reader then reads them all and locates what is wrong."""
    bindings = []
    append = bindings.append
    types, patterns, operations, permissions = _TYPES, _PATTERNS, _OPERATIONS, _PERMISSIONS
    binding = AclBinding
    try:
        for item in items:
            # Seven keys, each one of the seven fields (a missing one raises KeyError): exactly them.
            if type(item) is not dict or len(item) != 7:
                return bindings, False
            rtype = types.get(item["resource_type"])
            pattern = patterns.get(item["pattern_type"])
            op = operations.get(item["operation"])
            perm = permissions.get(item["permission"])
            name, principal, host = item["resource_name"], item["principal"], item["host"]
            if (rtype is None or pattern is None or op is None or perm is None or type(name) is not str
                    or type(principal) is not str or type(host) is not str):
                return bindings, False
            append(binding(rtype, name, pattern, principal, host, op, perm))
    except (KeyError, TypeError):  # a missing field; an unhashable enum spelling (a list, say)
        return bindings, False
    return bindings, True


def _element_lines_fast(text: str, array_at: int, count: int) -> array | None:
    """The line of each element of an array of flat objects (no nested object or list, so every
    '{' outside a string opens an element) when each starts a line; else None."""
    lines = array("i")
    line = text.count("\n", 0, array_at) + 1
    pos = array_at
    for m in _LINE_OPENS_OBJECT.finditer(text, array_at):
        line += text.count("\n", pos, m.start() + 1)
        pos = m.start() + 1
        lines.append(line)
        if len(lines) > count:
            return None
    return lines if len(lines) == count else None


def write_json(bindings: Iterable[AclBinding]) -> str:
    acls = [b.as_dict() for b in bindings]
    body = ",\n".join("    " + json.dumps(a, ensure_ascii=False) for a in acls)
    return '{\n  "version": %d,\n  "acls": [\n%s%s  ]\n}\n' % (JSON_VERSION, body, "\n" if acls else "")


# ---------------------------------------------------------------------------------------------
# kafka-acls --list / --add text

_HEADER = re.compile(
    r"^(?P<verb>Current|Adding|Removing) ACLs for resource `ResourcePattern\(resourceType=(?P<type>[A-Z_]+), "
    r"name=(?P<name>.*), patternType=(?P<pattern>[A-Z_]+)\)`: ?$")
# Principals are free text (a TLS DN has commas): the host is the last ", host=" field.
_ENTRY = re.compile(
    r"^ ?\t?\(principal=(?P<principal>.*), host=(?P<host>[^,]*), operation=(?P<op>[A-Z_]+), "
    r"permissionType=(?P<perm>[A-Z_]+)\) ?$")
_PRINCIPAL_SECTION = re.compile(r"^ACLs for principal `.*`$")


def read_kafka_acls(text: str, path: str) -> AclSet:
    bindings, origins = [], []
    current = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            current = None
            continue
        header = _HEADER.match(line)
        if header:
            try:
                current = (ResourceType.parse(header["type"]), header["name"], PatternType.parse(header["pattern"]))
            except AclError as exc:
                raise InputError(str(exc), path, lineno, header.start("type") + 1) from None
            continue
        if _PRINCIPAL_SECTION.match(line):
            continue
        entry = _ENTRY.match(line)
        if entry is None:
            raise InputError("not a kafka-acls line (expected a `Current ACLs for resource ...` header or a "
                             "`(principal=..., host=..., operation=..., permissionType=...)` entry)", path, lineno, 1)
        if current is None:
            raise InputError("ACL entry outside a resource block", path, lineno, 1)
        try:
            op = AclOperation.parse(entry["op"])
            perm = AclPermissionType.parse(entry["perm"])
        except AclError as exc:
            raise InputError(str(exc), path, lineno, entry.start("op") + 1) from None
        bindings.append(AclBinding(current[0], current[1], current[2], entry["principal"], entry["host"], op, perm))
        origins.append(f"{path}:{lineno}")
    return AclSet(bindings, origins, path, "kafka-acls")


def write_kafka_acls(bindings: Iterable[AclBinding], verb: str = "Current") -> str:
    """Exactly what ``kafka-acls --list`` prints (``verb="Adding"`` for ``--add``)."""
    blocks: dict[tuple, list[AclBinding]] = {}
    for b in bindings:
        for field in (b.resource_name, b.principal, b.host):
            if "\n" in field or "\r" in field:
                raise InputError(f"a line break in {field!r} cannot be written in kafka-acls text; use json or csv")
        blocks.setdefault((b.resource_type, b.resource_name, b.pattern_type), []).append(b)
    out = []
    for (rtype, name, pattern), acls in blocks.items():
        out.append(f"{verb} ACLs for resource `ResourcePattern(resourceType={rtype.name}, name={name}, "
                   f"patternType={pattern.name})`: \n")
        lines = [str(a.entry) for a in acls]
        out.append(" \t" + "\n\t".join(lines) + " \n\n")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Kafka Security Manager CSV

def read_csv(text: str, path: str) -> AclSet:
    bindings, origins = [], []
    for lineno, rec in csv_table(text, path, KSM_COLUMNS, normalise=str.strip):
        try:
            bindings.append(AclBinding.of(rec["ResourceType"], rec["ResourceName"], rec["PatternType"],
                                          rec["KafkaPrincipal"], rec["Host"], rec["Operation"], rec["PermissionType"]))
        except AclError as exc:
            raise InputError(str(exc), path, lineno, 1) from None
        origins.append(f"{path}:{lineno}")
    return AclSet(bindings, origins, path, "csv")


def write_csv(bindings: Iterable[AclBinding]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(KSM_COLUMNS)
    for b in bindings:
        writer.writerow([b.principal, b.resource_type.pascal, b.pattern_type.name, b.resource_name,
                         b.operation.pascal, b.permission.pascal, b.host])
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------

READERS = {"json": read_json, "kafka-acls": read_kafka_acls, "csv": read_csv}
WRITERS = {"json": write_json, "kafka-acls": write_kafka_acls, "csv": write_csv}


def parse_acls(text: str, path: str = "<input>", fmt: str | None = None) -> AclSet:
    fmt = fmt or detect_format(text)
    if fmt is None:
        if not text.strip():
            return AclSet([], [], path, "json")
        raise InputError("cannot tell the ACL format from the content; pass --acls-format json|kafka-acls|csv|rules",
                         path, 1, 1)
    if fmt == "rules":
        # Rules files are compiled by the rules package (services.sources.parse_acl_source reads both).
        raise InputError("this looks like a Kroxylicious rules file; expected an ACL set (json, kafka-acls "
                         "or csv)", path, 1, 1)
    if fmt not in READERS:
        raise InputError(f"unknown ACL format {fmt!r} (expected one of {', '.join(ACL_FORMATS)}, rules)")
    with paused_gc():
        return READERS[fmt](text, path)


def load_acls(path: str | Path, fmt: str | None = None) -> list[AclBinding]:
    """Bindings from a file in any ACL format authz reads (detected by content unless ``fmt``)."""
    return load_acl_set(path, fmt).bindings


def load_acl_set(path: str | Path, fmt: str | None = None) -> AclSet:
    return parse_acls(read_text(path), source_label(path), fmt)


def dump_acls(bindings: Iterable[AclBinding], fmt: str) -> str:
    if fmt not in WRITERS:
        raise InputError(f"unknown ACL format {fmt!r} (expected one of {', '.join(ACL_FORMATS)})")
    return WRITERS[fmt](bindings)
