"""Timing helpers shared by the benchmarks."""

from __future__ import annotations

import time


def best_of(fn, repeat: int = 3) -> float:
    """The fastest of `repeat` runs (the least disturbed by a noisy machine), in seconds."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best
