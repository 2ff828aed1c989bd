"""A proposal answered from an index with work that grows with the change, not with the logs; and
every answer from an index in slices of bounded size.

The one idea. A request's decision depends only on the ACLs whose resource pattern matches its name:
a LITERAL ACL on that name, the LITERAL ``*``, a PREFIXED ACL on one of its prefixes (the engine's
own premise, see acl/engine.py). Between the current and the proposed set, only the added and the
removed bindings differ; a request none of them matches meets the same ACLs in the same walk order
under both sets, so it gets the same decision, the same rule and the same deciding ACL. Everything the
report says about the requests nothing touches is therefore a property of (index, current set, broker
settings, window) alone, not of the proposal: the totals, how many logged decisions the current set
reproduces, its mismatches, and how many requests each current ACL decides. That is the *baseline*:
computed once by a full pass (which answers its own proposal too) and kept in a small file. Every later
proposal re-decides only the requests on the resources its changed bindings match, read as ranges of
an index sorted by resource (whatif/index.py), and combines them with the baseline:

    the report's totals      = the baseline's (they do not depend on the proposal);
    the changed requests     = those found among the touched requests (no other can change);
    a proposed ACL is unused = it decides no request: baseline count - touched count before + after = 0.

Two things make the premise fail, and then the whole index is decided: without ``--current`` the
baseline is the logged decision of each request, which no stored baseline holds; and the walk's own
quirks (ACLs with an empty name, names sorting below ``*``: acl/walk.py) let an ACL decide names it
does not match. The broker settings are the same on both sides of a whatif, so they never change.

A full pass reads the index in key ranges of at most ``SLICE_ROWS`` rows, found from the row groups'
statistics without reading data, so memory stays bounded however big the index grows; each slice is
aggregated and decided on its own (a request's rows all share its resource, hence its slice).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.whatif.index import Index, aggregates_from_table, fill_hours, schema
from kafka_authz_cli.whatif.replay import Summary, WhatIfReport, assemble_report, classify, decide

#: Rows of the index read, aggregated and decided at once by a full pass (about 0.5 GB of memory).
SLICE_ROWS = 500_000
#: The format of a stored baseline; a baseline of another format is computed again.
BASELINE_FORMAT = "authz-whatif-baseline-1"


@dataclass
class Partial:
    """What some of an index's requests contribute to a report."""

    summary: Summary = field(default_factory=Summary)
    changed: list = field(default_factory=list)  # (key, aggregate, kind, before rule, after rule)
    timeline: dict = field(default_factory=dict)  # hour -> {newly_denied, newly_allowed}
    used_after: Counter = field(default_factory=Counter)  # proposed deciding ACL -> requests it decides
    used_before: Counter = field(default_factory=Counter)  # current deciding ACL -> requests it decides
    requests: int = 0  # distinct requests decided

    def merge(self, other: "Partial") -> None:
        self.summary = self.summary.merge(other.summary)
        self.changed += other.changed
        for hour, slot in other.timeline.items():
            mine = self.timeline.setdefault(hour, {"newly_denied": 0, "newly_allowed": 0})
            for kind, c in slot.items():
                mine[kind] += c
        self.used_after.update(other.used_after)
        self.used_before.update(other.used_before)
        self.requests += other.requests


@dataclass
class Answer:
    """A report answered from indexes, and how: `mode` is "incremental" or "full", `note` says why and
    how much was decided."""

    report: WhatIfReport
    untimed: int
    mode: str
    note: str


# ----------------------------------------------------------------------------------------------
# Reading the index


class IndexScan:
    """The listed runs of some indexes within a window, as Arrow datasets to read with a filter."""

    def __init__(self, indexes: list[Index], since: Optional[str], until: Optional[str]):
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.dataset as ds

        part = ds.partitioning(pa.schema([("day", pa.string()), ("run", pa.string())]), flavor="hive")
        full = schema().append(pa.field("day", pa.string())).append(pa.field("run", pa.string()))
        self.indexes = indexes
        self.parts = []
        self.sorted = all(run.get("sorted") for ix in indexes for run in ix.runs)
        for index in indexes:
            root = index.root / "requests"
            if not root.exists():
                continue
            flt = pc.field("run").isin([r["id"] for r in index.runs])
            if index.manifest.get("dropped_before"):
                flt = flt & (pc.field("day") >= index.manifest["dropped_before"])
            whole = flt
            if since is not None:
                flt = flt & (pc.field("hour_text") >= since)
            if until is not None:
                flt = flt & (pc.field("hour_text") < until)
            data = ds.dataset(str(root), format="parquet", partitioning=part, schema=full)
            self.parts.append((index, data, flt, whole))

    def read(self, where=None, columns: Optional[list[str]] = None, window: bool = True):
        """The rows within the window (all of them with `window` False) that `where` selects."""
        import pyarrow as pa

        tables = []
        for index, data, flt, whole in self.parts:
            f = flt if window else whole
            with _readable(index):
                tables.append(data.to_table(filter=f if where is None else f & where, columns=columns))
        if not tables:
            return schema().empty_table() if columns is None else schema().empty_table().select(columns)
        return pa.concat_tables(tables) if len(tables) > 1 else tables[0]

    def untimed(self) -> int:
        """Logged decisions without a time (left out by a window)."""
        import pyarrow.compute as pc

        t = self.read(pc.is_null(pc.field("hour_text")), ["count"], window=False)
        return (pc.sum(t["count"]).as_py() or 0) if t.num_rows else 0

    def slices(self, rows: int) -> list:
        """Filters cutting the requests into key ranges of about `rows` index rows each, from the row
        groups' statistics (no data read). One slice (None: everything) for a small index, or one
        written before runs were sorted (its row groups span every key, so ranges would read it all
        once per slice)."""
        import pyarrow.compute as pc

        if not self.sorted:
            return [None]
        groups, total = [], 0
        for index, data, flt, _ in self.parts:
            for frag in data.get_fragments(filter=flt):
                with _readable(index):
                    frag.ensure_complete_metadata()
                for rg in frag.row_groups:
                    st = rg.statistics or {}
                    t, n = st.get("resource_type") or {}, st.get("resource_name") or {}
                    if t.get("min") is None or n.get("min") is None:
                        return [None]
                    groups.append(((t["min"], n["min"] if t["min"] == t.get("max") else ""), rg.num_rows))
                    total += rg.num_rows
        if total <= rows:
            return [None]
        groups.sort()
        cuts, acc = [], 0
        for key, n in groups:
            if acc >= rows and (not cuts or key > cuts[-1]):
                cuts.append(key)
                acc = 0
            acc += n
        bounds = [None] + cuts + [None]
        rtype, name = pc.field("resource_type"), pc.field("resource_name")
        out = []
        for lo, hi in zip(bounds, bounds[1:]):
            expr = None
            if lo is not None:
                expr = (rtype > lo[0]) | ((rtype == lo[0]) & (name >= lo[1]))
            if hi is not None:
                below = (rtype < hi[0]) | ((rtype == hi[0]) & (name < hi[1]))
                expr = below if expr is None else expr & below
            if lo is None:  # a row without a resource must be read by some slice
                expr = expr | pc.is_null(rtype) | pc.is_null(name)
            out.append(expr)
        return out


@contextmanager
def _readable(index: Index):
    """A damaged Parquet file is one line naming the index, not an Arrow traceback."""
    import pyarrow as pa

    try:
        yield
    except (pa.ArrowException, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"unreadable index data: {first[:300]}", str(index.root)) from None


# ----------------------------------------------------------------------------------------------
# Deciding


def evaluate(table, proposed, current) -> Partial:
    """Aggregate index rows per request, decide each under the proposed (and current) authorizer, and
    keep what the report needs."""
    aggs = aggregates_from_table(table)
    after = decide(aggs, proposed)
    before = decide(aggs, current) if current is not None else None
    out = Partial(requests=len(aggs))
    for key, agg in aggs.items():
        verdict = after[key]
        prior = before[key] if before is not None else None
        out.summary.add(key, agg, prior)
        kind, _, before_rule = classify(agg, verdict, prior)
        if kind is not None:
            out.changed.append((key, agg, kind, before_rule, verdict.rule))
        if verdict.acl is not None:
            out.used_after[verdict.acl] += 1
        if prior is not None and prior.acl is not None:
            out.used_before[prior.acl] += 1
    fill_hours(table, aggs, [c[0] for c in out.changed])
    for _, agg, kind, _, _ in out.changed:
        for hour, c in agg.hours.items():
            slot = out.timeline.setdefault(hour, {"newly_denied": 0, "newly_allowed": 0})
            slot[kind] += c
    return out


def evaluate_all(scan: IndexScan, proposed, current, rows: Optional[int] = None) -> Partial:
    """Every request of the window, slice by slice."""
    total = Partial()
    for where in scan.slices(rows or SLICE_ROWS):
        total.merge(evaluate(scan.read(where), proposed, current))
    return total


def touched_filter(current_acls: list[AclBinding], proposed_acls: list[AclBinding], current, proposed):
    """(filter, changed bindings, None), or (None, changed, why) when only a full pass is exact: the
    requests on every resource an added or removed binding matches (see the module's comment)."""
    import pyarrow.compute as pc

    before, after = set(current_acls), set(proposed_acls)
    changed = sorted(before ^ after, key=_binding_key)
    by_type: dict[str, dict] = {}
    for b in changed:
        if b.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED) or b.resource_name == "":
            return None, changed, f"a changed ACL has a {b.pattern_type.name} pattern on {b.resource_name!r}"
        if not (current.decided_by_name(b.resource_type) and proposed.decided_by_name(b.resource_type)):
            return None, changed, (f"{b.resource_type.name} ACLs with an empty name or a name sorting below '*' "
                                   "make Kafka's walk decide some names by position, not by name")
        if _has_lone_surrogate(b.resource_name):
            return None, changed, "a changed ACL's name holds a lone UTF-16 surrogate"
        slot = by_type.setdefault(b.resource_type.name, {"all": False, "names": set(), "prefixes": set()})
        if b.pattern_type is PatternType.LITERAL:
            if b.resource_name == "*":
                slot["all"] = True
            else:
                slot["names"].add(b.resource_name)
        else:
            slot["prefixes"].add(b.resource_name)
    rtype, name = pc.field("resource_type"), pc.field("resource_name")
    expr = None
    for type_name, slot in sorted(by_type.items()):
        if slot["all"]:
            term = rtype == type_name
        else:
            parts = [name.isin(sorted(slot["names"]))] if slot["names"] else []
            for p in _outermost(slot["prefixes"]):
                parts.append(_prefix_range(name, p))
            within = parts[0]
            for p in parts[1:]:
                within = within | p
            term = (rtype == type_name) & within
        expr = term if expr is None else expr | term
    if expr is None:  # nothing changed: no request can change
        expr = pc.scalar(False)
    return expr, changed, None


def _binding_key(b: AclBinding) -> tuple:
    return (b.resource_type.name, b.resource_name, b.pattern_type.name, b.principal, b.host, b.operation.name,
            b.permission.name)


def _outermost(prefixes: set[str]) -> list[str]:
    """The prefixes no other one is a prefix of (their ranges hold the rest)."""
    out: list[str] = []
    for p in sorted(prefixes):
        if not out or not p.startswith(out[-1]):
            out.append(p)
    return out


def _prefix_range(name, prefix: str):
    """Names starting with `prefix` as a range (UTF-8 byte order is code-point order), so that row
    group statistics can skip the rest."""
    last = ord(prefix[-1])
    if last >= 0x10FFFF:
        return name >= prefix
    nxt = chr(last + 1)
    if 0xD800 <= last + 1 <= 0xDFFF:
        nxt = chr(0xE000)
    return (name >= prefix) & (name < prefix[:-1] + nxt)


def _has_lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


# ----------------------------------------------------------------------------------------------
# The baseline


@dataclass
class Baseline:
    """What the report says of requests no change touches: a property of (index, current set,
    settings, window), not of the proposal."""

    summary: Summary
    used_before: Counter  # current deciding ACL -> requests it decides
    untimed: int
    requests: int

    def as_json(self) -> dict:
        s = self.summary
        return {"format": BASELINE_FORMAT, "requests": self.requests, "untimed": self.untimed,
                "summary": {"distinct": s.distinct, "decisions": s.decisions, "allowed_lines": s.allowed_lines,
                            "denied_lines": s.denied_lines, "comparable": s.comparable, "reproduced": s.reproduced,
                            "mixed": s.mixed, "mismatches": [[list(k), row] for k, row in s.mismatches]},
                "used_before": [[*_binding_key(a), n] for a, n in sorted(self.used_before.items(),
                                                                           key=lambda i: _binding_key(i[0]))]}

    @classmethod
    def from_json(cls, data: dict) -> "Baseline":
        s = data["summary"]
        summary = Summary(s["distinct"], s["decisions"], s["allowed_lines"], s["denied_lines"], s["comparable"],
                          s["reproduced"], s["mixed"], [(tuple(k), row) for k, row in s["mismatches"]])
        used = Counter()
        for rt, name, pt, principal, host, op, perm, n in data["used_before"]:
            used[AclBinding(ResourceType[rt], name, PatternType[pt], principal, host, AclOperation[op],
                            AclPermissionType[perm])] = n
        return cls(summary, used, data["untimed"], data["requests"])


def baseline_key(indexes: list[Index], since, until, current_acls: list[AclBinding], config: dict,
                 version: str) -> str:
    """A digest of everything a baseline depends on: each index's manifest (its runs, files and what
    was dropped), the window, the current set, the settings and authz's version."""
    h = hashlib.sha256(BASELINE_FORMAT.encode())
    for ix in indexes:
        h.update(str(ix.root.resolve()).encode() + b"\0")
        h.update(json.dumps(ix.manifest, sort_keys=True).encode() + b"\0")
    h.update(json.dumps([since, until, version, sorted((k, sorted(v) if isinstance(v, (set, frozenset)) else v)
                                                       for k, v in config.items())], default=str).encode())
    for b in sorted(set(current_acls), key=_binding_key):
        h.update("\x1f".join(_binding_key(b)).encode() + b"\x1e")
    return h.hexdigest()


def load_baseline(cache_dir: Optional[Path], key: str) -> Optional[Baseline]:
    if cache_dir is None:
        return None
    try:
        data = json.loads((cache_dir / f"{key}.json").read_text(encoding="utf-8"))
        return Baseline.from_json(data) if data.get("format") == BASELINE_FORMAT else None
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent, unreadable or damaged: computed again


def store_baseline(cache_dir: Optional[Path], key: str, baseline: Baseline) -> bool:
    """Written atomically, readable by its owner only (it names principals and resources)."""
    if cache_dir is None:
        return False
    try:
        cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = cache_dir / f".{key}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(baseline.as_json(), fh, separators=(",", ":"))
        os.replace(tmp, cache_dir / f"{key}.json")
        return True
    except OSError:
        return False


# ----------------------------------------------------------------------------------------------
# The answer


def answer_from_index(indexes: list[Index], since, until, proposed_acls: list[AclBinding], current_acls, config: dict,
           proposed, current, *, full: bool = False, cache_dir: Optional[Path] = None, version: str = "",
           baseline: Optional[Baseline] = None) -> tuple[Answer, Optional[Baseline]]:
    """The report of a proposal from indexes: incrementally from a baseline (given, or stored in
    `cache_dir`) when that is exact, else by a full pass in slices (which stores the baseline it
    yields). Returns the answer and the baseline, for a caller that asks again (--interactive)."""
    scan = IndexScan(indexes, since, until)
    windowed = since is not None or until is not None
    why = "the baseline is the logged decisions (no --current)" if current is None else None
    if full:
        why = "--full"
    where = changed = None
    if why is None:
        where, changed, why = touched_filter(current_acls, proposed_acls, current, proposed)
    key = None
    if current is not None and baseline is None and cache_dir is not None:
        key = baseline_key(indexes, since, until, current_acls, config, version)
        if why is None:
            baseline = load_baseline(cache_dir, key)
    if why is None and baseline is None:
        why = "no baseline yet for this index, window, current set and settings: computed now, kept for the next"
    if why is not None:
        return _full(scan, windowed, proposed_acls, proposed, current, why, cache_dir, key)
    touched = evaluate(scan.read(where), proposed, current)
    used = {a for a in set(baseline.used_before) | set(touched.used_after)
            if baseline.used_before[a] - touched.used_before[a] + touched.used_after[a] > 0}
    report = assemble_report(touched.changed, baseline.summary, dict(sorted(touched.timeline.items())),
                             proposed_acls, used, True)
    note = (f"incremental: {touched.requests:,} of {baseline.requests:,} distinct requests re-decided, those on "
            f"the resources of {len(changed):,} changed ACL(s); --full decides all")
    return Answer(report, baseline.untimed if windowed else 0, "incremental", note), baseline


def _full(scan: IndexScan, windowed: bool, proposed_acls, proposed, current, why: str, cache_dir, key):
    total = evaluate_all(scan, proposed, current)
    used = {a for a, n in total.used_after.items() if n > 0}
    report = assemble_report(total.changed, total.summary, dict(sorted(total.timeline.items())), proposed_acls,
                             used, current is not None)
    untimed = scan.untimed() if windowed else 0
    baseline = None
    if current is not None:
        baseline = Baseline(total.summary, total.used_before, untimed, total.requests)
        if key is not None:
            store_baseline(cache_dir, key, baseline)
    return Answer(report, untimed, "full", f"full: {total.requests:,} distinct requests decided ({why})"), baseline
