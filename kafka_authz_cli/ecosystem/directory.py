"""A directory of files of one ecosystem format (Strimzi KafkaUsers, Terraform files...) read as one ACL set.

The formats, how each is told by content and read, are entries of ``acl.registry``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, Mapping

from kafka_authz_cli.acl import ECOSYSTEM, FORMATS, AclSet, AclSetFormat, ecosystem_format_of, ecosystem_formats
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.formats import files_under, read_text


def read_directory(directory: str | Path, fmt: str | None = None, options: Mapping[str, str] | None = None) -> AclSet:
    """Every file under ``directory`` (formats.files_under: recursively, hidden ones skipped, in name order)
    that is in ``fmt`` (or in the ecosystem format of the first such file), read as one ACL set.

    A file is left out only for a reason that would stop it given alone: content detection is a heuristic,
    so a file it does not recognise is still read when the format reads bindings from it (a KafkaUser whose
    lines end in CRLF, a topology whose ``projects`` come late)."""
    root = Path(directory)
    names = ", ".join(f.name for f in ecosystem_formats())
    found = FORMATS.get(fmt) if fmt else None
    if fmt is not None and (found is None or found.family != ECOSYSTEM):
        raise InputError(f"--acls-format {fmt}: a directory is read only in {names}", str(root))
    suffixes = found.suffixes if found else tuple(s for f in ecosystem_formats() for s in f.suffixes)
    files = iter(_texts(root, suffixes))
    skipped = 0
    checked = found.check_options(options) if found else None
    first = None
    for text, path in files:
        candidate = found or ecosystem_format_of(text)
        if candidate is not None and (candidate.sniff(text) or _reads(candidate, text, path, checked)):
            found, first = candidate, (text, path)
            break
        skipped += 1
    if found is None or first is None:
        raise InputError(f"no file here is in a format authz reads from a directory ({names})", str(root))
    checked = found.check_options(options)
    counted = [skipped]

    def matching() -> Iterator[tuple[str, str]]:
        yield first
        for text, path in files:
            if found.sniff(text) or _reads(found, text, path, checked):
                yield text, path
            else:
                counted[0] += 1

    acl_set = found.read_many(matching(), str(root), checked)
    if counted[0]:
        acl_set.warnings.append(f"{root}: {counted[0]} file(s) are not {found.title} and were skipped")
    return acl_set


def _reads(fmt: AclSetFormat, text: str, path: str, options: Mapping[str, str] | None) -> bool:
    """Whether ``fmt`` reads bindings (or coded findings) from ``text`` alone, which content detection did not
    recognise: such a file given alone with --acls-format is read, so it is read in a directory too."""
    if fmt.must_hold not in text:
        return False
    try:
        acl_set = fmt.read(text, path, options or {})
    except (InputError, OptionError):
        return False  # given alone, this would stop it too
    return bool(acl_set.bindings or acl_set.findings)


def _texts(root: Path, suffixes: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    for path in files_under(root, suffixes):
        yield read_text(path), str(path)
