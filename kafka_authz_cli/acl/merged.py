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
from typing import AbstractSet, Callable, Hashable, Iterable, TypeVar, cast

from kafka_authz_cli.acl.model import ResourceType
from kafka_authz_cli.acl.names import NameClass, NameSpace

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
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
        kind = _KINDS[rtype]
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


#: A resource type in words ("transactional id"), made once each: said for every finding.
_KINDS = {t: t.name.lower().replace("_", " ") for t in ResourceType}


def describe_class(rtype: ResourceType, nc: NameClass, below: NameSpace | tuple[str, ...] | None,
                   itself: bool = True) -> str:
    """One name class in words, whole: a class of longer names leaves out its ACL name itself (its own
    class; ``itself`` False where no ACL has that name) and the ACL names below it (``below``, or those
    of a space), named in full (counted past :data:`MAX_EXCEPTIONS`), never cut."""
    kind = _KINDS[rtype]
    if rtype is ResourceType.CLUSTER:
        return "the cluster"
    if nc.prefix is None:
        return f"every {kind} no ACL name covers"
    if nc.exact:
        return f"{kind} `{nc.prefix}`"
    base = f"every {kind} starting with `{nc.prefix}`" if nc.prefix else f"every {kind}"
    if isinstance(below, NameSpace):
        below = below.children(nc.prefix)
    phrases = ([f"`{nc.prefix}`"] if nc.prefix and itself else []) + [f"names starting with `{n}`" for n in below or ()]
    if not phrases:
        return base
    if len(phrases) > MAX_EXCEPTIONS:
        return f"{base} except {len(phrases)} of them: {', '.join(phrases[:5])} and {len(phrases) - 5} more"
    return f"{base} except {_join(phrases)}"


def _join(phrases: list[str]) -> str:
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def _exception_phrases(exceptions: AbstractSet[NameClass], trees) -> tuple[str, ...]:
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
        if nc.exact and (subtree := trees(nc.prefix)) <= excluded:
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


def _describable(exceptions: AbstractSet[NameClass], agreeing: AbstractSet[NameClass]) -> bool:
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


def scopes(classes: Iterable[NameClass], space: NameSpace, universe: set[NameClass] | None = None,
           trees: Subtrees | None = None) -> list[Scope]:
    """The fewest scopes covering exactly ``classes`` (of one resource type). ``universe``: the classes
    the type has (default: those :meth:`.names.NameSpace.representatives` draws). ``trees``: the
    :class:`Subtrees` of that space and universe, when many calls share them (a diff's groups)."""
    wanted = set(classes)
    if len(wanted) <= 1 or space.below_star or any(c.shared_start or c.prefix == "" for c in wanted):
        return [Scope(None, (c,), only=c) for c in wanted]
    if trees is None:
        known = universe if universe is not None else {nc for _name, nc in space.representatives()}
        trees = Subtrees(space, known)
    if FRESH in wanted:
        return _split("", wanted, trees)
    # The shortest prefixes among the classes' own: a broader root would speak of names the classes
    # given may not hold (``universe`` may be only the names under an --resource-prefix).
    prefixes = {c.prefix for c in wanted}
    lengths = space.lengths
    out: list[Scope] = []
    # FRESH and the classes below '*' returned above: every class left has a prefix.
    for root, below in sorted(grouped(wanted, lambda c: _shortest(cast(str, c.prefix), prefixes, lengths)).items()):
        out += _split(root, set(below), trees)
    return out


def _shortest(prefix: str, among: set[str | None], lengths: list[int]) -> str:
    """The shortest of ``among`` that is a prefix of ``prefix`` (``prefix`` itself at the longest)."""
    for k in lengths:
        if k >= len(prefix):
            break
        if prefix[:k] in among:
            return prefix[:k]
    return prefix


class Subtrees:
    """The known classes under each ACL name, each made once for every :func:`scopes` call given it."""

    def __init__(self, space: NameSpace, known: set[NameClass]):
        self.space, self.known = space, known
        self._made: dict[str, frozenset[NameClass]] = {}

    def __call__(self, prefix: str) -> frozenset[NameClass]:
        found = self._made.get(prefix)
        if found is None:
            found = self._made[prefix] = frozenset(_subtree(prefix, self.space) & self.known)
        return found


def _by_child(root: str, classes: AbstractSet[NameClass], space: NameSpace) -> dict[str, set[NameClass]]:
    """The classes below ``root`` (not its own) by the ACL name just below it on their way down."""
    names = space.names
    lengths = [n for n in space.lengths if n > len(root)]
    out: dict[str, set[NameClass]] = {}
    for c in classes:
        prefix = c.prefix
        if prefix is None or prefix == root:
            continue
        for k in lengths:  # only the lengths ACL names have: a 10 MB name is not sliced 10 million times
            if k > len(prefix):
                break
            if prefix[:k] in names:
                out.setdefault(prefix[:k], set()).add(c)
                break
    return out


def _split(root: str, wanted: set[NameClass], trees: Subtrees) -> list[Scope]:
    tree = trees(root)
    agreeing = tree & wanted
    if len(agreeing) <= 1:
        return [Scope(None, (c,), only=c) for c in agreeing]
    exceptions = tree - wanted
    if _describable(exceptions, agreeing):
        phrases = _exception_phrases(exceptions, trees)
        if len(phrases) < len(agreeing):  # fewer words than the classes they stand for
            return [Scope(root, _ordered(agreeing), _ordered(exceptions), phrases)]
    out = [Scope(None, (c,), only=c) for c in _ordered(agreeing & _own(root))]
    for child, below in sorted(_by_child(root, agreeing, trees.space).items()):
        out += _split(child, below, trees)
    return out


def _own(root: str) -> set[NameClass]:
    """The classes directly at ``root``: its name and the longer names it alone covers."""
    if root == "":
        return {FRESH, NameClass("", True), NameClass("", False)}
    return {NameClass(root, True), NameClass(root, False)}


def _ordered(classes: AbstractSet[NameClass]) -> tuple[NameClass, ...]:
    return tuple(sorted(classes, key=lambda c: (c.prefix is not None, c.prefix or "", not c.exact)))


def grouped(items: Iterable[T], key: Callable[[T], K]) -> dict[K, list[T]]:
    """Items by ``key(item)``, groups and items in the order first seen."""
    out: dict[K, list[T]] = {}
    for item in items:
        out.setdefault(key(item), []).append(item)
    return out
