"""The whatif index on disk: per (request, hour) aggregates in Parquet, partitioned by day and run.

    INDEX/manifest.json                          runs: id, files (with fingerprints), line accounting
    INDEX/quarantine/<run>.jsonl                 what each run quarantined
    INDEX/requests/day=YYYY-MM-DD/run=<run>/*.parquet

A run is visible once manifest.json lists it (the manifest is replaced atomically, last): a run
that failed half-way leaves files no reader looks at. The run lists the data files it wrote and
their sizes (`parts`), so that a reader refuses an index a file went missing from, was cut short in
or was added to. Indexing more logs into the same INDEX adds a run; runs merge when the index is
read. A file already indexed (same size and content fingerprint) is refused, so nothing is counted
twice. Times are Parquet timestamps (`hour`, `first_seen`, `last_seen`, local time as log4j wrote
it, no zone); the exact text is kept beside them (`*_text`) and is what authz compares.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.whatif.auditlog import Quarantined, ReadStats
from kafka_authz_cli.whatif.replay import Aggregate, RequestKey

FORMAT = "authz-whatif-index"
VERSION = 1
KEY = ["principal", "host", "operation", "resource_type", "resource_name"]
#: Rows are written sorted by resource, in row groups of at most ROW_GROUP_ROWS: a reader asking for
#: the requests on some resources (a literal name, a prefix: a range) skips every row group whose
#: min/max statistics lie outside it (whatif/incremental.py). Runs so written say `"sorted": true`.
SORT_KEY = ["resource_type", "resource_name", "principal", "host", "operation"]
ROW_GROUP_ROWS = 8_192


def schema():
    import pyarrow as pa

    s, i, t = pa.string(), pa.int64(), pa.timestamp("us")
    return pa.schema([("principal", s), ("host", s), ("operation", s), ("resource_type", s), ("resource_name", s),
                      ("hour", t), ("hour_text", s), ("count", i), ("visible", i), ("allowed", i), ("denied", i),
                      ("first_seen", t), ("last_seen", t), ("first_seen_text", s), ("last_seen_text", s),
                      ("rule_at", s), ("rule", s)])


SPARK_SCHEMA = ("principal string, host string, operation string, resource_type string, resource_name string, "
                "hour timestamp_ntz, hour_text string, count long, visible long, allowed long, denied long, "
                "first_seen timestamp_ntz, last_seen timestamp_ntz, first_seen_text string, last_seen_text string, "
                "rule_at string, rule string, day string, run string")


def to_datetime(text: str | None) -> datetime | None:
    """log4j's `yyyy-MM-dd HH:mm:ss[,SSS]` (or `T`, `.`, 1-9 fraction digits, an `HH` hour) as a datetime."""
    if not text:
        return None
    try:
        frac = text[20:] if len(text) > 20 else ""
        return datetime(int(text[0:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]),
                        int(text[14:16]) if len(text) > 14 else 0, int(text[17:19]) if len(text) > 17 else 0,
                        int((frac + "000000")[:6]) if frac else 0)
    except ValueError:
        return None


def fingerprint(path: str) -> dict:
    """Size and a hash of the first and last MiB: the same file indexed twice is recognised."""
    size = os.path.getsize(path)
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        h.update(fh.read(1 << 20))
        if size > 2 << 20:
            fh.seek(size - (1 << 20))
            h.update(fh.read())
        elif size > 1 << 20:
            h.update(fh.read())
    return {"path": path, "size": size, "sha256_ends": h.hexdigest()}


@dataclass
class Index:
    root: Path
    manifest: dict

    @property
    def runs(self) -> list[dict]:
        return self.manifest["runs"]

    def stats(self) -> ReadStats:
        total = ReadStats()
        for run in self.runs:
            total.add(ReadStats.from_dict(run["stats"]))
        return total

    def check(self) -> None:
        """Every file the manifest lists for a run (its Parquet files and its quarantine) is there, as
        written, and nothing else is in a run's directories: a missing, cut or stray file would change
        the answers, or what they say was set aside, without a word.
        Runs written before the manifest listed its files are taken as they are."""
        try:
            self._check_parts()
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise InputError(f"malformed index manifest: a run's file list ({type(exc).__name__}: {exc})",
                             str(self.root / "manifest.json")) from None

    def _check_parts(self) -> None:
        for run in self.runs:
            parts = run.get("parts")
            if parts is None:
                continue
            listed = set()
            for part in parts:
                path = self.root / part["path"]
                listed.add(path)
                try:
                    size = path.stat().st_size
                except OSError:
                    raise InputError(f"index damaged: {part['path']} of run {run['id']} is missing; re-index those "
                                     "logs into a new index", str(self.root)) from None
                if size != part["bytes"]:
                    raise InputError(f"index damaged: {part['path']} of run {run['id']} has {size} bytes, "
                                     f"{part['bytes']} were written; re-index those logs into a new index",
                                     str(self.root))
            dropped = self.manifest.get("dropped_before") or ""
            for path in sorted((self.root / "requests").glob(f"day=*/run={run['id']}/*")):
                if path.parent.parent.name[4:] < dropped:
                    continue  # a day --drop-before unlisted and was deleting when interrupted: not read
                if path not in listed:
                    raise InputError(f"index damaged: {path.relative_to(self.root).as_posix()} is not a file "
                                     f"run {run['id']} wrote; remove it", str(self.root))

    def quarantine(self) -> list[Quarantined]:
        out = []
        for run in self.runs:
            path = self.root / "quarantine" / f"{run['id']}.jsonl"
            if path.exists():
                with open(path, encoding="utf-8") as fh:
                    for line in fh:
                        q = json.loads(line)
                        out.append(Quarantined(q["source"], q["reason"], q["text"]))
        return out


def open_checked(roots: list[Path]) -> tuple[list[Index], ReadStats]:
    """Indexes to answer from: opened, each checked whole (see Index.check) before any is read, and
    the line accounting of all their runs summed."""
    indexes = [open_index(root) for root in roots]
    for ix in indexes:
        ix.check()
    stats = ReadStats()
    for ix in indexes:
        stats.add(ix.stats())
    return indexes, stats


def quarantined(indexes: list[Index]) -> list[Quarantined]:
    """What the indexes' runs set aside, index by index."""
    return [q for ix in indexes for q in ix.quarantine()]


def open_index(root: Path, create: bool = False) -> Index:
    path = root / "manifest.json"
    if not path.exists():
        if create and (not root.exists() or not any(root.iterdir())):
            return Index(root, {"format": FORMAT, "version": VERSION, "runs": []})
        raise InputError("not an authz whatif index (no manifest.json)" + (
            "; choose a new or empty directory for -o" if create else ""), str(root))
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"unreadable index manifest ({exc})", str(path)) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InputError("not an authz whatif index manifest", str(path))
    if manifest.get("version") != VERSION:
        raise InputError(f"index version {manifest.get('version')} is not supported (this authz reads {VERSION})",
                         str(path))
    problem = _manifest_problem(manifest)
    if problem:
        raise InputError(f"malformed index manifest: {problem}", str(path))
    return Index(root, manifest)


def _manifest_problem(manifest: dict) -> str | None:
    """What readers rely on in the runs (a file edited by hand or cut short must not be a traceback)."""
    runs = manifest.get("runs")
    if not isinstance(runs, list):
        return "'runs' is not a list"
    for i, run in enumerate(runs):
        if not isinstance(run, dict) or not isinstance(run.get("id"), str) or not run["id"]:
            return f"run {i + 1} has no id"
        files = run.get("files")
        if not isinstance(files, list) or not all(
                isinstance(f, dict) and isinstance(f.get("size"), int) and isinstance(f.get("sha256_ends"), str)
                for f in files):
            return f"run {run['id']}: 'files' is not a list of fingerprints"
        try:
            stats = ReadStats.from_dict(run["stats"])
            if not all(isinstance(v, int) for v in (stats.lines, stats.decision_lines, stats.decisions,
                                                    stats.non_decision_lines, stats.quarantined_lines, stats.files)):
                raise TypeError("counts are not integers")
            if not all(isinstance(s.get("file"), str) and isinstance(s.get("reason"), str) for s in stats.skipped_files):
                raise TypeError("skipped_files are not (file, reason) pairs")
        except (KeyError, TypeError, ValueError) as exc:
            return f"run {run['id']}: 'stats' is not line accounting ({type(exc).__name__}: {exc})"
    return None


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def check_not_indexed(index: Index, prints: list[dict]) -> None:
    seen = {(f["size"], f["sha256_ends"]): (run["id"], f["path"]) for run in index.runs for f in run["files"]}
    for p in prints:
        hit = seen.get((p["size"], p["sha256_ends"]))
        if hit:
            raise InputError(f"already in this index (run {hit[0]}, as {hit[1]}): indexing it again would count "
                             "its lines twice", p["path"])


def staging_dir(index: Index, run_id: str) -> Path:
    index.root.mkdir(parents=True, exist_ok=True)
    tmp = index.root / f".tmp-{run_id}"
    tmp.mkdir()
    return tmp


def commit_run(index: Index, run_id: str, staged: Path, prints: list[dict], stats: ReadStats,
               quarantine: list[Quarantined]) -> None:
    """Move a staged run's Parquet files into place, then list the run in the manifest (atomically)."""
    (index.root / "quarantine").mkdir(parents=True, exist_ok=True)
    with open(index.root / "quarantine" / f"{run_id}.jsonl", "w", encoding="utf-8") as fh:
        for q in quarantine:
            fh.write(q.json_line() + "\n")
    qfile = index.root / "quarantine" / f"{run_id}.jsonl"
    requests = index.root / "requests"
    parts = [{"path": qfile.relative_to(index.root).as_posix(), "bytes": qfile.stat().st_size}]
    for day_dir in sorted(staged.glob("day=*")):
        target = requests / day_dir.name / f"run={run_id}"
        target.mkdir(parents=True, exist_ok=True)
        for f in sorted(day_dir.rglob("*.parquet")):
            os.replace(f, target / f.name)
            parts.append({"path": (target / f.name).relative_to(index.root).as_posix(),
                          "bytes": (target / f.name).stat().st_size})
    shutil.rmtree(staged, ignore_errors=True)
    manifest = dict(index.manifest)
    manifest["runs"] = index.runs + [{"id": run_id, "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                      "files": prints, "stats": stats.as_dict(), "parts": parts, "sorted": True}]
    tmp = index.root / f".manifest-{run_id}.json"
    tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, index.root / "manifest.json")
    index.manifest = manifest


def drop_before(index: Index, before: str) -> list[str]:
    """Retention: the days before ``before`` (YYYY-MM-DD) leave the index (their Parquet files are
    deleted and unlisted from every run; the manifest says from when the index answers). The runs' line
    accounting stays as read. Returns the day directories removed."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", before or ""):
        raise InputError(f"--drop-before {before!r}: expected a date YYYY-MM-DD")
    days = sorted(d.name for d in (index.root / "requests").glob("day=*")
                  if d.name[4:] < before and d.name != "day=__HIVE_DEFAULT_PARTITION__")
    if not days:
        return []
    gone = tuple(f"requests/{d}/" for d in days)
    manifest = dict(index.manifest)
    manifest["runs"] = [dict(run, parts=[p for p in run["parts"] if not p["path"].startswith(gone)])
                        if run.get("parts") is not None else run for run in index.runs]
    manifest["dropped_before"] = max(before, manifest.get("dropped_before") or "")
    tmp = index.root / ".manifest-drop.json"
    tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, index.root / "manifest.json")  # unlisted first: a crash leaves stray files, never holes
    index.manifest = manifest
    for d in days:
        shutil.rmtree(index.root / "requests" / d, ignore_errors=True)
    return days


def write_hourly_local(staged: Path, hourly: dict[tuple, Aggregate]) -> None:
    """In-process: per (request, hour) aggregates to staged/day=.../part-0.parquet."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    by_day: dict[str | None, list] = {}
    for (key, hour), a in hourly.items():
        by_day.setdefault(hour[:10] if hour else None, []).append((key, hour, a))
    for day, rows in by_day.items():
        cols: dict[str, list] = {n: [] for n in schema().names}
        for key, hour, a in rows:
            for n, v in zip(KEY, key):
                cols[n].append(v)
            cols["hour"].append(to_datetime(hour))
            cols["hour_text"].append(hour)
            for n in ("count", "visible", "allowed", "denied"):
                cols[n].append(getattr(a, n))
            cols["first_seen"].append(to_datetime(a.first_seen))
            cols["last_seen"].append(to_datetime(a.last_seen))
            cols["first_seen_text"].append(a.first_seen)
            cols["last_seen_text"].append(a.last_seen)
            cols["rule_at"].append(a.rule_at if a.rule is not None else None)
            cols["rule"].append(a.rule)
        d = staged / f"day={day if day else '__HIVE_DEFAULT_PARTITION__'}"
        d.mkdir(parents=True, exist_ok=True)
        table = pa.table(cols, schema=schema()).sort_by([(k, "ascending") for k in SORT_KEY])
        pq.write_table(table, d / "part-00000-local.parquet", row_group_size=ROW_GROUP_ROWS)


def hour_bound(text: str | None, what: str) -> str | None:
    """--since/--until as the index's hour text (`YYYY-MM-DD HH`); the index has hour granularity."""
    if text is None:
        return None
    t = text.strip().replace("T", " ")
    try:
        dt = datetime.fromisoformat(t)
    except ValueError:
        raise InputError(f"{what} {text!r}: expected YYYY-MM-DD or YYYY-MM-DDTHH[:00[:00]]") from None
    if dt.tzinfo is not None:
        raise InputError(f"{what} {text!r}: audit-log times have no zone (log4j writes local time); drop the offset")
    if dt.minute or dt.second or dt.microsecond:
        raise InputError(f"{what} {text!r}: the index counts per hour; give a whole hour")
    return dt.strftime("%Y-%m-%d %H")


def read_hourly_local(indexes: list[Index], since: str | None, until: str | None):
    """In-process: the index rows of the listed runs within [since, until) as one Arrow table."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    part = ds.partitioning(pa.schema([("day", pa.string()), ("run", pa.string())]), flavor="hive")
    tables = []
    for index in indexes:
        root = index.root / "requests"
        if not root.exists():
            continue
        data = ds.dataset(str(root), format="parquet", partitioning=part, schema=schema().append(
            pa.field("day", pa.string())).append(pa.field("run", pa.string())))
        flt = pc.field("run").isin([r["id"] for r in index.runs])
        if index.manifest.get("dropped_before"):
            flt = flt & (pc.field("day") >= index.manifest["dropped_before"])
        if since is not None:
            flt = flt & (pc.field("hour_text") >= since)
        if until is not None:
            flt = flt & (pc.field("hour_text") < until)
        try:
            tables.append(data.to_table(filter=flt))
        except pa.ArrowCancelled:  # Ctrl-C during the read, as Arrow says it
            raise KeyboardInterrupt from None
        except (pa.ArrowException, OSError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InputError(f"unreadable index data: {first[:300]}", str(index.root)) from None
    if not tables:
        return schema().empty_table()
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


def request_totals(table):
    """Index rows grouped per request (Arrow): count, visible, allowed and denied summed, the first and
    last time, and the latest rule as `rule_key_max` ("time NUL rule", the order `Aggregate` keeps)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rule_key = pc.if_else(pc.is_null(table["rule"]), pa.scalar(None, pa.string()),
                          pc.binary_join_element_wise(pc.fill_null(table["rule_at"], ""), table["rule"], "\x00"))
    t = pa.table({**{k: table[k] for k in KEY}, "count": table["count"], "visible": table["visible"],
                  "allowed": table["allowed"], "denied": table["denied"], "first": table["first_seen_text"],
                  "last": table["last_seen_text"], "rule_key": rule_key})
    return t.group_by(KEY, use_threads=False).aggregate([
        ("count", "sum"), ("visible", "sum"), ("allowed", "sum"), ("denied", "sum"), ("first", "min"),
        ("last", "max"), ("rule_key", "max")])


def aggregates_from_table(table) -> dict[RequestKey, Aggregate]:
    """Per-request aggregates (hours left empty) from index rows, vectorised where Arrow can."""

    if table.num_rows == 0:
        return {}
    g = request_totals(table).to_pydict()
    out = {}
    for i in range(len(g["principal"])):
        key = tuple(g[k][i] for k in KEY)
        rk = g["rule_key_max"][i]
        rule_at, rule = rk.split("\x00", 1) if rk is not None else ("", None)
        out[key] = Aggregate(g["count_sum"][i], g["visible_sum"][i], g["allowed_sum"][i], g["denied_sum"][i],
                             g["first_min"][i], g["last_max"][i], {}, rule, rule_at)
    return out


def fill_hours(table, aggs: dict[RequestKey, Aggregate], keys: list[RequestKey]) -> None:
    """Per-hour counts of the given requests (the changed ones), for the timeline."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not keys or table.num_rows == 0:
        return
    want = pa.table({k: [key[i] for key in keys] for i, k in enumerate(KEY)})
    rows = table.select(KEY + ["hour_text", "count"]).filter(pc.is_valid(table["hour_text"]))
    joined = rows.join(want, KEY, join_type="inner").group_by(KEY + ["hour_text"], use_threads=False) \
        .aggregate([("count", "sum")]).to_pydict()
    for i in range(len(joined["principal"])):
        key = tuple(joined[k][i] for k in KEY)
        aggs[key].hours[joined["hour_text"][i]] = joined["count_sum"][i]
