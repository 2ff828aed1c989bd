"""Synthetic rules files for the rules benchmarks and the parser-scaling tests.

``generate_varied`` writes what team files really look like: rules that differ in shape the way
hand-written rules do (one principal or a set of 3-25, `like` principal prefixes, User and
ServiceAccount principals, single operations, `*` and operation sets, `=` / `like` / `in {...}` /
`matching /.../` / `*` resource matchers with 1-12 names per set, Topic, Group, TransactionalId and
Cluster, deny rules first, line and block comments, blank lines, rules split over lines). It is
seeded, so a size always gives the same file. ``generate`` is the old every-rule-alike file, kept
as a second row in the benchmark.

    python tests/bench/gen_rules.py varied 10000 > rules.acl
"""

from __future__ import annotations

import random

HEADER = [
    "// generated for the authz rules benchmark",
    "from io.kroxylicious.filter.authorization import TopicResource as Topic, GroupResource as Group,",
    "    TransactionalIdResource as TransactionalId, ClusterResource as Cluster;",
    "from io.kroxylicious.authorizer.provider.acl.allow import ServiceAccount;",
]

_OPS = {
    "Topic": ["READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"],
    "Group": ["READ", "DELETE", "DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"],
    "TransactionalId": ["WRITE", "DESCRIBE"],
    "Cluster": ["CREATE", "ALTER", "DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "CONNECT"],
}
_TEAMS = ["payments", "orders", "risk", "ledger", "search", "ml", "fraud", "billing", "ops", "identity",
          "shipping", "catalog", "pricing", "growth", "data-eng", "sre"]
_DOMAINS = ["events", "commands", "cdc", "audit", "dlq", "retry", "snapshots", "metrics", "state"]
_REGIONS = ["eu", "us", "apac", "eu-west-1", "us-east-2"]
_ROLES = ["svc", "app", "batch", "stream", "user"]


# Sizes of the name pools, set per file: a bigger file belongs to a bigger organisation (more services
# and topics), so each service keeps about the same number of rules whatever the file's size.
_POOL = {"principals": 400, "topics": 3000, "units": 1}


def _team(rand: random.Random) -> str:
    # Bigger organisations have more teams (payments, payments-2, ...), not busier ones.
    unit = rand.randrange(_POOL["units"])
    return rand.choice(_TEAMS) + (f"-{unit + 1}" if unit else "")


def _who(rand: random.Random, team: str) -> str:
    # Services are reused across several rules (a service has several grants), as in real files.
    return f"{rand.choice(_ROLES)}-{team}-{rand.randrange(_POOL['principals'])}"


def _principal(rand: random.Random, team: str, effect: str) -> tuple[str, str]:
    ptype = "ServiceAccount" if rand.random() < 0.2 else "User"
    r = rand.random()
    if r < 0.58:
        return ptype, f'= "{_who(rand, team)}"'
    if r < 0.83:
        names = dict.fromkeys(_who(rand, team) for _ in range(rand.randint(3, 25)))
        return ptype, "in {" + ", ".join(f'"{n}"' for n in names) + "}"
    if r < 0.97:
        return ptype, f'like "{rand.choice(_ROLES)}-{team}-{rand.choice(["", "", "1", "2", "batch-"])}*"'
    return ptype, "*"


def _operations(rand: random.Random, rtype: str) -> str:
    ops = _OPS[rtype]
    r = rand.random()
    if r < 0.45:
        return rand.choice(ops)
    if r < 0.88:
        chosen = rand.sample(ops, rand.randint(2, min(5, len(ops))))
        sep = rand.choice([", ", ","])
        return "{" + sep.join(chosen) + "}"
    return "*"


def _topic(rand: random.Random, team: str) -> str:
    return f"{team}.{rand.choice(_DOMAINS)}.{rand.choice(_REGIONS)}.e{rand.randrange(_POOL['topics'])}"


def _resource(rand: random.Random, rtype: str, team: str, effect: str, principal_any: bool) -> str:
    if rtype == "Cluster":
        return rand.choice(['= "kafka-cluster"', "*"])
    r = rand.random()
    if principal_any or effect == "deny":
        r = r * 0.88  # everyone's rules and deny rules name what they cover: no `*` resource
    if r < 0.34:
        return f'= "{_topic(rand, team)}"'
    if r < 0.64:
        depth = rand.choice([1, 2, 2, 3, 3, 3])
        parts = [team, rand.choice(_DOMAINS), rand.choice(_REGIONS)][:depth]
        return f'like "{".".join(parts)}.*"'
    if r < 0.86:
        names = dict.fromkeys(_topic(rand, team) for _ in range(rand.randint(1, 12)))
        return "in {" + ", ".join(f'"{n}"' for n in names) + "}"
    if r < 0.95:
        return rf"matching /{team}\\.{rand.choice(_DOMAINS)}\\.[a-z0-9-]+\\.e[0-9]+/"
    return "*"


def _rule(rand: random.Random, effect: str) -> str:
    rtype = rand.choices(["Topic", "Group", "TransactionalId", "Cluster"], [60, 25, 10, 5])[0]
    team = _team(rand)
    ptype, ppred = _principal(rand, team, effect)
    ops = _operations(rand, rtype)
    rpred = _resource(rand, rtype, team, effect, ppred == "*")
    text = f"{effect} {ptype} with name {ppred} to {ops} {rtype} with name {rpred};"
    if rand.random() < 0.08:  # long rules get wrapped by hand
        text = text.replace(" to ", "\n    to ", 1).replace(f" {rtype} with", f"\n    {rtype} with", 1)
    return text


def generate_varied(n: int, seed: int = 7) -> str:
    rand = random.Random(seed)
    _POOL["principals"] = max(40, n // 200)  # about ten rules name each service
    _POOL["topics"] = max(300, n // 30)
    _POOL["units"] = max(1, n // 10_000)
    lines = list(HEADER)
    denies = max(1, n // 12)
    for i in range(n):
        effect = "deny" if i < denies else "allow"
        r = rand.random()
        if r < 0.05:
            lines.append(f"// {rand.choice(_TEAMS)}: ticket SEC-{rand.randrange(10_000)}")
        elif r < 0.06:
            lines.append(f"/* owner: {rand.choice(_TEAMS)}, see wiki/kafka/acls */")
        elif r < 0.09:
            lines.append("")
        lines.append(_rule(rand, effect))
    lines.append("otherwise deny;")
    return "\n".join(lines) + "\n"


def generate(n: int, seed: int = 7) -> str:
    """Every rule one of five fixed shapes (the old benchmark file)."""
    rand = random.Random(seed)
    lines = ["// generated for the authz rules benchmark",
             "from io.kroxylicious.filter.authorization import TopicResource as Topic, GroupResource as Group, "
             "TransactionalIdResource as TransactionalId;"]
    denies = n // 20
    for i in range(n):
        team = f"team{i % 997}"
        user = f"svc-{i}"
        kind = i % 5
        if kind == 0:
            rule = f'allow User with name = "{user}" to {{READ, WRITE}} Topic with name like "{team}.{i}-*";'
        elif kind == 1:
            rule = f'allow User with name in {{"{user}", "{user}-b"}} to READ Group with name = "{team}-g{i}";'
        elif kind == 2:
            rule = f'allow User with name = "{user}" to * Topic with name = "{team}.events-{i}";'
        elif kind == 3:
            rule = f'allow User with name = "{user}" to WRITE TransactionalId with name like "{team}-tx-{i}-*";'
        else:
            rule = f'allow User with name = "{user}" to DESCRIBE Topic with name *;'
        if i < denies:
            rule = f'deny User with name = "{user}-x" to READ Topic with name = "{team}.secret-{rand.randrange(10**6)}";'
        lines.append(rule)
    lines.append("otherwise deny;")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    kind, size = (sys.argv[1], int(sys.argv[2])) if len(sys.argv) > 2 else ("same", int(sys.argv[1]))
    sys.stdout.write(generate_varied(size) if kind == "varied" else generate(size))
