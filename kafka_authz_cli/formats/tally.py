"""Warnings that repeat, told once per kind: a count and the first few places.

A file of 500,000 ACLs may hold 5,000 with the same mistake (Kafka's own AuthorizerBenchmark
does): 5,000 warning lines bury everything else and cost more than the command's answer. A reader
adds each finding to a :class:`WarningTally` under a kind; :meth:`WarningTally.lines` then gives one
line per kind, in the order the kinds were first met::

    tally = WarningTally()
    for acl, origin in ...:
        if odd(acl):
            tally.add("ACLs have a host that never matches a client address", origin, reason(acl))
    for line in tally.lines():
        log.warning(line)

A kind met once reads as before (``file:12: <message>``); a kind met many times reads
``5,000 ACLs have a host that never matches a client address (file:12, file:13, file:14 and 4,997
more); file:12: <message of the first>``. Memory is bounded by the kinds, not the findings.
"""

from __future__ import annotations

#: Places named per kind before "and N more".
EXAMPLES = 3


class WarningTally:
    """Findings counted per kind, with the first few places and the first message of each."""

    __slots__ = ("examples", "_kinds")

    def __init__(self, examples: int = EXAMPLES) -> None:
        self.examples = examples
        #: kind -> [count, first places, first message]
        self._kinds: dict[str, list] = {}

    def add(self, kind: str, where: str, message: str) -> None:
        """One finding: ``kind`` is a plural phrase ("ACLs the broker would refuse"), ``where`` a
        place (``file:line``), ``message`` what is wrong there."""
        entry = self._kinds.get(kind)
        if entry is None:
            self._kinds[kind] = [1, [where], message]
            return
        entry[0] += 1
        if len(entry[1]) < self.examples:
            entry[1].append(where)

    def add_many(self, kind: str, count: int, places: list[str], message: str) -> None:
        """``count`` findings at once: ``places`` the first few, ``message`` what is wrong at the first
        (as ``count`` calls of :meth:`add` in file order would leave it)."""
        entry = self._kinds.get(kind)
        if entry is None:
            self._kinds[kind] = [count, places[:self.examples], message]
            return
        entry[0] += count
        entry[1].extend(places[:self.examples - len(entry[1])])

    def count(self, kind: str) -> int:
        entry = self._kinds.get(kind)
        return entry[0] if entry else 0

    def __len__(self) -> int:
        return sum(entry[0] for entry in self._kinds.values())

    def lines(self) -> list[str]:
        """One line per kind, in the order kinds were first added."""
        out = []
        for kind, (count, places, message) in self._kinds.items():
            if count == 1:
                out.append(f"{places[0]}: {message}")
                continue
            more = count - len(places)
            listed = ", ".join(places) + (f" and {more:,} more" if more else "")
            out.append(f"{count:,} {kind} ({listed}); {places[0]}: {message}")
        return out
