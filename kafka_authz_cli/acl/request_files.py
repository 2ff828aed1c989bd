"""Request files for ``authz simulate --requests``: JSON lines or CSV, one authorize() call each."""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from kafka_authz_cli.acl.apikeys import parse_api_key
from kafka_authz_cli.acl.decision import Request
from kafka_authz_cli.acl.model import AclError, AclOperation, KafkaPrincipal, ResourceType, java_host_address
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import (
    LineIndex,
    array_element_offsets,
    brief,
    csv_table,
    json_lines,
    json_type,
    loads,
)

REQUIRED = ("principal", "host", "operation", "resource_type", "resource_name")
OPTIONAL = ("api_key", "request", "resource_ref_count", "log_if_allowed", "log_if_denied", "expect", "comment", "id")
_TRUE = {"true", "1", "yes", "y"}
_FALSE = {"false", "0", "no", "n", ""}


@dataclass(frozen=True)
class RequestSpec:
    request: Request
    #: "ALLOWED" / "DENIED" (or "ERROR" / "NON_TERMINATING", where Kafka throws or never returns)
    #: when the file states what must happen, else None.
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
    if text in ("ERROR", "NON_TERMINATING"):
        return text
    raise ValueError(f"expect must be ALLOWED, DENIED, ERROR or NON_TERMINATING, got {brief(value)}")


def _bool(value, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"{name} must be true or false, got {brief(value)}")


_STRING_FIELDS = ("principal", "host", "operation", "resource_type", "resource_name", "request", "expect", "comment")


def _check_types(rec: dict) -> None:
    """JSON requests: strings where strings go (a number or null is a mistake, not a name)."""
    for key in _STRING_FIELDS:
        if key in rec and not isinstance(rec[key], str) and not (key in ("expect", "comment") and rec[key] is None):
            raise ValueError(f"field {key!r} must be a string, got {json_type(rec[key])}")
    for key in ("log_if_allowed", "log_if_denied"):
        if key in rec and not isinstance(rec[key], (bool, str)):
            raise ValueError(f"field {key!r} must be true or false, got {json_type(rec[key])}")
    for key in ("api_key", "resource_ref_count"):
        value = rec.get(key)
        if key in rec and value is not None and (isinstance(value, bool) or not isinstance(value, (int, str))):
            raise ValueError(f"field {key!r} must be a number or a string, got {json_type(value)}")


def _java_int(value, name: str) -> int:
    try:
        number = int(str(value).strip()) if not isinstance(value, int) else value
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {brief(value)}") from None
    if not 0 <= number < 2**31:
        raise ValueError(f"{name} must be within 0..2147483647 (a Java int), got {brief(value)}")
    return number


_REQUIRED_KEYS = frozenset(REQUIRED)


@functools.lru_cache(maxsize=4096)
def _checked_principal_host(principal: str, host: str) -> None:
    """Raises AclError unless the principal is ``type:name`` and the host a client address."""
    KafkaPrincipal.parse(principal)
    java_host_address(host)


def request_from_fields(rec: dict, where: str) -> RequestSpec:
    # The common request (the five fields, all strings) in a few lookups; anything else is checked
    # field by field below, with the same outcome.
    if len(rec) == 5 and rec.keys() == _REQUIRED_KEYS:
        principal, host, op, rtype, name = (rec["principal"], rec["host"], rec["operation"], rec["resource_type"],
                                            rec["resource_name"])
        if (type(principal) is str and type(host) is str and type(op) is str and type(rtype) is str
                and type(name) is str and principal and host and op and rtype):
            _checked_principal_host(principal, host)
            return RequestSpec(Request(principal, host, AclOperation.parse(op), ResourceType.parse(rtype), name),
                               None, where)
    missing = [k for k in REQUIRED if rec.get(k) is None or (k != "resource_name" and rec.get(k) == "")]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    unknown = sorted(set(rec) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(u[:80] for u in unknown)}")
    _check_types(rec)
    KafkaPrincipal.parse(rec["principal"])
    java_host_address(rec["host"])
    api = rec.get("api_key")
    if api in (None, ""):
        api = rec.get("request")
    ref = rec.get("resource_ref_count")
    api_key = parse_api_key(api)
    if api_key is not None and not -(2**15) <= api_key < 2**15:
        raise ValueError(f"api_key must be a Java short, got {api_key}")
    request = Request(
        principal=rec["principal"],
        host=rec["host"],
        operation=AclOperation.parse(rec["operation"]),
        resource_type=ResourceType.parse(rec["resource_type"]),
        resource_name=rec["resource_name"],
        api_key=api_key,
        resource_ref_count=_java_int(ref, "resource_ref_count") if ref not in (None, "") else 1,
        log_if_allowed=_bool(rec.get("log_if_allowed", True), "log_if_allowed"),
        log_if_denied=_bool(rec.get("log_if_denied", True), "log_if_denied"),
    )
    return RequestSpec(request, parse_expect(rec.get("expect")), where)


def parse_requests(text: str, path: str) -> list[RequestSpec]:
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{") or stripped.startswith("["):
        return list(_parse_jsonl(text, path))
    return list(_parse_csv(text, path))


#: What a requests file is, for the error a file of another kind gets.
REQUESTS_EXPECTED = "requests (JSON lines, a JSON array or CSV)"

def iter_requests(lines: Iterable[str], path: str) -> Iterator[RequestSpec]:
    """The requests of a file given as its lines (with their endings), read as they are needed: a
    JSON lines or CSV file of any length is held one line at a time. A JSON array is read whole."""
    lines = iter(lines)
    head: list[str] = []
    for line in lines:
        head.append(line)
        if line.lstrip("\ufeff \t\r\n"):
            break
    first = "".join(head).lstrip("\ufeff \t\r\n")
    rest = itertools.chain(head, lines)
    if first.startswith("["):
        return _parse_jsonl("".join(rest), path)
    if first.startswith("{"):
        values = json_lines(rest, path, expected=REQUESTS_EXPECTED)
        return _jsonl_specs(((lineno, None, value) for lineno, value in values), path)
    return _parse_csv(rest, path)


def _parse_jsonl(text: str, path: str) -> Iterator[RequestSpec]:
    if text.lstrip("\ufeff \t\r\n").startswith("["):
        items = loads(text, path, expected=REQUESTS_EXPECTED)
        if not isinstance(items, list):  # pragma: no cover - it starts with '['
            raise InputError("expected a JSON list of requests", path, 1)
        offsets = array_element_offsets(text, text.index("["))
        index = LineIndex(text)
        lines: Iterable[tuple[int | None, int | None, Any]]
        lines = [(index.line_col(offsets[i])[0] if i < len(offsets) else None, i, item)
                 for i, item in enumerate(items)]
    else:
        lines = ((lineno, None, value) for lineno, value in json_lines(text, path))
    return _jsonl_specs(lines, path)


def _jsonl_specs(lines, path: str) -> Iterator[RequestSpec]:
    for lineno, index, rec in lines:
        label = f"{path}:{lineno}" if lineno else f"{path}:[{index}]"
        prefix = "" if index is None else f"[{index}]: "
        if not isinstance(rec, dict):
            raise InputError(f"{prefix}each request must be a JSON object, got {json_type(rec)}", path, lineno)
        try:
            yield request_from_fields(rec, label)
        except (ValueError, AclError) as exc:
            raise InputError(prefix + str(exc), path, lineno) from None


def _parse_csv(text: str | Iterable[str], path: str) -> Iterator[RequestSpec]:
    for lineno, row in csv_table(text, path, REQUIRED, OPTIONAL, comments=True):
        rec = {k: v for k, v in row.items() if not (k in OPTIONAL and v == "")}
        try:
            yield request_from_fields(rec, f"{path}:{lineno}")
        except (ValueError, AclError) as exc:
            raise InputError(str(exc), path, lineno) from None
