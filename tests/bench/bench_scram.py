"""SCRAM speed: one credential against a bare PBKDF2 call, bulk creation against one process.

    python tests/bench/bench_scram.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC  # noqa: E402
from timing import best_of  # noqa: E402

from kafka_authz_cli.scram import ScramCredential, ScramMechanism  # noqa: E402
from kafka_authz_cli.services.scram import derive_many  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    users = 400 if args.quick else 2000
    print("scram: one credential vs bare PBKDF2 (same parameters), best of 15")
    print(f"{'mechanism':<14} {'iterations':>10} {'PBKDF2 ms':>10} {'credential ms':>14} {'overhead':>9}")
    for mech in ScramMechanism:
        for iterations in (4096, 16384):
            def bare():
                PBKDF2HMAC(algorithm=mech.hash_algorithm(), length=mech.digest_size, salt=b"salt-salt-salt",
                           iterations=iterations).derive(b"password")

            def full():
                ScramCredential.from_password(mech, "password", b"salt-salt-salt", iterations)

            b, f = best_of(bare, 15), best_of(full, 15)
            print(f"{mech.mechanism_name:<14} {iterations:>10} {b * 1e3:>10.2f} {f * 1e3:>14.2f} {f / b - 1:>8.1%}")
    jobs = [(f"user{i}", "SCRAM-SHA-512", b"password%d" % i, b"salt%08d" % i, 4096) for i in range(users)]
    cores = os.cpu_count() or 1
    t0 = time.perf_counter()
    derive_many(jobs, 1)
    single = time.perf_counter() - t0
    t0 = time.perf_counter()
    derive_many(jobs, cores)
    pooled = time.perf_counter() - t0
    print(f"\nbulk: {users} users, SCRAM-SHA-512, 4096 iterations")
    print(f"single process {single:.2f} s ({users / single:.0f} users/s); {cores} processes {pooled:.2f} s "
          f"({users / pooled:.0f} users/s); speed-up x{single / pooled:.2f} on {cores} cores "
          f"({single / pooled / cores:.0%} of linear)")


if __name__ == "__main__":
    main()
