"""`make fuzz`: coverage-guided fuzzing (atheris, libFuzzer) of every reader of untrusted text.

    python tests/bench/fuzz_readers.py                      # every target, 1,000,000 inputs in total
    python tests/bench/fuzz_readers.py --total 50000        # a quicker run
    python tests/bench/fuzz_readers.py --target requests --total 200000

The readers and the errors each may raise are in tests/hostile/readers.py (the property tests use
the same table). Any other exception, a hang over 10 s or 2 GB of memory is a crash: libFuzzer
stops that target and writes the input to build/fuzz/crashes/. Each target starts from a seed
corpus of valid and hostile documents (build/fuzz/corpus/, regenerated, never committed) and
runs in its own process, one after the other (the machine has 2 cores shared with others).
Without atheris (it needs a CPython it has wheels for), hypothesis generates the inputs instead.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
WORK = ROOT / "build" / "fuzz"


# -- worker: one target under atheris ---------------------------------------------------------------

def worker(target: str, libfuzzer_args: list[str]) -> None:
    import atheris

    with atheris.instrument_imports(include=["kafka_authz_cli"]):
        from kafka_authz_cli.errors import InputError
        from kafka_authz_cli.formats.strict_input import decode_utf8
        from tests.hostile.readers import READERS

    reader, allowed = READERS[target]

    def one_input(data: bytes) -> None:
        try:
            text = decode_utf8(data, "fuzz")
        except InputError:
            return
        try:
            reader(text)
        except allowed:
            pass

    atheris.Setup([sys.argv[0], *libfuzzer_args], one_input)
    atheris.Fuzz()


# -- fallback: hypothesis at scale ------------------------------------------------------------------------

def hypothesis_run(target: str, runs: int) -> dict:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from kafka_authz_cli.errors import InputError
    from kafka_authz_cli.formats.strict_input import decode_utf8
    from tests.hostile.readers import READERS

    reader, allowed = READERS[target]
    count = 0

    @settings(max_examples=runs, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.binary(max_size=2048) | st.text(max_size=2048).map(str.encode))
    def one(data):
        nonlocal count
        count += 1
        try:
            text = decode_utf8(data, "fuzz")
        except InputError:
            return
        try:
            reader(text)
        except allowed:
            pass

    start = time.monotonic()
    try:
        one()
        crash = None
    except Exception as exc:  # noqa: BLE001 - a crash is what we are looking for
        crash = f"{type(exc).__name__}: {exc}"
    return {"target": target, "engine": "hypothesis", "runs": count, "seconds": time.monotonic() - start,
            "crashes": 0 if crash is None else 1, "crash": crash}


# -- driver ---------------------------------------------------------------------------------------------

def seed_corpus(target: str) -> Path:
    from tests.hostile.hostile_catalogue import REQUEST, RULES, TYPES, _record, slot_variants

    corpus = WORK / "corpus" / target
    corpus.mkdir(parents=True, exist_ok=True)
    seeds: list[bytes] = []
    slots = {"acls-json": "acls", "acls-kafka-acls": "acls", "acls-csv": "acls", "acls-detected": "acls",
             "requests": "requests", "scram-records": "record", "types": "types", "users-csv": "users",
             "properties": "properties", "rules-lint": "rules", "json": "acls", "json-lines": "requests"}
    if target in slots:
        seeds += [content for content, _ in slot_variants()[slots[target]].values() if len(content) < 4096]
    extra = {
        "add-scram": [b'SCRAM-SHA-256=[name=alice,password=alice-secret]',
                      b'SCRAM-SHA-512=[name=a,iterations=8192,salt="c2FsdA==",saltedpassword="YWJj"]'],
        "credential-string": [b"salt=c2FsdA==,stored_key=YWJj,server_key=YWJj,iterations=4096"],
        "scram-client-first": [b"n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL", b"n,a=alice,n=alice,r=abc,tokenauth=true"],
        "json-lines": [(json.dumps(REQUEST) + "\n" + json.dumps(_record()) + "\n").encode()],
        "rules-lint": [RULES.encode()] + [p.read_bytes() for p in
                                         sorted((ROOT / "tests/conformance/kroxylicious").glob("*/*.acl"))[:40]],
        "types": [json.dumps(TYPES).encode()],
    }
    seeds += extra.get(target, [])
    seeds += _ecosystem_seeds(target)
    if target.endswith("-fields"):  # a field (first byte) and its new value (the rest)
        values = [b'null', b'1', b'"READ"', b'""', b'[]', b'{}', b'"User:alice"', b'"*"', b'4096', b'true']
        seeds += [bytes([0x30 + k]) + v for k in range(12) for v in values]
    for i, seed in enumerate(seeds):
        (corpus / f"seed-{i}").write_bytes(seed)
    return corpus


#: the ecosystem targets: the directory of tests/ecosystem/corpora/ holding the real files of each, and their endings
_ECOSYSTEM_CORPUS = {"strimzi": ("strimzi", (".yaml", ".yml", ".json")), "ksm-yaml": ("ksm", (".yml", ".yaml")),
                     "julieops": ("julieops", (".yaml", ".yml", ".json")), "jikkou": ("jikkou", (".yaml",)),
                     "kafka-gitops": ("kafka-gitops", (".yaml", ".yml")),
                     "terraform": ("terraform", (".tf", ".tfstate", ".json")),
                     "terraform-skip": ("terraform", (".tf",))}


def _ecosystem_seeds(target: str) -> list[bytes]:
    """The real files of the format (tests/ecosystem/corpora/), its valid base and its small hostile variants."""
    from tests.hostile.hostile_ecosystem import (
        VALID,
        jikkou_match,
        julieops_laughs,
        strimzi_alias_list,
        terraform_doubling,
    )

    if target == "jikkou-match":
        return [b"orders-.*", b"(a+)+$", rb"(a+)+\1x", rb"[a-z]{3,5}\.v\d", b"(?i)ORDERS|payments", b"((a))"]
    if target not in _ECOSYSTEM_CORPUS:
        return []
    directory, endings = _ECOSYSTEM_CORPUS[target]
    files = [p.read_bytes() for p in sorted((ROOT / "tests" / "ecosystem" / "corpora" / directory).rglob("*"))
             if p.suffix in endings and not p.name.endswith(".bindings.json") and p.stat().st_size < 4096]
    fmt = "terraform" if target.startswith("terraform") else target
    hostile = {"strimzi": [strimzi_alias_list(20, 20)], "julieops": [julieops_laughs()],
               "jikkou": [jikkou_match("(a+)+$")], "terraform": [terraform_doubling(6), terraform_doubling(6, True)]}
    return files + [VALID[fmt].encode()] + [h.encode() for h in hostile.get(fmt, [])]


def atheris_usable() -> bool:
    """atheris 3.0+ is importable (2.x mis-instruments Python 3.11 loops: false crashes)."""
    try:
        from importlib.metadata import version

        import atheris  # noqa: F401
    except ImportError:
        return False
    return int(version("atheris").split(".")[0]) >= 3


def run_target(target: str, runs: int, max_len: int) -> dict:
    if not atheris_usable():
        return hypothesis_run(target, runs)
    corpus = seed_corpus(target)
    crashes = WORK / "crashes"
    crashes.mkdir(parents=True, exist_ok=True)
    args = [sys.executable, __file__, "--worker", target, f"-runs={runs}", f"-max_len={max_len}", "-timeout=10",
            "-rss_limit_mb=2048", f"-artifact_prefix={crashes}/{target}-", "-print_final_stats=1", str(corpus)]
    start = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True, errors="replace")
    seconds = time.monotonic() - start
    log = proc.stderr
    done = re.search(r"Done (\d+) runs", log)
    stat = re.search(r"stat::number_of_executed_units:\s*(\d+)", log)
    count = int(done.group(1)) if done else int(stat.group(1)) if stat else 0
    crashed = proc.returncode != 0
    crash = None
    if crashed:
        tail = log[-3000:]
        crash = tail
    return {"target": target, "engine": "atheris", "runs": count, "seconds": seconds,
            "crashes": 1 if crashed else 0, "crash": crash}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--total", type=int, default=1_000_000, help="inputs over all targets")
    parser.add_argument("--target", action="append", help="fuzz only these targets (repeatable)")
    parser.add_argument("--max-len", type=int, default=4096)
    parser.add_argument("--json", type=Path, help="also write the summary here")
    ns, rest = parser.parse_known_args()
    from tests.hostile.readers import READERS

    targets = ns.target or sorted(READERS)
    unknown = [t for t in targets if t not in READERS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}; targets: {', '.join(sorted(READERS))}")
    share, extra = divmod(ns.total, len(targets))
    results = []
    print(f"{'target':<20} {'engine':<10} {'inputs':>10} {'seconds':>8} {'inputs/s':>9} crashes", flush=True)
    for i, target in enumerate(targets):
        r = run_target(target, max(1, share + (i < extra)), ns.max_len)
        results.append(r)
        rate = r["runs"] / r["seconds"] if r["seconds"] else 0
        print(f"{target:<20} {r['engine']:<10} {r['runs']:>10,} {r['seconds']:>8.1f} {rate:>9,.0f} {r['crashes']}",
              flush=True)
        if r["crash"]:
            print(r["crash"], flush=True)
    total = sum(r["runs"] for r in results)
    crashes = sum(r["crashes"] for r in results)
    print(f"{'total':<20} {'':<10} {total:>10,} {sum(r['seconds'] for r in results):>8.1f} {'':>9} {crashes}")
    if ns.json:
        ns.json.write_text(json.dumps(results, indent=2))
    return 1 if crashes else 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(main())
