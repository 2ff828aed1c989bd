"""SCRAM credential record files (``--record``): ``UserScramCredentialRecord`` JSON.

One record (as ``authz scram create-user --format json`` writes), a JSON list of records, or JSON
lines of records (as ``authz scram create-users`` writes). Each record is checked field by field:
a wrong type, a missing field or another kind of file is reported at its line, never passed on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka_authz_cli._java import IllegalArgumentException, java_base64_decode
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import (
    LineIndex,
    array_element_offsets,
    brief,
    json_lines,
    json_type,
    loads,
    read_text,
    source_label,
)
from kafka_authz_cli.scram.credential import ScramCredential, ScramError, ScramMechanism

RECORD_FIELDS = ("name", "mechanism", "salt", "storedKey", "serverKey", "iterations")
#: KRaft's ScramControlManager refuses more ('Too many iterations'); also bounds the work a hostile
#: record can ask of ``verify`` and ``exchange``.
MAX_ITERATIONS = 16384
#: What ``authz scram parse-add-scram`` adds to a record.
EXTRA_FIELDS = ("mechanism_name", "salt_was_generated")


@dataclass(frozen=True)
class StoredRecord:
    name: str
    credential: ScramCredential
    origin: str


def _kind_hint(doc: dict) -> str:
    if "acls" in doc:
        return " (this is an ACL set, not a SCRAM record)"
    if {"principal_types", "resource_types", "default_imports"} & set(doc):
        return " (this is a rules-language types file, not a SCRAM record)"
    return ""


def record_from_json(doc: Any) -> tuple[str, ScramCredential]:
    """A record's name and credential; ``ValueError`` naming the offending field."""
    if not isinstance(doc, dict):
        raise ValueError(f"expected a UserScramCredentialRecord object, got {json_type(doc)}")
    missing = [f for f in RECORD_FIELDS if f not in doc]
    if missing:
        raise ValueError(f"not a UserScramCredentialRecord: lacks {', '.join(missing)}" + _kind_hint(doc))
    unknown = [k for k in doc if k not in RECORD_FIELDS and k not in EXTRA_FIELDS]
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(brief(k) for k in unknown)} in a UserScramCredentialRecord "
                         f"(expected {', '.join(RECORD_FIELDS)})")
    name = doc["name"]
    if not isinstance(name, str):
        raise ValueError(f"name must be a string, got {json_type(name)}")
    mechanism = _mechanism(doc["mechanism"])
    keys = _keys(doc, mechanism)
    iterations = doc["iterations"]
    if isinstance(iterations, bool) or not isinstance(iterations, int):
        raise ValueError(f"iterations must be an integer, got {json_type(iterations)}")
    if not -(2**31) <= iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations {iterations} above {MAX_ITERATIONS}: KRaft never stores such a credential "
                         "('Too many iterations')")
    return name, ScramCredential(mechanism, keys["salt"], keys["storedKey"], keys["serverKey"], iterations)


def _mechanism(value: Any) -> ScramMechanism:
    """The record's type code (1, 2), or a mechanism name as people write it."""
    try:
        if isinstance(value, bool):
            raise ScramError("mechanism must be 1 (SCRAM-SHA-256), 2 (SCRAM-SHA-512) or a mechanism name")
        if isinstance(value, int):
            return ScramMechanism.for_type(value)
        if isinstance(value, str):
            return ScramMechanism.parse(value)
        raise ScramError(f"mechanism must be 1, 2 or a mechanism name, got {json_type(value)}")
    except ScramError as exc:
        raise ValueError(str(exc)) from None


def _keys(doc: dict, mechanism: ScramMechanism) -> dict[str, bytes]:
    """salt, storedKey and serverKey decoded: non-empty base64, the keys as long as the mechanism's digest."""
    keys = {}
    for field in ("salt", "storedKey", "serverKey"):
        value = doc[field]
        if not isinstance(value, str):
            raise ValueError(f"{field} must be a base64 string, got {json_type(value)}")
        try:
            keys[field] = java_base64_decode(value)
        except IllegalArgumentException as exc:
            raise ValueError(f"{field} is not base64: {exc}") from None
        if not keys[field]:
            raise ValueError(f"{field} must not be empty")
    for field in ("storedKey", "serverKey"):
        if len(keys[field]) != mechanism.digest_size:
            raise ValueError(f"{field} has {len(keys[field])} bytes; a {mechanism.mechanism_name} key has "
                             f"{mechanism.digest_size}")
    return keys


def parse_records(text: str, label: str) -> list[StoredRecord]:
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        raise InputError("empty file: expected a UserScramCredentialRecord (JSON, as `authz scram create-user "
                         "--format json` writes)", label)
    if stripped[0] not in "{[":
        hint = ""
        if stripped.startswith("SCRAM-SHA-"):
            hint = " (this is a kafka-storage --add-scram argument: `authz scram parse-add-scram` reads it)"
        elif stripped.startswith("salt="):
            hint = " (this is a credential string: pass it with --credential and --mechanism)"
        raise InputError("not a UserScramCredentialRecord: expected JSON" + hint, label, 1, 1)
    values: list[tuple[int | None, Any]]
    first_line = stripped.split("\n", 1)[0].strip()
    try:
        one_line_doc = json.loads(first_line) if first_line.startswith("{") else None
    except (ValueError, RecursionError):
        one_line_doc = None
    if isinstance(one_line_doc, dict):
        values = list(json_lines(text, label))
    else:
        doc = loads(text, label)
        if isinstance(doc, list):
            offsets = array_element_offsets(text, text.index("["))
            index = LineIndex(text)
            values = [(index.line_col(offsets[i])[0] if i < len(offsets) else None, item)
                      for i, item in enumerate(doc)]
        else:
            values = [(text.count("\n", 0, text.index("{")) + 1, doc)]
    records = []
    for line, doc in values:
        try:
            name, credential = record_from_json(doc)
        except ValueError as exc:
            raise InputError(str(exc), label, line) from None
        records.append(StoredRecord(name, credential, f"{label}:{line}" if line else label))
    if not records:
        raise InputError("no UserScramCredentialRecord in the file", label)
    return records


def load_records(path: str | Path) -> list[StoredRecord]:
    label = source_label(path)
    return parse_records(read_text(path), label)
