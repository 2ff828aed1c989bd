"""Following a growing log file as `tail -F` does: the lines appended to it, across rotations.

A :class:`Follower` polls one path. It starts at the end of the file (or at its start with
``from_start``), and returns the complete lines appended since the last poll; a partial last line is
held until its newline arrives. What happens to the path is told from the file system alone:

- rotation by rename (log4j's RollingFile, logrotate's default): the path names another inode. The old
  file is read to its end first (the writer may have written to it until the rename), then the new
  one from its start;
- rotation by copy and truncate (logrotate ``copytruncate``): the file is shorter than what was read.
  It is read again from its start (lines appended and truncated between two polls are lost, as with
  ``tail -F``);
- a file that does not exist (yet, or between a rename and the writer's new file): waited for, and
  read from its start when it appears.

Each file the follower reads is a *generation* (its lines numbered from 1, or from where following
started); a partial line left at the end of a generation is given as a line of its own, as a reader
of the whole file would have. Filesystem only: the clock and the sleep are injectable, so tests run
without waiting.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator

#: Bytes read from the file per poll at most: a poll returns promptly even far behind the writer.
READ_CHUNK = 1 << 20


@dataclass(frozen=True)
class Line:
    """One complete line (without its terminator) of generation `generation`, named `source`."""

    generation: int
    source: str
    lineno: int
    text: bytes


class Follower:
    """``poll()`` returns the lines appended since the last poll; ``follow()`` polls until told to stop."""

    def __init__(self, path: str, *, from_start: bool = False, interval: float = 0.2,
                 sleep: Callable[[float], None] = time.sleep):
        self.path = path
        self.interval = interval
        self.sleep = sleep
        self.generation = 0
        self.rotations = 0  # the path named a new file (rename)
        self.truncations = 0
        self._fh: BinaryIO | None = None
        self._ident: tuple[int, int] | None = None
        self._pos = 0
        self._buf = b""
        self._lineno = 0
        self._source = path
        self._first = not from_start  # the first file found at the start is read from its end

    @property
    def opened(self) -> bool:
        return self._fh is not None

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def poll(self) -> list[Line]:
        """The complete lines appended since the last poll (at most about READ_CHUNK bytes of them)."""
        out: list[Line] = []
        if self._fh is None and not self._open():
            return out
        fh = self._fh
        assert fh is not None  # open, or just opened
        if os.fstat(fh.fileno()).st_size < self._pos:  # copytruncate: read it again from the start
            self.truncations += 1
            self._end_generation(out)
            fh.seek(0)
            self._pos = 0
            self._start_generation(self.path)
        if self._read(out):
            return out  # more to read in this file: the path is checked once it is read to its end
        if self._renamed():
            self._read(out, whole=True)  # what the writer wrote to the old file before the rename
            self._end_generation(out)
            self.close()
            self.rotations += 1
            if self._open():
                self._read(out)
        return out

    def follow(self, stop: Callable[[], bool] = lambda: False) -> Iterator[list[Line]]:
        """Batches of lines as they are appended (an empty batch when a poll found nothing, so the caller
        can update a status line or check its own bounds), until `stop()` says so. Closes the file."""
        try:
            while not stop():
                batch = self.poll()
                yield batch
                if not batch:
                    self.sleep(self.interval)
        finally:
            self.close()

    # -- internals ---------------------------------------------------------------------------------

    def _open(self) -> bool:
        try:
            fh = open(self.path, "rb")
        except FileNotFoundError:
            self._first = False  # a file that appears later is read from its start
            return False
        st = os.fstat(fh.fileno())
        self._fh, self._ident = fh, (st.st_dev, st.st_ino)
        self._pos = 0
        if self._first:
            self._pos = fh.seek(0, os.SEEK_END)
        self._start_generation(self.path if not self._pos else f"{self.path}[from byte {self._pos}]")
        self._first = False
        return True

    def _start_generation(self, source: str) -> None:
        self.generation += 1
        self._source, self._lineno, self._buf = source, 0, b""

    def _end_generation(self, out: list[Line]) -> None:
        if self._buf:  # the writer never ended it: given as it is, as a whole-file reader would
            self._emit(out, self._buf)
            self._buf = b""

    def _emit(self, out: list[Line], text: bytes) -> None:
        self._lineno += 1
        out.append(Line(self.generation, self._source, self._lineno, text))

    def _read(self, out: list[Line], whole: bool = False) -> bool:
        """Read what is there (all of it, or up to READ_CHUNK bytes); True if the limit stopped it."""
        limit = None if whole else READ_CHUNK
        fh = self._fh
        assert fh is not None  # read only while the file is open
        data = fh.read() if limit is None else fh.read(limit)
        if not data:
            return False
        self._pos += len(data)
        parts = (self._buf + data).split(b"\n")
        self._buf = parts.pop()
        for part in parts:
            self._emit(out, part)
        return limit is not None and len(data) >= limit

    def _renamed(self) -> bool:
        """Does the path name another file than the one open (and it exists)?"""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return False  # renamed away and not recreated yet: keep reading the old one
        return (st.st_dev, st.st_ino) != self._ident
