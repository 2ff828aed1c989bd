"""A team estate: the ACL set of a platform serving many teams, shaped to break class-building.

500 teams x 20 services (``User:team<t>-svc<s>``), each service owning topics
``team<t>.svc<s>.topic<k>``, its consumer group and transactional id, with the shares seen in real
estates (the issue "Exact at real size" gives them):

- 30% PREFIXED (``team<t>.svc<s>.`` or the team's ``team<t>.``), the rest LITERAL;
- 10% host-specific: IP allow-lists, each team's services from a few addresses of its own subnet
  (``10.<t/256>.<t%256>.<1..8>``), so that one ACL set names thousands of hosts;
- 10% ``User:*`` (public topics of a team, read by everyone);
- 5% DENY (a service kept off another team's topics, or off a host);
- 1% on the LITERAL ``*`` (monitoring and platform services with DESCRIBE everywhere, some from one
  host only: the ACLs that put a host into every name class);
- a few cluster ACLs (IDEMPOTENT_WRITE, DESCRIBE_CONFIGS) and super users ``User:admin``.

:func:`mutate` changes a fraction (or a count) of an ACL set as a pull request does: a third removed,
a third added (drawn from the same distribution), a third edited (principal, host or operation).

    python tests/bench/gen_team_estate.py OUT_DIR --acls 100000 [--changed 0.01 | --changed-count 10]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

TEAMS = 500
SERVICES = 20
SUPER_USERS = "User:admin"
TOPIC_OPS = ("READ", "WRITE", "DESCRIBE", "READ", "WRITE", "CREATE", "ALL", "DESCRIBE_CONFIGS", "ALTER_CONFIGS")
GROUP_OPS = ("READ", "DESCRIBE", "READ", "DELETE")
TXN_OPS = ("WRITE", "DESCRIBE")


def _host(rand: random.Random, team: int) -> str:
    return f"10.{team // 256}.{team % 256}.{rand.randrange(1, 9)}"


def _principal(rand: random.Random, team: int, service: int) -> str:
    return f"User:team{team}-svc{service}"


def one_acl(rand: random.Random) -> dict:
    """One ACL drawn from the estate's distribution."""
    team, service = rand.randrange(TEAMS), rand.randrange(SERVICES)
    roll = rand.random()
    principal = _principal(rand, team, service)
    host = _host(rand, team) if rand.random() < 0.10 else "*"
    permission = "DENY" if rand.random() < 0.05 else "ALLOW"
    if roll < 0.01:  # the literal '*': platform services, often from one host
        return {"resource_type": rand.choice(("TOPIC", "TOPIC", "GROUP")), "resource_name": "*",
                "pattern_type": "LITERAL", "principal": f"User:platform-{rand.randrange(40)}",
                "host": _host(rand, TEAMS + rand.randrange(20)) if rand.random() < 0.5 else "*",
                "operation": "DESCRIBE", "permission": permission}
    if roll < 0.015:
        return {"resource_type": "CLUSTER", "resource_name": "kafka-cluster", "pattern_type": "LITERAL",
                "principal": principal, "host": host,
                "operation": rand.choice(("IDEMPOTENT_WRITE", "DESCRIBE_CONFIGS", "DESCRIBE")),
                "permission": permission}
    if rand.random() < 0.10:  # a team's public topics
        principal = "User:*"
    kind = rand.random()
    if kind < 0.75:
        rtype, ops = "TOPIC", TOPIC_OPS
    elif kind < 0.93:
        rtype, ops = "GROUP", GROUP_OPS
    else:
        rtype, ops = "TRANSACTIONAL_ID", TXN_OPS
    if rand.random() < 0.30:
        pattern = "PREFIXED"
        name = f"team{team}." if rand.random() < 0.3 else f"team{team}.svc{service}."
    else:
        pattern = "LITERAL"
        suffix = {"TOPIC": f"topic{rand.randrange(12)}", "GROUP": "group", "TRANSACTIONAL_ID": "tx"}[rtype]
        name = f"team{team}.svc{service}.{suffix}"
    if permission == "DENY" and principal != "User:*" and rand.random() < 0.5:
        # A service kept off another team's topics.
        other = rand.randrange(TEAMS)
        name = f"team{other}." if pattern == "PREFIXED" else f"team{other}.svc{rand.randrange(SERVICES)}.topic1"
    return {"resource_type": rtype, "resource_name": name, "pattern_type": pattern, "principal": principal,
            "host": host, "operation": rand.choice(ops), "permission": permission}


def acls(count: int, seed: int = 7) -> list[dict]:
    """``count`` distinct ACLs of the estate (deterministic for a seed)."""
    rand = random.Random(seed)
    out: dict[tuple, dict] = {}
    while len(out) < count:
        acl = one_acl(rand)
        out.setdefault(tuple(acl.values()), acl)
    return list(out.values())


def mutate(acl_list: list[dict], fraction: float = 0.01, count: int | None = None, seed: int = 11,
           draw=one_acl) -> list[dict]:
    """A changed copy: ``count`` (or ``fraction`` of the ACLs) changes, a third each removed, added
    (from ``draw``) and edited (another principal, host or operation)."""
    rand = random.Random(seed)
    changes = count if count is not None else max(1, int(len(acl_list) * fraction))
    out = list(acl_list)
    for i in range(changes):
        kind = i % 3
        if kind == 0 and out:
            out.pop(rand.randrange(len(out)))
        elif kind == 1:
            out.insert(rand.randrange(len(out) + 1), draw(rand))
        else:
            j = rand.randrange(len(out))
            acl = dict(out[j])
            field = rand.choice(("principal", "host", "operation"))
            if field == "principal":
                acl["principal"] = acl["principal"] + "-new" if acl["principal"] != "User:*" else "User:team1-svc1"
            elif field == "host":
                acl["host"] = "*" if acl["host"] != "*" else "10.9.9.9"
            else:
                acl["operation"] = "DESCRIBE" if acl["operation"] != "DESCRIBE" else "READ"
            out[j] = acl
    # distinct, as a set of bindings is
    seen: dict[tuple, dict] = {}
    for acl in out:
        seen.setdefault(tuple(acl.values()), acl)
    return list(seen.values())


def write_acls(path: Path, acl_list: list[dict]) -> int:
    """authz's canonical JSON, one ACL a line."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('{\n  "version": 1,\n  "acls": [\n')
        fh.write(",\n".join("    " + json.dumps(a) for a in acl_list))
        fh.write("\n  ]\n}\n")
    return len(acl_list)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--acls", type=int, default=100_000)
    parser.add_argument("--changed", type=float, default=0.01)
    parser.add_argument("--changed-count", type=int, default=None)
    ns = parser.parse_args()
    ns.out.mkdir(parents=True, exist_ok=True)
    old = acls(ns.acls)
    new = mutate(old, ns.changed, ns.changed_count)
    write_acls(ns.out / "old.json", old)
    write_acls(ns.out / "new.json", new)
    print(f"{ns.out}/old.json: {len(old):,} ACLs; {ns.out}/new.json: {len(new):,} ACLs")


if __name__ == "__main__":
    main()
