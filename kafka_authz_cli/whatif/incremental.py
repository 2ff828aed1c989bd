"""A proposal answered from an index with work that grows with the change, not with the logs; and
every answer from an index in slices of bounded size.

The one idea. A request's decision depends only on the ACLs whose resource pattern matches its name
(a LITERAL ACL on that name, the LITERAL ``*``, a PREFIXED ACL on one of its prefixes: the engine's
own premise, see acl/engine.py) and whose principal is the request's or ``User:*``; the principal
stops mattering when allow.everyone.if.no.acl.found is on (any ACL on a resource turns that default
off for everybody) and for an ACL whose principal Kafka cannot parse (it throws for whoever meets it).
Between the current and the proposed set, only the added and the removed bindings differ; a request
none of them matches meets the same ACLs in the same walk order under both sets, so it gets the same
decision, the same rule and the same deciding ACL. Everything the report says about the requests nothing
touches is therefore a property of (index, current set, broker settings, window) alone, not of the proposal: the totals,
how many logged decisions the current set reproduces, its mismatches, and how many requests each current ACL decides.
That is the *baseline*: computed once by a full pass (which answers its own proposal too) and kept in a small file.
Every later proposal re-decides only the requests its changed bindings match, read from the row groups of an index
sorted by resource (whatif/parquet_index.py) that can hold them, and combines them with the baseline:

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
from typing import Any, Optional

from kafka_authz_cli.acl import AclBinding, PatternType, ResourceType, StandardAuthorizer
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.whatif.parquet_index import KEY, SORT_KEY, Index, request_totals, schema
from kafka_authz_cli.whatif.replay import (
    Aggregate,
    ChangedRequest,
    Summary,
    WhatIfReport,
    assemble_report,
    classify,
    decide,
)

#: Rows of the index read, aggregated and decided at once by a full pass (about 0.5 GB of memory).
SLICE_ROWS = 500_000
#: The format of a stored baseline; a baseline of another format is computed again.
BASELINE_FORMAT = "authz-whatif-baseline-2"


@dataclass
class Partial:
    """What some of an index's requests contribute to a report."""

    summary: Summary = field(default_factory=Summary)
    changed: list[ChangedRequest] = field(default_factory=list)
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
    """A report answered from indexes, how (`mode` "incremental" or "full", `note` why and how much was
    decided), and the baseline that answers the next proposal (--interactive), when there is one."""

    report: WhatIfReport
    untimed: int
    mode: str
    note: str
    baseline: Optional[Baseline] = None


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
        import pyarrow.dataset as ds

        tables = []
        for index, data, flt, whole in self.parts:
            f = flt if window else whole
            with _readable(index):
                # a few row groups decoded at a time: memory follows what the filter keeps, not what it reads
                scanner = ds.Scanner.from_dataset(data, filter=f if where is None else f & where, columns=columns,
                                                  batch_readahead=4, fragment_readahead=2)
                tables.append(scanner.to_table())
        if not tables:
            return schema().empty_table() if columns is None else schema().empty_table().select(columns)
        return pa.concat_tables(tables) if len(tables) > 1 else tables[0]

    def untimed(self) -> int:
        """Logged decisions without a time (left out by a window)."""
        import pyarrow.compute as pc

        t = self.read(pc.is_null(pc.field("hour_text")), ["count"], window=False)
        return (pc.sum(t["count"]).as_py() or 0) if t.num_rows else 0

    def slices(self, rows: int) -> list:
        """Filters cutting the requests into key ranges of about `rows` index rows each (a resource with
        more rows is a slice of its own). The row counts come from the metadata; where the index is
        bigger than one slice, the rows per resource are counted from its two resource columns, file by
        file (memory follows the distinct resources, not the rows). One slice (None: everything) for a
        small index, or one written before runs were sorted (its row groups span every key, so ranges
        would read it all once per slice)."""
        import pyarrow.compute as pc

        total = 0
        for index, data, flt, _ in self.parts:
            for frag in data.get_fragments(filter=flt):
                with _readable(index):
                    frag.ensure_complete_metadata()
                total += sum(rg.num_rows for rg in frag.row_groups)
        if not self.sorted or total <= rows:
            return [None]
        counts: Counter = Counter()
        for index, data, flt, _ in self.parts:
            for frag in data.get_fragments(filter=flt):
                with _readable(index):
                    t = frag.to_table(columns=["resource_type", "resource_name"])
                g = t.group_by(["resource_type", "resource_name"], use_threads=False).aggregate([
                    ([], "count_all")]).to_pydict()
                for rtype, rname, n in zip(g["resource_type"], g["resource_name"], g["count_all"]):
                    if rtype is not None and rname is not None:
                        counts[(rtype, rname)] += n
        cuts, acc = [], 0
        for key in sorted(counts):
            if acc >= rows:
                cuts.append(key)
                acc = 0
            acc += counts[key]
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
            if expr is None:  # one slice after all (a single resource)
                return [None]
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
    except pa.ArrowCancelled:
        # Arrow turns Ctrl-C during a read into its own exception: it stays an interrupt (a session
        # that took it for a damaged index would go on answering)
        raise KeyboardInterrupt from None
    except (pa.ArrowException, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"unreadable index data: {first[:300]}", str(index.root)) from None


# ----------------------------------------------------------------------------------------------
# Deciding


def rollup(table):
    """Index rows folded per request, in the index's resource order: the totals `aggregates_from_table`
    gives, plus each request's hours and their counts (list columns). A baseline keeps these rows, so
    that a later proposal reads its touched requests from one small sorted file instead of every day
    of the index."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if table.num_rows == 0:
        return rollup_schema().empty_table()
    totals = request_totals(table)
    timed = table.select(KEY + ["hour_text", "count"]).filter(pc.is_valid(table["hour_text"]))
    per_hour = timed.group_by(KEY + ["hour_text"], use_threads=False).aggregate([("count", "sum")])
    hours = per_hour.group_by(KEY, use_threads=False).aggregate([("hour_text", "list"), ("count_sum", "list")])
    # Arrow joins carry no list columns: join a row number, then take the lists by it
    numbered = hours.select(KEY).append_column("row", pa.array(range(hours.num_rows), pa.int64()))
    joined = totals.join(numbered, KEY, join_type="left outer", use_threads=False)
    out = pa.table({**{k: joined[k] for k in KEY}, "count": joined["count_sum"], "visible": joined["visible_sum"],
                    "allowed": joined["allowed_sum"], "denied": joined["denied_sum"], "first": joined["first_min"],
                    "last": joined["last_max"], "rule_key": joined["rule_key_max"],
                    "hours": hours["hour_text_list"].take(joined["row"]),
                    "hour_counts": hours["count_sum_list"].take(joined["row"])},
                   schema=rollup_schema())
    return out.sort_by([(k, "ascending") for k in SORT_KEY])


def rollup_schema():
    import pyarrow as pa

    s, i = pa.string(), pa.int64()
    return pa.schema([*((k, s) for k in KEY), ("count", i), ("visible", i), ("allowed", i), ("denied", i),
                      ("first", s), ("last", s), ("rule_key", s), ("hours", pa.list_(s)),
                      ("hour_counts", pa.list_(i))])


def aggregates_from_rollup(table) -> dict:
    out = {}
    cols = table.to_pydict()
    for i in range(table.num_rows):
        key = tuple(cols[k][i] for k in KEY)
        rk = cols["rule_key"][i]
        rule_at, rule = rk.split("\x00", 1) if rk is not None else ("", None)
        out[key] = Aggregate(cols["count"][i], cols["visible"][i], cols["allowed"][i], cols["denied"][i],
                             cols["first"][i], cols["last"][i],
                             dict(zip(cols["hours"][i] or (), cols["hour_counts"][i] or ())), rule, rule_at)
    return out


def evaluate(rolled, proposed, current) -> Partial:
    """Decide each request of rolled-up rows under the proposed (and current) authorizer, and keep what
    the report needs."""
    aggs = aggregates_from_rollup(rolled)
    after = decide(aggs, proposed)
    before = decide(aggs, current) if current is not None else None
    out = Partial(requests=len(aggs))
    for key, agg in aggs.items():
        verdict = after[key]
        prior = before[key] if before is not None else None
        out.summary.add(key, agg, prior)
        kind, _, before_rule = classify(agg, verdict, prior)
        if kind is not None:
            out.changed.append(ChangedRequest(key, agg, kind, before_rule, verdict.rule))
            for hour, c in agg.hours.items():
                slot = out.timeline.setdefault(hour, {"newly_denied": 0, "newly_allowed": 0})
                slot[kind] += c
        if verdict.acl is not None:
            out.used_after[verdict.acl] += 1
        if prior is not None and prior.acl is not None:
            out.used_before[prior.acl] += 1
    return out


def evaluate_all(scan: IndexScan, proposed, current, rows: Optional[int] = None, keep=None) -> Partial:
    """Every request of the window, slice by slice; `keep` gets each slice's rolled-up rows (in order)."""
    import pyarrow as pa

    total = Partial()
    for where in scan.slices(rows or SLICE_ROWS):
        rolled = rollup(scan.read(where))
        if keep is not None:
            keep(rolled)
        total.merge(evaluate(rolled, proposed, current))
        del rolled
        pa.default_memory_pool().release_unused()  # the slice's buffers go back before the next is read
    return total


@dataclass
class TouchedNames:
    every: bool = False  # a LITERAL `*`: every name
    names: set[str] = field(default_factory=set)  # LITERAL names
    prefixes: set[str] = field(default_factory=set)  # PREFIXED names


class Touched:
    """The requests a set of changed bindings can touch: per resource type, every name (a LITERAL
    ``*``), some names (LITERAL) or the names under some prefixes (PREFIXED); and per principal: the
    binding's own, or every one (``User:*``; a principal Kafka cannot parse, which throws for anyone
    who meets it; or any binding when allow.everyone.if.no.acl.found is on, since then any ACL on a
    resource turns the default off for everybody). Read as the row groups whose statistics can hold
    such a resource, then selected exactly in memory (vectorised: one membership test per literal set
    and per prefix length, as UTF-8 bytes, whose prefixes are code-point prefixes)."""

    def __init__(self, any_principal: bool = False):
        self.any_principal = any_principal
        self.groups: dict[tuple[ResourceType, Optional[str]], TouchedNames] = {}  # principal None: anyone

    def add(self, binding: AclBinding) -> None:
        principal = binding.principal
        anyone = self.any_principal or principal == "User:*" or ":" not in principal
        g = self.groups.setdefault((binding.resource_type, None if anyone else principal), TouchedNames())
        name = binding.resource_name
        if binding.pattern_type is PatternType.PREFIXED:
            g.prefixes.add(name)
        elif name == "*":
            g.every = True
        else:
            g.names.add(name)

    def split(self) -> tuple["Touched", "Touched"]:
        """(the groups naming a principal, the groups for every principal)."""
        named, anyone = Touched(self.any_principal), Touched(self.any_principal)
        for (rtype, who), g in self.groups.items():
            (named if who is not None else anyone).groups[(rtype, who)] = g
        return named, anyone

    def may_hold(self, stats: dict) -> bool:
        """Whether a row group with these min/max statistics can hold a touched request."""
        t, n, p = (stats.get(c) or {} for c in ("resource_type", "resource_name", "principal"))
        t_min, t_max, n_min, n_max = t.get("min"), t.get("max"), n.get("min"), n.get("max")
        p_min, p_max = p.get("min"), p.get("max")
        by_resource = None not in (t_min, t_max, n_min, n_max) and t_min == t_max
        for (rtype, who), g in self.groups.items():
            if who is not None and p_min is not None and p_max is not None and not p_min <= who <= p_max:
                continue  # none of this principal's requests in it
            if not by_resource:
                return True  # no statistics, or several types in it: read it
            if rtype.name != t_min or n_min is None or n_max is None:  # (by_resource: never None)
                continue
            if g.every or any(n_min <= name <= n_max for name in g.names):
                return True
            # a prefix's names are [p, the first string after every p...): they meet [n_min, n_max]
            # unless all of them sort after n_max, or all before n_min
            if any(p <= n_max and (n_min.startswith(p) or n_min < p) for p in g.prefixes):
                return True
        return False

    def mask(self, table):
        """Which rows are touched, in a few vectorised membership tests: one per shape of key (resource
        type, then the whole name or a prefix of one byte length, then the principal or not), however
        many bindings changed. Keys are joined with NUL; a name holding NUL may match more rows than it
        should, which only decides them again."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if table.num_rows == 0:
            return pa.array([], pa.bool_())
        sep = b"\x00"
        cols = {"type": pc.cast(table["resource_type"], pa.binary()), "name": pc.cast(table["resource_name"], pa.binary()),
                "principal": pc.cast(table["principal"], pa.binary())}
        wanted: dict[tuple, set[bytes]] = {}  # (name part: None | "name" | byte length, by principal) -> keys
        for (rtype, who), g in self.groups.items():
            t = rtype.name.encode()
            tail = [] if who is None else [who.encode("utf-8")]
            shapes: list[tuple[Optional[str | int], list[bytes]]] = [(None, [t])] if g.every else []
            shapes += [("name", [t, n.encode("utf-8")]) for n in g.names]
            shapes += [(len(p.encode("utf-8")), [t, p.encode("utf-8")]) for p in g.prefixes]
            for part, key in shapes:
                wanted.setdefault((part, who is not None), set()).add(sep.join(key + tail))
        out = None
        for (part, by_principal), keys in wanted.items():
            fields = [cols["type"]]
            if part == "name":
                fields.append(cols["name"])
            elif part is not None:
                fields.append(pc.binary_slice(cols["name"], 0, part))
            if by_principal:
                fields.append(cols["principal"])
            joined = fields[0] if len(fields) == 1 else pc.binary_join_element_wise(*fields, sep)
            hit = pc.fill_null(pc.is_in(joined, value_set=pa.array(sorted(keys), pa.binary())), False)
            out = hit if out is None else pc.or_(out, hit)
        return out if out is not None else pa.array([False] * table.num_rows, pa.bool_())


def touched_requests(current: StandardAuthorizer, proposed: StandardAuthorizer):
    """(Touched, changed bindings, None), or (None, changed, why) when only a full pass is exact: the
    requests on every resource an added or removed binding matches, by its principal (see the
    module's comment and :class:`Touched`)."""
    before, after = set(current.bindings), set(proposed.bindings)
    changed = sorted(before ^ after, key=_binding_key)
    touched = Touched(any_principal=current.allow_everyone_if_no_acl_found or proposed.allow_everyone_if_no_acl_found)
    for b in changed:
        if b.pattern_type not in (PatternType.LITERAL, PatternType.PREFIXED) or b.resource_name == "":
            return None, changed, f"a changed ACL has a {b.pattern_type.name} pattern on {b.resource_name!r}"
        if not (current.decided_by_name(b.resource_type) and proposed.decided_by_name(b.resource_type)):
            return None, changed, (f"{b.resource_type.name} ACLs with an empty name or a name sorting below '*' "
                                   "make Kafka's walk decide some names by position, not by name")
        if _has_lone_surrogate(b.resource_name):
            return None, changed, "a changed ACL's name holds a lone UTF-16 surrogate"
        touched.add(b)
    return touched, changed, None


def _binding_key(b: AclBinding) -> tuple:
    # `_name_` is the enum member's plain attribute (`.name` goes through a descriptor: 3x slower here,
    # and a baseline key hashes every ACL of the current set)
    return (b.resource_type._name_, b.resource_name, b.pattern_type._name_, b.principal, b.host,
            b.operation._name_, b.permission._name_)


def _has_lone_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


# ----------------------------------------------------------------------------------------------
# The baseline


@dataclass
class Baseline:
    """What the report says of requests no change touches: a property of (index, current set,
    settings, window), not of the proposal; with every request rolled up (`rollup`), from which a
    proposal reads the ones it touches: an Arrow table in memory, or the path of its Parquet file."""

    summary: Summary
    used_before: dict  # a current ACL's text (acl_text) -> requests it decides
    untimed: int
    requests: int
    rollup: Any = None

    def as_json(self) -> dict:
        s = self.summary
        return {"format": BASELINE_FORMAT, "requests": self.requests, "untimed": self.untimed,
                "summary": {"distinct": s.distinct, "decisions": s.decisions, "allowed_lines": s.allowed_lines,
                            "denied_lines": s.denied_lines, "comparable": s.comparable, "reproduced": s.reproduced,
                            "mixed": s.mixed, "mismatches": [[list(k), row] for k, row in s.mismatches]},
                "used_before": self.used_before}

    @classmethod
    def from_json(cls, data: dict, rollup=None) -> "Baseline":
        s = data["summary"]
        summary = Summary(s["distinct"], s["decisions"], s["allowed_lines"], s["denied_lines"], s["comparable"],
                          s["reproduced"], s["mixed"], [(tuple(k), row) for k, row in s["mismatches"]])
        if not isinstance(data["used_before"], dict):
            raise TypeError("used_before is not a mapping")
        return cls(summary, data["used_before"], data["untimed"], data["requests"], rollup)

    def touched_rows(self, touched: "Touched"):
        """The rolled-up rows of the requests `touched` selects. From files, only the row groups that
        can hold one are read: those of changed ACLs naming a principal from the rows in principal order
        (when kept), those of ACLs for every principal from the rows in resource order; each row is
        taken from one of the two (a row both select comes from the second)."""
        import pyarrow as pa
        import pyarrow.compute  # noqa: F401  (pa.compute)

        if not isinstance(self.rollup, dict):
            table = self.rollup
            return table.filter(touched.mask(table)) if table.num_rows else table
        named, anyone = touched.split()
        out = []
        try:
            if anyone.groups:
                t = _read_groups(self.rollup["resource"], anyone)
                out.append(t.filter(anyone.mask(t)) if t.num_rows else t)
            if named.groups:
                t = _read_groups(self.rollup.get("principal") or self.rollup["resource"], named)
                if t.num_rows:
                    keep = named.mask(t)
                    if anyone.groups:
                        keep = pa.compute.and_(keep, pa.compute.invert(anyone.mask(t)))
                    t = t.filter(keep)
                out.append(t)
        except (OSError, ValueError) as exc:
            raise StaleBaseline(str(exc)) from None
        return pa.concat_tables(out) if out else rollup_schema().empty_table()


def _read_groups(path, touched: "Touched"):
    import pyarrow.parquet as pq

    f = pq.ParquetFile(path)
    ids = [i for i in range(f.metadata.num_row_groups) if touched.may_hold(_row_group_stats(f, i))]
    return f.read_row_groups(ids) if ids else rollup_schema().empty_table()


class StaleBaseline(Exception):
    """A stored baseline's rows are gone or unreadable: it is computed again."""


def acl_text(b: AclBinding) -> str:
    return "\x1f".join(_binding_key(b))


def _row_group_stats(f, i: int) -> dict:
    rg = f.metadata.row_group(i)
    out = {}
    for j in range(rg.num_columns):
        col = rg.column(j)
        if col.path_in_schema in ("principal", "resource_type", "resource_name") and col.statistics is not None \
                and col.statistics.has_min_max:
            out[col.path_in_schema] = {"min": col.statistics.min, "max": col.statistics.max}
    return out


def baseline_key(indexes: list[Index], since, until, current: StandardAuthorizer, version: str) -> str:
    """A digest of everything a baseline depends on: each index's manifest (its runs, files and what
    was dropped), the window, the current set, its settings and authz's version."""
    h = hashlib.sha256(BASELINE_FORMAT.encode())
    for ix in indexes:
        h.update(str(ix.root.resolve()).encode() + b"\0")
        h.update(json.dumps(ix.manifest, sort_keys=True).encode() + b"\0")
    s = current.settings  # (name, value) in name order, as the keys of the baselines already stored have them
    named = [("allow_everyone_if_no_acl_found", s.allow_everyone_if_no_acl_found), ("super_users", s.super_users)]
    h.update(json.dumps([since, until, version, named], default=str).encode())
    h.update("\x1e".join(sorted({acl_text(b) for b in current.bindings})).encode())
    return h.hexdigest()


def load_baseline(cache_dir: Optional[Path], key: str) -> Optional[Baseline]:
    if cache_dir is None:
        return None
    try:
        data = json.loads((cache_dir / f"{key}.json").read_text(encoding="utf-8"))
        resource, principal = cache_dir / f"{key}.parquet", cache_dir / f"{key}.by-principal.parquet"
        if data.get("format") != BASELINE_FORMAT or not resource.exists():
            return None
        rows = {"resource": resource, "principal": principal if principal.exists() else None}  # None: too many to sort
        return Baseline.from_json(data, rows)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent, unreadable or damaged: computed again


class BaselineWriter:
    """Stores a baseline as the full pass makes it: its rolled-up rows into a Parquet file, then the
    JSON; both written to temporary names and renamed, readable by their owner only (they name
    principals and resources). Without a directory, or when it cannot be written, the rows are kept in
    memory instead.

    The rows are kept in resource order (the order the slices come in), and also sorted by principal
    when they fit in memory (up to IN_MEMORY_ROWS requests), both in small row groups: most changed
    ACLs name one principal, whose requests then sit in one or two row groups its min/max statistics
    find; an ACL for every principal (User:*, or any with allow.everyone.if.no.acl.found) reads the
    row groups of its resources in resource order. Beyond IN_MEMORY_ROWS the slices stream to the file
    as they come, in resource order only."""

    ROW_GROUP_ROWS = 1024
    IN_MEMORY_ROWS = 2_000_000

    def __init__(self, cache_dir: Optional[Path], key: Optional[str]):
        self.cache_dir, self.key = cache_dir, key
        self.writer: Any = None  # a pyarrow ParquetWriter once rows go to the file
        self.tmp: Optional[Path] = None
        self.kept: list = []
        self.rows = 0
        self.to_file = cache_dir is not None and key is not None

    def __call__(self, rolled) -> None:
        self.kept.append(rolled)
        self.rows += rolled.num_rows
        if self.to_file and self.rows > self.IN_MEMORY_ROWS:
            for t in self.kept:
                self._write(t)
            self.kept = []

    def _write(self, table) -> None:
        import pyarrow.parquet as pq

        if self.writer is None and self.to_file and self.cache_dir is not None:  # (to_file: never None)
            try:
                self.cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
                self.tmp = self.cache_dir / f".{self.key}.{os.getpid()}.parquet.tmp"
                fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                self.writer = pq.ParquetWriter(os.fdopen(fd, "wb"), rollup_schema())
            except OSError:
                self.to_file = False
        if self.writer is not None:
            self.writer.write_table(table, row_group_size=self.ROW_GROUP_ROWS)

    def finish(self, baseline: Baseline) -> Baseline:
        import pyarrow as pa
        import pyarrow.parquet as pq

        by_principal = None
        if self.kept or self.writer is None:
            rows = pa.concat_tables(self.kept) if self.kept else rollup_schema().empty_table()
            self.kept = []
            if not self.to_file:
                baseline.rollup = rows
                return baseline
            if self.writer is None:  # all in memory: also kept in principal order
                by_principal = rows.sort_by([(k, "ascending") for k in BY_PRINCIPAL])
            self._write(rows)
            if self.writer is None:
                baseline.rollup = rows
                return baseline
        assert self.cache_dir is not None and self.tmp is not None  # the rows went to the file
        self.writer.close()
        paths: dict[str, Any] = {"resource": self.cache_dir / f"{self.key}.parquet", "principal": None}
        try:
            if by_principal is not None:
                paths["principal"] = self.cache_dir / f"{self.key}.by-principal.parquet"
                tmp = self.cache_dir / f".{self.key}.{os.getpid()}.by-principal.tmp"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "wb") as fh:
                    pq.write_table(by_principal, fh, row_group_size=self.ROW_GROUP_ROWS)
                os.replace(tmp, paths["principal"])
            os.replace(self.tmp, paths["resource"])
            tmp = self.cache_dir / f".{self.key}.{os.getpid()}.json.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(baseline.as_json(), fh, separators=(",", ":"))
            os.replace(tmp, self.cache_dir / f"{self.key}.json")
        except OSError:
            pass  # not kept: the next proposal computes it again
        baseline.rollup = paths
        return baseline


#: The order of a baseline's rows when they fit in memory.
BY_PRINCIPAL = ["principal", "resource_type", "resource_name", "host", "operation"]


# ----------------------------------------------------------------------------------------------
# The answer


def answer_from_index(indexes: list[Index], since, until, proposed: StandardAuthorizer,
                      current: Optional[StandardAuthorizer], *, full: bool = False, cache_dir: Optional[Path] = None,
                      version: str = "", baseline: Optional[Baseline] = None) -> Answer:
    """A proposal's report from indexes, each side one authorizer (no `current`: the logged decisions):
    incrementally from a baseline (given, or stored in `cache_dir`) when exact, else by a full pass in
    slices (storing its baseline). The answer holds the baseline, to ask again (--interactive)."""
    scan = IndexScan(indexes, since, until)
    windowed = since is not None or until is not None
    why = "the baseline is the logged decisions (no --current)" if current is None else None
    if full:
        why = "--full"
    selection = changed = None
    if why is None and current is not None:  # (why is None only with a current set)
        selection, changed, why = touched_requests(current, proposed)
    key = None
    if current is not None and baseline is None and cache_dir is not None:
        key = baseline_key(indexes, since, until, current, version)
        if why is None:
            baseline = load_baseline(cache_dir, key)
    if why is None and baseline is None:
        why = "no baseline yet for this index, window, current set and settings: computed now, kept for the next"
    if why is not None:
        return _full(scan, windowed, proposed, current, why, cache_dir, key)
    assert baseline is not None and selection is not None and changed is not None  # else `why` says why not
    try:
        touched = evaluate(baseline.touched_rows(selection), proposed, current)
    except StaleBaseline:
        return _full(scan, windowed, proposed, current, "its stored baseline could not be read: computed again",
                     cache_dir, key)
    before = {acl_text(a): n for a, n in touched.used_before.items()}
    used = {a for a in proposed.bindings
            if baseline.used_before.get(acl_text(a), 0) - before.get(acl_text(a), 0) + touched.used_after[a] > 0}
    report = assemble_report(touched.changed, baseline.summary, dict(sorted(touched.timeline.items())),
                             proposed.bindings, used, True)
    note = (f"incremental: {touched.requests:,} of {baseline.requests:,} distinct requests re-decided, those on "
            f"the resources (and principals) of {len(changed):,} changed ACL(s); --full decides all")
    return Answer(report, baseline.untimed if windowed else 0, "incremental", note, baseline)


def _full(scan: IndexScan, windowed: bool, proposed, current, why: str, cache_dir, key):
    writer = BaselineWriter(cache_dir, key) if current is not None else None
    total = evaluate_all(scan, proposed, current, keep=writer)
    used = {a for a, n in total.used_after.items() if n > 0}
    report = assemble_report(total.changed, total.summary, dict(sorted(total.timeline.items())), proposed.bindings,
                             used, current is not None)
    untimed = scan.untimed() if windowed else 0
    baseline = None
    if writer is not None:
        baseline = writer.finish(Baseline(total.summary, {acl_text(a): n for a, n in total.used_before.items()},
                                          untimed, total.requests))
    return Answer(report, untimed, "full", f"full: {total.requests:,} distinct requests decided ({why})", baseline)
