"""The exact decision diff at real size: `authz diff`, `compact` with its proof and `access --principal`,
against the time to read the sets (`authz convert`), in the same run, with peak memory.

Two shapes, three sizes each (the shapes that break class-building are in both):

- Kafka's own AuthorizerBenchmark layout (tests/bench/gen_authorizer_benchmark.py, aclCount 10,
  denyPercentage 50): 5,000 / 50,000 / 200,000 resources (76k / 757k / 3.0M ACLs), with its PREFIXED
  section from ten hosts and resourceCount/10 ACLs on the literal `*` with hosts no client has;
- a team estate (tests/bench/gen_team_estate.py: IP allow-lists, `User:*`, DENY, ACLs on `*`, super
  users): 10,000 / 100,000 / 1,000,000 ACLs.

Each set is changed twice (gen_team_estate.mutate: a third removed, added, edited): 1% of its ACLs,
and 10 ACLs. Every command runs in a fresh process (`/usr/bin/env authz ...`, its output to a file);
its wall time is measured here and its peak RSS by a small launcher
(os.wait4 of its only child, so that this process's own size never counts). The baseline is reading both sets: `authz convert
OLD` + `authz convert NEW` (to JSON). `--before DIR` also runs another checkout's authz (its
.venv/bin/authz, or `python -m kafka_authz_cli` with DIR on the path) with `--timeout` seconds each.

    python tests/bench/bench_diff.py [--quick] [--sizes small,medium,large] [--before /path/to/checkout]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

import gen_authorizer_benchmark as ab  # noqa: E402
import gen_team_estate as estate  # noqa: E402

SIZES = {"authorizer-benchmark": [5_000, 50_000, 200_000], "team-estate": [10_000, 100_000, 1_000_000]}
QUICK = {"authorizer-benchmark": [5_000, 20_000], "team-estate": [10_000, 30_000]}
#: The principal `access --principal` is asked about in each shape.
PRINCIPAL = {"authorizer-benchmark": "User:test-user", "team-estate": "User:team7-svc3"}


def _ab_draw(resources: int):
    def draw(rand: random.Random) -> dict:
        rid = rand.randrange(resources)
        return {"resource_type": "GROUP" if rid % 10 == 0 else "TOPIC", "resource_name": ab.PREFIX + str(rid),
                "pattern_type": "PREFIXED" if rid % 5 == 0 else "LITERAL",
                "principal": ab.PRINCIPAL + str(rand.randrange(1, 20)), "host": "*", "operation": "READ",
                "permission": rand.choice(["ALLOW", "DENY"])}
    return draw


def make_sets(shape: str, size: int, workdir: Path) -> dict[str, Path]:
    """old.json, new-1pct.json and new-10.json for one shape and size."""
    out = workdir / f"{shape}-{size}"
    out.mkdir(parents=True, exist_ok=True)
    paths = {"old": out / "old.json", "1%": out / "new-1pct.json", "10": out / "new-10.json"}
    if all(p.exists() for p in paths.values()):
        return paths
    if shape == "authorizer-benchmark":
        old = list(ab.acls(size, 10, 50.0))
        draw = _ab_draw(size)
    else:
        old = estate.acls(size)
        draw = estate.one_acl
    estate.write_acls(paths["old"], old)
    estate.write_acls(paths["1%"], estate.mutate(old, 0.01, draw=draw))
    estate.write_acls(paths["10"], estate.mutate(old, count=10, draw=draw))
    return paths


#: Runs the command as its own child and writes that child's peak RSS (KiB). Linux keeps a process's
#: peak RSS across exec from the process it was forked from, so measured straight from this process
#: (which holds parsed outputs of hundreds of MB) every later command would report this one's size.
_LAUNCHER = ("import os, subprocess, sys\n"
             "p = subprocess.Popen(sys.argv[2:])\n"
             "_, status, usage = os.wait4(p.pid, 0)\n"
             "open(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
             "sys.exit(os.waitstatus_to_exitcode(status))\n")


def run(authz: list[str], args: list, output: Path, timeout: float) -> dict:
    """One command in a fresh process: wall seconds, peak RSS (MiB), exit code (None: timed out)."""
    rss = Path(tempfile.mkstemp(suffix=".rss")[1])
    t0 = time.perf_counter()
    with open(output, "wb") as out, open(os.devnull, "wb") as err:
        # From a directory of no checkout: `python -m` puts the current directory first on sys.path.
        proc = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCHER, rss, *authz, *map(str, args)], stdout=out,
                                stderr=err, cwd=tempfile.gettempdir(), start_new_session=True)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            rss.unlink()
            return {"s": None, "mib": None, "rc": None}
    seconds = time.perf_counter() - t0
    kib = int(rss.read_text() or 0)
    rss.unlink()
    return {"s": seconds, "mib": kib / 1024, "rc": code}


def authz_of(checkout: Path) -> list[str]:
    exe = checkout / ".venv" / "bin" / "authz"
    if exe.exists():
        return [str(exe)]
    return ["env", f"PYTHONPATH={checkout}", sys.executable, "-m", "kafka_authz_cli"]


def measure(shape: str, size: int, workdir: Path, authz: list[str], before: list[str] | None, timeout: float,
            before_timeout: float = 300.0) -> dict:
    paths = make_sets(shape, size, workdir)
    sink = workdir / "out"
    row: dict = {"shape": shape, "size": size, "acls": _count(paths["old"])}
    read = [run(authz, ["convert", paths[k], "--to", "json"], sink, timeout) for k in ("old", "1%")]
    row["read_s"] = sum(r["s"] for r in read)
    for change in ("1%", "10"):
        result = run(authz, ["diff", paths["old"], paths[change], "--format", "json"], sink, timeout)
        row[f"diff {change}"] = result
        if result["rc"] is not None:
            doc = json.loads(sink.read_text())
            result["classes"] = doc["classes_examined"]
            result["changes"] = len(doc["changes"])
            result["findings"] = len(doc.get("findings", doc["changes"]))
        if before is not None:
            row[f"diff {change} before"] = run(before, ["diff", paths["old"], paths[change], "--format", "json"], sink,
                                               before_timeout)
    row["cluster plan effect"] = _plan_effect(paths["old"], paths["1%"], timeout)
    row["compact"] = run(authz, ["compact", paths["old"], "--format", "json"], sink, timeout)
    row["compact no proof"] = run(authz, ["compact", paths["old"], "--no-proof", "--format", "json"], sink, timeout)
    row["access principal"] = run(authz, ["access", paths["old"], "--principal", PRINCIPAL[shape], "--format", "json"],
                                  sink, timeout)
    if before is not None:
        row["access principal before"] = run(before, ["access", paths["old"], "--principal", PRINCIPAL[shape],
                                                      "--format", "json"], sink, before_timeout)
    return row


_EFFECT = """
import json, sys, time, types
from pathlib import Path
from kafka_authz_cli.services.cluster import _effect
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.acl_sources import load_source
t0 = time.perf_counter()
old, new = load_source(Path(sys.argv[1])).bindings, load_source(Path(sys.argv[2])).bindings
t1 = time.perf_counter()
effect = _effect(types.SimpleNamespace(changes=True, observed=old, result=new), broker_settings(None, None, None))
print(json.dumps({"load_s": t1 - t0, "effect_s": time.perf_counter() - t1, "findings": len(effect["findings"])}))
"""


def _plan_effect(old: Path, new: Path, timeout: float) -> dict:
    """`cluster plan`'s effect (services.cluster._effect: the decision diff of what the cluster has and
    what the plan makes) in one process, against loading both sets in that process."""
    out = Path(tempfile.mkstemp(suffix=".json")[1])
    result = run([sys.executable, "-c", _EFFECT], [old, new], out, timeout)
    if result["rc"] == 0:
        result.update(json.loads(out.read_text()))
        result["s"] = result["effect_s"]
        result["ratio_to_load"] = result["effect_s"] / result["load_s"]
    out.unlink()
    return result


def _count(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.startswith(b"    {"))


def _cell(result: dict, base: float) -> str:
    if result["s"] is None:
        return "timed out"
    return f"{result['s']:.1f} s ({result['s'] / base:.1f}x) {result['mib']:.0f} MiB"


def report(rows: list[dict]) -> None:
    keys = [k for k in rows[0] if isinstance(rows[0][k], dict)]
    print("\nper size: wall time (x the time to read both sets) and peak RSS")
    for row in rows:
        print(f"\n{row['shape']} {row['size']:,} ({row['acls']:,} ACLs): read both sets {row['read_s']:.1f} s")
        for key in keys:
            extra = ""
            if "classes" in row[key]:
                extra = (f"; {row[key]['classes']:,} request classes decided, {row[key]['changes']:,} changed classes "
                         f"said in {row[key]['findings']:,} findings")
            if "ratio_to_load" in row[key]:
                extra = (f"; in one process: {row[key]['ratio_to_load']:.1f}x loading both sets there "
                         f"({row[key]['load_s']:.1f} s), {row[key]['findings']:,} findings")
            print(f"  {key:<26} {_cell(row[key], row['read_s'])}{extra}")
    print("\ngrowth against the smallest size of each shape (time ratio / ACL ratio)")
    for shape in dict.fromkeys(r["shape"] for r in rows):
        mine = [r for r in rows if r["shape"] == shape]
        for row in mine[1:]:
            acls = row["acls"] / mine[0]["acls"]
            parts = [f"read {row['read_s'] / mine[0]['read_s']:.1f}x"]
            for key in ("diff 1%", "diff 10", "compact", "access principal"):
                a, b = row[key]["s"], mine[0][key]["s"]
                if a is not None and b:
                    parts.append(f"{key} {a / b:.1f}x")
            print(f"  {shape} {row['size']:,}: ACLs {acls:.1f}x; " + ", ".join(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--shapes", default="authorizer-benchmark,team-estate")
    parser.add_argument("--sizes", default=None, help="comma-separated indexes into each shape's sizes (0,1,2)")
    parser.add_argument("--before", type=Path, default=None, help="another checkout to run the same commands with")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--before-timeout", type=float, default=300.0, help="seconds for each --before command")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the generated sets here")
    ns = parser.parse_args()
    table = QUICK if ns.quick else SIZES
    authz = authz_of(ROOT)
    before = authz_of(ns.before) if ns.before else None
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = ns.workdir or Path(tmp)
        for shape in ns.shapes.split(","):
            sizes = table[shape]
            if ns.sizes:
                sizes = [sizes[int(i)] for i in ns.sizes.split(",")]
            for size in sizes:
                row = measure(shape, size, workdir, authz, before, ns.timeout, ns.before_timeout)
                rows.append(row)
                print(json.dumps(row), flush=True)
    report(rows)


if __name__ == "__main__":
    main()
