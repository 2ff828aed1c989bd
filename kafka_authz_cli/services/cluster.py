"""`authz cluster`: pull a live cluster's ACLs, plan a change within a scope, apply it safely.

The rules are cluster/rollout.py's (scope, order, drift) and cluster/guard.py's (the delete guard);
here they meet the files and the cluster. `apply` shows what it is about to do and asks before
changing anything, through callables the CLI hands over.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping, Optional

from kafka_authz_cli.acl import BrokerSettings, PatternType, kafka_acls_filters, validation_errors
from kafka_authz_cli.cluster import (
    ApplyReport,
    Batch,
    Drift,
    DriftError,
    Plan,
    Scope,
    batches,
    check_drift,
    confirm_changes,
    delete_guard,
    execute,
    make_plan,
)
from kafka_authz_cli.errors import AuthzError, InputError, OptionError
from kafka_authz_cli.formats import read_text
from kafka_authz_cli.services.acl_sources import load_source
from kafka_authz_cli.services.live import close_admin, open_admin
from kafka_authz_cli.services.settings import broker_settings

log = logging.getLogger(__name__)

#: Called after every applied batch (the live test reads the broker's ACLs there).
ON_BATCH: Optional[Callable[[Batch, list], None]] = None


# -- pull -------------------------------------------------------------------------------------

def pull(bootstrap_server: str, command_config: Optional[Path], timeout: float, fmt: str, *, topics: list[str],
         groups: list[str], transactional_ids: list[str], delegation_tokens: list[str], user_principals: list[str],
         cluster: bool, pattern_type: Optional[str], principals: list[str], options=None) -> str:
    """`cluster pull`: the cluster's ACLs (DescribeAcls) in ``fmt``, filtered as `kafka-acls --list`
    filters with the same options."""
    if fmt == "rules":
        raise AuthzError("--to rules: pull as json, then use `authz decompile`")
    ptype = None
    if pattern_type is not None:
        try:
            ptype = PatternType.parse_filter(pattern_type)
        except ValueError:
            raise OptionError("expected literal, prefixed, match or any", "--resource-pattern-type") from None
    for p in principals:
        if ":" not in p:
            raise OptionError(f"{p!r}: a principal is Type:name (User:alice)", "--principal")
    filters = kafka_acls_filters(topics, groups, transactional_ids, delegation_tokens, user_principals, cluster, ptype,
                                 principals)
    admin = open_admin(bootstrap_server, command_config, timeout)
    try:
        bindings = admin.list_acls(filters)
    finally:
        close_admin(admin)
    from kafka_authz_cli.services.convert import WriteOptions, write_acls

    return write_acls(bindings, fmt, options or WriteOptions())


# -- plan -------------------------------------------------------------------------------------

def _scope(scope: list[str], scope_file: Optional[Path]) -> Scope:
    result = Scope.parse(scope)
    if scope_file is not None:
        result = result.merge(Scope.parse_file(read_text(scope_file), str(scope_file)))
    return result


def _effect(plan: Plan, settings: BrokerSettings) -> dict:
    from kafka_authz_cli.acl import diff

    if not plan.changes:
        return {"verdict": "equivalent", "gained": 0, "lost": 0, "findings": []}
    result = diff(plan.observed, plan.result, settings, settings)
    return {"verdict": result.verdict, "gained": result.gained, "lost": result.lost,
            "findings": [{"direction": f.direction, "description": f.describe()} for f in result.merged]}


def _build_plan(desired_path: Path, acls_format: Optional[str], admin, scope: Scope, allow_delete: bool,
                settings: BrokerSettings, bootstrap: str, acls_options: Optional[Mapping[str, str]] = None) -> Plan:
    desired = load_source(desired_path, acls_format, options=acls_options).bindings
    invalid = [(b, e) for b in desired if (e := validation_errors(b))]
    if invalid:
        for b, e in invalid[:20]:
            log.warning(f"{b.standard_acl_str()}: {'; '.join(e)}")
        raise AuthzError(f"{len(invalid)} desired ACL(s) would be refused by the broker; nothing was planned")
    observed = admin.list_acls()
    plan = make_plan(observed, desired, scope, allow_delete, settings.allow_everyone_if_no_acl_found)
    plan.super_users = settings.super_users
    plan.bootstrap_server = bootstrap
    plan.created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    plan.effect = _effect(plan, settings)
    if not desired:
        _warn_empty_desired(desired_path, plan)
    return plan


def _warn_empty_desired(desired_path: Path, plan: Plan) -> None:
    # An empty file is most often a failed export or a wrong path, rarely "remove everything": say it loudly.
    if plan.allow_delete:
        log.warning(f"{desired_path}: THE DESIRED ACL SET IS EMPTY: this plan deletes all {len(plan.deletes)} "
                    "ACL(s) in scope and creates none. Check the file before applying.")
    else:
        log.warning(f"{desired_path}: THE DESIRED ACL SET IS EMPTY: nothing is created; with --allow-delete "
                    f"this plan would delete all {len(plan.kept)} ACL(s) in scope.")


def plan(desired: Path, bootstrap_server: str, command_config: Optional[Path], timeout: float,
         acls_format: Optional[str], scope: list[str], scope_file: Optional[Path], allow_delete: bool,
         super_users: Optional[str], allow_everyone: Optional[bool], broker_config: Optional[Path],
         acls_options: Optional[Mapping[str, str]] = None) -> Plan:
    """`cluster plan`: the desired set against the cluster's ACLs within the scope, with the effect
    on decisions (as `authz diff` computes it, with the broker's settings)."""
    settings = broker_settings(super_users, allow_everyone, broker_config)
    chosen = _scope(scope, scope_file)
    admin = open_admin(bootstrap_server, command_config, timeout)
    try:
        return _build_plan(desired, acls_format, admin, chosen, allow_delete, settings, bootstrap_server, acls_options)
    finally:
        close_admin(admin)


# -- apply ------------------------------------------------------------------------------------

@dataclass
class ApplyPreview:
    """What `apply` is about to do: the plan, how the cluster compares with it (fresh, or an earlier
    apply that stopped part-way), the changes that remain and their batches."""

    plan: Plan
    drift: Drift
    creates: list
    deletes: list
    work: list[Batch]


@dataclass
class ApplyOutcome:
    """``status``: "done" (the plan was already applied), "nothing" (nothing left to change),
    "dry-run", or "applied" (``report`` says what was applied, refused, unknown, not attempted)."""

    status: str
    preview: Optional[ApplyPreview] = None
    report: Optional[ApplyReport] = None

    @property
    def total(self) -> int:
        return len(self.preview.creates) + len(self.preview.deletes) if self.preview else 0


def read_plan(path: Path) -> Optional[dict]:
    """The plan document if ``path`` is one; None for an ACL set."""
    if str(path) == "-":
        return None
    text = read_text(path)
    if '"authz_plan"' not in text[:200]:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", str(path), exc.lineno, exc.colno) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", str(path)) from None


def apply(plan_file: Path, bootstrap_server: Optional[str], command_config: Optional[Path], timeout: float,
          batch_size: int, dry_run: bool, yes: bool, max_deletes: Optional[int], acls_format: Optional[str],
          scope: list[str], scope_file: Optional[Path], allow_delete: bool, *,
          show_plan: Callable[[Plan], None], show: Callable[[ApplyPreview], None],
          ask: Callable[[str], str], confirm: Callable[[str], bool]) -> ApplyOutcome:
    """`cluster apply`: a plan file (or an ACL set, planned here with the scope rules and shown with
    ``show_plan``), checked against the cluster's ACLs again. Drift raises :class:`DriftError` (its
    ``drift`` says what changed); otherwise the remaining changes are shown (``show``), then the
    delete guard and the confirmation ask (``ask``, ``confirm``) and the batches are applied in the
    order that never widens access, stopping at the first that fails."""
    doc = read_plan(plan_file)
    bootstrap = bootstrap_server or (doc or {}).get("bootstrap_server")
    if not bootstrap:
        raise OptionError("required (an ACL set argument carries no bootstrap server)", "--bootstrap-server")
    admin = open_admin(bootstrap, command_config, timeout)
    try:
        if doc is not None:
            if scope or scope_file or allow_delete:
                raise OptionError("the plan has its scope and deletes already; make a new plan to change them",
                                  "--scope/--allow-delete")
            the_plan = Plan.from_json(doc, str(plan_file))
        else:
            the_plan = _build_plan(plan_file, acls_format, admin, _scope(scope, scope_file), allow_delete,
                                   broker_settings(None, None, None), bootstrap)
            show_plan(the_plan)
        current = admin.list_acls()
        preview = _preview(the_plan, current, batch_size)
        if preview is None:
            return ApplyOutcome("done")
        show(preview)
        if not preview.creates and not preview.deletes:
            return ApplyOutcome("nothing", preview)
        if dry_run:
            return ApplyOutcome("dry-run", preview)
        delete_guard(len(preview.deletes), len(current), max_deletes, ask)
        confirm_changes("apply these changes?", yes, confirm)
        from kafka_authz_cli.cluster import ClusterError

        report = execute(admin, preview.work, ON_BATCH, errors=(ClusterError, OSError, TimeoutError))
    finally:
        close_admin(admin)
    if report.failed and not report.applied and all("is not allowed to" in e for _, _, e in report.failed):
        raise AuthzError(report.failed[0][2] + "; nothing was changed")
    return ApplyOutcome("applied", preview, report)


def _preview(the_plan: Plan, current: list, batch_size: int) -> Optional[ApplyPreview]:
    """What remains of the plan on the cluster as it is now (None: all of it is applied already)."""
    drift = check_drift(the_plan, current)
    if drift.status == "done":
        return None
    if drift.status == "drift":
        raise DriftError(f"the cluster's ACLs changed since the plan ({len(drift.added)} added, "
                         f"{len(drift.removed)} removed): nothing was changed; run `authz cluster plan` again", drift)
    creates, deletes = drift.remaining_creates, drift.remaining_deletes
    work = batches(creates, deletes, batch_size, the_plan.allow_everyone_if_no_acl_found) if creates or deletes else []
    return ApplyPreview(the_plan, drift, creates, deletes, work)
