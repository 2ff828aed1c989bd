"""Captures inside possessive quantifiers and atomic groups: where Python's answer is Java's.

Java defines ``X*+`` as ``(?>X*)``, and the translation writes it so (CPython's own possessive
repeat loses captures or raises ``SystemError: The span of capturing group is wrong``). One Java
behaviour remains that no Python pattern has: a group captured inside an atomic region keeps its
value when the match later backtracks past the region (``GroupTail`` only restores a group when
the rest of the match fails *inside* the region, and ``Matcher.find`` clears the groups once per
call, not per start position). So ``(?>(a)|b)c`` finds "bc" in "a bc" with group 1 = "a".

A region is *exact* when it runs at most once per start position and nothing is retried after it
fails: it is not repeated, optional, inside an alternation or a lookaround, holds no such region
with captures itself, and nothing before it can backtrack. ``matches()`` and ``lookingAt()`` are
then Java's; a ``find()`` that moved past its first start position may still see a group left by
an earlier position (:meth:`JavaPattern.find_all` refuses when one of these groups is unset). A
pattern with captures in a region that is not exact is refused (Kafka's mapping would use them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka_authz_cli._java.regex.errors import JavaRegexUnsupported


@dataclass
class _Region:
    groups: range
    index: int
    exact: bool = True


@dataclass
class AtomicRegions:
    """The translator's book of atomic regions, in the order they close."""

    regions: list[_Region] = field(default_factory=list)
    #: a construct before the current point that the match can backtrack into
    backtrack_before: bool = False

    def mark(self) -> tuple[int, bool]:
        """Taken before an atom (or a group body): what :meth:`close` and :meth:`retried` need."""
        return len(self.regions), self.backtrack_before

    def close(self, mark: tuple[int, bool], groups: range, index: int) -> None:
        """An atomic region (a possessive operand or ``(?>...)``) ends here; it does not backtrack."""
        first, before = mark
        for nested in self.regions[first:]:
            nested.exact = False  # re-run whenever the enclosing region backtracks
        self.backtrack_before = before
        self.regions.append(_Region(groups, index, exact=not before))

    def retried(self, mark: tuple[int, bool]) -> None:
        """What was parsed since ``mark`` may run again or be abandoned for another path (a greedy or
        lazy quantifier, an alternation)."""
        for region in self.regions[mark[0]:]:
            region.exact = False
        self.backtrack_before = True

    def lookaround(self, mark: tuple[int, bool]) -> None:
        for region in self.regions[mark[0]:]:
            region.exact = False
        self.backtrack_before = mark[1]

    def captured(self) -> frozenset[int]:
        """The groups inside exact regions (checked at each ``find()``)."""
        return frozenset(g for r in self.regions for g in r.groups)

    def check(self, pattern: str) -> None:
        for r in self.regions:
            if len(r.groups) and not r.exact:
                raise JavaRegexUnsupported(
                    "captures inside a possessive quantifier or atomic group that the match can backtrack "
                    "past (Java keeps them from abandoned attempts)", pattern, r.index)
