"""`authz compact`: fewer ACLs deciding every request alike, proved with the exact decision diff before
anything is written."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional

from kafka_authz_cli.acl import AclSet, BrokerSettings, DiffResult, ResourceType, diff
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats import read_text
from kafka_authz_cli.review import Compaction, compact_acls
from kafka_authz_cli.services.acl_sources import cluster_acl_set, load_source
from kafka_authz_cli.services.convert import WriteOptions, write_acls
from kafka_authz_cli.services.settings import broker_settings

log = logging.getLogger(__name__)

#: The spellings a --names line may start with to name a resource type other than TOPIC.
NAME_TYPES = {"topic": ResourceType.TOPIC, "group": ResourceType.GROUP,
              "transactional-id": ResourceType.TRANSACTIONAL_ID, "transactional_id": ResourceType.TRANSACTIONAL_ID}


class CompactionBroken(AuthzError):
    """The compacted set decides some request differently: a bug in compact; nothing is written."""

    exit_code = 3


@dataclass
class CompactResult:
    compaction: Compaction
    #: The exact decision diff between the input and the compacted set (None: --no-proof).
    proof: Optional[DiffResult]
    #: The compacted set in the --to format.
    text: str
    settings: BrokerSettings
    source: str
    #: The known names per resource type (--names), or None.
    names: Optional[dict[ResourceType, set[str]]]
    max_acls: Optional[int] = None

    @property
    def over_limit(self) -> bool:
        return self.max_acls is not None and self.compaction.after > self.max_acls


def read_names(path: Path) -> dict[ResourceType, set[str]]:
    """One name a line: a topic, or ``group:NAME`` / ``transactional-id:NAME`` (``topic:NAME`` too);
    blank lines and lines starting with ``#`` are skipped. Topic names cannot hold ':', so a first
    ``:`` after one of those words always names the type."""
    out: dict[ResourceType, set[str]] = {}
    for number, raw in enumerate(read_text(path).splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, sep, rest = line.partition(":")
        rtype = NAME_TYPES.get(head.lower()) if sep else None
        if rtype is None:
            rtype, rest = ResourceType.TOPIC, line
        if not rest:
            raise InputError(f"no name after {head}:", str(path), number)
        out.setdefault(rtype, set()).add(rest)
    if not out:
        raise InputError("no names in the file (one name a line; group:NAME, transactional-id:NAME)", str(path))
    return out


def compact_acl_set(source: Path, to: str = "json", acls_format: Optional[str] = None,
                    super_users: Optional[str] = None, allow_everyone: Optional[bool] = None,
                    broker_config: Optional[Path] = None, names_file: Optional[Path] = None,
                    max_acls: Optional[int] = None, write_options: WriteOptions = WriteOptions(),
                    acls_options: Optional[Mapping[str, str]] = None, command_config: Optional[Path] = None,
                    timeout: Optional[float] = None, check: bool = True) -> CompactResult:
    """``check``: prove the result with the exact decision diff (its cost grows with the request
    classes the removed ACLs touch: a minute for 10,000 ACLs removed)."""
    settings = broker_settings(super_users, allow_everyone, broker_config)
    acl_set: AclSet = cluster_acl_set(source, command_config, timeout) or load_source(source, acls_format,
                                                                                      options=acls_options)
    names = read_names(names_file) if names_file is not None else None
    result = compact_acls(acl_set.bindings, settings, names)
    proof = prove(acl_set.bindings, result, settings) if check else None
    if proof is None:
        log.warning("--no-proof: the compacted set was not checked with the exact decision diff; "
                    f"run `authz diff {source} <output>` to check it")
    text = write_acls(result.bindings, to, write_options)
    return CompactResult(result, proof, text, settings, str(source), names, max_acls)


def prove(given: list, result: Compaction, settings: BrokerSettings) -> DiffResult:
    """The exact decision diff of the input and the compacted set; a change other than a merge's
    widening over names it does not know raises :class:`CompactionBroken`."""
    proof = diff(given, result.bindings, settings, settings)
    unexplained = [c for c in proof.changes if not widened_by_merge(c.witness, result)]
    if unexplained:
        shown = "; ".join(f"{c.witness.principal} {c.witness.operation.name} {c.witness.resource_type.name}:"
                          f"{c.witness.resource_name!r} was {c.old}, would be {c.new}" for c in unexplained[:3])
        raise CompactionBroken(f"internal error: the compacted set decides {len(unexplained):,} request class(es) "
                               f"differently ({shown}); nothing was written. Please report this with the input.")
    return proof


def widened_by_merge(request, result: Compaction) -> bool:
    """Whether ``request`` names a resource a merge widened to: under its prefix, not a known name."""
    name = request.resource_name
    if name in result.known.get(request.resource_type, ()):
        return False
    return any(m.prefixed.resource_type is request.resource_type and name.startswith(m.prefixed.resource_name)
               for m in result.merges)


def compact_document(result: CompactResult) -> dict:
    """`authz compact --format json` (version 1)."""
    c = result.compaction
    allow = result.settings.allow_everyone_if_no_acl_found
    return {
        "version": 1,
        "source": result.source,
        "settings": {"super_users": [s for s in result.settings.super_users.split(";") if s.strip()],
                     "allow_everyone_if_no_acl_found": allow},
        "before": c.before, "after": c.after, "removed": c.before - c.after + len(c.merges),
        "added": len(c.merges), "by_reason": c.counts(),
        "max_acls": result.max_acls, "over_limit": result.over_limit,
        "untouched": c.untouched,
        "names": None if result.names is None else {t.name: len(n) for t, n in result.names.items()},
        "proof": None if result.proof is None else {
            "verdict": result.proof.verdict, "classes_examined": result.proof.classes_examined,
            "gained": result.proof.gained, "lost": result.proof.lost,
            "changes": [f.describe() for f in result.proof.findings]},
        "merges": [{"prefixed": m.prefixed.as_dict(), "literals": [b.as_dict() for b in m.literals],
                    "known_names": m.known, "widening": m.widening(allow)} for m in c.merges],
        # made one by one as they are written (the JSON emitter takes iterators): a million removals never all held
        "removals": ({"acl": r.binding.as_dict(), "reason": r.reason, "why": r.describe(),
                      "by": [b.as_dict() for b in r.by]} for r in c.removals),
    }
