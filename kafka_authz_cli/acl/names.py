"""Resource names in classes: the names an ACL set cannot tell apart, by their longest ACL-name prefix.

A resource name behaves according to the longest ACL name (of the sets compared, any pattern) that is
a prefix of it: a name equal to that ACL name, a longer one, or one that no ACL name prefixes. Kafka's
quirks follow: the LITERAL ``*`` is an ACL name, so ``*``-leading names form their own classes, and
names starting below ``*`` that share a start with an ACL name below ``*`` are told apart by that start
(the wildcard re-scan bug depends on it). :class:`NameSpace` holds one resource type's ACL names and
gives a name standing for each class (:meth:`NameSpace.representatives`).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import NamedTuple

_SUFFIXES = ("x", "1", "-new", "_z", ".q", "\ue000")
_FRESH_NAMES = ("other", "unnamed-resource", "zz-other", "q", "\ue000")


class NameClass(NamedTuple):
    """Names whose longest ACL-name prefix is ``prefix`` (None: no ACL name prefixes them). A named
    tuple rather than a dataclass: a large diff hashes and compares a million of them in sets, and a
    tuple does both in C."""

    prefix: str | None
    exact: bool  # the name *is* the prefix
    #: For names starting below '*' that no ACL name prefixes: the start they share with an ACL name
    #: (Kafka's wildcard re-scan bug depends on it).
    shared_start: str | None = None


class NameSpace:
    """The ACL names of one resource type (both sets), for classes and representatives."""

    def __init__(self, names: set[str]):
        self.names = names
        self.sorted = sorted(names)
        #: The lengths ACL names have, shortest first (a name's ACL-name prefixes are among these).
        self.lengths = sorted({len(n) for n in names})
        first = next((n for n in self.sorted if n), None)  # the smallest non-empty name
        #: Some ACL name sorts below '*': Kafka's re-scan splits names by the start they share with it.
        self.below_star = first is not None and first[0] < "*"
        self._every: list[tuple[str, NameClass]] | None = None  # representatives(), made once

    def longest_prefix(self, name: str) -> str | None:
        best = None
        for k in range(len(name), -1, -1):
            if name[:k] in self.names:
                best = name[:k]
                break
        return best

    def classify(self, name: str) -> NameClass:
        p = self.longest_prefix(name)
        if p is None:
            return NameClass(None, False, self._shared_start(name))
        if name == p:
            return NameClass(p, True)
        # Below '*', the start a name shares with an ACL name tells Kafka's re-scan apart under an
        # ACL name's prefix too (`(a` and `(x` under LITERAL `(`, beside an ACL name `(aa`).
        return NameClass(p, False, self._shared_start(name) if self.below_star else None)

    def _shared_start(self, name: str) -> str | None:
        if not name or name[0] >= "*":
            return None
        best = ""
        for n in self.sorted:
            if n and n[0] < "*":
                k = 0
                while k < min(len(n), len(name)) and n[k] == name[k]:
                    k += 1
                best = max(best, name[:k], key=len)
        return best or None

    def under(self, p: str) -> list[str]:
        """The ACL names starting with ``p`` (``p`` included when it is one)."""
        names = self.sorted
        out = []
        for i in range(bisect_left(names, p), len(names)):
            if not names[i].startswith(p):
                break
            out.append(names[i])
        return out

    def children(self, p: str) -> tuple[str, ...]:
        """ACL names extending ``p`` with no other ACL name in between."""
        out = []
        names = self.sorted
        for i in range(bisect_left(names, p), len(names)):
            n = names[i]
            if not n.startswith(p):
                break
            if n != p and self.longest_prefix(n[:-1]) == p:
                out.append(n)
        return tuple(out)

    def representatives(self, only: set[str] | None = None) -> list[tuple[str, NameClass]]:
        """A name standing for each class: each ACL name as itself and as the longer names it is the
        longest ACL-name prefix of, names no ACL name prefixes, and (Kafka's re-scan bug) names
        sharing a start with a name below '*'. ``only``: the classes of these ACL names alone."""
        if only is None:
            if self._every is None:
                self._every = self._representatives(None)
            return list(self._every)
        return self._representatives(only)

    def _representatives(self, only: set[str] | None) -> list[tuple[str, NameClass]]:
        reps = []
        for p in (self.sorted if only is None else sorted(only)):
            reps.append((p, NameClass(p, True)))
            longer = next((p + s for s in _SUFFIXES if self.longest_prefix(p + s) == p and p + s not in self.names),
                          None)
            if longer is not None:
                reps.append((longer, self.classify(longer) if self.below_star else NameClass(p, False)))
        if only is not None:
            return reps
        fresh = next((n for n in _FRESH_NAMES if self.longest_prefix(n) is None), None)
        if fresh is not None:
            reps.append((fresh, NameClass(None, False)))
        # Names sharing a start with a name below '*' but not prefixed by it (Kafka's re-scan bug).
        seen = set()
        for p in self.sorted:
            if p and p[0] < "*":
                for k in range(1, len(p) + 1):
                    probe = p[:k] + "\ue000"
                    nc = self.classify(probe)
                    if not nc.exact and nc.shared_start is not None and nc not in seen:
                        seen.add(nc)
                        reps.append((probe, nc))
        return reps
