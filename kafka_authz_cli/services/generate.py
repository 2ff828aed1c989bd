"""`authz generate`: the smallest ACL set a window of audit logs (files or a whatif index) shows a
principal needs, written in any format, with the proof: whatif's replay of the same window against it
(nothing newly denied, nothing newly allowed) and, with a current set, the exact decision diff listing
what it takes away.

Logs are read with whatif's reader and folded into its aggregates; an index is answered from with
whatif's index functions. Nothing here prints: warnings are logged, progress goes through whatif's
:class:`~kafka_authz_cli.services.whatif.ProgressHooks`.
"""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import BinaryIO, Mapping, Optional

from kafka_authz_cli.acl import DiffResult, diff
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.review import (
    WIDENINGS,
    Generated,
    GenerateOptions,
    least_privilege,
    parse_known_names,
    prove,
)
from kafka_authz_cli.services.acl_sources import acl_set_from
from kafka_authz_cli.services.convert import WriteOptions, write_acls
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.whatif import ProgressHooks, note_skipped, read_logs_local, spooled_logs
from kafka_authz_cli.whatif import (
    ReadStats,
    WhatIfReport,
    aggregate,
    aggregates_from_table,
    no_decision_lines,
    open_checked,
    read_hourly_local,
)

log = logging.getLogger(__name__)

NO_ALLOWED = ("no ALLOWED decision was logged: there is nothing to generate from. Kafka logs allowed decisions at "
              "DEBUG: set the kafka.authorizer.logger level to DEBUG (log4j: log4j.logger.kafka.authorizer.logger=DEBUG, "
              "authorizerAppender; log4j2: the kafka.authorizer.logger logger's level) for a representative window")


@dataclass
class Window:
    """Where the traffic comes from: log files (`-` for stdin) or whatif indexes, and the hours kept
    (`since` included, `until` excluded, as :func:`kafka_authz_cli.whatif.hour_bound` gives them)."""

    logs: Optional[list[str]] = None
    indexes: Optional[list[Path]] = None
    since: Optional[str] = None
    until: Optional[str] = None
    principals: Optional[list[str]] = None


@dataclass
class Widening:
    """How far inferred prefixes may reach (`none`, `names`, `any`; None: `names` when names are
    known, else `none`) and the known names (a file, and/or the live cluster's topics and groups)."""

    max_widening: Optional[str] = None
    names_file: Optional[Path] = None
    bootstrap_server: Optional[str] = None
    min_names: int = 2


@dataclass
class GenerateResult:
    generated: Generated
    text: str  # the ACL set in the `to` format
    to: str
    max_widening: str
    proof: WhatIfReport  # the window replayed against the generated set
    stats: ReadStats  # the lines read (for an index: all its lines)
    untimed: int  # decisions without a time left out by since/until
    removed: Optional[DiffResult] = None  # the decision diff current -> generated (with `current`)
    current_acls: Optional[int] = None

    @property
    def proven(self) -> bool:
        return not self.proof.newly_denied and not self.proof.newly_allowed


def generate(window: Window, to: str = "json", *, widening: Widening = Widening(), keep_hosts: bool = False,
             write_options: WriteOptions = WriteOptions(), current: Optional[Path | str] = None,
             acls_format: Optional[str] = None, acls_options: Optional[Mapping[str, str]] = None,
             super_users: Optional[str] = None, allow_everyone: Optional[bool] = None,
             broker_config: Optional[Path] = None, command_config: Optional[Path] = None, timeout: float = 10.0,
             stdin: Optional[BinaryIO] = None, progress: Optional[ProgressHooks] = None) -> GenerateResult:
    """The least-privilege ACL set of the window, written as `to`, with its proof."""
    if bool(window.logs) == bool(window.indexes):
        raise OptionError("give either --logs (log files) or --index (a whatif index)", "--logs")
    settings = broker_settings(super_users, allow_everyone, broker_config)
    known = _known_names(widening, command_config, timeout)
    mode = _mode(widening.max_widening, known)
    aggs, stats, untimed = _traffic(window, stdin, progress or ProgressHooks())
    if window.principals:
        wanted = set(window.principals)
        aggs = {k: a for k, a in aggs.items() if k[0] in wanted}
        for p in sorted(wanted - {k[0] for k in aggs}):
            log.warning(f"--principal {p}: no request of it in the window")
    options = GenerateOptions(mode, known or {}, keep_hosts, widening.min_names, settings.super_users)
    generated = least_privilege(aggs, options)
    text = write_acls(generated.bindings, to, write_options)
    result = GenerateResult(generated, text, to, mode, prove(aggs, generated.bindings, settings),
                            stats, untimed)
    # whatif's advice for INFO-only logs ends with its own --current; here the ACL set comes from the allowed lines
    result.proof.warnings = [NO_ALLOWED if w.startswith("no ALLOWED decision") else w for w in result.proof.warnings]
    if current is not None:
        current_set = acl_set_from(current, acls_format, command_config, timeout, acls_options)
        bindings = current_set.bindings
        if window.principals:  # the other principals' ACLs are not what this set replaces
            chosen = set(window.principals)
            bindings = [b for b in bindings if b.principal in chosen]
        result.removed = diff(bindings, generated.bindings, settings, settings)
        result.current_acls = len(bindings)
    _warn(generated, mode)
    return result


def _mode(asked: Optional[str], known) -> str:
    if asked is None:
        return "names" if known else "none"
    if asked not in WIDENINGS:
        raise OptionError(f"expected one of {', '.join(WIDENINGS)}, got {asked!r}", "--max-widening")
    if asked == "names" and not known:
        raise OptionError("names needs the known names: --names FILE or --bootstrap-server HOST:PORT",
                          "--max-widening")
    return asked


def _known_names(widening: Widening, command_config, timeout: float):
    known: dict = {}
    if widening.names_file is not None:
        from kafka_authz_cli.formats import read_text

        known = parse_known_names(read_text(widening.names_file), str(widening.names_file))
    if widening.bootstrap_server:
        from kafka_authz_cli.acl import ResourceType
        from kafka_authz_cli.services.live import close_admin, open_admin

        admin = open_admin(widening.bootstrap_server, command_config, timeout)
        try:
            for rtype, names in ((ResourceType.TOPIC, admin.list_topics()),
                                 (ResourceType.GROUP, admin.list_groups())):
                known[rtype] = set(known.get(rtype, ())) | set(names)
        finally:
            close_admin(admin)
    return known


def _traffic(window: Window, stdin, progress: ProgressHooks):
    """(aggregates of the window, line accounting, decisions without a time left out)."""
    if window.indexes:
        indexes, stats = open_checked(window.indexes)
        untimed = 0
        if window.since is not None or window.until is not None:
            import pyarrow.compute as pc

            table = read_hourly_local(indexes, None, None)
            untimed = pc.sum(table.filter(pc.is_null(table["hour_text"]))["count"]).as_py() or 0
        return aggregates_from_table(read_hourly_local(indexes, window.since, window.until)), stats, untimed
    with spooled_logs(window.logs or [], stdin) as (files, names, not_logs):
        with progress.reading(sum(os.path.getsize(f) for f in files)) as advance:
            read = read_logs_local(files, names, advance)
            stats, counter = read.stats, [0]
            aggs = aggregate(_in_window(read.decisions, window.since, window.until, counter))
    note_skipped(stats, not_logs)
    nothing = no_decision_lines(stats)
    if nothing is not None:  # the generated set would be empty
        raise InputError(f"{nothing} (nothing to generate from)")
    return aggs, stats, counter[0]


def _in_window(decisions, since: Optional[str], until: Optional[str], untimed: list[int]):
    """The decisions within [since, until) by their hour (`YYYY-MM-DD HH`); without bounds, all."""
    if since is None and until is None:
        yield from decisions
        return
    for d in decisions:
        if not d.timestamp:
            untimed[0] += 1
            continue
        hour = d.timestamp.replace("T", " ")[:13]
        if (since is None or hour >= since) and (until is None or hour < until):
            yield d


def _warn(generated: Generated, mode: str) -> None:
    if generated.mixed_requests:
        log.warning(f"{generated.mixed_requests} request(s) were both allowed and denied in the window (the ACLs "
                    "changed while logging?): they are treated as allowed")
    if generated.unexpressible:
        log.warning(f"{len(generated.unexpressible)} request(s) name an operation or resource type Kafka ACLs do not "
                    f"have (first: {generated.unexpressible[0]}): no ACL for them")
    if generated.super_users_skipped:
        log.warning(f"{len(generated.super_users_skipped)} super user(s) need no ACL and get none: "
                    + ", ".join(generated.super_users_skipped[:5]))
    if mode == "names" and generated.literal_only_types:
        log.warning("--max-widening names: no known names of type(s) " + ", ".join(generated.literal_only_types)
                    + ": their names are kept literal")


_KEY = ("principal", "host", "operation", "resource_type", "resource_name")


def _finding(f) -> dict:
    return {"direction": f.direction, "principal": f.principal, "principals": list(f.principals or (f.principal,)),
            "resource_type": f.resource_type.name,
            "operations": f.operations, "hosts": f.hosts, "description": f.describe()}


def generate_document(result: GenerateResult) -> dict:
    """`authz generate --format json` (version 1)."""
    g, proof = result.generated, result.proof
    body = {
        "version": 1, "to": result.to, "max_widening": result.max_widening, "lines": result.stats.as_dict(),
        "acls": [b.as_dict() for b in g.bindings],
        "principals": g.principals, "super_users_skipped": g.super_users_skipped,
        "requests": {"allowed": g.allowed_requests, "denied": g.denied_requests, "mixed": g.mixed_requests,
                     "unexpressible": len(g.unexpressible)},
        "prefixes": [p.as_dict() for p in g.prefixes],
        "implied": [dict(zip(_KEY, k)) for k in g.implied],
        "hosts_kept": [dict(zip(_KEY, k)) for k in g.host_kept],
        "denies": [b.as_dict() for b in g.denies],
        "proof": {"holds": result.proven, "replayed_requests": proof.distinct_requests,
                  "decisions": proof.decisions, "newly_denied": [asdict(c) for c in proof.newly_denied],
                  "newly_allowed": [asdict(c) for c in proof.newly_allowed], "warnings": proof.warnings},
        "current": None,
    }
    if result.untimed:
        body["untimed_left_out"] = result.untimed
    if result.removed is not None:
        r = result.removed
        body["current"] = {
            "acls": result.current_acls, "verdict": r.verdict,
            "removed": [_finding(f) for f in r.findings if f.direction == "lost"],
            "added": [_finding(f) for f in r.findings if f.direction != "lost"],
            "bindings_removed": len(r.bindings.removed), "bindings_added": len(r.bindings.added)}
    return body
