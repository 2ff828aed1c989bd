"""`authz diff`: two ACL sets (files in any format, or live clusters) compared as bindings and as decisions."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping, Optional

from kafka_authz_cli.acl import AclBinding, AclSet, DiffResult, diff
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.sources import cluster_acl_set, load_source

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
