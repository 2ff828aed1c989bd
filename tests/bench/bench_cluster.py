"""Live cluster speed: `authz cluster apply` and `cluster pull` of 1,000 / 3,000 / 10,000 bindings
against a real Kafka broker (tests/live/kafka_broker.py), with the JVM's own `kafka-acls`
(org.apache.kafka.tools.AclCommand, from the same classpath) as the baseline in the same run.

The data is what teams grant: each "grant" is principals x operations x resources (topics and
groups, literal and prefixed, some DENYs from a host), exactly one `kafka-acls --add` invocation,
so both tools create the same bindings. Round trips are counted on the broker side: every
CreateAcls / DescribeAcls request is authorized once and the audit log (DEBUG) has one line each.

    python tests/bench/bench_cluster.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kafka_authz_cli.acl.model import AclBinding  # noqa: E402
from tests.live import kafka_broker  # noqa: E402

AUTHZ = [sys.executable, "-m", "kafka_authz_cli"]
ACL_COMMAND = "org.apache.kafka.tools.AclCommand"


def grants(n_bindings: int, seed: int = 11) -> list[dict]:
    """kafka-acls --add invocations totalling about ``n_bindings`` bindings, varied like real teams."""
    rand = random.Random(seed)
    out, total, k = [], 0, 0
    while total < n_bindings:
        team = f"team{k}"
        kind = k % 4
        principals = [f"User:{team}-svc{i}" for i in range(rand.choice([2, 4, 5]))]
        if kind == 0:  # consumers: topics and groups, Read/Describe
            g = {"principals": principals, "ops": ["Read", "Describe"], "pattern": "literal",
                 "topics": [f"{team}.events.{i}" for i in range(40)], "groups": [f"{team}-app{i}" for i in range(10)]}
        elif kind == 1:  # producers on prefixes
            g = {"principals": principals, "ops": ["Write", "Describe", "Create"], "pattern": "prefixed",
                 "topics": [f"{team}.out{i}." for i in range(30)], "groups": []}
        elif kind == 2:  # admins of their own namespace
            g = {"principals": principals[:2], "ops": ["All"], "pattern": "prefixed",
                 "topics": [f"{team}.{i}." for i in range(60)], "groups": [f"{team}-{i}-" for i in range(20)]}
        else:  # denies from a host range
            g = {"principals": principals, "ops": ["Read", "Write"], "pattern": "literal", "deny": True,
                 "hosts": [f"10.{k % 250}.0.{h}" for h in range(1, 4)],
                 "topics": [f"{team}.restricted{i}" for i in range(15)], "groups": []}
        out.append(g)
        total += len(bindings_of(g))
        k += 1
    return out


def bindings_of(g: dict) -> list[AclBinding]:
    op_names = {"Read": "READ", "Write": "WRITE", "Describe": "DESCRIBE", "Create": "CREATE", "All": "ALL"}
    perm = "DENY" if g.get("deny") else "ALLOW"
    hosts = g.get("hosts", ["*"])
    out = []
    for rtype, names in (("TOPIC", g["topics"]), ("GROUP", g["groups"])):
        ops = [o for o in g["ops"] if rtype == "TOPIC" or o in ("Read", "Describe", "All")]
        for name in names:
            for p in g["principals"]:
                for op in ops:
                    for h in hosts:
                        out.append(AclBinding.of(rtype, name, g["pattern"].upper(), p, h, op_names[op], perm))
    return out


def acl_command_args(g: dict) -> list[str]:
    who = "--deny-principal" if g.get("deny") else "--allow-principal"
    args = ["--add", "--force", "--resource-pattern-type", g["pattern"]]
    for p in g["principals"]:
        args += [who, p]
    for h in g.get("hosts", []):
        args += ["--deny-host", h]
    for op in g["ops"]:
        args += ["--operation", op]
    for t in g["topics"]:
        args += ["--topic", t]
    for gr in g["groups"]:
        args += ["--group", gr]
    return args


class Bench:
    def __init__(self, broker):
        self.broker = broker
        self.cfg = str(broker.command_config())
        self.live = ["--bootstrap-server", broker.bootstrap, "--command-config", self.cfg]

    def requests(self, since: int, name: str) -> int:
        data = self.broker.audit_log.read_bytes()[since:]
        return data.count(f"for request = {name} ".encode())

    def mark(self) -> int:
        return self.broker.audit_log.stat().st_size

    def clear(self) -> None:
        out = subprocess.run(AUTHZ + ["cluster", "apply", os.devnull, *self.live, "--allow-delete", "--yes",
                                      "--max-deletes", "1000000"], capture_output=True, text=True)
        assert out.returncode == 0, out.stdout + out.stderr

    def authz_apply(self, acls_file: Path) -> tuple[float, int]:
        mark, t0 = self.mark(), time.perf_counter()
        out = subprocess.run(AUTHZ + ["cluster", "apply", str(acls_file), *self.live, "--yes", "--batch-size", "1000"],
                             capture_output=True, text=True)
        dt = time.perf_counter() - t0
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
        time.sleep(0.3)
        return dt, self.requests(mark, "CreateAcls") + self.requests(mark, "DescribeAcls")

    def authz_pull(self, out_file: Path) -> tuple[float, int]:
        mark, t0 = self.mark(), time.perf_counter()
        out = subprocess.run(AUTHZ + ["cluster", "pull", *self.live, "-o", str(out_file)], capture_output=True,
                             text=True)
        dt = time.perf_counter() - t0
        assert out.returncode == 0, out.stderr
        time.sleep(0.3)
        return dt, self.requests(mark, "DescribeAcls")

    def acl_command(self, args: list[str]) -> float:
        cmd = kafka_broker.java_cmd(self.broker.classpath, ACL_COMMAND, "--bootstrap-server", self.broker.bootstrap,
                                    "--command-config", self.cfg, *args, heap="-Xmx256m")
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "KAFKA_LOG4J_OPTS": ""})
        dt = time.perf_counter() - t0
        assert out.returncode == 0, out.stdout[-1000:] + out.stderr[-1000:]
        return dt

    def acls_add(self, gs: list[dict]) -> tuple[float, int]:
        mark = self.mark()
        dt = sum(self.acl_command(acl_command_args(g)) for g in gs)
        time.sleep(0.3)
        return dt, self.requests(mark, "CreateAcls") + self.requests(mark, "DescribeAcls")

    def acls_list(self) -> tuple[float, int]:
        mark = self.mark()
        dt = self.acl_command(["--list"])
        time.sleep(0.3)
        return dt, self.requests(mark, "DescribeAcls")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="sizes 200/500/1,000")
    args = ap.parse_args()
    sizes = [200, 500, 1000] if args.quick else [1000, 3000, 10000]
    broker = kafka_broker.start()
    print(f"Kafka {broker.version} broker at {broker.bootstrap} (started in {broker.start_seconds:.1f} s)")
    rows = []
    try:
        bench = Bench(broker)
        tmp = broker.workdir / "bench"
        tmp.mkdir()
        for n in sizes:
            gs = grants(n)
            desired = [b for g in gs for b in bindings_of(g)]
            assert len(set(desired)) == len(desired)
            f = tmp / f"desired-{n}.json"
            f.write_text(json.dumps({"version": 1, "acls": [b.as_dict() for b in desired]}))

            bench.clear()
            a_apply, a_apply_rt = bench.authz_apply(f)
            a_pull, a_pull_rt = bench.authz_pull(tmp / f"pulled-{n}.json")
            pulled = {AclBinding.of(**d) for d in json.loads((tmp / f"pulled-{n}.json").read_text())["acls"]}
            assert pulled == set(desired), "authz pull does not return what authz apply wrote"
            a_noop, _ = bench.authz_apply(f)  # plan again: nothing to do

            bench.clear()
            k_add, k_add_rt = bench.acls_add(gs)
            k_list, k_list_rt = bench.acls_list()
            bench.authz_pull(tmp / f"pulled-k-{n}.json")
            pulled = {AclBinding.of(**d) for d in json.loads((tmp / f"pulled-k-{n}.json").read_text())["acls"]}
            assert pulled == set(desired), "kafka-acls did not create the same bindings"
            rows.append((len(desired), len(gs), a_apply, a_apply_rt, k_add, k_add_rt, a_pull, a_pull_rt, k_list,
                         k_list_rt, a_noop))
            print(f"  {len(desired):,} bindings done", flush=True)
    finally:
        broker.stop()
    print()
    print("| bindings | kafka-acls invocations | authz apply s (requests) | kafka-acls --add s (requests) | ratio |"
          " authz pull s (requests) | kafka-acls --list s (requests) | ratio | authz re-apply (no-op) s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, inv, aa, aart, ka, kart, ap_, aprt, kl, klrt, noop in rows:
        print(f"| {n:,} | {inv} | {aa:.2f} ({aart}) | {ka:.2f} ({kart}) | {ka / aa:.1f}x | {ap_:.2f} ({aprt}) | "
              f"{kl:.2f} ({klrt}) | {kl / ap_:.1f}x | {noop:.2f} |")
    print("\nratio = kafka-acls seconds / authz seconds (higher: authz faster). Both include process start-up "
          "(Python vs JVM); requests = CreateAcls + DescribeAcls seen by the broker.")


if __name__ == "__main__":
    main()
