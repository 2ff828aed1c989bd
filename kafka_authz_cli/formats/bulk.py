"""Building a million objects at once without the garbage collector re-scanning them all.

CPython's cyclic collector runs every few hundred allocations and, in its oldest generation, walks
every tracked object: reading a million ACLs and indexing them triggered dozens of such walks, half
of the load time. Nothing built while reading holds a reference cycle worth collecting on the spot,
so :func:`paused_gc` switches the collector off for the block and, at the end of a big one, freezes what exists
(``gc.freeze``: moved out of the generations the collector scans; still freed when no longer
referenced) before switching it back on, if it was on. Without the freeze, the first collection after
the block would scan the million objects it left in the youngest generation, and again in each older.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

#: Objects left in the youngest generation from which a block's result is frozen.
FREEZE_FROM = 100_000


@contextmanager
def paused_gc() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # Only a big build is frozen: a test suite loading small files thousands of times must keep
        # collecting its cycles.
        if gc.get_count()[0] > FREEZE_FROM:
            gc.freeze()
        if was_enabled:
            gc.enable()
