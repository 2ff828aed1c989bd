"""Keeping an index current: which of today's files are new, and which bytes of them.

A nightly job points ``authz whatif index --append`` at the log directory: most files are already in
the index, some under another name (log4j renamed them on rotation), some now gzipped, and the active
file has grown since last night. Reading everything again would cost the whole 90 days each night and
count old lines twice; this decides, per file, with as little reading as possible:

1. the file's own bytes are a file already indexed (size and the hash of its first and last MiB, as
   ``index.fingerprint``): skipped, nothing decompressed;
2. its *content* (gzip undone) is a file already indexed: skipped (renamed or compressed since);
3. its content starts with the whole content of a file indexed before (the same first MiB, and the same
   hash over the old length): it grew; only the bytes after the old length are indexed;
4. otherwise it is new and indexed whole.

Each file indexed is recorded with both prints and the hash of its first MiB, so that tomorrow the same
file is recognised in step 1 or 2, and a file that grows again in step 3.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
from dataclasses import dataclass
from typing import BinaryIO, Iterator

MIB = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: str) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == _GZIP_MAGIC


def _content(path: str) -> BinaryIO | gzip.GzipFile:
    return gzip.open(path, "rb") if is_gzip(path) else open(path, "rb")


def _chunks(fh: BinaryIO | gzip.GzipFile, limit: int | None = None) -> Iterator[bytes]:
    left = limit
    while left is None or left > 0:
        data = fh.read(MIB if left is None else min(MIB, left))
        if not data:
            return
        if left is not None:
            left -= len(data)
        yield data


def content_print(path: str, limit: int | None = None) -> dict:
    """Of the file's content (gzip undone), or of its first ``limit`` bytes: ``content_size``,
    ``content_head`` (hash of the first MiB) and ``content_ends`` (the formula of ``index.fingerprint``:
    the first MiB, then the last MiB or the rest)."""
    head = bytearray()
    tail = bytearray()
    size = 0
    try:
        with _content(path) as fh:
            for data in _chunks(fh, limit):
                size += len(data)
                if len(head) < MIB:
                    take = data[:MIB - len(head)]
                    head += take
                    data = data[len(take):]
                tail += data
                if len(tail) > MIB:
                    del tail[:len(tail) - MIB]
    except (OSError, EOFError, gzip.BadGzipFile):
        pass  # a truncated gzip member (a file still being written): the content read so far
    h = hashlib.sha256(head)
    if size > MIB:  # the last MiB, or all after the first MiB when there is less
        h.update(tail)
    return {"content_size": size, "content_head": hashlib.sha256(head).hexdigest(), "content_ends": h.hexdigest()}


def plain_prints(path: str, raw: dict) -> dict:
    """What a run records of a plain file besides its raw print, cheaply (its first MiB is read again):
    its content print, so that a later --append recognises the file once it is gzipped and, above all,
    once it has grown. A gzip file needs no more: it does not grow, and it is known by its bytes."""
    if is_gzip(path):
        return {}
    return {"content_size": raw["size"], "content_ends": raw["sha256_ends"],
            "content_head": content_print(path, MIB)["content_head"]}


@dataclass(frozen=True)
class Planned:
    """One file of an --append run: indexed from ``offset`` (0: whole), or skipped (``why``)."""

    path: str
    offset: int = 0
    why: str | None = None  # None: indexed
    prints: dict | None = None  # what is recorded for it in the manifest


def _recorded(runs: list[dict]) -> list[dict]:
    """Every file the index holds, with its content print (old runs recorded only the raw print: for a
    plain file the two are the same)."""
    out = []
    for run in runs:
        for f in run["files"]:
            rec = dict(f, run=run["id"])
            rec.setdefault("content_size", f["size"])
            rec.setdefault("content_ends", f["sha256_ends"])
            if "content_head" not in rec and f["size"] <= MIB:
                rec["content_head"] = f["sha256_ends"]
            out.append(rec)
    return out


def plan(files: list[str], raw_prints: list[dict], runs: list[dict]) -> list[Planned]:
    """What to do with each file (``raw_prints``: their ``index.fingerprint``) given the index's runs."""
    recorded = _recorded(runs)
    by_raw = {(r["size"], r["sha256_ends"]): r for r in recorded}
    by_content = {(r["content_size"], r["content_ends"]): r for r in recorded}
    out = []
    for path, raw in zip(files, raw_prints):
        hit = by_raw.get((raw["size"], raw["sha256_ends"]))
        if hit is not None:
            out.append(Planned(path, why=f"already indexed (run {hit['run']}, as {hit['path']})"))
            continue
        content = content_print(path) if is_gzip(path) else plain_prints(path, raw)
        prints = dict(raw, **content)
        hit = by_content.get((content["content_size"], content["content_ends"]))
        if hit is not None:
            out.append(Planned(path, why=f"already indexed (run {hit['run']}, as {hit['path']}; renamed or "
                                         "compressed since)"))
            continue
        grown = _grown_from(path, content, recorded)
        out.append(Planned(path, grown["content_size"] if grown else 0, None,
                           dict(prints, **({"from_byte": grown["content_size"], "grew_from": grown["path"]}
                                           if grown else {}))))
    return out


def _grown_from(path: str, content: dict, recorded: list[dict]) -> dict | None:
    """The largest indexed file whose whole content this file's content starts with. A file of a MiB or
    more must share the hash of its first MiB; a smaller one is checked over its length (each length
    read once, however many files have it)."""
    candidates = sorted((r for r in recorded if 0 < r["content_size"] < content["content_size"]
                         and (r["content_size"] <= MIB or r.get("content_head") == content["content_head"])),
                        key=lambda r: -r["content_size"])
    ends_at: dict[int, str] = {}
    for r in candidates:
        size = r["content_size"]
        if size not in ends_at:
            ends_at[size] = content_print(path, size)["content_ends"]
        if ends_at[size] == r["content_ends"]:
            return r
    return None


def write_tail(path: str, offset: int, target: str) -> None:
    """The content of ``path`` from byte ``offset`` (gzip undone) into ``target``."""
    with _content(path) as src, open(target, "wb") as dst:
        skip = offset
        while skip > 0:
            data = src.read(min(MIB, skip))
            if not data:
                return
            skip -= len(data)
        shutil.copyfileobj(src, dst, MIB)


def drop_days(root: str, before: str) -> list[str]:
    """The day directories of the index under ``root`` older than ``before`` (YYYY-MM-DD), relative."""
    requests = os.path.join(root, "requests")
    if not os.path.isdir(requests):
        return []
    return sorted(f"requests/{d}" for d in os.listdir(requests)
                  if d.startswith("day=") and d[4:] < before and d != "day=__HIVE_DEFAULT_PARTITION__")
