"""What telling a log from a file that is no log costs (whatif/sniffing.py), in-process, each best of a few runs taken in turns.

1. Real logs (stock layout, 10k / 50k / 250k lines, plain and gzip): whatif's per-file reader
   (`streams.read_stream`: the first MiB peeked and sniffed, then read) against the log4j reader
   alone (`auditlog.read_stream`, no peek) on the same file: the ratio is the check's overhead.
   The check alone (peek + sniff of the first MiB) is also timed against reading the whole file.
2. A file that is no log (KSM YAML, 64 KiB / 1 MiB / 16 MiB): the refusal against reading it as a
   log as before (every line quarantined): the refusal stays flat above the first MiB.

    python tests/bench/bench_wrong_kind.py
"""

from __future__ import annotations

import gzip
import io
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from kafka_authz_cli.errors import InputError  # noqa: E402
from kafka_authz_cli.whatif import auditlog, streams  # noqa: E402
from kafka_authz_cli.whatif.sniffing import not_a_log, peek  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def line(i: int) -> str:
    return (f"[2026-11-20 {i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d},000] DEBUG Principal = User:svc{i % 50} "
            f"is Allowed operation = READ from host = 10.0.{i % 7}.1 on resource = Topic:LITERAL:orders-{i % 300} "
            "for request = Fetch with resourceRefCount = 1 based on rule SuperUser (kafka.authorizer.logger)\n")


def read_with(reader, path: Path) -> int:
    stats = auditlog.ReadStats()
    with open(path, "rb") as fh:
        try:
            return sum(1 for _ in reader(fh, str(path), stats, []))
        except InputError:
            return -1


def check_only(data: bytes) -> None:
    _, head, whole = peek(io.BytesIO(data))
    assert not_a_log(head, whole, "f") is None


def paired(base, new, repeat: int = 5) -> tuple[float, float]:
    """Best of `repeat` of each, run in turns (a noisy machine disturbs both alike)."""
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for i, fn in enumerate((base, new)):
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best[0], best[1]


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="authz-wrongkind-"))
    print("real logs: whatif's reader (peek + sniff + read) vs the log4j reader alone")
    print(f"{'file':<22}{'MB':>8}{'reader s':>10}{'whatif s':>10}{'ratio':>8}")
    for n in (10_000, 50_000, 250_000):
        plain = tmp / f"{n}.log"
        plain.write_text("".join(line(i) for i in range(n)))
        packed = tmp / f"{n}.log.gz"
        packed.write_bytes(gzip.compress(plain.read_bytes(), 6))
        for f in (plain, packed):
            assert read_with(streams.read_stream, f) == read_with(auditlog.read_stream, f) == n
            base, new = paired(lambda: read_with(auditlog.read_stream, f), lambda: read_with(streams.read_stream, f))
            print(f"{f.name:<22}{f.stat().st_size / 1e6:>8.1f}{base:>10.3f}{new:>10.3f}{new / base:>8.3f}")
    print("\nthe check alone (peek + sniff of the first MiB) against reading the whole file, per file")
    print(f"{'file':<22}{'MB':>8}{'read s':>10}{'check ms':>10}{'ratio':>8}")
    for n in (10_000, 250_000):
        for f in (tmp / f"{n}.log", tmp / f"{n}.log.gz"):
            data = f.read_bytes()
            base, new = paired(lambda: read_with(auditlog.read_stream, f), lambda: check_only(data), 3)
            print(f"{f.name:<22}{f.stat().st_size / 1e6:>8.1f}{base:>10.3f}{new * 1000:>10.2f}{new / base:>8.4f}")
    print("\na file that is no log (KSM YAML): refused vs read as a log (every line quarantined)")
    print(f"{'file':<22}{'MB':>8}{'as log s':>10}{'refuse s':>10}{'ratio':>8}")
    one = (ROOT / "tests/ecosystem/corpora/ksm/example-acls.yml").read_text()
    body = one.split("\n", 1)[1]
    for size in (64 << 10, 1 << 20, 16 << 20):
        f = tmp / f"acls-{size >> 10}k.yml"
        f.write_text("users:\n" + body * (size // len(body) + 1))
        assert read_with(streams.read_stream, f) == -1
        base, new = paired(lambda: read_with(auditlog.read_stream, f), lambda: read_with(streams.read_stream, f), 3)
        print(f"{f.name:<22}{f.stat().st_size / 1e6:>8.1f}{base:>10.3f}{new:>10.3f}{new / base:>8.3f}")


if __name__ == "__main__":
    main()
