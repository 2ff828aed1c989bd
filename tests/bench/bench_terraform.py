"""Terraform speed: read a 1,000 / 10,000 / 100,000-binding .tf file (kafka_acl resources with import blocks,
as `authz cluster pull --to terraform` writes them, plus hand-written ones with comments) and the same
ACLs as `terraform show -json` output, and convert them: to canonical JSON, and back to Terraform.

    python tests/bench/bench_terraform.py [--quick] [--max N]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kafka_authz_cli.acl import AclBinding, dump_acls  # noqa: E402
from kafka_authz_cli.ecosystem.terraform.writer import write  # noqa: E402
from kafka_authz_cli.services.acl_sources import load_acl_set  # noqa: E402

OPS = ["READ", "WRITE", "DESCRIBE", "CREATE", "ALTER", "DELETE"]


def bindings(n: int) -> list[AclBinding]:
    out = []
    for i in range(n):
        team, op = i % 50, OPS[i % len(OPS)]
        kind = ("TOPIC", "GROUP", "TRANSACTIONAL_ID")[i % 3]
        pattern = "PREFIXED" if i % 7 == 0 else "LITERAL"
        out.append(AclBinding.of(kind, f"team{team}.svc-{i // 6}", pattern, f"User:svc-{i // 6}",
                                 "10.0.0.1" if i % 97 == 0 else "*", op, "DENY" if i % 40 == 0 else "ALLOW"))
    return out


def show_json(acls: list[AclBinding]) -> str:
    from kafka_authz_cli.ecosystem.terraform.reader import MONGEY
    from kafka_authz_cli.ecosystem.terraform.writer import _NAMES, import_id

    names = _NAMES["kafka_acl"]
    resources = [{"address": f"kafka_acl.a{i}", "mode": "managed", "type": "kafka_acl", "name": f"a{i}",
                  "provider_name": "registry.terraform.io/mongey/kafka", "schema_version": 1,
                  "values": {"acl_host": b.host, "acl_operation": names["operation"][b.operation],
                             "acl_permission_type": names["permission"][b.permission], "acl_principal": b.principal,
                             "id": import_id(MONGEY, b), "resource_name": b.resource_name,
                             "resource_pattern_type_filter": names["pattern_type"][b.pattern_type],
                             "resource_type": names["resource_type"][b.resource_type]}}
                 for i, b in enumerate(acls)]
    return json.dumps({"format_version": "1.0", "terraform_version": "1.9.0",
                       "values": {"root_module": {"resources": resources}}})


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def run(n: int) -> dict:
    acls = bindings(n)
    with tempfile.TemporaryDirectory() as tmp:
        tf, js = Path(tmp) / "acls.tf", Path(tmp) / "show.json"
        tf.write_text(write(acls).text)
        js.write_text(show_json(acls))
        read_tf, t_tf = timed(lambda: load_acl_set(tf))
        read_js, t_js = timed(lambda: load_acl_set(js))
        assert read_tf.bindings == read_js.bindings == acls
        _, t_json = timed(lambda: dump_acls(read_tf.bindings, "json"))
        _, t_write = timed(lambda: write(read_tf.bindings))
        return {"bindings": n, "tf_mb": tf.stat().st_size / 1e6, "read_tf": t_tf, "read_show": t_js,
                "to_json": t_json, "to_tf": t_write}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="1,000 bindings only")
    parser.add_argument("--max", type=int, default=100_000, help="largest size (default 100,000)")
    args = parser.parse_args()
    sizes = [1_000] if args.quick else [n for n in (1_000, 10_000, 100_000) if n <= args.max]
    rows = [run(n) for n in sizes]
    print(f"{'bindings':>9} {'.tf MB':>7} {'read .tf (s)':>13} {'read show -json (s)':>20} {'-> json (s)':>12} "
          f"{'-> terraform (s)':>17}")
    for r in rows:
        print(f"{r['bindings']:>9,} {r['tf_mb']:>7.1f} {r['read_tf']:>13.2f} {r['read_show']:>20.2f} "
              f"{r['to_json']:>12.2f} {r['to_tf']:>17.2f}")
    for a, b in zip(rows, rows[1:]):
        print(f"growth x{b['bindings'] / a['bindings']:.0f} bindings: read .tf x{b['read_tf'] / a['read_tf']:.1f}, "
              f"show -json x{b['read_show'] / a['read_show']:.1f}, to json x{b['to_json'] / a['to_json']:.1f}, "
              f"to terraform x{b['to_tf'] / a['to_tf']:.1f}")


if __name__ == "__main__":
    main()
