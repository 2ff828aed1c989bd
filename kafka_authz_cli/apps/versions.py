"""The Kafka releases the request handlers and the client workflows are modelled for, and what changed
between them (each difference cited where it is used)."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The releases covered: the 3.x line (the first with idempotence on by default, KIP-679) to the
#: release of the live tests' broker (tests/live/pom.xml), whose handlers the model follows.
OLDEST = (3, 0)
NEWEST = (4, 1)
COVERED = "3.0 to 4.1"

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")


class VersionError(ValueError):
    pass


@dataclass(frozen=True, order=True)
class KafkaVersion:
    major: int
    minor: int
    #: None: the newest patch release of the line (3.0 means 3.0.2).
    patch: int | None = None

    @classmethod
    def parse(cls, text: str) -> "KafkaVersion":
        m = _VERSION.fullmatch(text.strip())
        if m is None:
            raise VersionError(f"not a Kafka version: {text!r} (expected MAJOR.MINOR or MAJOR.MINOR.PATCH, "
                               "e.g. 3.9 or 4.1.1)")
        version = cls(int(m.group(1)), int(m.group(2)), int(m.group(3)) if m.group(3) else None)
        if not OLDEST <= version.line <= NEWEST:
            raise VersionError(f"Kafka {text.strip()} is not covered: the request handlers and client workflows "
                               f"are modelled for Kafka {COVERED}")
        return version

    @property
    def line(self) -> tuple[int, int]:
        return (self.major, self.minor)

    def at_least(self, major: int, minor: int) -> bool:
        return self.line >= (major, minor)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}" + (f".{self.patch}" if self.patch is not None else "")


DEFAULT = KafkaVersion(*NEWEST)
