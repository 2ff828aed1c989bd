"""whatif speed on synthetic logs: end-to-end lines/s against the I/O floor and the in-process replay.

Baselines in the same run: Spark only reading and counting the same files (the I/O floor) and the
in-process replay. Logs are generated into a temporary directory (several rotated files, one gzipped)
and deleted afterwards.

    python tests/bench/bench_whatif.py [--quick | --lines N ...]
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kafka_authz_cli.auditlog import ReadStats, expand_paths, read_file_bytes  # noqa: E402
from kafka_authz_cli.engine import StandardAuthorizer  # noqa: E402
from kafka_authz_cli.model import AclBinding  # noqa: E402
from kafka_authz_cli.whatif import replay  # noqa: E402

SETTINGS = {"super_users": "User:admin", "allow_everyone_if_no_acl_found": False}


def acls() -> list[AclBinding]:
    out = []
    for t in range(200):
        out.append(AclBinding.of("TOPIC", f"team{t}-", "PREFIXED", f"User:svc{t}", "*", "WRITE", "ALLOW"))
        out.append(AclBinding.of("TOPIC", f"team{t}-", "PREFIXED", f"User:reader{t % 20}", "*", "READ", "ALLOW"))
        out.append(AclBinding.of("GROUP", f"g{t}-", "PREFIXED", f"User:reader{t % 20}", "*", "READ", "ALLOW"))
    return out


def generate(directory: Path, lines: int, files: int = 6, seed: int = 1) -> None:
    rand = random.Random(seed)
    per_file = lines // files
    for f in range(files):
        hour = f"2026-11-20-{10 + f:02d}"
        name = "kafka-authorizer.log" if f == files - 1 else f"kafka-authorizer.log.{hour}"
        chunks = []
        for i in range(per_file):
            t = rand.randrange(200)
            if rand.random() < 0.5:
                p, op, rt, res, req = f"User:svc{t}", "WRITE", "Topic", f"team{t}-events", "Produce"
                rule = (f"MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=team{t}-, patternType=PREFIXED, "
                        f"principal=User:svc{t}, host=*, operation=WRITE, permissionType=ALLOW))")
            else:
                p, op, rt, res, req = f"User:reader{t % 20}", "READ", "Topic", f"team{t}-events", "Fetch"
                rule = (f"MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=team{t}-, patternType=PREFIXED, "
                        f"principal=User:reader{t % 20}, host=*, operation=READ, permissionType=ALLOW))")
            host = f"10.{t % 4}.{t % 250}.{rand.randrange(1, 5)}"
            chunks.append(f"[2026-11-20 {10 + f:02d}:{i % 60:02d}:{i % 60:02d},{i % 1000:03d}] DEBUG Principal = {p} "
                          f"is Allowed operation = {op} from host = {host} on resource = {rt}:LITERAL:{res} for "
                          f"request = {req} with resourceRefCount = 1 based on rule {rule} (kafka.authorizer.logger)\n")
        data = "".join(chunks).encode()
        path = directory / name
        if f == 1:
            path = path.with_name(path.name + ".gz")
            data = gzip.compress(data, compresslevel=1)
        path.write_bytes(data)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--lines", type=int, nargs="*", default=None)
    args = parser.parse_args()
    sizes = args.lines or ([200_000] if args.quick else [1_000_000])
    proposed = acls()[::2]  # the change: drop half of the grants
    from kafka_authz_cli import spark_job

    spark = spark_job.spark_session("local[2]", "authz-bench", progress=False)
    print(f"{'lines':>10} {'in-process s':>12} {'spark s':>8} {'I/O floor s':>11} {'lines/s spark':>14} "
          f"{'x floor':>8} {'x in-process':>12}")
    try:
        for n in sizes:
            tmp = Path(tempfile.mkdtemp(prefix="authz-bench-"))
            try:
                generate(tmp, n)
                files = [str(Path(f).resolve()) for f in expand_paths([str(tmp)])]
                t0 = time.perf_counter()
                stats, quarantine, decisions = ReadStats(), [], []
                for f in files:
                    decisions += read_file_bytes(Path(f).read_bytes(), f, stats, quarantine)
                report_local = replay(decisions, StandardAuthorizer(proposed, **SETTINGS))
                t_local = time.perf_counter() - t0
                del decisions
                t0 = time.perf_counter()
                spark_job.count_lines(spark, files)
                t_floor = time.perf_counter() - t0
                t0 = time.perf_counter()
                _, _, report_spark = spark_job.run(spark, files, (proposed, SETTINGS))
                t_spark = time.perf_counter() - t0
                assert len(report_spark.newly_denied) == len(report_local.newly_denied)
                print(f"{n:>10,} {t_local:>12.1f} {t_spark:>8.1f} {t_floor:>11.1f} {n / t_spark:>14,.0f} "
                      f"{t_spark / t_floor:>8.1f} {t_local / t_spark:>12.2f}", flush=True)
            finally:
                shutil.rmtree(tmp)
    finally:
        spark.stop()
    print("x floor: Spark replay time / Spark read-and-count time (aim: within 3x); x in-process: in-process time / "
          "Spark time on this 2-core machine. Time goes to parsing each record in Python (anchored regexes); "
          "evaluation is per distinct request and negligible.")


if __name__ == "__main__":
    main()
