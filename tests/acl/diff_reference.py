"""The decision diff as authz drew it before its classes were per principal: the reference it is tested against.

Every name class of either set (the same :class:`NameSpace` representatives), and on each every
principal the candidate ACLs or ``super.users`` name plus "anyone else", times every host any
candidate names plus "any other host", times every operation, decided by both engines: the product
that the per-principal classes avoid. Exact and slow; for small sets only.
"""

from __future__ import annotations

from itertools import product

from kafka_authz_cli.acl.classes import every_host, every_principal
from kafka_authz_cli.acl.compare import Change, binding_diff, merge
from kafka_authz_cli.acl.decision import Request
from kafka_authz_cli.acl.engine import StandardAuthorizer
from kafka_authz_cli.acl.model import CLUSTER_NAME, SUPPORTED_OPERATIONS, ResourceType
from kafka_authz_cli.acl.names import NameSpace


def _label(decision) -> str:
    return decision.decision or decision.outcome.value


def reference_diff(old_acls, new_acls, old_settings, new_settings):
    """(changes, findings, verdict, gained, lost) by the product of every principal and host."""
    old = StandardAuthorizer(old_acls, old_settings)
    new = StandardAuthorizer(new_acls, new_settings)
    super_all = old.super_users | new.super_users
    changes = []
    for rtype in ResourceType.concrete():
        typed = [a for a in old.bindings + new.bindings if a.resource_type is rtype]
        space = NameSpace({a.resource_name for a in typed})
        reps = [(CLUSTER_NAME, space.classify(CLUSTER_NAME))] if rtype is ResourceType.CLUSTER \
            else space.representatives()
        for name, name_class in reps:
            cand_o, cand_n = old.candidate_acls(rtype, name), new.candidate_acls(rtype, name)
            cands = typed if cand_o is None or cand_n is None else list(cand_o | cand_n)
            hosts = every_host(cands)
            for principal, host, op in product(every_principal(cands, super_all), hosts, SUPPORTED_OPERATIONS[rtype]):
                request = Request(principal, host, op, rtype, name)
                a, b = old.authorize(request), new.authorize(request)
                if _label(a) != _label(b):
                    changes.append(Change(rtype, name_class, principal, host, op.name, _label(a), _label(b),
                                          request, a.rule or a.error, b.rule or b.error, tuple(hosts), a.acl, b.acl))
    findings = merge(changes)
    for f in findings:
        if f.name_class.prefix is not None and not f.name_class.exact:
            f.excluded = space_children(old, new, f)
    gained = sum(1 for c in changes if c.direction == "gained")
    lost = sum(1 for c in changes if c.direction == "lost")
    if not changes:
        verdict = "equivalent"
    elif gained and lost or any(c.direction == "changed" for c in changes):
        verdict = "both"
    else:
        verdict = "more permissive" if gained else "less permissive"
    return changes, findings, verdict, gained, lost


def space_children(old, new, finding) -> tuple[str, ...]:
    space = NameSpace(old.resource_names(finding.resource_type) | new.resource_names(finding.resource_type))
    return space.children(finding.name_class.prefix)


def bindings_changed(old_acls, new_acls) -> bool:
    d = binding_diff(old_acls, new_acls)
    return bool(d.added or d.removed)
