"""`authz access` (show): effective permissions per resource, per class of names, or per principal."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional

from kafka_authz_cli.acl import CLUSTER_NAME, AclBinding, AclError, AclSet, ResourceType, StandardAuthorizer
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.formats import read_text
from kafka_authz_cli.review.access import AccessReview, ResourceAccess
from kafka_authz_cli.review.access_scope import (
    access_document,
    access_json,
    merged_classes,
    merged_principal_access,
    prefix_classes,
)
from kafka_authz_cli.services.acl_sources import acl_set_from
from kafka_authz_cli.services.settings import broker_settings

log = logging.getLogger(__name__)


@dataclass
class AccessOptions:
    acls: Path | str
    acls_format: Optional[str] = None
    acls_options: Mapping[str, str] = field(default_factory=dict)
    topic: Optional[str] = None
    group: Optional[str] = None
    transactional_id: Optional[str] = None
    cluster: bool = False
    delegation_token: Optional[str] = None
    user_principal: Optional[str] = None
    resource_prefix: Optional[str] = None
    resource_type: Optional[str] = None
    names: Optional[Path] = None
    bootstrap_server: Optional[str] = None
    command_config: Optional[Path] = None
    timeout: float = 10.0
    principal: Optional[str] = None
    super_users: Optional[str] = None
    allow_everyone: Optional[bool] = None
    broker_config: Optional[Path] = None
    #: a team's declared applications (apps/appsfile.py): which of them work (those of --principal)
    apps: Optional[Path] = None


@dataclass
class AccessReport:
    resources: list[ResourceAccess]
    query: dict
    origin: Callable[[AclBinding], Optional[str]]
    #: with --apps: each declared application (of --principal) checked against the set
    apps: Optional[list] = None

    def document(self) -> dict:
        """The shared JSON shape (see README `authz access`)."""
        return access_document(self.resources, self.query, self.origin)

    def json_text(self) -> str:
        """:meth:`document` as JSON text, made without the document (fast for millions of entries)."""
        return access_json(self.resources, self.query, self.origin)


def run_access(o: AccessOptions, progress: Optional[Callable[[int, int], None]] = None) -> AccessReport:
    targets, pattern = _targets(o)
    settings = broker_settings(o.super_users, o.allow_everyone, o.broker_config)
    acl_set = acl_set_from(o.acls, o.acls_format, o.command_config, o.timeout, o.acls_options)
    authorizer = StandardAuthorizer(acl_set.bindings, settings)
    review = AccessReview(authorizer)
    principal = _principal(o.principal)
    query = {"resource_type": None, "resource_name": None, "pattern": pattern, "principal": principal,
             "settings": {"super_users": sorted(authorizer.super_users),
                          "allow_everyone_if_no_acl_found": settings.allow_everyone_if_no_acl_found}}
    apps = None
    if o.apps is not None:
        from kafka_authz_cli.services.apps import check_declared

        apps = check_declared(o.apps, acl_set, settings, principal, o.broker_config)
        if targets is None and principal is None and o.bootstrap_server is None:  # --apps alone
            return AccessReport([], query, _Origins(acl_set, authorizer), apps)
    if pattern == "prefix":
        assert o.resource_prefix is not None  # the prefix pattern is --resource-prefix's
        rtype = _resource_type(o.resource_type) or ResourceType.TOPIC
        targets = [(rtype, name, label) for name, label in prefix_classes(review, rtype, o.resource_prefix)]
    if targets is None and o.bootstrap_server is not None:
        targets = _cluster_names(o)
    if targets is None:  # --principal alone: every class of every resource type
        assert principal is not None  # _targets: else a resource, --bootstrap-server, or --apps alone (above)
        results = merged_principal_access(review, principal)
    else:
        results = _review_targets(review, targets, principal, progress)
        if pattern == "prefix":
            results = merged_classes(review, results, o.resource_prefix)
        types = {t[0] for t in targets}
        if len(types) == 1:
            query["resource_type"] = next(iter(types)).name
        if pattern != "names":
            query["resource_name"] = o.resource_prefix if pattern == "prefix" else targets[0][1]
    errors = sum(r.errors for r in results)
    if errors:
        log.warning(f"{errors:,} request class(es) get no decision (the broker throws on an ACL whose principal "
                    "has no ':'); they are not listed as allowed")
    return AccessReport(results, query, _Origins(acl_set, authorizer), apps)


def _review_targets(review: AccessReview, targets: list[tuple], principal: Optional[str],
                    progress: Optional[Callable[[int, int], None]]) -> list[ResourceAccess]:
    out = []
    for i, (rtype, name, label) in enumerate(targets, 1):
        if principal is None:
            out.append(review.resource(rtype, name, label))
        else:
            found = review.for_principal(rtype, name, principal, label)
            if found.grants:
                out.append(found)
        if progress is not None and i % 1000 == 0:
            progress(1000, len(targets))
    return out


def _principal(text: Optional[str]) -> Optional[str]:
    if text is None:
        return None
    if ":" not in text:
        raise OptionError(f"expected principalType:principalName, got {text!r}", param_hint="--principal")
    return text


_SINGLE = (("topic", ResourceType.TOPIC), ("group", ResourceType.GROUP),
           ("transactional_id", ResourceType.TRANSACTIONAL_ID), ("delegation_token", ResourceType.DELEGATION_TOKEN),
           ("user_principal", ResourceType.USER))


def _targets(o: AccessOptions) -> tuple[Optional[list[tuple]], str]:
    """(resource type, name, label) to review, or None for every class (--principal) or the cluster's
    names (--bootstrap-server); and the query's pattern."""
    single = [(rtype, getattr(o, attr)) for attr, rtype in _SINGLE if getattr(o, attr) is not None]
    if o.cluster:
        single.append((ResourceType.CLUSTER, CLUSTER_NAME))
    given = len(single) + (o.resource_prefix is not None) + (o.names is not None) + (o.bootstrap_server is not None)
    if given > 1:
        raise OptionError("give one of --topic, --group, --transactional-id, --cluster, --delegation-token, "
                          "--user-principal, --resource-prefix, --names, --bootstrap-server", param_hint="--topic")
    if given == 0 and o.principal is None and o.apps is None:
        raise OptionError("give a resource (--topic NAME, ...), --resource-prefix, --names FILE, "
                          "--bootstrap-server or --principal", param_hint="--topic")
    if single:
        return [(single[0][0], single[0][1], single[0][1])], "literal"
    if o.resource_prefix is not None:
        return [], "prefix"  # the classes depend on the ACLs: made once they are loaded
    if o.names is not None:
        return _names_file(o.names, _resource_type(o.resource_type)), "names"
    return None, "names"


def _resource_type(text: Optional[str], where: str = "--resource-type") -> Optional[ResourceType]:
    if text is None:
        return None
    try:
        return ResourceType.parse(text)
    except AclError as exc:
        raise OptionError(str(exc), param_hint=where) from None


def _names_file(path: Path, default: Optional[ResourceType]) -> list[tuple]:
    """`TYPE NAME` lines (topic orders), or plain names with --resource-type; '#' comments."""
    out = []
    for n, line in enumerate(read_text(path).splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        head, _, rest = text.partition(" ")
        rtype = None
        if rest.strip():
            try:
                rtype = ResourceType.parse(head)
            except AclError:
                rtype = None
        if rtype is not None:
            name = rest.strip()
        elif default is not None:
            rtype, name = default, text
        else:
            raise InputError("expected `TYPE NAME` (topic orders), or give --resource-type for plain names",
                             str(path), n, 1)
        out.append((rtype, CLUSTER_NAME if rtype is ResourceType.CLUSTER else name,
                    CLUSTER_NAME if rtype is ResourceType.CLUSTER else name))
    return out


def _cluster_names(o: AccessOptions) -> list[tuple]:
    """Every topic and group of the live cluster (only those of --resource-type when given)."""
    from kafka_authz_cli.services.live import close_admin, open_admin

    wanted = _resource_type(o.resource_type)
    assert o.bootstrap_server is not None  # called for --bootstrap-server
    admin = open_admin(o.bootstrap_server, o.command_config, o.timeout)
    try:
        out = []
        if wanted in (None, ResourceType.TOPIC):
            out += [(ResourceType.TOPIC, t, t) for t in admin.list_topics()]
        if wanted in (None, ResourceType.GROUP):
            out += [(ResourceType.GROUP, g, g) for g in admin.list_groups()]
    finally:
        close_admin(admin)
    return out


class _Origins:
    """Where a deciding ACL was written: its position in the engine (a look into its bucket), or, once
    many have been asked (every topic of a cluster), one map of every binding made at once."""

    #: Lookups by position before one map of every binding is cheaper.
    MAP_AFTER = 5000

    def __init__(self, acl_set: AclSet, authorizer) -> None:
        self._acl_set = acl_set
        self._authorizer = authorizer
        self._memo: dict[int, tuple[AclBinding, Optional[str]]] = {}
        self._positions: Optional[dict[int, int]] = None
        self._asked = 0

    def __call__(self, acl: AclBinding) -> Optional[str]:
        found = self._memo.get(id(acl))
        if found is not None and found[0] is acl:
            return found[1]
        bindings, origins = self._acl_set.bindings, self._acl_set.origins
        self._asked += 1
        if self._positions is None and self._asked > self.MAP_AFTER:
            self._positions = {}
            for n, binding in enumerate(bindings):
                self._positions.setdefault(id(binding), n)
        if self._positions is not None:
            i = self._positions.get(id(acl))
        else:
            i = self._authorizer.position(acl)
        origin = origins[i] if i is not None and i < len(bindings) and bindings[i] is acl else None
        if len(self._memo) > 65536:
            self._memo.clear()
        self._memo[id(acl)] = (acl, origin)
        return origin
