"""Where authz may keep derived data between runs: a private per-user directory, or nowhere.

Used for lark's parser tables (building the rules grammar's three LALR parsers takes ~0.15 s, loading
them ~5 ms). lark stores them as a pickle, so the directory must be one only this user can write:
`$AUTHZ_CACHE_DIR`, else `$XDG_CACHE_HOME/kafka-authz-cli`, else `~/.cache/kafka-authz-cli`, created
0700. A directory that is not ours, or is group/world-writable, is not used (nor is anything in the
shared temporary directory); `AUTHZ_CACHE_DIR=` (empty) turns caching off. A stale or damaged entry
is rebuilt: lark keys each entry by a SHA-256 of the grammar, its options and the lark and Python
versions.
"""

from __future__ import annotations

import os
import stat
import sys


def cache_dir() -> str | None:
    root = os.environ.get("AUTHZ_CACHE_DIR")
    if root == "":
        return None
    if root is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "kafka-authz-cli")
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
        st = os.lstat(root)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_mode & 0o022:
        return None
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        return None
    return root


def lark_cache(name: str) -> str | bool:
    """The `cache=` argument for a Lark parser called `name`: a file in cache_dir(), or False."""
    root = cache_dir()
    if root is None:
        return False
    import lark

    return os.path.join(root, f"{name}-lark{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}.cache")
