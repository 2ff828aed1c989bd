"""Kafka Connect inputs: a connector's config (REST JSON or .properties) and a worker.properties."""

from __future__ import annotations

import json
from pathlib import Path

from kafka_authz_cli._java import parse_properties
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import read_text


def _string(value, path: str, key: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise InputError(f"config value of {key!r} must be a string, number or boolean", path)


def read_connector(path: Path | str) -> tuple[str | None, dict[str, str]]:
    """(name, config): ``{"name": n, "config": {...}}`` (POST /connectors), a flat config map
    (PUT /connectors/n/config) or a standalone .properties file."""
    text = read_text(path)
    if not text.lstrip().startswith(("{", "[")):
        config = parse_properties(text, str(path))
        return config.get("name"), config
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", str(path), exc.lineno, exc.colno) from None
    if not isinstance(doc, dict):
        raise InputError("a connector config is a JSON object", str(path))
    if isinstance(doc.get("config"), dict):
        config = {k: _string(v, str(path), k) for k, v in doc["config"].items() if v is not None}
        name = doc.get("name") or config.get("name")
        return name, config
    config = {k: _string(v, str(path), k) for k, v in doc.items() if v is not None}
    return config.get("name"), config


def read_worker(path: Path | str) -> dict[str, str]:
    return parse_properties(read_text(path), str(path))
