"""ACL sets on disk: canonical JSON, ``kafka-acls --list`` text, Kafka Security Manager CSV.

Readers return bindings and raise :class:`InputError` with file:line[:col] for anything they
cannot read; nothing is dropped silently. Writers are exact inverses of the readers. Each format is
an entry of ``registry`` (:data:`~kafka_authz_cli.acl.registry.FORMATS`), which names these functions.
"""

from __future__ import annotations

import csv
import io
import json
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Literal

from kafka_authz_cli.acl import registry
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
    what_is,
    wrong_kind,
)

JSON_VERSION = 1
#: Kafka's own formats (and authz's), which this module reads and writes
ACL_FORMATS = tuple(f.name for f in registry.FORMATS.values() if f.family == registry.KAFKA and f.reader)
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
    #: what the reader noticed that the user should hear about (the caller logs them)
    warnings: list[str] = field(default_factory=list)
    #: A reader's hint (None: none given): the positions of the bindings that differ only in their
    #: resource name, one list per resource type, pattern type, principal, host, operation and
    #: permission, each in file order, with those bindings' names.
    groups: list[tuple[list[int], list[str]]] | None = None
    #: Coded findings of an ecosystem reader (objects with code, path, line, col, message, severity,
    #: name): constructs the generating tool applies differently from how they read; ``authz lint``
    #: reports them, the other commands hear them among ``warnings``.
    findings: list = field(default_factory=list)

    def add(self, binding: AclBinding, origin: str) -> None:
        """A binding a reader found, and where (a reader that adds holds its origins in a list)."""
        self.bindings.append(binding)
        assert isinstance(self.origins, list)
        self.origins.append(origin)


# ---------------------------------------------------------------------------------------------
# Detection

def detect_format(text: str) -> str | None:
    """``json``, ``kafka-acls``, ``csv`` or ``rules``: the format ``formats.what_is`` tells, or None."""
    found = registry.format_by_kind(text)
    return found.name if found else None


#: what the ACL readers take, for errors
ACL_SET_READS = registry.ACL_SET_READS
ACL_SET_EXPECTED = "an ACL set"


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
    canonical = _read_canonical(text, path)
    if canonical is not None:
        return canonical
    doc = loads(text, path)
    items, array_at = _acl_items(doc, text, path)
    bindings, fast = _bindings_fast(items)
    # After the array, only scalars: no '{' of another object can pass for an element's.
    if fast and (isinstance(doc, list) or not any(isinstance(v, (dict, list)) for k, v in doc.items() if k != "acls")):
        lines = _element_lines_fast(text, array_at, len(items))
        if lines is not None:
            return AclSet(bindings, LineOrigins(path, lines), path, "json")
    return _read_json_items(items, text, array_at, path)


# The lines of the JSON authz writes (write_json: one ACL per line, json.dumps spacing, the seven fields
# in order). No backslash anywhere (so no escape), no control character in a string (JSON refuses them
# raw): each line is then exactly the JSON object it looks like, with seven distinct keys.
_STR = r'"([^"\\\x00-\x1f]*)"'
_CANONICAL_LINE = re.compile(
    r'^[ \t]*\{"resource_type": "([A-Z_]+)", "resource_name": ' + _STR
    + r'(, "pattern_type": "[A-Z_]+", "principal": "[^"\\\x00-\x1f]*", "host": "[^"\\\x00-\x1f]*", '
    r'"operation": "[A-Z_]+", "permission": "[A-Z_]+")\}(,?)\r?$', re.M)
_ARRAY_OPENED = re.compile(r'(?:^|"acls"[ \t\r\n]*:)[ \t\r\n]*\[[ \t\r\n]*$')


def _read_canonical(text: str, path: str) -> AclSet | None:
    """A JSON ACL file as authz writes it, read a million ACLs in a second or two: its ACL lines by one
    regular expression, the rest (everything but those lines) by the strict reader. None when the
    text is anything else (the careful reader then reads it, and says where what is wrong is)."""
    if "\\" in text:
        return None
    first = _CANONICAL_LINE.search(text, 0, 1 << 16)  # the first ACL line is near the top
    close = text.rfind("]")
    if first is None or close < first.start():
        return None
    start, end = first.start(), text.rfind("\n", 0, close) + 1
    header, footer = text[:start], text[end:]
    # The ACL lines open the top-level list, or the top-level "acls" list next to scalars only: then
    # the text with those lines cut out is that document with an empty list, read strictly.
    if not _ARRAY_OPENED.search(header.lstrip("\ufeff")) or not footer.lstrip(" \t\r\n").startswith("]"):
        return None
    found = _CANONICAL_LINE.findall(text, start, end)
    # One match per line, and a comma ending every line but the last (strings hold no line break).
    if (not found or len(found) != text.count("\n", start, end) or found[-1][3]
            or text.count("},\n", start, end) + text.count("},\r\n", start, end) != len(found) - 1):
        return None
    try:  # an error here is located in the careful reader's terms, with the lines in place
        doc = loads(header + footer, path)
        if isinstance(doc, dict) and any(isinstance(v, (dict, list)) for k, v in doc.items() if k != "acls"):
            return None
        if _acl_items(doc, header + footer, path)[0] != []:
            return None
    except InputError:
        return None
    made = _canonical_bindings(found)
    if made is None:
        return None
    first_line = header.count("\n") + 1
    return AclSet(made[0], LineOrigins(path, array("i", range(first_line, first_line + len(found)))), path, "json",
                  groups=made[1])


def _canonical_bindings(found: list[tuple[str, str, str, str]]) -> tuple[list, list] | None:
    """Bindings of the matched ACL lines, and their groups (AclSet.groups); None at a spelling that is
    no Kafka enum name. The part after the name repeats (a million ACLs name a few thousand
    principals): each is decoded once, and its strings are shared by every ACL that has it."""
    types: dict[str, tuple] = {}
    groups: list[tuple[list[int], list[str]]] = []
    binding = AclBinding
    bindings: list[AclBinding] = []
    append = bindings.append
    for i, (rtype_text, name, tail, _comma) in enumerate(found):
        of_type = types.get(rtype_text)
        if of_type is None:
            of_type = types[rtype_text] = (_TYPES.get(rtype_text), {})
        shape = of_type[1].get(tail)
        if shape is None:
            shape = of_type[1][tail] = _canonical_shape(tail)
            if shape is not False:
                groups.append(shape[5])
        rtype = of_type[0]
        if shape is False or rtype is None:
            return None
        append(binding(rtype, name, shape[0], shape[1], shape[2], shape[3], shape[4]))
        shape[5][0].append(i)
        shape[5][1].append(name)
    return bindings, groups


def _canonical_shape(tail: str) -> tuple | Literal[False]:
    """(pattern type, principal, host, operation, permission, its group) of a line's part after the
    name, or False."""
    fields = json.loads("{" + tail[2:] + "}")
    shape: tuple = (_PATTERNS.get(fields["pattern_type"]), fields["principal"], fields["host"],
             _OPERATIONS.get(fields["operation"]), _PERMISSIONS.get(fields["permission"]), ([], []))
    return False if None in (shape[0], shape[3], shape[4]) else shape


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
    bindings: list[AclBinding] = []
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

# What AclCommand prints, by version (core/src/main/scala/kafka/admin/AclCommand.scala; 4.x:
# tools/src/main/java/org/apache/kafka/tools/AclCommand.java):
# - 2.1+ with --bootstrap-server, 2.4+ with a new-API authorizer, and every 2.5+ and 4.x run:
#   ``Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=foo, patternType=LITERAL)`: ``
#   then `` \t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)`` lines
#   (AccessControlEntry.toString; 4.x prints no space after the colon nor before the tab);
# - 2.0 to 2.4 with --authorizer-properties (kafka.security.auth.Authorizer):
#   ``Current ACLs for resource `Topic:LITERAL:foo`: `` (kafka.security.auth.Resource.toString) then
#   `` \tUser:alice has Allow permission for operations: Read from hosts: *`` (kafka.security.auth.Acl);
# - 1.0 and 1.1: the same without the pattern type (``Topic:foo``): every ACL was LITERAL.
# ``--add`` prints ``Adding ACLs for resource ...`` blocks first, then the ``Current`` listing.
# Output pasted into documents is often re-indented: any leading blanks and tabs are accepted.
_HEADER = re.compile(
    r"^[ \t]*(?P<verb>Current|Adding|Removing) ACLs for resource `ResourcePattern\(resourceType=(?P<type>[A-Z_]+), "
    r"name=(?P<name>.*), patternType=(?P<pattern>[A-Z_]+)\)`:[ \t]*$")
_OLD_HEADER = re.compile(r"^[ \t]*(?P<verb>Current|Adding|Removing) ACLs for resource `(?P<type>[A-Za-z]+):(?P<rest>.*)`:[ \t]*$")
# Principals are free text (a TLS DN has commas): the host is the last ", host=" field.
_ENTRY = re.compile(
    r"^[ \t]*\(principal=(?P<principal>.*), host=(?P<host>[^,]*), operation=(?P<op>[A-Z_]+), "
    r"permissionType=(?P<perm>[A-Z_]+)\) ?$")
_OLD_ENTRY = re.compile(r"^[ \t]*(?P<principal>.*) has (?P<perm>Allow|Deny) permission for operations: "
                        r"(?P<op>[A-Za-z]+) from hosts: (?P<host>.*)$")
_PRINCIPAL_SECTION = re.compile(r"^[ \t]*ACLs for principal `.*`$")
# AclCommand.AuthorizerDeprecationMessage (3.x, on stderr: pasted with 2>&1).
_NOISE = ("Warning: support for ACL configuration directly through the authorizer is deprecated",)
_OLD_PATTERNS = ("LITERAL:", "PREFIXED:")


def _old_resource(header, path: str, lineno: int) -> tuple[ResourceType, str, PatternType]:
    rest = header["rest"]
    pattern = "LITERAL"
    if rest.startswith(_OLD_PATTERNS):  # 2.0-2.4: Type:PATTERN:name (1.x had no pattern: Type:name)
        pattern, _, rest = rest.partition(":")
    try:
        return ResourceType.parse(header["type"]), rest, PatternType.parse(pattern)
    except AclError as exc:
        raise InputError(str(exc), path, lineno, header.start("type") + 1) from None


def _entry(line: str, lines: list[str], index: int, path: str, lineno: int):
    entry = _ENTRY.match(line)
    old = entry is None
    if entry is None:
        entry = _OLD_ENTRY.match(line)
        if entry is None:
            return None
    try:
        op = AclOperation.parse(entry["op"])
        perm = AclPermissionType.parse(entry["perm"])
    except AclError as exc:
        raise InputError(str(exc), path, lineno, entry.start("op") + 1) from None
    host = entry["host"]
    if old and host.endswith(" ") and (index + 1 == len(lines) or not lines[index + 1].strip()):
        host = host.rstrip(" ")  # the last entry of a block is followed by " " + Newline (AclCommand's template)
    return entry["principal"], host, op, perm


class _Blocks:
    """The resource blocks of kafka-acls text, by (verb, principal section, resource pattern)."""

    def __init__(self) -> None:
        self.entries: dict[tuple, list[tuple[tuple, int]]] = {}  # key -> [((principal, host, op, perm), line)]
        self.relisted: list[int] = []  # lines of Current blocks that list a resource again

    def open(self, verb: str, section: str | None, resource: tuple, lineno: int) -> list:
        key = (verb, section, resource)
        if verb == "Current" and key in self.entries:
            # Several runs pasted together: a later listing is the later state of that resource.
            self.relisted.append(lineno)
            self.entries[key] = []
        return self.entries.setdefault(key, [])


def read_kafka_acls(text: str, path: str) -> AclSet:
    """``kafka-acls --list`` (or ``--add``) output of any Kafka version from 1.0 to 4.x.

    ``--add`` output holds each ACL twice (as added, then as listed): the ``Current`` blocks, what the
    command leaves on the cluster, are read and the ``Adding`` blocks are ignored, with a warning. A
    resource listed again (the output of several runs) is read from its last listing."""
    lines = re.split(r"\r\n|\r|\n", text.removeprefix("\ufeff"))
    blocks = _Blocks()
    block: list | None = None
    section = None
    for index, line in enumerate(lines):
        lineno = index + 1
        if not line.strip():
            block = None
            continue
        header = _HEADER.match(line)
        if header:
            try:
                resource = (ResourceType.parse(header["type"]), header["name"], PatternType.parse(header["pattern"]))
            except AclError as exc:
                raise InputError(str(exc), path, lineno, header.start("type") + 1) from None
            block = blocks.open(header["verb"], section, resource, lineno)
            continue
        old_header = _OLD_HEADER.match(line)
        if old_header:
            block = blocks.open(old_header["verb"], section, _old_resource(old_header, path, lineno), lineno)
            continue
        if _PRINCIPAL_SECTION.match(line):
            section = line.strip()
            continue
        if line.startswith(_NOISE):
            continue
        entry = _entry(line, lines, index, path, lineno)
        if entry is None:
            raise InputError("not a kafka-acls line (expected a `Current ACLs for resource ...` header or an "
                             "`(principal=..., host=..., operation=..., permissionType=...)` entry)", path, lineno, 1)
        if block is None:
            raise InputError("ACL entry outside a resource block", path, lineno, 1)
        block.append((entry, lineno))
    return _choose_blocks(blocks, path)


def _choose_blocks(blocks: _Blocks, path: str) -> AclSet:
    has_current = any(verb == "Current" for verb, _, _ in blocks.entries)
    origins: list[str] = []
    acl_set = AclSet([], origins, path, "kafka-acls")
    ignored: dict[str, list[int]] = {}
    for (verb, _, resource), entries in blocks.entries.items():
        if has_current and verb != "Current":
            ignored.setdefault(verb, []).extend(line for _, line in entries)
            continue
        for (principal, host, op, perm), line in entries:
            acl_set.bindings.append(AclBinding(resource[0], resource[1], resource[2], principal, host, op, perm))
            origins.append(f"{path}:{line}")
    ignored = {verb: lines for verb, lines in ignored.items() if lines}
    if ignored:
        what = " and ".join(f"{len(n)} ACL(s) of the `{v} ACLs for resource` blocks" for v, n in ignored.items())
        first = min(line for lines in ignored.values() for line in lines[:1])
        acl_set.warnings.append(
            f"{path}: kafka-acls --add output: read the `Current ACLs for resource` blocks ({len(acl_set.bindings)} "
            f"ACL(s), what the command left on the cluster); ignored {what} (first at {path}:{first}), which "
            "repeat them")
    if blocks.relisted:
        acl_set.warnings.append(
            f"{path}: {len(blocks.relisted)} resource block(s) list a resource again (the output of several runs, "
            f"first at {path}:{blocks.relisted[0]}): the last listing of each is read, the state after the last run")
    return acl_set


def write_kafka_acls(bindings: Iterable[AclBinding], verb: str = "Current") -> str:
    """Exactly what ``kafka-acls --list`` prints (``verb="Adding"`` for ``--add``)."""
    blocks: dict[tuple, list[AclBinding]] = {}
    for b in bindings:
        for text in (b.resource_name, b.principal, b.host):
            if "\n" in text or "\r" in text:
                raise InputError(f"a line break in {text!r} cannot be written in kafka-acls text; use json or csv")
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
    """KSM's CSV as its ``CsvAclParser`` reads it: by header, so columns may come in any order; a file
    written before KSM 0.4 (Kafka 2.0, which brought pattern types) has no ``PatternType`` column and
    KSM reads every row as LITERAL, as this does, saying so once."""
    bindings, origins = [], []
    optional = ["PatternType"]
    required = [c for c in KSM_COLUMNS if c not in optional]
    without_pattern = None
    for lineno, rec in csv_table(text, path, required, optional, normalise=str.strip):
        if without_pattern is None:
            without_pattern = lineno if "PatternType" not in rec else 0
        try:
            bindings.append(AclBinding.of(rec["ResourceType"], rec["ResourceName"], rec.get("PatternType", "LITERAL"),
                                          rec["KafkaPrincipal"], rec["Host"], rec["Operation"], rec["PermissionType"]))
        except AclError as exc:
            raise InputError(str(exc), path, lineno, 1) from None
        origins.append(f"{path}:{lineno}")
    acl_set = AclSet(bindings, origins, path, "csv")
    if without_pattern:
        acl_set.warnings.append(f"{path}:1: the header has no PatternType column (a KSM file from before KSM 0.4): "
                                f"every row is read as LITERAL, as KSM's CsvAclParser reads it ({len(bindings)} ACL(s))")
    return acl_set


def write_csv(bindings: Iterable[AclBinding]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(KSM_COLUMNS)
    for b in bindings:
        writer.writerow([b.principal, b.resource_type.pascal, b.pattern_type.name, b.resource_name,
                         b.operation.pascal, b.permission.pascal, b.host])
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------

def parse_acls(text: str, path: str = "<input>", fmt: str | None = None) -> AclSet:
    """An ACL set in ``fmt`` (detected by content when None). A file that is no ACL set at all is
    refused saying what it looks like; an empty one is zero ACLs, with a warning."""
    forced = fmt is not None
    fmt = fmt or detect_format(text)
    if fmt is None:
        if is_blank_acl_text(text):
            return AclSet([], [], path, "json", [empty_warning(path)])
        raise wrong_kind(text, path, ACL_SET_EXPECTED, ACL_SET_READS)
    if fmt == "rules":
        # Rules files are compiled by the rules package (services.acl_sources.parse_acl_source reads both).
        raise InputError("this looks like a Kroxylicious rules file; expected an ACL set (json, kafka-acls "
                         "or csv)", path, 1, 1)
    if fmt not in ACL_FORMATS:
        raise InputError(f"unknown ACL format {fmt!r} (expected one of {', '.join(ACL_FORMATS)}, rules)")
    found = registry.FORMATS[fmt]
    try:
        with paused_gc():
            acl_set = found.read(text, path)
    except InputError:
        kind = what_is(text)
        if kind is not None and kind.key not in found.own_kinds:
            expected = f"{ACL_SET_EXPECTED} ({fmt}, as --acls-format says)" if forced else ACL_SET_EXPECTED
            raise wrong_kind(text, path, expected, ACL_SET_READS) from None
        raise
    if not acl_set.bindings and fmt != "json":  # an explicit "acls": [] says what it means
        acl_set.warnings.append(empty_warning(path, "no ACL entries"))
    return acl_set


def is_blank_acl_text(text: str) -> bool:
    return not text.strip("\ufeff \t\r\n\f")


def empty_warning(path: str, why: str = "the file is empty") -> str:
    return (f"{path}: no ACLs ({why}): as a desired state it means no ACLs at all, so applying it "
            "deletes every ACL in scope")


def load_acls(path: str | Path, fmt: str | None = None) -> list[AclBinding]:
    """Bindings from a file in any ACL format authz reads (detected by content unless ``fmt``)."""
    return load_acl_set(path, fmt).bindings


def load_acl_set(path: str | Path, fmt: str | None = None) -> AclSet:
    return parse_acls(read_text(path), source_label(path), fmt)


def dump_acls(bindings: Iterable[AclBinding], fmt: str) -> str:
    if fmt not in ACL_FORMATS:
        raise InputError(f"unknown ACL format {fmt!r} (expected one of {', '.join(ACL_FORMATS)})")
    return registry.FORMATS[fmt].write(bindings)
