"""Strimzi KafkaUser speed: read a directory of 1,000 / 10,000 KafkaUser files (one user per file,
as teams keep them in git, each with a consumer's and a producer's rules: ~8 bindings) and convert
it, both ways: the directory to canonical JSON, and the bindings back to KafkaUsers.

    python tests/bench/bench_strimzi.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kafka_authz_cli.acl import dump_acls  # noqa: E402
from kafka_authz_cli.ecosystem.strimzi.writer import write  # noqa: E402
from kafka_authz_cli.services.acl_sources import load_acl_set  # noqa: E402

USER = """apiVersion: kafka.strimzi.io/v1
kind: KafkaUser
metadata:
  name: svc-{i}
  labels:
    strimzi.io/cluster: my-cluster
spec:
  authentication:
    type: {auth}
  authorization:
    type: simple
    acls:
      - resource:
          type: topic
          name: team{team}.orders
          patternType: literal
        operations: [Describe, Read]
      - resource:
          type: group
          name: svc-{i}-
          patternType: prefix
        operations: [Read]
      - resource:
          type: topic
          name: team{team}.events.
          patternType: prefix
        operations: [Create, Describe, Write]
        host: "*"
      - resource:
          type: transactionalId
          name: svc-{i}
        operations: [Write, Describe]
        type: {perm}
"""


def make_directory(root: Path, users: int) -> None:
    for i in range(users):
        team = root / f"team{i % 50}"
        team.mkdir(exist_ok=True)
        (team / f"svc-{i}.yaml").write_text(USER.format(i=i, team=i % 50, auth="tls" if i % 3 else "scram-sha-512",
                                                        perm="deny" if i % 40 == 0 else "allow"))


def run(users: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_directory(root, users)
        t0 = time.perf_counter()
        acl_set = load_acl_set(root)
        t_read = time.perf_counter() - t0
        t0 = time.perf_counter()
        dump_acls(acl_set.bindings, "json")
        t_json = time.perf_counter() - t0
        t0 = time.perf_counter()
        written = write(acl_set.bindings)
        t_write = time.perf_counter() - t0
        return {"users": users, "bindings": len(acl_set.bindings), "read": t_read, "to_json": t_json,
                "to_strimzi": t_write, "yaml_bytes": len(written.text)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="1,000 users only")
    args = parser.parse_args()
    sizes = [1_000] if args.quick else [1_000, 10_000]
    rows = [run(n) for n in sizes]
    print(f"{'users':>7} {'bindings':>9} {'read dir (s)':>13} {'-> json (s)':>12} {'-> strimzi (s)':>15}")
    for r in rows:
        print(f"{r['users']:>7,} {r['bindings']:>9,} {r['read']:>13.2f} {r['to_json']:>12.2f} {r['to_strimzi']:>15.2f}")
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        print(f"growth x{b['users'] / a['users']:.0f} users: read x{b['read'] / a['read']:.1f}, "
              f"to json x{b['to_json'] / a['to_json']:.1f}, to strimzi x{b['to_strimzi'] / a['to_strimzi']:.1f}")


if __name__ == "__main__":
    main()
