"""Principal mapping speed: Kafka-exact TLS/Kerberos mapping against a naive Python-re mapper.

    python tests/bench/bench_principal.py [--quick]

The exact mapper translates Java regexes and runs Java's find() loop and replacement parser in Python;
the baseline is the obvious re.fullmatch + re.sub reading of the same rules (wrong on Kafka's quirks,
but the cheapest thing that maps). Realistic varied DNs (service, partner, human, odd forms) at three
sizes; the ratio is exact / naive measured in the same run.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from timing import best_of  # noqa: E402

from kafka_authz_cli.principal import KerberosShortNamer, SslPrincipalMapper  # noqa: E402

TLS_RULES = [("^CN=(.*?),OU=ServiceUsers.*$", "$1", "L"), ("^CN=([^,]*),OU=Partners,O=(.*)$", "partner-$1", "L"),
             ("^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$", "$1", "U")]


def dns(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        kind = rnd.random()
        if kind < 0.5:
            out.append(f"CN=svc-{i},OU=ServiceUsers,O=Acme,L=Zurich,C=CH")
        elif kind < 0.7:
            out.append(f"CN=edi-{i},OU=Partners,O=Globex {rnd.randint(1, 99)}")
        elif kind < 0.9:
            out.append(f"CN=first.last{i},OU=Engineering,O=Acme,C=US")
        else:
            out.append(f"1.2.840.113549.1.9.1=#16{i:06x},O=Odd\\, Inc,C=US")
    return out


def naive_map(rules, dn):
    for pattern, repl, flag in rules:
        if re.fullmatch(pattern, dn):
            out = re.sub(pattern, lambda m: re.sub(r"\$(\d)", lambda g: m.group(int(g.group(1))) or "", repl), dn)
            return out.lower() if flag == "L" else out.upper() if flag == "U" else out
    return dn


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sizes = (1_000, 5_000, 20_000) if args.quick else (1_000, 10_000, 100_000)
    rules = ", ".join(f"RULE:{p}/{r}/{f}" for p, r, f in TLS_RULES) + ", DEFAULT"
    mapper = SslPrincipalMapper.from_rules(rules)
    namer = KerberosShortNamer.from_rules("EXAMPLE.COM", ["RULE:[2:$1@$0](kafka@EXAMPLE.COM)s/@.*//",
                                                          "RULE:[1:$1@$0](.*@EXAMPLE.COM)s/@.*//L", "DEFAULT"])
    print("TLS mapping: exact (Java semantics) vs naive Python re, best of 3")
    print(f"{'DNs':>8} {'naive s':>9} {'exact s':>9} {'exact/naive':>12} {'exact µs/DN':>12}")
    for n in sizes:
        data = dns(n)
        naive = best_of(lambda: [naive_map(TLS_RULES, d) for d in data])
        exact = best_of(lambda: [mapper.map(d) for d in data])
        print(f"{n:>8} {naive:>9.3f} {exact:>9.3f} {exact / naive:>11.2f}x {exact / n * 1e6:>12.1f}")
    print("Kerberos mapping: µs per name")
    for n in sizes:
        names = [f"user{i}@EXAMPLE.COM" if i % 3 else f"kafka/b{i}.example.com@EXAMPLE.COM" for i in range(n)]
        t = best_of(lambda: [namer.map(x) for x in names])
        print(f"{n:>8} {t:>9.3f} s {t / n * 1e6:>8.1f} µs/name")


if __name__ == "__main__":
    main()
