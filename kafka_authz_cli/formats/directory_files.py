"""The files of a directory that authz reads, as every command walks one.

One rule for hidden names, wherever a directory is given (an ACL set in an ecosystem format, a
Kroxylicious configuration and its ConfigMaps, the files ``authz lint`` sorts by content): a file or a
directory whose name starts with ``.`` is skipped. That is where version control (``.git``), Terraform
(``.terraform``: downloaded modules and providers, not the configuration) and editors (swap and backup
files) keep what is no one's input.
"""

from __future__ import annotations

import os
from pathlib import Path


def files_under(root: str | Path, suffixes: tuple[str, ...] = ()) -> list[Path]:
    """Every file under ``root``, recursively, whose name ends with one of ``suffixes`` (any name without
    them): a directory's own files in name order, then each subdirectory's, in name order. Names starting
    with ``.`` are skipped, files and directories alike; symbolic links to directories are not followed.
    Anything that is not a directory counts as a file (a FIFO too: its reader refuses it)."""
    out: list[Path] = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(Path(here, f) for f in sorted(files) if f.endswith(suffixes or ("",)) and not f.startswith("."))
    return out
