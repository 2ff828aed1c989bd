"""Record Kafka's own JaasConfig parser (kafka-clients, by reflection) on many sasl.jaas.config texts:
tests/conformance/kafka-security/jaas_config.jsonl, checked by tests/cluster/test_jaas.py.

    python tests/live/tools/record_jaas.py     (needs Java 17 and Maven, like the live tests)
"""

import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from tests.live import kafka_broker  # noqa: E402

M = "org.apache.kafka.common.security.scram.ScramLoginModule"
HAND = [
    f'{M} required username="alice" password="s3cr=t";',
    f'{M} required username="al\\"ice" password="a\\\\b\\"c";',
    f'{M} required username="a" password="b"',
    f'{M} required username=alice password=secret;',
    f'{M} required username="a" password=1234;',
    f'{M} required username="a" password=12ab;',
    f'{M} required username="a" password=-x;',
    f"{M} required username='a' password='it''s';",
    f'{M} REQUIRED username="a";',
    f'{M} Optional;',
    f'{M} mandatory username="a";',
    f'{M} required username="a" password="b"; {M} required username="c";',
    f'{M} required // a comment\n username="a" password="b";',
    f'{M} required /* c */ username="a" /* password="x" */ password="b";',
    f'{M} required username="a" password="multi\nline";',
    f'{M} required username="a" password="\\n\\t\\101\\7\\477";',
    f'{M} required username="ü" password="日本";',
    f'{M} required username="a" password="b" ;  ',
    f'{M} required username "a";',
    f'{M} required username= ;',
    f'{M} required =x;',
    f'{M} required',
    f'{M}',
    "",
    "   ",
    "// only a comment",
    f'{M} required a/b="c";',
    f'{M} required $key_1-x="v";',
    f'{M} required username="a" password="b\\";',
    f'{M} required username="unterminated',
    f'{M} required username="a" password="b";;',
    f'{M} 1 username="a";',
    f'{M} required username=a.b-c password=x_y$z;',
]
ALPHABET = list('ab=;"\'\\ /*\n\t-$._1é') + ["required ", "password=", "username=", M + " ", "//", "/*", "*/"]


def random_cases(n: int, seed: int = 7) -> list[str]:
    rand = random.Random(seed)
    out = []
    for _ in range(n):
        head = rand.choice(["", M + " required ", M + " optional username=\"u\" "])
        out.append(head + "".join(rand.choice(ALPHABET) for _ in range(rand.randrange(0, 14))))
    return out


VALUE_CHARS = list('ab=;"\'\\ /*\t-$._1é日') + ["\\\"", "\\\\", "\\n", "\\101", "\\x", "//", "/*", "*/"]


def structured_cases(n: int, seed: int = 9) -> list[str]:
    """Well-formed-looking entries with hostile quoted and unquoted values."""
    rand = random.Random(seed)
    out = []
    for _ in range(n):
        parts = [M, rand.choice(["required", "Required", "sufficient", "optional", "requisite"])]
        for k in range(rand.randrange(1, 4)):
            value = "".join(rand.choice(VALUE_CHARS) for _ in range(rand.randrange(0, 8)))
            q = rand.choice(['"', '"', "'", ""])
            if q == '"':
                value = value.replace('"', '\\"')
            elif q == "'":
                value = value.replace("'", "\\'")
            parts.append(f"{rand.choice(['username', 'password', 'k_' + str(k)])}={q}{value}{q}")
        out.append(" ".join(parts) + rand.choice([";", ";", ";", " ;", "", "; "]))
    return out


def escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "u":
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def main() -> None:
    cases = HAND + random_cases(400) + structured_cases(600)
    cp = kafka_broker.classpath()
    proc = subprocess.run(["java", "-cp", cp, str(HERE / "JaasOracle.java")], input="".join(escape(c) + "\n" for c in cases),
                          capture_output=True, text=True, encoding="utf-8", check=True)
    results = proc.stdout.splitlines()
    assert len(results) == len(cases), proc.stderr
    out = ROOT / "tests" / "conformance" / "kafka-security" / "jaas_config.jsonl"
    with open(out, "w", encoding="utf-8") as fh:
        for text, line in zip(cases, results):
            parts = line.split("\t")
            if parts[0] == "OK":
                entries, rest = [], parts[1:]
                while rest:
                    module, flag, n = unescape(rest[0]), rest[1], int(rest[2])
                    opts = {unescape(rest[3 + 2 * i]): unescape(rest[4 + 2 * i]) for i in range(n)}
                    entries.append({"module": module, "flag": flag, "options": opts})
                    rest = rest[3 + 2 * n:]
                rec = {"text": text, "entries": entries}
            else:
                rec = {"text": text, "error": parts[1], "message": unescape(parts[2])}
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(f"{len(cases)} cases written to {out}")


if __name__ == "__main__":
    main()
