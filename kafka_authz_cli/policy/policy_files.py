"""KIP-201 inputs: a declarative policy file (JSON or TOML), requests (JSON lines), cluster state (JSON)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from kafka_authz_cli.acl import parse_expect
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import JSON_KINDS, other_kind, read_text
from kafka_authz_cli.policy.topic import (
    REQUEST_TYPES,
    ClusterState,
    PolicyFileError,
    PolicyRequest,
    TopicPolicy,
    TopicState,
    parse_policy,
)


def read_policy(path: Path | str) -> TopicPolicy:
    text = read_text(path)
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", str(path), exc.lineno, exc.colno) from None
    else:
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            other = other_kind(text, str(path), "a KIP-201 policy (JSON or TOML)", JSON_KINDS | {"properties"})  # TOML reads as key=value lines
            raise (other or InputError(f"invalid TOML: {exc}", str(path))) from None
    try:
        return parse_policy(doc, "policy")
    except PolicyFileError as exc:
        raise InputError(f"{exc.where}: {exc}" if exc.where else str(exc), str(path)) from None


def _int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer")
    return value


def _configs(value, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{what} maps config names to values")
    out = {}
    for k, v in value.items():
        if isinstance(v, bool):
            out[k] = "true" if v else "false"
        elif isinstance(v, (int, float, str)):
            out[k] = str(v)
        else:
            raise ValueError(f"{what}.{k} must be a string, number or boolean")
    return out


def _assignments(value, what: str) -> dict[int, list[int]] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"{what} maps partition ids to broker id lists")
    out = {}
    for k, v in value.items():
        try:
            part = int(k)
        except ValueError:
            raise ValueError(f"{what}: partition id {k!r} is not an integer") from None
        if not isinstance(v, list) or not all(isinstance(b, int) and not isinstance(b, bool) for b in v):
            raise ValueError(f"{what}.{k} must be a list of broker ids")
        out[part] = v
    return out


REQUEST_KEYS = {"request", "operation", "principal", "topic", "partitions", "replication_factor",
                "replica_assignments", "configs", "delete_configs", "offsets", "host", "expect", "id", "comment"}


def request_from_dict(rec: dict, origin: str) -> PolicyRequest:
    unknown = sorted(set(rec) - REQUEST_KEYS)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(unknown)}")
    name = rec.get("request", rec.get("operation"))
    if not isinstance(name, str) or name.lower() not in REQUEST_TYPES:
        raise ValueError(f"request must be one of create, alter, delete, delete_records (or CreateTopics, "
                         f"CreatePartitions, AlterConfigs, IncrementalAlterConfigs, DeleteTopics, DeleteRecords), "
                         f"got {name!r}")
    for k in ("principal", "topic"):
        if not isinstance(rec.get(k), str) or not rec.get(k):
            raise ValueError(f"missing {k}")
    if ":" not in rec["principal"]:
        raise ValueError(f"principal must be Type:name, got {rec['principal']!r}")
    offsets = rec.get("offsets")
    if offsets is not None:
        if not isinstance(offsets, dict):
            raise ValueError("offsets maps partition ids to offsets")
        offsets = {int(k): _int(v, f"offsets.{k}") for k, v in offsets.items()}
    deletes = rec.get("delete_configs") or []
    if not isinstance(deletes, list) or not all(isinstance(d, str) for d in deletes):
        raise ValueError("delete_configs must be a list of config names")
    return PolicyRequest(
        request=name, operation=REQUEST_TYPES[name.lower()][0], principal=rec["principal"], topic=rec["topic"],
        partitions=None if rec.get("partitions") is None else _int(rec["partitions"], "partitions"),
        replication_factor=None if rec.get("replication_factor") is None else _int(rec["replication_factor"],
                                                                                    "replication_factor"),
        replica_assignments=_assignments(rec.get("replica_assignments"), "replica_assignments"),
        configs=_configs(rec.get("configs"), "configs"), delete_configs=tuple(deletes),
        replace_configs=name.lower() == "alterconfigs", offsets=offsets, host=str(rec.get("host", "127.0.0.1")),
        expect=parse_expect(rec.get("expect")), origin=origin)


def read_requests(path: Path | str) -> list[PolicyRequest]:
    out: list[PolicyRequest] = []
    for lineno, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            other = other_kind(line, str(path), "topic requests (JSON lines)") if not out else None
            raise (other or InputError(f"invalid JSON: {exc.msg}", str(path), lineno, exc.colno)) from None
        if not isinstance(rec, dict):
            raise InputError("each line is one JSON object", str(path), lineno)
        try:
            out.append(request_from_dict(rec, f"{path}:{lineno}"))
        except ValueError as exc:
            raise InputError(str(exc), str(path), lineno) from None
    if not out:
        raise InputError("no requests in file", str(path))
    return out


def read_cluster_state(path: Path | str | None) -> ClusterState:
    if path is None:
        return ClusterState()
    text = read_text(path)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        other = other_kind(text, str(path), "a cluster state (JSON)")
        raise (other or InputError(f"invalid JSON: {exc.msg}", str(path), exc.lineno, exc.colno)) from None
    try:
        if not isinstance(doc, dict) or set(doc) - {"brokers", "topics"}:
            raise ValueError('expected {"brokers": N, "topics": {"name": {"partitions": .., '
                             '"replication_factor": .., "configs": {..}, "internal": false}}}')
        topics = {}
        for name, t in (doc.get("topics") or {}).items():
            if not isinstance(t, dict) or set(t) - {"partitions", "replication_factor", "configs", "internal",
                                                    "replica_assignments"}:
                raise ValueError(f"topics.{name}: unknown or malformed fields")
            topics[name] = TopicState(_int(t.get("partitions", 1), f"topics.{name}.partitions"),
                                      _int(t.get("replication_factor", 1), f"topics.{name}.replication_factor"),
                                      _configs(t.get("configs"), f"topics.{name}.configs"), bool(t.get("internal")),
                                      _assignments(t.get("replica_assignments"), f"topics.{name}.replica_assignments"))
        brokers = doc.get("brokers")
        return ClusterState(topics, None if brokers is None else _int(brokers, "brokers"))
    except ValueError as exc:
        raise InputError(str(exc), str(path)) from None
