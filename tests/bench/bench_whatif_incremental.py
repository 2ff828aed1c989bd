"""Incremental whatif answers from an index (issue 23): how a proposal's cost grows with the index.

Indexes of 1 M, 10 M and 100 M logged lines (``--sizes`` to change) are written directly as authz writes
them (sorted, per day, 90 days), with a varied traffic shape: 4,000 principals in 200 teams, topics
under team prefixes, consumer groups, transactional ids, the cluster; a request is seen in about 5
hours of the window, 20 lines per (request, hour). The current ACL set grants each team its prefixes
(about 10,000 ACLs); a proposal changes 100 of them (removes team grants, adds DENYs and narrower
grants). Each measurement runs in its own process and reports the time from the call (index opened,
answered; not the Python start, the imports or reading the two ACL files, printed apart) and the peak memory:

    full         --full: every request decided, the index read in slices (it stores the baseline too)
    incr 1, 2    two proposals of 100 changes each answered from the baseline (the figure the issue sets
                 at < 1 s for 100 M lines), each in a fresh process

    python tests/bench/bench_whatif_incremental.py [--data DIR] [--sizes 1000000,10000000,100000000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

TEAMS, PRINCIPALS, DAYS, LINES_PER_ROW, HOURS_PER_REQUEST = 200, 4000, 90, 20, 5


def write_index(root: Path, lines: int, seed: int = 7) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kafka_authz_cli.whatif.auditlog import ReadStats
    from kafka_authz_cli.whatif.parquet_index import (
        ROW_GROUP_ROWS,
        SORT_KEY,
        commit_run,
        open_index,
        schema,
        staging_dir,
    )

    rng = np.random.default_rng(seed)
    rows = max(1, lines // LINES_PER_ROW)
    distinct = max(1, rows // HOURS_PER_REQUEST)
    p = rng.integers(0, PRINCIPALS, distinct)
    team = p % TEAMS
    kind = rng.choice(4, distinct, p=[0.7, 0.2, 0.07, 0.03])
    n = rng.integers(0, 60, distinct)
    rtype = np.array(["TOPIC", "GROUP", "TRANSACTIONAL_ID", "CLUSTER"])[kind]
    name = np.where(kind == 0, np.char.add(np.char.add(np.char.add("team", team.astype(str)), ".events-"), n.astype(str)),
                    np.where(kind == 1, np.char.add(np.char.add("team", team.astype(str)), "-consumers"),
                             np.where(kind == 2, np.char.add(np.char.add("team", team.astype(str)), "-tx-"),
                                      "kafka-cluster")))
    op = np.where(kind == 0, np.array(["READ", "WRITE", "DESCRIBE"])[rng.integers(0, 3, distinct)],
                  np.where(kind == 1, "READ", np.where(kind == 2, "WRITE", "IDEMPOTENT_WRITE")))
    principal = np.char.add("User:svc", p.astype(str))
    host = np.char.add("10.1.0.", (p % 250).astype(str))
    ix = open_index(root, create=True)
    run_id = "20261126T000000Z-bench0"
    staged = staging_dir(ix, run_id)
    req = rng.integers(0, distinct, rows)
    hour_no = rng.integers(0, DAYS * 24, rows)
    base = np.datetime64("2026-08-28T00")
    for day in range(DAYS):
        sel = (hour_no // 24) == day
        r, h = req[sel], hour_no[sel]
        if not len(r):
            continue
        hours = (base + h.astype("timedelta64[h]"))
        hour_text = np.datetime_as_string(hours, unit="h").astype(str)
        hour_text = np.char.replace(hour_text, "T", " ")
        count = np.full(len(r), LINES_PER_ROW, dtype=np.int64)
        ts = hours.astype("datetime64[us]")
        table = pa.table({
            "principal": principal[r], "host": host[r], "operation": op[r], "resource_type": rtype[r],
            "resource_name": name[r], "hour": ts, "hour_text": hour_text, "count": count, "visible": count,
            "allowed": count, "denied": np.zeros(len(r), dtype=np.int64), "first_seen": ts, "last_seen": ts,
            "first_seen_text": np.char.add(hour_text, ":00:00,000"), "last_seen_text": np.char.add(hour_text, ":59:59,000"),
            "rule_at": pa.nulls(len(r), pa.string()), "rule": pa.nulls(len(r), pa.string())}, schema=schema())
        table = table.sort_by([(k, "ascending") for k in SORT_KEY])
        d = staged / f"day={hour_text[0][:10]}"
        d.mkdir()
        pq.write_table(table, d / "part-00000-bench.parquet", row_group_size=ROW_GROUP_ROWS)
    stats = ReadStats()
    stats.lines = stats.decision_lines = stats.decisions = rows * LINES_PER_ROW
    commit_run(ix, run_id, staged, [], stats, [])


def current_acls() -> list[dict]:
    out = []
    for t in range(TEAMS):
        members = [f"User:svc{p}" for p in range(t, PRINCIPALS, TEAMS)]
        for m in members:
            out += [_acl("TOPIC", f"team{t}.", "PREFIXED", m, "READ"), _acl("TOPIC", f"team{t}.", "PREFIXED", m, "WRITE"),
                    _acl("GROUP", f"team{t}-", "PREFIXED", m, "READ")]
        out.append(_acl("TRANSACTIONAL_ID", f"team{t}-tx-", "LITERAL", "User:*", "WRITE"))
    out.append(_acl("CLUSTER", "kafka-cluster", "LITERAL", "User:*", "IDEMPOTENT_WRITE"))
    return out


def _acl(rtype, name, pattern, principal, op, permission="ALLOW") -> dict:
    return {"resource_type": rtype, "resource_name": name, "pattern_type": pattern, "principal": principal,
            "host": "*", "operation": op, "permission": permission}


def proposal(current: list[dict], seed: int, changes: int = 100) -> list[dict]:
    rnd = random.Random(seed)
    removed = set(rnd.sample(range(len(current)), changes // 2))
    out = [a for i, a in enumerate(current) if i not in removed]
    for _ in range(changes - changes // 2):
        t, p = rnd.randrange(TEAMS), rnd.randrange(PRINCIPALS)
        out.append(rnd.choice([_acl("TOPIC", f"team{t}.events-{rnd.randrange(60)}", "LITERAL", f"User:svc{p}", "READ",
                                    "DENY"),
                               _acl("TOPIC", f"team{t}.events-1", "PREFIXED", f"User:svc{p}", "WRITE", "DENY"),
                               _acl("GROUP", f"team{t}-consumers", "LITERAL", f"User:svc{p}", "READ")]))
    return out


def measure(index: Path, current: Path, proposed: Path, full: bool) -> dict:
    """In a fresh process: the seconds of replay_index_local (not the Python start) and the peak RSS."""
    code = f"""
import json, resource, sys, time
sys.path.insert(0, {str(ROOT)!r})
from pathlib import Path
from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.services.acl_sources import load_source, acl_set_from
from kafka_authz_cli.services.whatif import replay_index_local
from kafka_authz_cli.whatif import open_index
t0 = time.perf_counter()
import pyarrow.dataset, pyarrow.parquet, pyarrow.compute  # what a warm session has loaded
t_imports = time.perf_counter() - t0
t0 = time.perf_counter()
proposed = load_source(Path({str(proposed)!r}), None).bindings
current = acl_set_from(Path({str(current)!r}), None)
t_acls = time.perf_counter() - t0
t0 = time.perf_counter()
ix = open_index(Path({str(index)!r})); ix.check()
done = replay_index_local([ix], None, None, proposed, current, BrokerSettings(), full={full})
t = time.perf_counter() - t0
print(json.dumps({{"seconds": t, "imports": t_imports, "acls": t_acls,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "note": done.note, "denied": len(done.report.newly_denied),
                  "requests": done.report.distinct_requests}}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", help="where the indexes go (kept; reused when present)")
    ap.add_argument("--sizes", default="1000000,10000000,100000000")
    args = ap.parse_args()
    data = Path(args.data or tempfile.mkdtemp(prefix="authz-incr-"))
    os.environ["AUTHZ_CACHE_DIR"] = str(data / "cache")
    cur = current_acls()
    (data / "current.json").parent.mkdir(parents=True, exist_ok=True)
    (data / "current.json").write_text(json.dumps({"version": 1, "acls": cur}))
    for k in (1, 2):
        (data / f"proposed{k}.json").write_text(json.dumps({"version": 1, "acls": proposal(cur, k)}))
    print(f"current set: {len(cur):,} ACLs; proposals: 100 changed ACLs each", flush=True)
    print(f"{'lines':>12} {'rows':>10} {'requests':>10} {'MB':>7} {'full s':>8} {'full MB':>8} {'incr 1 s':>10} "
          f"{'incr 2 s':>7} {'incr MB':>8} {'full/incr':>9}", flush=True)
    for lines in (int(s) for s in args.sizes.split(",")):
        index = data / f"index-{lines}"
        if not (index / "manifest.json").exists():
            t0 = time.perf_counter()
            write_index(index, lines)
            print(f"  (index of {lines:,} lines written in {time.perf_counter() - t0:.0f} s)", flush=True)
        mb = sum(f.stat().st_size for f in index.rglob("*.parquet")) / 1e6
        full = measure(index, data / "current.json", data / "proposed1.json", True)
        first = measure(index, data / "current.json", data / "proposed1.json", False)
        incr = measure(index, data / "current.json", data / "proposed2.json", False)
        assert incr["note"].startswith("incremental"), incr["note"]
        print(f"{lines:>12,} {lines // LINES_PER_ROW:>10,} {full['requests']:>10,} {mb:>7.0f} {full['seconds']:>8.2f} "
              f"{full['rss_mb']:>8.0f} {first['seconds']:>10.2f} {incr['seconds']:>7.3f} {incr['rss_mb']:>8.0f} "
              f"{full['seconds'] / incr['seconds']:>9.0f}", flush=True)
        print(f"             {incr['note']}; before the answer: importing pyarrow {incr['imports']:.2f} s, "
              f"reading both ACL sets {incr['acls']:.2f} s", flush=True)
    print(f"(peak RSS of this driver: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")


if __name__ == "__main__":
    main()
