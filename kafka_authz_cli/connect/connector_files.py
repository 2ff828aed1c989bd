"""Kafka Connect inputs: the connectors of a file (any shape :mod:`.shapes` knows) and a worker.properties."""

from __future__ import annotations

from pathlib import Path

from kafka_authz_cli._java import parse_properties
from kafka_authz_cli.connect.shapes import ConnectorFile, read_connectors
from kafka_authz_cli.formats import read_text, source_label


def read_connector_file(path: Path | str, name: str | None = None) -> list[ConnectorFile]:
    """Every connector in the file at ``path`` (``-``: standard input), read by its content."""
    return read_connectors(read_text(path), source_label(path), name)


def read_connector(path: Path | str, name: str | None = None) -> tuple[str, dict[str, str]]:
    """(name, config) of the file's one connector (the one named ``name`` in a file of several)."""
    [first, *_] = read_connector_file(path, name)
    return first.name, first.config


def read_worker(path: Path | str) -> dict[str, str]:
    return parse_properties(read_text(path), str(path))
