"""Finding codes as a registry: one object per code, documented where it is defined.

Every check that reports findings (``authz lint``'s AZ codes, ``authz principal``'s PM codes) declares
each code once, as a :class:`FindingCode` carrying everything said about it: the stable code and
name, the severity, the one-line summary, the ``--explain`` text and an example input that produces
exactly that code. The registry is then the single place the CLI lists codes from, ``--explain`` reads,
report formats (SARIF rules) describe, and the tests run every example through (each must produce its
own code and no other).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

#: Severities, least severe first (``--fail-level`` compares by this order).
SEVERITIES = ("info", "warning", "error")


@dataclass(frozen=True)
class FindingCode:
    """One finding code. ``example`` is an input of the check that declares the code (a rules file
    for lint, a rule set and names for the principal checks), written so that it produces this code
    and no other."""

    code: str
    name: str
    severity: str
    summary: str
    explanation: str
    example: Any

    def explain(self) -> str:
        """The ``--explain`` text."""
        return f"{self.code} {self.name} ({self.severity}): {self.summary}\n\n{self.explanation}\n"


class CodeRegistry(Mapping[str, FindingCode]):
    """The codes of one check, in declaration order, looked up by code (case-insensitively)."""

    def __init__(self, prefix: str, codes: Iterable[FindingCode]):
        self.prefix = prefix
        self._codes: dict[str, FindingCode] = {}
        for c in codes:
            if not c.code.startswith(prefix) or c.code in self._codes:
                raise ValueError(f"{c.code}: not a new {prefix} code")
            if c.severity not in SEVERITIES:
                raise ValueError(f"{c.code}: unknown severity {c.severity!r}")
            self._codes[c.code] = c

    def __getitem__(self, code: str) -> FindingCode:
        return self._codes[code.upper()]

    def __iter__(self) -> Iterator[str]:
        return iter(self._codes)

    def __len__(self) -> int:
        return len(self._codes)

    def explain(self, code: str) -> str:
        """The ``--explain`` text of ``code``; ``KeyError`` for an unknown one."""
        return self[code].explain()
