"""One computation run in a forked child while the caller goes on: the second core, for free.

The child sees the parent's objects as they were at the fork (copy-on-write), so nothing big is
sent to it; only its (small, picklable) result comes back through a pipe. Where fork does not
exist, or the child fails in any way, the computation simply runs in the caller instead, so the
answer never depends on whether it ran in parallel.
"""

from __future__ import annotations

import os
import pickle
import sys
from typing import Callable, Generic, TypeVar

T = TypeVar("T")


class ForkedCall(Generic[T]):
    """Start ``fn()`` in a child process now; ``result()`` waits for it (or runs it here)."""

    def __init__(self, fn: Callable[[], T], parallel: bool = True):
        self._fn = fn
        self._pid: int | None = None
        self._read = -1  # the pipe from the child, while there is one
        if parallel and hasattr(os, "fork"):
            self._start()

    def _start(self) -> None:
        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # the child: compute, send, leave without running the parent's exit handlers
            os.close(read)
            status = 1
            try:
                data = pickle.dumps(self._fn(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as out:
                    out.write(data)
                status = 0
            except BaseException:  # noqa: BLE001 - any failure: the parent computes it itself
                pass
            finally:
                os._exit(status)
        os.close(write)
        self._pid, self._read = pid, read

    def cancel(self) -> None:
        """The answer is not needed after all: stop the child (if any) and reap it."""
        if self._pid is not None:
            import signal

            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self._pid, 0)
            os.close(self._read)
            self._pid = None

    def result(self) -> T:
        if self._pid is None:
            return self._fn()
        with os.fdopen(self._read, "rb") as pipe:
            data = pipe.read()
        _pid, status = os.waitpid(self._pid, 0)
        self._pid = None
        if os.waitstatus_to_exitcode(status) == 0:
            try:
                return pickle.loads(data)
            except Exception:  # noqa: BLE001 - a truncated answer: compute it here
                pass
        return self._fn()
