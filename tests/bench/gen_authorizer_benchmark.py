"""Kafka's own ``AuthorizerBenchmark`` workload as files `authz simulate` reads: ACL JSON + requests.

The ACLs are exactly those ``jmh-benchmarks/.../acl/AuthorizerBenchmark.prepareAclCache`` adds
(Kafka trunk 2024-09): resources ``foo-bar35_resource-<i>`` for i < resourceCount, every 10th a
GROUP (else a TOPIC), every 5th PREFIXED (else LITERAL); on each, ``aclCount`` ALLOW READ ACLs for
``User:test-user`` then ``User:test-user1`` .. ``User:test-user<aclCount-1>`` from host ``*``, each
followed by the same DENY with probability ``denyPercentage``; a PREFIXED TOPIC ``foo-bar35_resource-``
with ALLOW (and maybe DENY) READ for User:test-user from hosts ``127.0.0.0`` .. ``127.0.0.9``; and a
LITERAL TOPIC ``*`` with resourceCount/10 ALLOW READ ACLs for User:test-user whose host is
``"127.0.0" + hostId`` (no dot before the number: ``127.00``, ``127.0.01``, ... never equal a client
address text, so Kafka never matches them). Kafka's ``Random`` is seeded with the clock; here the
seed is fixed so that a run can be repeated.

The benchmark itself asks one action (WRITE on ``foo-bar35_resource-95`` from 127.0.0.1, see
:data:`KAFKA_ACTION`). The random requests (``requests``) spread over that workload: principals
test-user, its suffixed variants and one with no ACL, hosts 127.0.0.0-9, READ/WRITE/DESCRIBE,
existing topics and groups of both pattern types, and names no ACL names. Most (70%) come from
User:test-user, the benchmark's own principal, whom the unmatchable wildcard ACLs name.

    python tests/bench/gen_authorizer_benchmark.py OUT_DIR --resources 50000 --acls 10 --requests 20000
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Iterator

PREFIX = "foo-bar35_resource-"
PRINCIPAL = "User:test-user"
HOST_PRE_COUNT = 10
#: authorizeByResourceTypeHostName: the wildcard loop skips it (it never equals "127.0.0" + n).
SKIPPED_HOST = "127.0.0.2"
#: The one action AuthorizerBenchmark.testAuthorizer asks (request Produce).
KAFKA_ACTION = {"principal": PRINCIPAL, "host": "127.0.0.1", "operation": "WRITE", "resource_type": "TOPIC",
                "resource_name": PREFIX + "95", "request": "Produce"}


def _acl(rtype: str, name: str, pattern: str, principal: str, host: str, permission: str) -> dict:
    return {"resource_type": rtype, "resource_name": name, "pattern_type": pattern, "principal": principal,
            "host": host, "operation": "READ", "permission": permission}


def acls(resource_count: int, acl_count: int = 10, deny_percentage: float = 0.0, seed: int = 1) -> Iterator[dict]:
    """The ACLs of AuthorizerBenchmark.prepareAclCache, in the order it builds them."""
    rand = random.Random(seed)

    def should_deny() -> bool:
        return rand.random() * 100.0 - 1e-9 < deny_percentage

    for rid in range(resource_count):
        rtype = "GROUP" if rid % 10 == 0 else "TOPIC"
        pattern = "PREFIXED" if rid % 5 == 0 else "LITERAL"
        for aid in range(acl_count):
            principal = PRINCIPAL + ("" if aid == 0 else str(aid))
            yield _acl(rtype, PREFIX + str(rid), pattern, principal, "*", "ALLOW")
            if should_deny():
                yield _acl(rtype, PREFIX + str(rid), pattern, principal, "*", "DENY")
    for host_id in range(HOST_PRE_COUNT):
        yield _acl("TOPIC", PREFIX, "PREFIXED", PRINCIPAL, f"127.0.0.{host_id}", "ALLOW")
        if should_deny():
            yield _acl("TOPIC", PREFIX, "PREFIXED", PRINCIPAL, f"127.0.0.{host_id}", "DENY")
    for host_id in range(resource_count // 10):
        host = "127.0.0" + str(host_id)
        if host == SKIPPED_HOST:
            continue
        yield _acl("TOPIC", "*", "LITERAL", PRINCIPAL, host, "ALLOW")
        if should_deny():
            yield _acl("TOPIC", "*", "LITERAL", PRINCIPAL, host, "DENY")


def requests(count: int, resource_count: int, acl_count: int = 10, seed: int = 2) -> Iterator[dict]:
    """Random requests over the workload (deterministic for a seed)."""
    rand = random.Random(seed)
    principals = [PRINCIPAL + ("" if i == 0 else str(i)) for i in range(acl_count)] + ["User:nobody"]
    for _ in range(count):
        rid = rand.randrange(resource_count + resource_count // 10)  # ~9% names no ACL names
        rtype = "GROUP" if rid % 10 == 0 and rid < resource_count else "TOPIC"
        name = PREFIX + str(rid)
        if rid % 5 == 0 and rand.random() < 0.5:
            name += "-" + str(rand.randrange(100))  # under a PREFIXED resource
        principal = PRINCIPAL if rand.random() < 0.7 else rand.choice(principals)
        yield {"principal": principal, "host": f"127.0.0.{rand.randrange(HOST_PRE_COUNT)}",
               "operation": rand.choice(("READ", "WRITE", "DESCRIBE")), "resource_type": rtype,
               "resource_name": name}


def write_acls(path: Path, resource_count: int, acl_count: int = 10, deny_percentage: float = 0.0,
               seed: int = 1) -> int:
    """The ACL JSON file (authz's canonical format, one ACL per line); how many ACLs."""
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('{\n  "version": 1,\n  "acls": [\n')
        for acl in acls(resource_count, acl_count, deny_percentage, seed):
            fh.write((",\n" if n else "") + "    " + json.dumps(acl))
            n += 1
        fh.write("\n  ]\n}\n")
    return n


def write_requests(path: Path, count: int, resource_count: int, acl_count: int = 10, seed: int = 2) -> None:
    """The requests as JSON lines (what `authz simulate --requests` reads)."""
    with open(path, "w", encoding="utf-8") as fh:
        for rec in requests(count, resource_count, acl_count, seed):
            fh.write(json.dumps(rec) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--resources", type=int, default=50_000)
    parser.add_argument("--acls", type=int, default=10, help="aclCount: ACLs per resource")
    parser.add_argument("--deny", type=float, default=0.0, help="denyPercentage")
    parser.add_argument("--requests", type=int, default=20_000)
    ns = parser.parse_args()
    ns.out.mkdir(parents=True, exist_ok=True)
    n = write_acls(ns.out / "acls.json", ns.resources, ns.acls, ns.deny)
    write_requests(ns.out / "requests.jsonl", ns.requests, ns.resources, ns.acls)
    print(f"{ns.out}/acls.json: {n:,} ACLs; {ns.out}/requests.jsonl: {ns.requests:,} requests")


if __name__ == "__main__":
    main()
