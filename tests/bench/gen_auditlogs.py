"""Realistic kafka-authorizer.log generator for the whatif benchmarks (never run by `make test`).

Hundreds of principals (service accounts, TLS DNs, a few SASL names), thousands of topics, groups
and transactional ids, thousands of client hosts (IPv4 and Java's uncompressed IPv6), requests that
fit their resources (Produce/WRITE on topics, OffsetCommit/READ on groups, InitProducerId on the
cluster...), a Zipf-like popularity, allowed lines at DEBUG or TRACE, denials at INFO or TRACE, and
several formats and layouts (KRaft, ZK 2.4+, Confluent/2.0 pattern lines, Strimzi, CRI-prefixed),
plus the rare odd lines real files hold (non-decision DEBUG lines, a stack trace, a multi-line
group id). Deterministic for a seed.

    python tests/bench/gen_auditlogs.py OUT_DIR --lines 7000000 --single      # one big file
    python tests/bench/gen_auditlogs.py OUT_DIR --lines 10000000 --files 24   # a rotated set
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import random
import zlib
from datetime import datetime, timedelta
from pathlib import Path

SUFFIX = " (kafka.authorizer.logger)"
TEAMS = ["orders", "payments", "billing", "search", "ads", "fraud", "catalog", "shipping", "users", "audit",
         "metrics", "mobile", "web", "risk", "ledger", "inventory", "pricing", "reco", "mail", "identity"]


class Universe:
    """Principals, resources, hosts and the ACLs that grant them, all from one seed."""

    def __init__(self, seed: int = 7, principals: int = 400, topics: int = 3000, groups: int = 800,
                 txids: int = 300, hosts: int = 4000):
        r = random.Random(seed)
        self.principals = []
        for i in range(principals):
            team = TEAMS[i % len(TEAMS)]
            kind = r.random()
            if kind < 0.75:
                p = f"User:svc-{team}-{i}"
            elif kind < 0.95:
                p = f"User:CN={team}-client-{i}.prod.example.com,OU={team.title()},O=Example Corp,L=Berlin,C=DE"
            else:
                p = f"User:{team}.operator{i}@EXAMPLE.COM"
            self.principals.append((p, team))
        self.topics = [f"{TEAMS[i % len(TEAMS)]}.{r.choice(['events', 'commands', 'changelog', 'dlq', 'raw', 'enriched'])}"
                       f".v{r.randrange(1, 4)}-{i}" for i in range(topics)]
        self.groups = [f"{TEAMS[i % len(TEAMS)]}-consumer-{i}" for i in range(groups)]
        self.txids = [f"{TEAMS[i % len(TEAMS)]}-tx-{i}" for i in range(txids)]
        self.hosts = []
        for i in range(hosts):
            if r.random() < 0.05:
                self.hosts.append(f"2001:db8:{i % 256:x}:0:0:0:{r.randrange(1, 0xffff):x}:{r.randrange(1, 0xffff):x}")
            else:
                self.hosts.append(f"10.{r.randrange(0, 64)}.{r.randrange(0, 256)}.{r.randrange(1, 255)}")
        self.seed = seed


def _h(*parts) -> int:
    """A stable hash (Python's hash() of str changes per process)."""
    return zlib.crc32(repr(parts).encode())


def _rule(rtype: str, name: str, pattern: str, principal: str, op: str, perm: str, record: bool = False) -> str:
    o, c = ("[", "]") if record else ("(", ")")
    return (f"MatchingAcl(acl=StandardAcl{o}resourceType={rtype}, resourceName={name}, patternType={pattern}, "
            f"principal={principal}, host=*, operation={op}, permissionType={perm}{c})")


_KRAFT_TO_ZK = {"READ": "Read", "WRITE": "Write", "DESCRIBE": "Describe", "CREATE": "Create",
                "IDEMPOTENT_WRITE": "IdempotentWrite", "DESCRIBE_CONFIGS": "DescribeConfigs", "ALTER": "Alter"}
_TYPE_PASCAL = {"TOPIC": "Topic", "GROUP": "Group", "CLUSTER": "Cluster", "TRANSACTIONAL_ID": "TransactionalId"}


def bodies(u: Universe, count: int = 60000, seed: int = 11) -> list[tuple]:
    """Distinct requests: (principal, host, op, rtype, name, request, decision, rule, level_if_logged)."""
    r = random.Random(seed)
    by_team = {}
    for t in u.topics:
        by_team.setdefault(t.split(".")[0], []).append(t)
    out = []
    seen = set()
    while len(out) < count:
        p, team = u.principals[int(len(u.principals) * r.random() ** 1.6)]
        host = u.hosts[(_h(p, r.randrange(12)) % len(u.hosts))]
        kind = r.random()
        own = by_team[team]
        if kind < 0.40:
            rtype, op, req = "TOPIC", "READ", "Fetch"
            name = r.choice(own) if r.random() < 0.8 else r.choice(u.topics)
        elif kind < 0.65:
            rtype, op, req = "TOPIC", "WRITE", "Produce"
            name = r.choice(own) if r.random() < 0.9 else r.choice(u.topics)
        elif kind < 0.78:
            rtype, op, req = "TOPIC", "DESCRIBE", "Metadata"
            name = r.choice(u.topics)
        elif kind < 0.90:
            rtype, op, req = "GROUP", "READ", r.choice(["OffsetCommit", "JoinGroup", "Heartbeat", "SyncGroup",
                                                        "OffsetFetch"])
            name = u.groups[(_h(p, team) + r.randrange(3)) % len(u.groups)]
        elif kind < 0.95:
            rtype, op, req = "TRANSACTIONAL_ID", r.choice(["WRITE", "DESCRIBE"]), r.choice(["InitProducerId",
                                                                                             "AddPartitionsToTxn",
                                                                                             "EndTxn"])
            name = u.txids[_h(p) % len(u.txids)]
        elif kind < 0.98:
            rtype, op, req, name = "CLUSTER", "IDEMPOTENT_WRITE", "InitProducerId", "kafka-cluster"
        else:
            rtype, op, req = "TOPIC", r.choice(["CREATE", "DESCRIBE_CONFIGS", "ALTER"]), "CreateTopics"
            name = r.choice(own)
        key = (p, host, op, rtype, name)
        if key in seen:
            continue
        seen.add(key)
        granted = name.startswith(team + ".") or name.startswith(team + "-") or rtype == "CLUSTER"
        if p.endswith("-0") or p.endswith("-1"):
            decision, rule = "ALLOWED", "SuperUser"
        elif granted and r.random() < 0.97:
            pattern, acl_name = ("PREFIXED", team + ("." if rtype == "TOPIC" else "-")) if r.random() < 0.7 else \
                ("LITERAL", name)
            if rtype == "CLUSTER":
                pattern, acl_name = "LITERAL", "kafka-cluster"
            decision, rule = "ALLOWED", _rule(rtype, acl_name, pattern, p, op if r.random() < 0.8 else "ALL", "ALLOW",
                                              record=r.random() < 0.05)
        elif r.random() < 0.3:
            decision, rule = "DENIED", _rule(rtype, name, "LITERAL", p, op, "DENY")
        else:
            decision, rule = "DENIED", "DefaultDeny"
        trace = r.random() < (0.1 if req == "Metadata" else 0.03)
        level = "TRACE" if trace else ("DEBUG" if decision == "ALLOWED" else "INFO")
        out.append((p, host, op, rtype, name, req, decision, rule, level))
    return out


def message(b: tuple, fmt: str) -> str:
    p, host, op, rtype, name, req, decision, rule, _ = b
    word = "Allowed" if decision == "ALLOWED" else "Denied"
    if fmt == "kraft":
        return (f"Principal = {p} is {word} operation = {op} from host = {host} on resource = "
                f"{_TYPE_PASCAL[rtype]}:LITERAL:{name} for request = {req} with resourceRefCount = 1 based on rule {rule}")
    zk_op = _KRAFT_TO_ZK.get(op, op.title())
    if fmt == "zk24":
        return (f"Principal = {p} is {word} Operation = {zk_op} from host = {host} on resource = "
                f"{_TYPE_PASCAL[rtype]}:LITERAL:{name} for request = {req} with resourceRefCount = 1")
    # Confluent Server / 2.0-2.3: no request, no rule
    return f"Principal = {p} is {word} Operation = {zk_op} from host = {host} on resource = {_TYPE_PASCAL[rtype]}:LITERAL:{name}"


ODD_LINES = [
    "{ts} DEBUG principal = User:svc-orders-0 is a super user, allowing operation without checking acls.{sfx}",
    "{ts} DEBUG No acl found for resource ResourcePattern(resourceType=TOPIC, name=tmp, patternType=LITERAL), "
    "authorized = false{sfx}",
]
STACK = ["java.lang.IllegalStateException: appender misrouted", "\tat kafka.server.KafkaApis.handle(KafkaApis.scala:123)",
         "\tat java.base/java.lang.Thread.run(Thread.java:833)"]


def write_log(path: Path, lines: int, u: Universe, pool: list[tuple], weights: list[float], start: datetime,
              formats: tuple = (("kraft", 0.88), ("zk24", 0.1), ("pattern", 0.02)), layout: str = "apache",
              seed: int = 1, odd_every: int = 50000) -> int:
    """Write `lines` physical lines to path (gzip if it ends in .gz); returns the byte size."""
    r = random.Random(seed)
    cum = list(itertools.accumulate(weights))
    fmt_names = [f for f, _ in formats]
    fmt_cum = list(itertools.accumulate(w for _, w in formats))
    opener = (lambda: gzip.open(path, "wt", encoding="utf-8", compresslevel=1, newline="")) if path.name.endswith(
        ".gz") else (lambda: open(path, "w", encoding="utf-8", newline=""))
    # Rendered messages are cached per (request, format): a file repeats the same requests all day.
    cache: dict = {}
    per_second = max(1, lines // 3600 + 1)
    written = 0
    with opener() as fh:
        t = start
        while written < lines:
            n = min(200_000, lines - written)
            picks = r.choices(range(len(pool)), cum_weights=cum, k=n)
            fpicks = r.choices(range(len(fmt_names)), cum_weights=fmt_cum, k=n)
            out = []
            for i in range(n):
                if (written + i) % per_second == 0:
                    t += timedelta(seconds=1)
                    stamp = t.strftime("%Y-%m-%d %H:%M:%S")
                    stamp_iso = t.strftime("%Y-%m-%dT%H:%M:%S")
                ms = f"{(written + i) % 1000:03d}"
                k = (picks[i], fpicks[i])
                msg = cache.get(k)
                if msg is None:
                    msg = cache[k] = message(pool[picks[i]], fmt_names[fpicks[i]])
                level = pool[picks[i]][8]
                if layout == "strimzi":
                    out.append(f"{stamp},{ms} {level} {msg}{SUFFIX} [data-plane-kafka-request-handler-{i % 8}]\n")
                elif layout == "cri":
                    out.append(f"{stamp_iso}.{ms}123456Z stdout F [{stamp},{ms}] {level} {msg}{SUFFIX}\n")
                else:
                    out.append(f"[{stamp},{ms}] {level} {msg}{SUFFIX}\n")
            written += n
            if odd_every and written // odd_every != (written - n) // odd_every:
                # The rare lines real files hold: non-decision DEBUG lines, a stack trace, a multi-line group id.
                ts = f"[{stamp},{ms}]"
                out.append(ODD_LINES[0].format(ts=ts, sfx=SUFFIX) + "\n")
                out.append(ODD_LINES[1].format(ts=ts, sfx=SUFFIX) + "\n")
                out += [s + "\n" for s in STACK]
                out.append(f"{ts} INFO Principal = User:svc-web-12 is Denied operation = READ from host = 10.9.9.9 on "
                           f"resource = Group:LITERAL:grp\n")
                out.append(f"with-newline for request = JoinGroup with resourceRefCount = 1 based on rule DefaultDeny"
                           f"{SUFFIX}\n")
                written += 7
            fh.write("".join(out))
    return path.stat().st_size


def weights_for(pool: list, seed: int = 3) -> list[float]:
    r = random.Random(seed)
    order = list(range(len(pool)))
    r.shuffle(order)
    w = [0.0] * len(pool)
    for rank, i in enumerate(order):
        w[i] = 1.0 / (rank + 10) ** 1.1
    return w


def single(out: Path, lines: int, seed: int = 7) -> Path:
    u = Universe(seed)
    pool = bodies(u)
    path = out / "kafka-authorizer.log"
    write_log(path, lines, u, pool, weights_for(pool), datetime(2026, 11, 20, 0, 0, 0), seed=seed)
    return path


def rotated(out: Path, lines: int, files: int = 24, seed: int = 7, gzip_every: int = 4) -> list[Path]:
    """An hourly-rotated set from one broker per layout: KRaft, ZK 2.4+, Strimzi, CRI; some files gzipped."""
    u = Universe(seed)
    pool = bodies(u)
    w = weights_for(pool)
    paths = []
    per = lines // files
    start = datetime(2026, 11, 20, 0, 0, 0)
    layouts = [("apache", (("kraft", 0.97), ("pattern", 0.03))), ("apache", (("zk24", 1.0),)),
               ("strimzi", (("kraft", 1.0),)), ("cri", (("kraft", 1.0),))]
    for f in range(files):
        hour = start + timedelta(hours=f)
        broker = f % len(layouts)
        layout, formats = layouts[broker]
        d = out / f"broker-{broker}"
        d.mkdir(parents=True, exist_ok=True)
        name = f"kafka-authorizer.log.{hour:%Y-%m-%d-%H}"
        if gzip_every and f % gzip_every == gzip_every - 1:
            name += ".gz"
        n = per if f < files - 1 else lines - per * (files - 1)
        write_log(d / name, n, u, pool, w, hour, formats=formats, layout=layout, seed=seed + f)
        paths.append(d / name)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=24)
    ap.add_argument("--single", action="store_true")
    ap.add_argument("--gzip-every", type=int, default=4, help="gzip every Nth rotated file (0: none)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.single:
        print(single(args.out, args.lines))
    else:
        for p in rotated(args.out, args.lines, args.files, gzip_every=args.gzip_every):
            print(p)


if __name__ == "__main__":
    main()
