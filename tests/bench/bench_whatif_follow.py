"""Shadow mode (`whatif --follow`): how fast it keeps up with a log, and how soon a change is reported.

Throughput, at three sizes of a realistic generated log (gen_auditlogs.py, one file): the shadow
pipeline reading the file from its start (follower, line-at-a-time readers, per-decision verdicts with
the cache, changes built for every changed decision) against the in-process replay of the same file
(services/whatif.py replay_local: the whole file read and aggregated, each distinct request decided
once), timed in the same run. Latency: lines appended to a followed file one at a time, at random
moments, and the time until the change is out (the follower polls every 0.2 s).

    python tests/bench/bench_whatif_follow.py            # 50 k, 200 k and 800 k lines
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import gen_auditlogs  # noqa: E402
from bench_whatif import SETTINGS, proposals  # noqa: E402

from kafka_authz_cli.acl import StandardAuthorizer  # noqa: E402
from kafka_authz_cli.services.whatif import replay_local  # noqa: E402
from kafka_authz_cli.whatif import ReadStats  # noqa: E402
from kafka_authz_cli.whatif.follow import Follower  # noqa: E402
from kafka_authz_cli.whatif.shadow import LineDecisions, Shadow  # noqa: E402


def shadow_pass(path: Path, proposed) -> tuple[float, int, int]:
    """(seconds, lines, changes) of the shadow pipeline over the whole file."""
    t0 = time.perf_counter()
    stats, q = ReadStats(), []
    lines = LineDecisions(stats, q)
    shadow = Shadow(StandardAuthorizer(proposed, SETTINGS))
    follower = Follower(str(path), from_start=True)
    changes = 0
    while True:
        batch = follower.poll()
        if not batch:
            break
        for line in batch:
            for d in lines.feed(line.generation, line.source, line.lineno, line.text.decode("utf-8", "replace")):
                changes += shadow.feed(d) is not None
    for d in lines.finish():
        changes += shadow.feed(d) is not None
    follower.close()
    return time.perf_counter() - t0, stats.lines, changes


def replay_pass(path: Path, proposed) -> float:
    t0 = time.perf_counter()
    replay_local([str(path)], {}, proposed, None, SETTINGS)
    return time.perf_counter() - t0


def latency(tmp: Path, proposed, samples: int = 20) -> list[float]:
    """Seconds from a line's append to its change coming out of the pipeline."""
    import threading

    src = tmp / "latency-source.log"
    gen_auditlogs.single(tmp, 5000)
    (tmp / "kafka-authorizer.log").rename(src)
    shadow = Shadow(StandardAuthorizer(proposed, SETTINGS))
    pool = []  # lines whose decision the proposal changes
    probe = LineDecisions(ReadStats(), [])
    for i, text in enumerate(src.read_text().splitlines()):
        if any(shadow.feed(d) for d in probe.feed(1, "x", i + 1, text)):
            pool.append(text)
    log = tmp / "followed.log"
    log.write_text("")
    out, stop = [], threading.Event()

    def run():
        lines = LineDecisions(ReadStats(), [])
        judge = Shadow(StandardAuthorizer(proposed, SETTINGS))
        for batch in Follower(str(log)).follow(stop.is_set):
            for line in batch:
                for d in lines.feed(line.generation, line.source, line.lineno, line.text.decode()):
                    if judge.feed(d) is not None:
                        out.append(time.perf_counter())
            if not batch:
                lines.idle()

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.5)
    r = random.Random(5)
    waits = []
    for i in range(samples):
        time.sleep(r.uniform(0.05, 0.4))
        before = len(out)
        with open(log, "a") as fh:
            sent = time.perf_counter()
            fh.write(pool[i % len(pool)] + "\n")
        while len(out) == before:
            time.sleep(0.005)
        waits.append(out[-1] - sent)
    stop.set()
    t.join()
    return waits


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="50000,200000,800000")
    args = ap.parse_args()
    proposed = proposals(1)[0]
    with tempfile.TemporaryDirectory(prefix="authz-bench-follow-") as d:
        tmp = Path(d)
        prev = None
        for n in map(int, args.sizes.split(",")):
            sub = tmp / str(n)
            sub.mkdir()
            path = gen_auditlogs.single(sub, n)
            t_replay = replay_pass(path, proposed)
            t_shadow, lines, changes = shadow_pass(path, proposed)
            grow = f", x{t_shadow / prev[0]:.2f} time for x{n / prev[1]:.0f} lines" if prev else ""
            print(f"{n:>9,} lines ({path.stat().st_size / 1e6:.0f} MB): shadow {t_shadow:6.2f} s "
                  f"({lines / t_shadow:,.0f} lines/s, {changes:,} changed decisions), replay {t_replay:6.2f} s "
                  f"({n / t_replay:,.0f} lines/s); shadow/replay {t_shadow / t_replay:.2f}x{grow}", flush=True)
            prev = (t_shadow, n)
        waits = latency(tmp, proposed)
        print(f"latency, append to change out, {len(waits)} lines: median {statistics.median(waits) * 1000:.0f} ms, "
              f"max {max(waits) * 1000:.0f} ms (poll interval 200 ms)")


if __name__ == "__main__":
    main()
