"""Which resources an access review covers, and the answer as the shared JSON document.

Many names at once are reviewed by class, as the decision diff draws them
(:mod:`kafka_authz_cli.acl.compare`): every name whose longest ACL-name prefix is the same decides
alike, so ``--resource-prefix`` and ``--principal`` report one entry list per class ("topic `orders`",
"every topic starting with `orders-`", "every topic no ACL name covers") instead of per name.
"""

from __future__ import annotations

import json
from typing import Callable, Iterable, cast

from kafka_authz_cli.acl import CLUSTER_NAME, AclBinding, NameClass, NameSpace, ResourceType, describe_names
from kafka_authz_cli.acl.merged import Subtrees, describe_class, grouped, scopes
from kafka_authz_cli.review.access import AccessReview, ResourceAccess
from kafka_authz_cli.review.access_principal import principal_classes

#: A probe appended to a prefix for "names starting with it that no longer ACL name covers".
_PROBE = "\ue001"


def _space(review: AccessReview, rtype: ResourceType) -> NameSpace:
    return NameSpace({a.resource_name for a in review.authorizer.bindings if a.resource_type is rtype})


def name_classes(review: AccessReview, rtype: ResourceType) -> list[tuple[str, str]]:
    """(a name standing for its class, the class in words) for every class of ``rtype`` names."""
    if rtype is ResourceType.CLUSTER:
        return [(CLUSTER_NAME, CLUSTER_NAME)]
    space = _space(review, rtype)
    return [(name, _label(rtype, name, nc, space)) for name, nc in space.representatives()]


def prefix_classes(review: AccessReview, rtype: ResourceType, prefix: str) -> list[tuple[str, str]]:
    """The classes of the names starting with ``prefix``: the ACL names under it (each as itself and
    as the longer names it prefixes), and every other name starting with it."""
    if rtype is ResourceType.CLUSTER:
        return [(CLUSTER_NAME, CLUSTER_NAME)] if CLUSTER_NAME.startswith(prefix) else []
    space = _space(review, rtype)
    under = [n for n in space.sorted if n.startswith(prefix) and n != prefix]
    tops = tuple(n for n in under if not any(n != m and n.startswith(m) for m in under))
    # The names starting with the prefix that no longer ACL name covers: the prefix itself among them
    # unless an ACL names it (then it is a class of its own, listed below).
    out = [(prefix + _PROBE, describe_class(rtype, NameClass(prefix, False), tops, itself=prefix in space.names))]
    for name, nc in space.representatives():
        if nc.prefix is not None and nc.prefix.startswith(prefix) and (nc.prefix != prefix or nc.exact):
            out.append((name, _label(rtype, name, nc, space)))
    return out


def _label(rtype: ResourceType, name: str, nc: NameClass, space: NameSpace) -> str:
    if nc.exact:
        return name
    excluded = space.children(nc.prefix) if nc.prefix is not None else ()
    return describe_names(rtype, nc, excluded)


def merged_classes(review: AccessReview, results: list[ResourceAccess], prefix: str | None = None,
                   spaces: dict | None = None) -> list[ResourceAccess]:
    """Classes whose answers are equal (the same entries, naming the same ACLs), said once, as the
    diff merges its findings (:mod:`..acl.merged`): "every topic starting with `orders-`", the literal
    name only where it differs. ``prefix``: the classes are those of ``--resource-prefix`` (the names
    starting with it), else every class of each type. ``spaces``: each type's name space, when the
    results carry their ``name_class`` (:func:`merged_principal_access`); a result said alone then
    gets its label here."""
    out: list[tuple[int, ResourceAccess]] = []
    results = _per_principal(results)
    order = {id(r): i for i, r in enumerate(results)}
    for rtype, items in grouped(results, lambda r: r.resource_type).items():
        if rtype is ResourceType.CLUSTER or len(items) == 1:
            out += [(order[id(r)], _labelled(r, spaces)) for r in items]
            continue
        if spaces is not None and rtype in spaces:
            space = spaces[rtype]
            # the results carry their class (merged_principal_access)
            classes = cast("dict[int, NameClass]", {id(r): r.name_class for r in items})
        else:
            names = {a.resource_name for a in review.authorizer.bindings if a.resource_type is rtype}
            space = NameSpace(names | ({prefix} if prefix is not None else set()))
            classes = {id(r): space.classify(r.name) for r in items}
        universe = set(classes.values()) if prefix is not None else {nc for _n, nc in space.representatives()}
        trees = Subtrees(space, universe)
        for group in grouped(items, _answer).values():
            by_class = {classes[id(r)]: r for r in group}
            for scope in scopes(by_class, space, trees=trees):
                first = by_class[scope.classes[0]]
                if scope.root is not None:
                    first = ResourceAccess(rtype, first.name, scope.describe(rtype, space), first.grants,
                                           sum(by_class[c].errors for c in scope.classes))
                else:
                    first = _labelled(first, spaces)
                out.append((min(order[id(by_class[c])] for c in scope.classes), first))
    return [r for _i, r in sorted(out, key=lambda t: t[0])]


def _per_principal(results: list[ResourceAccess]) -> list[ResourceAccess]:
    """Each class's answer split by principal, as the diff's findings are per principal: a name class
    where one principal is denied no longer keeps another's equal answers apart ("User:bob: every
    topic starting with `orders-`" beside "User:analytics: every topic starting with `orders-` except
    `orders-audit`"). A class the broker answers with errors stays whole (its count is the class's)."""
    out = []
    for res in results:
        if res.errors or len({g.principal for g in res.grants}) < 2:
            out.append(res)
            continue
        for grants in grouped(res.grants, lambda g: g.principal).values():
            out.append(ResourceAccess(res.resource_type, res.name, res.label, grants, 0, res.name_class))
    return out


def _labelled(res: ResourceAccess, spaces: dict | None) -> ResourceAccess:
    """``res`` with its label, made now when it was left for this (only for what is said alone)."""
    if res.label is None:
        # left unlabelled only with its class, and the spaces given (merged_principal_access)
        assert spaces is not None and res.name_class is not None
        res.label = _label(res.resource_type, res.name, res.name_class, spaces[res.resource_type])
    return res


def _answer(res: ResourceAccess) -> tuple:
    return (res.errors, tuple((g.principal, g.host, g.operation, g.reason, g.acl, g.excepts) for g in res.grants))


def principal_access(review: AccessReview, principal: str,
                     types: Iterable[ResourceType] | None = None) -> list[ResourceAccess]:
    """Everything ``principal`` may do, per class of names of every resource type (only the classes
    its own and ``User:*``'s ALLOW ACLs reach are visited: :mod:`.access_principal`)."""
    return principal_classes(review, principal, _label, types)


def merged_principal_access(review: AccessReview, principal: str,
                            types: Iterable[ResourceType] | None = None) -> list[ResourceAccess]:
    """:func:`merged_classes` of :func:`principal_access`, the name spaces and classes it found reused
    and a class put in words only where it is said alone (a 100k-ACL estate's 90,000 classes of one
    principal are said in 9,000 lines)."""
    spaces: dict = {}
    return merged_classes(review, principal_classes(review, principal, None, types, spaces), spaces=spaces)


def access_document(results: list[ResourceAccess], query: dict,
                    origin: Callable[[AclBinding], str | None]) -> dict:
    """The shared shape of `authz access --format json` (version 1)."""
    access = []
    principals = set()
    vias: dict[tuple, dict] = {}  # one `via` object per (reason, ACL): a million entries name few ACLs each
    for res in results:
        rtype = res.resource_type.name
        for g in res.grants:
            principals.add(g.principal)
            acl = g.acl
            key = (g.reason, id(acl))
            via = vias.get(key)
            if via is None or via["_acl"] is not acl:
                via = vias[key] = {"reason": g.reason, "acl": acl.as_dict() if acl is not None else None,
                                   "origin": origin(acl) if acl is not None else None, "_acl": acl}
            access.append({
                "resource_type": rtype, "resource_name": res.label, "principal": g.principal, "host": g.host,
                "operation": g.operation.name, "implied": g.implied, "via": via,
                "except": [{"principal": p, "host": h} for p, h in g.excepts]})
    for via in vias.values():
        del via["_acl"]
    return {"version": 1, "query": query, "access": access, "resources": resource_count(results),
            "principals": len(principals)}


def resource_count(results: list[ResourceAccess]) -> int:
    """The resources (names or classes) the results speak of: a class split by principal is one."""
    return len({(r.resource_type, r.label if r.label is not None else r.name) for r in results})


def access_json(results: list[ResourceAccess], query: dict, origin: Callable[[AclBinding], str | None]) -> str:
    """:func:`access_document` as JSON text (one entry per line), written straight from the results:
    every principal, host, name and `via` encoded once, not once per entry (a 100,000-topic cluster
    has millions of entries naming a few values each)."""
    enc = json.JSONEncoder(ensure_ascii=False).encode
    texts: dict = {}
    vias: dict[int | str, tuple] = {}
    principals = set()
    lines: list[str] = []
    add = lines.append
    for res in results:
        head = f'{{"resource_type": "{res.resource_type.name}", "resource_name": {enc(res.label)}, "principal": '
        for g in res.grants:
            acl = g.acl
            via = vias.get(id(acl) if acl is not None else g.reason)
            if via is None or via[0] is not acl:
                via = vias[id(acl) if acl is not None else g.reason] = (acl, enc({
                    "reason": g.reason, "acl": acl.as_dict() if acl is not None else None,
                    "origin": origin(acl) if acl is not None else None}))
            # principal, host, operation and implied: few values, each pair encoded once
            middle = texts.get((g.principal, g.host, g.operation, acl is not None and acl.operation))
            if middle is None:
                principals.add(g.principal)
                middle = texts[(g.principal, g.host, g.operation, acl is not None and acl.operation)] = (
                    f'{enc(g.principal)}, "host": {enc(g.host)}, "operation": "{g.operation.name}", '
                    f'"implied": {"true" if g.implied else "false"}, "via": ')
            excepts = g.excepts
            add(f'{head}{middle}{via[1]}, "except": '
                f'{enc([{"principal": p, "host": h} for p, h in excepts]) if excepts else "[]"}}}')
    access = "[\n    " + ",\n    ".join(lines) + "\n  ]" if lines else "[]"
    return (f'{{\n  "version": 1,\n  "query": {enc(query)},\n  "access": {access},\n'
            f'  "resources": {resource_count(results)},\n  "principals": {len(principals)}\n}}\n')
