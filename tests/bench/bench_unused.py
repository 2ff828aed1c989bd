"""authz access unused at three sizes of logs, against `authz whatif`'s in-process replay of the same
files in the same run (the same readers and aggregates: the baseline this command cannot beat by
much, and must not fall far behind), and answered from a whatif index.

Data comes from gen_auditlogs.py (hourly-rotated sets from four brokers, realistic principals,
resources, hosts, levels and odd lines); the ACL set gives every principal of the generator's
universe per-team grants, plus grants of retired principals nobody uses. Generated files go to a
temporary directory (or --data DIR, kept and reused).

    python tests/bench/bench_unused.py                       # 100k, 1M, 3M lines
    python tests/bench/bench_unused.py --sizes 100000,1000000,10000000 --data /tmp/authz-unused

Reported per size (CPU seconds of this process, best of --repeat): lines, seconds of whatif and of
unused, the ratio, lines/s, the growth against the previous size (time ratio / line ratio: 1.0 is
linear), the seconds to index the logs and those `unused --index` then takes.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import gen_auditlogs  # noqa: E402

SUPER = "User:svc-orders-0;User:svc-payments-1"


def best_of(fn, repeat: int) -> float:
    """The least CPU seconds of this process over `repeat` runs: five helpers share two cores here, and
    wall time measures them as much as this code (all work is in this process: no Spark, no threads)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def acl_file(path: Path) -> int:
    """Per-team grants of every principal of the generator's universe, and 200 retired principals'."""
    u = gen_auditlogs.Universe(7)
    acls = []

    def grant(rtype, name, pattern, principal, op, perm="ALLOW"):
        acls.append({"resource_type": rtype, "resource_name": name, "pattern_type": pattern,
                     "principal": principal, "host": "*", "operation": op, "permission": perm})

    for principal, team in u.principals:
        grant("TOPIC", team + ".", "PREFIXED", principal, "READ")
        grant("TOPIC", team + ".", "PREFIXED", principal, "WRITE")
        grant("GROUP", team + "-", "PREFIXED", principal, "READ")
        grant("TRANSACTIONAL_ID", team + "-", "PREFIXED", principal, "ALL")
    for i, team in enumerate(gen_auditlogs.TEAMS):
        grant("TOPIC", team + ".dlq", "PREFIXED", "User:*", "DELETE", "DENY")
    for i in range(200):
        grant("TOPIC", f"legacy-{i}", "LITERAL", f"User:retired-{i}", "READ")
    grant("CLUSTER", "kafka-cluster", "LITERAL", "User:*", "IDEMPOTENT_WRITE")
    path.write_text(json.dumps({"version": 1, "acls": acls}))
    return len(acls)


def data_set(root: Path, lines: int) -> Path:
    d = root / f"rot{lines}"
    if not (d / ".complete").exists():
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        gen_auditlogs.rotated(d, lines)
        (d / ".complete").write_text("")
    return d


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", help="where the generated logs go (kept; reused when present)")
    ap.add_argument("--sizes", default="100000,1000000,3000000")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    root = Path(args.data or tempfile.mkdtemp(prefix="authz-unused-"))
    root.mkdir(parents=True, exist_ok=True)
    acls = root / "acls.json"
    n_acls = acl_file(acls)

    from kafka_authz_cli.services import access_unused, whatif

    print(f"{n_acls} bindings; super.users {SUPER}")
    print(f"{'lines':>10} {'whatif s':>9} {'unused s':>9} {'ratio':>6} {'lines/s':>9} {'growth':>7} "
          f"{'index s':>8} {'--index s':>9}  used/unused/unknown")
    prev = None
    for lines in (int(s) for s in args.sizes.split(",")):
        logs = [str(data_set(root, lines))]
        base = best_of(lambda: whatif.replay(acls, logs=logs, super_users=SUPER), args.repeat)
        result = {}

        def run():
            result["r"] = access_unused.unused(acls, logs=logs, super_users=SUPER)

        ours = best_of(run, args.repeat)
        ix = root / f"ix{lines}"
        shutil.rmtree(ix, ignore_errors=True)
        index_s = best_of(lambda: whatif.index(logs, ix), 1)
        from_index = best_of(lambda: access_unused.unused(acls, indexes=[ix], super_users=SUPER), args.repeat)
        r = result["r"].report
        growth = "" if prev is None else f"{(ours / prev[1]) / (lines / prev[0]):.2f}"
        print(f"{lines:>10,} {base:>9.2f} {ours:>9.2f} {ours / base:>6.2f} {lines / ours:>9,.0f} {growth:>7} "
              f"{index_s:>8.2f} {from_index:>9.2f}  {r.count('used')}/{r.count('unused')}/{r.count('unknown')}"
              f" ({r.distinct_requests:,} distinct requests)")
        prev = (lines, ours)
    if not args.data:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
