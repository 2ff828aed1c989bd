"""`authz convert`: an ACL set in any format authz reads (rules files compiled), written as canonical
JSON, `kafka-acls` text or KSM CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from kafka_authz_cli.acl import dump_acls
from kafka_authz_cli.services.sources import load_source


def convert_acl_set(source: Path | str, to: str, acls_format: Optional[str] = None) -> str:
    """The text of ``source``'s bindings in format ``to`` (``json``, ``kafka-acls`` or ``csv``)."""
    acl_set = load_source(source, acls_format)
    return dump_acls(acl_set.bindings, to)
