"""`authz simulate --requests` at 10k, 30k and 100k requests, in every output format.

Each run is the real command in a fresh process (start-up included), on realistic varied data:
an ACL set of 5,000 bindings (literal and prefixed, some DENYs, specific hosts, a wildcard) and
requests over 600 principals, 8 hosts, 4 operations and 3 resource types, some with `expect`.
The baseline, measured in the same run, is the least any implementation must do: read the
requests with the standard library (json per line) and decide them with the engine, in process.
The table format shows 200 rows (and says how many more); the others list every row.

    python tests/bench/bench_simulate.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from kafka_authz_cli.acl.engine import Request, StandardAuthorizer  # noqa: E402
from kafka_authz_cli.acl.model import AclBinding, AclOperation, ResourceType  # noqa: E402

OPS = ["READ", "WRITE", "DESCRIBE", "CREATE"]
TYPES = ["TOPIC", "TOPIC", "GROUP", "TRANSACTIONAL_ID"]
HOSTS = [f"10.{i}.0.{i + 1}" for i in range(7)] + ["2001:db8::7"]


def acl_doc(n: int, seed: int = 1) -> dict:
    rand = random.Random(seed)
    acls = []
    for i in range(n):
        rtype = TYPES[i % 4]
        pattern = "PREFIXED" if i % 3 == 0 else "LITERAL"
        ops = {"TOPIC": OPS, "GROUP": ["READ", "DESCRIBE"], "TRANSACTIONAL_ID": ["WRITE", "DESCRIBE"]}[rtype]
        acls.append({"resource_type": rtype, "resource_name": f"team{i % 300}.app{i % 40}" + ("-" if pattern ==
                                                                                             "PREFIXED" else ""),
                     "pattern_type": pattern, "principal": f"User:svc{rand.randrange(600)}",
                     "host": rand.choice(HOSTS) if i % 10 == 0 else "*", "operation": rand.choice(ops),
                     "permission": "DENY" if i % 40 == 0 else "ALLOW"})
    acls.append(dict(acls[0], resource_name="*", pattern_type="LITERAL", principal="User:auditor",
                     operation="DESCRIBE", permission="ALLOW"))
    return {"version": 1, "acls": acls}


def requests(n: int, seed: int = 2) -> list[dict]:
    rand = random.Random(seed)
    out = []
    for i in range(n):
        rec = {"principal": f"User:svc{rand.randrange(600)}", "host": rand.choice(HOSTS),
               "operation": rand.choice(OPS[:3]), "resource_type": rand.choice(TYPES[:3]),
               "resource_name": f"team{rand.randrange(300)}.app{rand.randrange(40)}-{rand.randrange(9)}"}
        if i % 20 == 0:
            rec["expect"] = "DENIED"
        out.append(rec)
    return out


def baseline(acl_path: Path, req_path: Path) -> float:
    start = time.perf_counter()
    doc = json.loads(acl_path.read_text())
    bindings = [AclBinding.of(a["resource_type"], a["resource_name"], a["pattern_type"], a["principal"], a["host"],
                              a["operation"], a["permission"]) for a in doc["acls"]]
    authz = StandardAuthorizer(bindings)
    recs = [json.loads(line) for line in req_path.read_text().splitlines()]
    authz.authorize_many([Request(r["principal"], r["host"], AclOperation.parse(r["operation"]),
                                  ResourceType.parse(r["resource_type"]), r["resource_name"]) for r in recs])
    return time.perf_counter() - start


def run_cli(acl_path: Path, req_path: Path, fmt: str) -> tuple[float, int, int]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kafka_authz_cli", "simulate", str(acl_path), "--requests",
                           str(req_path), "--format", fmt], capture_output=True)
    return time.perf_counter() - start, proc.returncode, proc.stdout.count(b"\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    ns = parser.parse_args()
    sizes = [2_000, 5_000, 10_000] if ns.quick else [10_000, 30_000, 100_000]
    with tempfile.TemporaryDirectory() as tmp:
        acl_path = Path(tmp) / "acls.json"
        acl_path.write_text(json.dumps(acl_doc(5_000)))
        print(f"{'requests':>9} {'format':<6} {'seconds':>8} {'x baseline':>10} {'lines out':>10} exit")
        for n in sizes:
            req_path = Path(tmp) / f"requests-{n}.jsonl"
            req_path.write_text("".join(json.dumps(r) + "\n" for r in requests(n)))
            base = baseline(acl_path, req_path)
            print(f"{n:>9,} {'base':<6} {base:>8.2f} {1.0:>10.1f} {'':>10}")
            for fmt in ("table", "jsonl", "csv", "json"):
                seconds, code, lines = run_cli(acl_path, req_path, fmt)
                print(f"{n:>9,} {fmt:<6} {seconds:>8.2f} {seconds / base:>10.1f} {lines:>10,} {code}", flush=True)


if __name__ == "__main__":
    main()
