"""`authz diff`: two ACL sets (files in any format, or live clusters) compared as bindings and as decisions."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping, Optional

from kafka_authz_cli.acl import AclBinding, AclSet, DiffResult, Rule, diff
from kafka_authz_cli.services.acl_sources import cluster_acl_set, load_source
from kafka_authz_cli.services.settings import broker_settings

#: What `--fail-on` can ask about a diff.
FAIL_ON = ("new-access", "lost-access", "any-change")


def diff_acl_sets(old: Path, new: Path, acls_format: Optional[str] = None, super_users: Optional[str] = None,
                  allow_everyone: Optional[bool] = None, broker_config: Optional[Path] = None,
                  old_super_users: Optional[str] = None, new_super_users: Optional[str] = None,
                  old_broker_config: Optional[Path] = None, new_broker_config: Optional[Path] = None,
                  command_config: Optional[Path] = None, timeout: Optional[float] = None,
                  acls_options: Optional[Mapping[str, str]] = None) -> DiffResult:
    """Broker settings apply to both sides unless given per side; either side may be ``cluster:HOST:PORT``."""
    old_settings = broker_settings(old_super_users if old_super_users is not None else super_users, allow_everyone,
                                   old_broker_config or broker_config)
    new_settings = broker_settings(new_super_users if new_super_users is not None else super_users, allow_everyone,
                                   new_broker_config or broker_config)
    old_set = cluster_acl_set(old, command_config, timeout) or load_source(old, acls_format, options=acls_options)
    new_set = cluster_acl_set(new, command_config, timeout) or load_source(new, acls_format, options=acls_options)
    result = diff(old_set.bindings, new_set.bindings, old_settings, new_settings)
    result.old_origins = _origins(old_set, [*result.bindings.removed, *(f.old_acl for f in result.findings)])
    result.new_origins = _origins(new_set, [*result.bindings.added, *(f.new_acl for f in result.findings)])
    return result


def _origins(acl_set: AclSet, wanted: Iterable[Optional[AclBinding]]) -> dict[AclBinding, str]:
    """Where each wanted binding was first written in ``acl_set`` (one pass; origins are made only
    for these, which matters when an origin is computed from a line table for a million ACLs)."""
    wanted_set = {b for b in wanted if b is not None}
    found: dict[AclBinding, str] = {}
    if not wanted_set:
        return found
    origins = acl_set.origins
    for i, binding in enumerate(acl_set.bindings):
        if binding in wanted_set and binding not in found:
            found[binding] = origins[i]
            if len(found) == len(wanted_set):
                break
    return found


def condition_holds(result: DiffResult, fail_on: str) -> bool:
    """Whether the diff shows what ``--fail-on`` asks about (one of :data:`FAIL_ON`)."""
    if fail_on == "new-access":
        return result.gained > 0
    if fail_on == "lost-access":
        return result.lost > 0
    return bool(result.changes or result.bindings.added or result.bindings.removed)


# -- the JSON document of a diff -------------------------------------------------------------------------

def _witness(f) -> dict:
    w = f.witness
    return {"principal": w.principal, "host": w.host, "operation": w.operation.name,
            "resource_type": w.resource_type.name, "resource_name": w.resource_name}


def diff_document(result: DiffResult) -> dict:
    """``findings``: what is said, merged across name classes (what the table and markdown show);
    ``changes``: one entry per principal, name class and set of hosts."""
    shared = _Shared(result)
    return {
        "verdict": result.verdict,
        "gained": result.gained,
        "lost": result.lost,
        "classes_examined": result.classes_examined,
        "bindings": {"added": [_binding(b, result.new_origins) for b in result.bindings.added],
                     "removed": [_binding(b, result.old_origins) for b in result.bindings.removed]},
        "findings": [_finding(f, shared) for f in result.merged],
        # made one by one as they are written (the JSON emitter takes iterators): never all held as dicts
        "changes": (_finding(f, shared) for f in result.findings),
    }


class _Shared:
    """The parts of findings that many findings repeat (one ACL on `*` decides 40,000 of them), made
    once each: the deciding ACLs as JSON and the sentence saying why."""

    def __init__(self, result: DiffResult):
        self.result = result
        self._acls: dict = {}
        self._because: dict = {}

    # Keyed by the ACL objects' identities (each kept in the value): hashing a binding's fields for
    # each of 150,000 findings cost more than the rest of its JSON.
    def acl(self, acl, side: int) -> dict | None:
        if acl is None:
            return None
        found = self._acls.get((id(acl), side))
        if found is None or found[0] is not acl:
            origins = self.result.new_origins if side else self.result.old_origins
            found = self._acls[(id(acl), side)] = (acl, _binding(acl, origins))
        return found[1]

    def because(self, f) -> str:
        key = (f.old_rule, id(f.old_acl), f.new_rule, id(f.new_acl))
        found = self._because.get(key)
        if found is None or found[0] is not f.old_acl or found[1] is not f.new_acl:
            found = self._because[key] = (f.old_acl, f.new_acl, because(f, self.result))
        return found[2]


def _finding(f, shared: _Shared) -> dict:
    names = f.names()
    return {"direction": f.direction, "description": f.describe(names), "principal": f.principal,
            "principals": list(f.principals or (f.principal,)),
            "resource_type": f.resource_type.name, "resources": names,
            "operations": f.operations, "hosts": f.hosts, "excluded_hosts": f.excluded_hosts,
            "witness": _witness(f),
            "old_rule": f.old_rule, "new_rule": f.new_rule,
            "old_acl": shared.acl(f.old_acl, 0), "new_acl": shared.acl(f.new_acl, 1),
            "because": shared.because(f)}


def _binding(b, origins: dict) -> dict:
    """A binding as JSON, with ``origin`` (where it was written) when the diff knows it."""
    out = b.as_dict()
    if b in origins:
        out["origin"] = origins[b]
    return out


#: Kafka's rule names (``StandardAuthorizerData``) in words, for a side no ACL decided
_RULE_WORDS: dict[str, str] = {Rule.SUPER_USER: "a super user",
                               Rule.DEFAULT_ALLOW: "no ACL on the resource (allow.everyone.if.no.acl.found)",
                               Rule.DEFAULT_DENY: "no ACL allowing it"}


def _side(rule, acl, origins: dict) -> str:
    if acl is None:
        return _RULE_WORDS.get(rule or "", rule or "no decision")
    host = "" if acl.host == "*" else f" from {acl.host}"
    text = (f"{acl.permission.name} {acl.operation.name} {acl.resource_type.name}:{acl.pattern_type.name}:"
            f"{acl.resource_name} for {acl.principal}{host}")
    origin = origins.get(acl)
    return f"{text} ({origin})" if origin else text


def because(f, result: DiffResult) -> str:
    """Why the witness changes, naming the deciding ACL of each side and where it was written:
    "was: ALLOW READ TOPIC:LITERAL:orders for User:alice (users/alice.yaml:17 (KafkaUser alice)); now:
    no ACL allowing it"."""
    return (f"was: {_side(f.old_rule, f.old_acl, result.old_origins)}; "
            f"now: {_side(f.new_rule, f.new_acl, result.new_origins)}")
