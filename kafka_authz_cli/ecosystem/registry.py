"""The ecosystem formats authz reads and writes: one entry per format, one module per format.

A format is told by content (``sniff``), read into an :class:`AclSet` whose origins name the file,
line and the construct each binding came from (``read``), and written from bindings (``write``,
refusing what it cannot express). Adding a format is adding its module and one entry here; the
services and the command options take their choices from :data:`FORMATS`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from kafka_authz_cli.acl import AclSet
from kafka_authz_cli.ecosystem import strimzi, strimzi_write
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import read_text


@dataclass(frozen=True)
class EcosystemFormat:
    #: the name ``--acls-format`` and ``--to`` take
    name: str
    #: what it is, for people
    title: str
    #: the version of the tool whose code the reading and writing follow
    follows: str
    sniff: Callable[[str], bool]
    read: Callable[[str, str], AclSet]
    #: ``write(bindings, **options) -> Written`` (None: read only)
    write: Optional[Callable] = None
    #: what the format cannot hold, in a sentence (help and errors)
    cannot_hold: str = ""
    #: file name endings of a directory's files worth sniffing (others are skipped unread)
    suffixes: tuple[str, ...] = ()


FORMATS: dict[str, EcosystemFormat] = {f.name: f for f in (
    EcosystemFormat(
        "strimzi", "Strimzi KafkaUser resources", strimzi.FOLLOWS, strimzi.sniff, strimzi.read, strimzi_write.write,
        "non-User principals, User:*, names that are not Kubernetes names, DELEGATION_TOKEN and USER "
        "resources, cluster names other than kafka-cluster, token and two-phase-commit operations",
        (".yaml", ".yml", ".json")),
)}


def ecosystem_format(name: str) -> EcosystemFormat | None:
    return FORMATS.get(name)


def format_of_text(text: str) -> EcosystemFormat | None:
    """The ecosystem format ``text`` is in, told by content, or None."""
    return next((f for f in FORMATS.values() if f.sniff(text)), None)


def read_directory(directory: str | Path, fmt: str | None = None) -> AclSet:
    """Every file under ``directory`` (recursively, hidden directories skipped, in name order) that is
    in ``fmt`` (or the first ecosystem format found there), as one ACL set."""
    root = Path(directory)
    found: EcosystemFormat | None = FORMATS.get(fmt) if fmt else None
    if fmt is not None and found is None:
        raise InputError(f"--acls-format {fmt}: a directory is read only in {', '.join(FORMATS)}", str(root))
    suffixes = found.suffixes if found else tuple(s for f in FORMATS.values() for s in f.suffixes)
    merged = AclSet([], [], str(root), found.name if found else "strimzi")
    skipped = 0
    for path in _files(root, suffixes):
        text = read_text(path)
        candidate = found or format_of_text(text)
        if candidate is None or not candidate.sniff(text):
            skipped += 1
            continue
        found = found or candidate
        part = candidate.read(text, str(path))
        merged.bindings.extend(part.bindings)
        merged.origins.extend(part.origins)
        merged.warnings.extend(w for w in part.warnings if not w.endswith(": no KafkaUser resources"))
    if found is None:
        raise InputError(f"no file here is in a format authz reads from a directory ({', '.join(FORMATS)})",
                         str(root))
    merged.format = found.name
    if skipped:
        merged.warnings.append(f"{root}: {skipped} file(s) are not {found.title} and were skipped")
    return merged


def _files(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    out = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(Path(here, f) for f in sorted(files) if f.endswith(suffixes) and not f.startswith("."))
    return out
