"""Types files (``--types``): the principal and resource classes a rules file may name.

Shape: ``{"principal_types": [{"short", "class", "kafka_type"?}], "resource_types": [{"short",
"class", "operations": [...], "implies"?: {op: [ops]}, "kafka_type"?}], "default_imports": {short:
class}}``. Every value is checked before the registry sees it, so a number, a null or a list where
a string goes is reported at its line and column instead of surfacing as a Python error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kafka_authz_cli.acl import AclError, ResourceType
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import brief, json_type, loads, locate, read_text, source_label
from kafka_authz_cli.rules.types import TypeRegistry

TOP_LEVEL = ("principal_types", "resource_types", "default_imports")
PRINCIPAL_FIELDS = {"short": True, "class": True, "kafka_type": False}
RESOURCE_FIELDS = {"short": True, "class": True, "operations": True, "implies": False, "kafka_type": False}


def _kind_hint(doc: dict) -> str:
    if "acls" in doc:
        return " (this looks like an ACL set: pass it as the ACL file, not to --types)"
    if {"storedKey", "serverKey"} & set(doc):
        return " (this looks like a SCRAM credential record)"
    if {"principal", "operation"} <= set(doc):
        return " (this looks like a request)"
    return ""


class _Where:
    """Errors at a JSON path's line and column in the types file's text."""

    def __init__(self, text: str, label: str):
        self.text = text
        self.label = label

    def fail(self, path: list, reason: str) -> InputError:
        where = locate(self.text, path) or (None, None)
        return InputError(reason, self.label, *where)

    def string(self, path: list, value: Any, what: str) -> None:
        if not isinstance(value, str):
            raise self.fail(path, f"{what} must be a string, got {json_type(value)}")
        if not value.strip():
            raise self.fail(path, f"{what} must not be empty")

    def string_list(self, path: list, value: Any, what: str) -> None:
        if not isinstance(value, list):
            raise self.fail(path, f"{what} must be a list of strings, got {json_type(value)}")
        for i, item in enumerate(value):
            self.string(path + [i], item, f"{what}[{i}]")


def check_types_doc(doc: Any, text: str, label: str) -> list[str]:
    """Validate a decoded types file; returns the top-level keys authz ignores."""
    if not isinstance(doc, dict):
        raise InputError(f"not a types file: expected a JSON object with {', '.join(TOP_LEVEL)}, "
                         f"got {json_type(doc)}", label, 1)
    if not any(k in doc for k in TOP_LEVEL):
        raise InputError(f"not a types file: expected a JSON object with {', '.join(TOP_LEVEL)}"
                         + _kind_hint(doc), label, 1)
    where = _Where(text, label)
    for section, fields in (("principal_types", PRINCIPAL_FIELDS), ("resource_types", RESOURCE_FIELDS)):
        entries = doc.get(section, [])
        if not isinstance(entries, list):
            raise where.fail([section], f"{section} must be a list of objects, got {json_type(entries)}")
        for i, entry in enumerate(entries):
            _check_entry(where, section, fields, i, entry)
    imports = doc.get("default_imports", {})
    if not isinstance(imports, dict):
        raise where.fail(["default_imports"], f"default_imports must be an object of short name -> class, "
                                              f"got {json_type(imports)}")
    for short, fqcn in imports.items():
        where.string(["default_imports", short], fqcn, f"default_imports[{brief(short)}]")
    return [k for k in doc if k not in TOP_LEVEL]


def _check_entry(where: _Where, section: str, fields: dict[str, bool], i: int, entry: Any) -> None:
    """One entry of ``principal_types`` or ``resource_types``."""
    at = [section, i]
    what = f"{section}[{i}]"
    if not isinstance(entry, dict):
        raise where.fail(at, f"{what} must be an object, got {json_type(entry)}")
    missing = [f for f, needed in fields.items() if needed and f not in entry]
    if missing:
        raise where.fail(at, f"{what} lacks {', '.join(missing)}")
    unknown = [k for k in entry if k not in fields]
    if unknown:
        raise where.fail(at + [unknown[0]], f"{what} has unknown field(s) {', '.join(brief(k) for k in unknown)} "
                                            f"(expected {', '.join(fields)})")
    where.string(at + ["short"], entry["short"], f"{what}.short")
    where.string(at + ["class"], entry["class"], f"{what}.class")
    if "kafka_type" in entry:
        if section == "principal_types":
            where.string(at + ["kafka_type"], entry["kafka_type"], f"{what}.kafka_type")
        elif entry["kafka_type"] is not None:
            where.string(at + ["kafka_type"], entry["kafka_type"], f"{what}.kafka_type")
            try:
                ResourceType.parse(entry["kafka_type"])
            except AclError as exc:
                raise where.fail(at + ["kafka_type"], f"{what}.kafka_type: {exc}") from None
    if section == "resource_types":
        where.string_list(at + ["operations"], entry["operations"], f"{what}.operations")
        implies = entry.get("implies", {})
        if not isinstance(implies, dict):
            raise where.fail(at + ["implies"], f"{what}.implies must be an object of operation lists, "
                                               f"got {json_type(implies)}")
        for op, implied in implies.items():
            where.string_list(at + ["implies", op], implied, f"{what}.implies[{brief(op)}]")


def parse_types(text: str, label: str) -> tuple[TypeRegistry, list[str]]:
    """A :class:`~kafka_authz_cli.rules.types.TypeRegistry` from a types file's text, and the ignored keys."""
    if not text.strip():
        raise InputError("empty file: expected a types file (JSON object with "
                         f"{', '.join(TOP_LEVEL)})", label)
    if text.lstrip("\ufeff \t\r\n")[:1] not in "{[":
        raise InputError("not a types file: expected JSON (an object with "
                         f"{', '.join(TOP_LEVEL)})", label, 1, 1)
    doc = loads(text, label)
    ignored = check_types_doc(doc, text, label)
    return TypeRegistry().load(doc, label), ignored


def load_types(path: str | Path) -> tuple[TypeRegistry, list[str]]:
    """A :class:`~kafka_authz_cli.rules.types.TypeRegistry` from a types file, and the ignored keys."""
    return parse_types(read_text(path), source_label(path))
