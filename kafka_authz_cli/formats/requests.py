"""Request files for ``authz simulate --requests``: JSON lines or CSV, one authorize() call each."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

from kafka_authz_cli.apikeys import parse_api_key
from kafka_authz_cli.engine import Request
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.model import AclError, AclOperation, KafkaPrincipal, ResourceType, java_host_address

REQUIRED = ("principal", "host", "operation", "resource_type", "resource_name")
OPTIONAL = ("api_key", "request", "resource_ref_count", "log_if_allowed", "log_if_denied", "expect", "comment", "id")
_TRUE = {"true", "1", "yes", "y"}
_FALSE = {"false", "0", "no", "n", ""}


@dataclass(frozen=True)
class RequestSpec:
    request: Request
    #: "ALLOWED" / "DENIED" when the file states what must happen, else None.
    expect: str | None
    origin: str


def parse_expect(value) -> str | None:
    if value is None or value == "":
        return None
    text = str(value).strip().upper()
    if text in ("ALLOWED", "ALLOW", "TRUE"):
        return "ALLOWED"
    if text in ("DENIED", "DENY", "FALSE"):
        return "DENIED"
    raise ValueError(f"expect must be ALLOWED or DENIED, got {value!r}")


def _bool(value, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{name} must be true or false, got {value!r}")


def request_from_fields(rec: dict, where: str) -> RequestSpec:
    missing = [k for k in REQUIRED if rec.get(k) in (None,) or (k != "resource_name" and rec.get(k) == "")]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    unknown = sorted(set(rec) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)}")
    KafkaPrincipal.parse(str(rec["principal"]))
    java_host_address(str(rec["host"]))
    api = rec.get("api_key")
    if api in (None, ""):
        api = rec.get("request")
    ref = rec.get("resource_ref_count")
    request = Request(
        principal=str(rec["principal"]),
        host=str(rec["host"]),
        operation=AclOperation.parse(str(rec["operation"])),
        resource_type=ResourceType.parse(str(rec["resource_type"])),
        resource_name=str(rec["resource_name"]),
        api_key=parse_api_key(api),
        resource_ref_count=int(ref) if ref not in (None, "") else 1,
        log_if_allowed=_bool(rec.get("log_if_allowed", True), "log_if_allowed"),
        log_if_denied=_bool(rec.get("log_if_denied", True), "log_if_denied"),
    )
    return RequestSpec(request, parse_expect(rec.get("expect")), where)


def parse_requests(text: str, path: str) -> list[RequestSpec]:
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{") or stripped.startswith("["):
        return _parse_jsonl(text, path)
    return _parse_csv(text, path)


def _parse_jsonl(text: str, path: str) -> list[RequestSpec]:
    specs = []
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("["):
        try:
            items = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", path, exc.lineno, exc.colno) from None
        lines = [(i + 1, item) for i, item in enumerate(items)]
        label = "item"
    else:
        lines = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                lines.append((lineno, json.loads(line)))
            except json.JSONDecodeError as exc:
                raise InputError(f"invalid JSON: {exc.msg}", path, lineno, exc.colno) from None
        label = "line"
    for lineno, rec in lines:
        if not isinstance(rec, dict):
            raise InputError("each request must be a JSON object", path, lineno if label == "line" else None)
        try:
            specs.append(request_from_fields(rec, f"{path}:{lineno}"))
        except (ValueError, AclError) as exc:
            raise InputError(str(exc), path, lineno if label == "line" else None) from None
    return specs


def _parse_csv(text: str, path: str) -> list[RequestSpec]:
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    header = None
    specs = []
    for row in reader:
        lineno = reader.line_num
        if not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#"):
            continue
        if header is None:
            header = [c.strip().lower() for c in row]
            missing = [c for c in REQUIRED if c not in header]
            if missing:
                raise InputError(f"requests CSV header lacks column(s) {', '.join(missing)} "
                                 f"(expected {','.join(REQUIRED)} and optionally {','.join(OPTIONAL[:-2])})",
                                 path, lineno, 1)
            continue
        if len(row) != len(header):
            raise InputError(f"expected {len(header)} fields, found {len(row)}", path, lineno, 1)
        rec = {k: v for k, v in zip(header, row) if not (k in OPTIONAL and v == "")}
        try:
            specs.append(request_from_fields(rec, f"{path}:{lineno}"))
        except (ValueError, AclError) as exc:
            raise InputError(str(exc), path, lineno) from None
    if header is None:
        raise InputError("empty requests file", path)
    return specs
