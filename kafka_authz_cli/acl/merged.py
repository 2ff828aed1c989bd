"""Name classes merged by what is said of them: "every topic starting with `orders-`", not four rows.

The decision diff and the access review answer per name class (:mod:`.names`): the literal name
``orders-``, the names starting with it, the literal ``orders-audit`` below it, the names starting
with that. A person reads the four as one when the same thing is said of each (the same principal
gains the same operations from the same hosts, decided by the same ACLs before and after). One rule,
used by ``diff`` and ``access``: the classes saying the same are covered by the fewest subtrees of
ACL names (every name starting with a prefix, or every name), each with an exception list of the
classes under it that say something else, spelled out in full; a subtree is taken only where the
classes that differ are fewer than those that agree and can each be said in words, else its
sub-subtrees are tried, down to single classes. A merged answer covers exactly the classes merged
(the tests check it). Types whose names sort below ``*`` are left per class (Kafka's re-scan quirk
splits their classes by more than a prefix).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Hashable, Iterable, TypeVar

from kafka_authz_cli.acl.model import ResourceType
from kafka_authz_cli.acl.names import NameClass, NameSpace

T = TypeVar("T")
#: Exceptions named in full before "and N more".
MAX_EXCEPTIONS = 10
FRESH = NameClass(None, False)


@dataclass(frozen=True)
class Scope:
    """Name classes said together: every name starting with ``root`` ("" every name) but the
    ``exceptions`` (said as ``phrases``); or one class, ``only`` (``root`` None)."""

    root: str | None
    classes: tuple[NameClass, ...]
    exceptions: tuple[NameClass, ...] = ()
    phrases: tuple[str, ...] = ()
    only: NameClass | None = None

    def describe(self, rtype: ResourceType, space: NameSpace | None) -> str:
        kind = rtype.name.lower().replace("_", " ")
        if self.root is None:
            return describe_class(rtype, self.only, space)  # type: ignore[arg-type]
        base = f"every {kind} starting with `{self.root}`" if self.root else f"every {kind}"
        phrases = list(self.phrases)
        if not phrases:
            return base
        if len(phrases) > MAX_EXCEPTIONS:
            shown = ", ".join(phrases[:5])
            return f"{base} except {len(phrases)} of them: {shown} and {len(phrases) - 5} more"
        return f"{base} except {_join(phrases)}"


def describe_class(rtype: ResourceType, nc: NameClass, below: NameSpace | tuple[str, ...] | None) -> str:
    """One name class in words, whole: the ACL names below it that it leaves out (``below``, or
    those of a space) are named in full (counted past :data:`MAX_EXCEPTIONS`), never cut."""
    kind = rtype.name.lower().replace("_", " ")
    if rtype is ResourceType.CLUSTER:
        return "the cluster"
    if nc.prefix is None:
        return f"every {kind} no ACL name covers"
    if nc.exact:
        return f"{kind} `{nc.prefix}`"
    base = f"every {kind} starting with `{nc.prefix}`" if nc.prefix else f"every {kind}"
    if isinstance(below, NameSpace):
        below = below.children(nc.prefix)
    if not below:
        return base
    phrases = [f"names starting with `{n}`" for n in below]
    if len(phrases) > MAX_EXCEPTIONS:
        return f"{base} except {len(phrases)} of them: {', '.join(phrases[:5])} and {len(phrases) - 5} more"
    return f"{base} except {_join(phrases)}"


def _join(phrases: list[str]) -> str:
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def _exception_phrases(exceptions: set[NameClass], space: NameSpace, known: set[NameClass]) -> tuple[str, ...]:
    """Exceptions in words: a whole subtree as "names starting with `q`", else each class."""
    excluded = exceptions
    out = []
    covered_by_subtree: set[NameClass] = set()
    for nc in sorted(exceptions, key=lambda c: (c.prefix is not None, c.prefix or "", not c.exact)):
        if nc in covered_by_subtree:
            continue
        if nc.prefix is None:
            out.append("names no ACL name covers")
            continue
        subtree = _subtree(nc.prefix, space) & known
        if nc.exact and subtree <= excluded:
            out.append(f"names starting with `{nc.prefix}`")
            covered_by_subtree |= subtree
        elif nc.exact:
            out.append(f"`{nc.prefix}`")
        else:
            out.append(f"names starting with `{nc.prefix}` other than `{nc.prefix}`"
                       if NameClass(nc.prefix, True) not in excluded else f"names starting with `{nc.prefix}`")
    return tuple(out)


def _subtree(prefix: str, space: NameSpace) -> set[NameClass]:
    """The classes of the names starting with ``prefix`` (an ACL name, or "" for every name)."""
    out = set()
    for name in space.under(prefix):
        out.add(NameClass(name, True))
        out.add(NameClass(name, False))
    if prefix == "":
        out.add(FRESH)
    return out


def _describable(exceptions: set[NameClass], agreeing: set[NameClass]) -> bool:
    """Each exception can be said exactly: "names starting with ``q``" (other than ``q``) only where
    no ACL name below ``q`` is among the agreeing classes (else the words would take in names that
    agree; the root's own longer names included)."""
    prefixes = sorted({c.prefix for c in agreeing if c.prefix is not None})
    for nc in exceptions:
        if nc.prefix is not None and not nc.exact:
            i = bisect_right(prefixes, nc.prefix)  # the agreeing prefixes after q itself
            if i < len(prefixes) and prefixes[i].startswith(nc.prefix):
                return False
    return True


def scopes(classes: Iterable[NameClass], space: NameSpace, universe: set[NameClass] | None = None) -> list[Scope]:
    """The fewest scopes covering exactly ``classes`` (of one resource type). ``universe``: the classes
    the type has (default: those :meth:`.names.NameSpace.representatives` draws)."""
    wanted = set(classes)
    if len(wanted) <= 1 or space.below_star or any(c.shared_start or c.prefix == "" for c in wanted):
        return [Scope(None, (c,), only=c) for c in wanted]
    known = universe if universe is not None else {nc for _name, nc in space.representatives()}
    if FRESH in wanted:
        return _split("", wanted, space, known)
    roots = sorted({c.prefix for c in wanted})
    tops = [r for r in roots if not any(r != q and r.startswith(q) for q in roots)]
    out: list[Scope] = []
    for root in tops:
        out += _split(root, {c for c in wanted if c.prefix.startswith(root)}, space, known)
    return out


def _split(root: str, wanted: set[NameClass], space: NameSpace, known: set[NameClass]) -> list[Scope]:
    tree = _subtree(root, space) & known
    agreeing = tree & wanted
    if len(agreeing) <= 1:
        return [Scope(None, (c,), only=c) for c in agreeing]
    exceptions = tree - wanted
    if _describable(exceptions, agreeing):
        phrases = _exception_phrases(exceptions, space, known)
        if len(phrases) < len(agreeing):  # fewer words than the classes they stand for
            return [Scope(root, _ordered(agreeing), _ordered(exceptions), phrases)]
    out = [Scope(None, (c,), only=c) for c in _ordered(agreeing & _own(root))]
    for child in _children(root, space):
        below = {c for c in agreeing if c.prefix is not None and c.prefix.startswith(child)}
        if below:
            out += _split(child, below, space, known)
    return out


def _own(root: str) -> set[NameClass]:
    """The classes directly at ``root``: its name and the longer names it alone covers."""
    if root == "":
        return {FRESH, NameClass("", True), NameClass("", False)}
    return {NameClass(root, True), NameClass(root, False)}


def _children(root: str, space: NameSpace) -> list[str]:
    if root == "":
        return [n for n in space.sorted if n and space.longest_prefix(n[:-1]) is None]
    return list(space.children(root))


def _ordered(classes: set[NameClass]) -> tuple[NameClass, ...]:
    return tuple(sorted(classes, key=lambda c: (c.prefix is not None, c.prefix or "", not c.exact)))


def grouped(items: Iterable[T], key) -> dict[Hashable, list[T]]:
    """Items by ``key(item)``, groups and items in the order first seen."""
    out: dict[Hashable, list[T]] = {}
    for item in items:
        out.setdefault(key(item), []).append(item)
    return out
