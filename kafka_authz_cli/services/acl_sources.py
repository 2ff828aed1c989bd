"""ACL sets from wherever they are: a file in any format (rules files compiled), or a live cluster."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Optional

from kafka_authz_cli.acl import (
    ACL_SET_READS,
    CLUSTER_NAME,
    ECOSYSTEM,
    FORMATS,
    KAFKA,
    AclSet,
    ResourceType,
    ecosystem_format_of,
    format_of,
    no_reading_options,
    parse_acls,
    told_apart,
    unmatchable_host_kind,
    unmatchable_host_reason,
    validation_errors,
)
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import WarningTally, read_text, source_label, what_is, wrong_kind
from kafka_authz_cli.services import kroxylicious

log = logging.getLogger(__name__)

#: ``--acls-format ksm``: either of Kafka Security Manager's formats, its YAML or its CSV, told by content
KSM = "ksm"


def parse_acl_source(text: str, path: str = "<input>", fmt: str | None = None,
                     options: Mapping[str, str] | None = None) -> AclSet:
    """An ACL set in any format authz reads (acl.registry's; detected by content unless ``fmt``), rules
    files compiled to the bindings that decide alike, the ecosystem's formats (Strimzi KafkaUsers, ...)
    expanded as their tools do."""
    if fmt is not None and fmt not in FORMATS:
        no_reading_options(options)
        return parse_acls(text, path, fmt)  # refused, naming the formats
    found = told_apart(FORMATS[fmt], text) if fmt else format_of(text)
    if found is None:
        no_reading_options(options)
        return parse_acls(text, path)  # refused saying what it looks like, or empty
    options = found.check_options(options)
    if found.family == KAFKA:
        return parse_acls(text, path, found.name if fmt else None)
    if fmt is not None and found.family == ECOSYSTEM and not found.sniff(text):
        return _read_as_told(found, text, path, options)
    return found.read(text, path, options)


def _read_as_told(ecosystem, text: str, path: str, options: Mapping[str, str]) -> AclSet:
    """A file ``--acls-format`` names although content detection does not see the format in it: read as the
    format reads it (detection is a heuristic, it never refuses what the format reads). Refused, saying what
    the file looks like, only when the format cannot read it or finds nothing of its own in it."""
    try:
        acl_set = ecosystem.read(text, path, options)
    except InputError as exc:
        kind = what_is(text)
        if kind is None or kind.key in ecosystem.own_kinds:
            raise  # the format's own located error says more than "this looks like YAML"
        raise wrong_kind(text, path, f"{ecosystem.title} (as --acls-format says)", ACL_SET_READS) from exc
    if not acl_set.bindings and not acl_set.findings:
        raise wrong_kind(text, path, f"{ecosystem.title} (as --acls-format says)", ACL_SET_READS)
    return acl_set


def load_acl_set(path: str | Path, fmt: str | None = None, options: Mapping[str, str] | None = None) -> AclSet:
    """A file, stdin (``-``), or a directory of files of an ecosystem format (Strimzi KafkaUsers);
    ``options`` are the format's reading options (``--option KEY=VALUE``)."""
    if str(path) != "-" and Path(path).is_dir():
        from kafka_authz_cli.ecosystem import read_directory

        if fmt == kroxylicious.FORMAT or (fmt is None and _kroxylicious_directory(Path(path))):
            return kroxylicious.read_directory(Path(path), options)
        return read_directory(path, fmt, options)
    return parse_acl_source(read_text(path), source_label(path), fmt, options)


def _kroxylicious_directory(root: Path) -> bool:
    """A directory whose YAML files name or hold rules and hold no KafkaUser or KSM file (a filter and
    its ConfigMap are often kept side by side)."""
    proxy = other = None
    for p in kroxylicious.yaml_files(root):
        text = read_text(p)
        fmt = ecosystem_format_of(text)
        if fmt is not None:
            other = other or (p, fmt)
        elif proxy is None and kroxylicious.holds(text):
            proxy = p
    if proxy is not None and other is not None:
        # Both apply, at different places (the proxy's rules, the cluster's ACLs): nothing is guessed.
        raise InputError(f"this directory holds {other[1].title} ({other[0].name}) and a Kroxylicious configuration "
                         f"({proxy.name}): say which to read with --acls-format {other[1].name} or "
                         f"--acls-format {kroxylicious.FORMAT}", str(root))
    return proxy is not None


def load_source(path: Path | str, fmt: Optional[str] = None, quiet: bool = False,
                options: Mapping[str, str] | None = None) -> AclSet:
    """An ACL source in any format authz reads, with warnings for what the broker would refuse."""
    acl_set = load_acl_set(path, fmt, options)
    if not quiet:
        _warn_about(acl_set)
    return acl_set


def _warn_about(acl_set: AclSet) -> None:
    """What the broker would do differently from what the file says: duplicates, ACLs CreateAcls
    refuses, hosts no client matches; one line per kind however many ACLs share it. The reader's own
    warnings (an empty file, a --add output) come first."""
    for warning in acl_set.warnings:
        log.warning(warning)
    # Most files hold no duplicate: a first pass only lists the names of each shape and tells whether
    # some name repeats; only then a second pass finds each duplicate in file order. A reader that
    # grouped the ACLs (AclSet.groups) spares the first pass its loop over every ACL.
    tally = _grouped_findings(acl_set) if acl_set.groups is not None else None
    acl_set.groups = None  # a hint for this pass only: its lists are as long as the file
    if tally is None:
        tally = _findings(acl_set, duplicates=False)
    if tally is None:
        tally = _findings(acl_set, duplicates=True)
    assert tally is not None  # with the duplicates, _findings always answers
    for line in tally.lines():
        log.warning(line)


def _grouped_findings(acl_set: AclSet) -> Optional[WarningTally]:
    """The warnings on ACLs grouped by everything but their name (AclSet.groups), a group at a time;
    None where a group needs its ACLs one by one (a repeated or empty name, the CLUSTER resource)."""
    bindings, found = acl_set.bindings, []
    for positions, names in acl_set.groups or ():
        first = bindings[positions[0]]
        distinct = set(names)
        if len(distinct) < len(names) or "" in distinct or first.resource_type is ResourceType.CLUSTER:
            return None
        errors = validation_errors(first)
        if errors:  # then every ACL of the group: the name is neither empty nor the cluster's
            found.append((positions[0], 0, "ACLs the broker's CreateAcls would refuse", positions,
                          f"the broker's CreateAcls would refuse this ACL: {'; '.join(errors)}"))
        kind = unmatchable_host_kind(first.host) if first.host != "*" else None
        if kind is not None:
            reason = unmatchable_host_reason(first.host)
            assert reason is not None  # a host of a kind that never matches says why
            found.append((positions[0], 1, f"ACLs have a host that never matches a client address ({kind})",
                          positions, reason))
    # As the pass over every ACL would tally them: kinds in the order first met, places in file order.
    tally = WarningTally()
    few = tally.examples
    kinds: dict[str, tuple[int, list, str]] = {}
    for _, _, kind, positions, message in sorted(found, key=lambda f: (f[0], f[1])):
        if kind in kinds:
            count, places, first_message = kinds[kind]
            # The first few places of the kind: among the first few of each group.
            kinds[kind] = (count + len(positions), sorted(places + positions[:few])[:few], first_message)
        else:
            kinds[kind] = (len(positions), positions[:few], message)
    for kind, (count, places, message) in kinds.items():
        tally.add_many(kind, count, [acl_set.origins[i] for i in places], message)
    return tally


def _findings(acl_set: AclSet, duplicates: bool) -> Optional[WarningTally]:
    """The warnings on the ACLs, in file order. Without ``duplicates``: None when some ACL repeats
    (the caller asks again, with them)."""
    tally = WarningTally()
    # A million ACLs share a few thousand (principal, host, operation, ...) shapes: each shape is
    # checked once, and holds the names met with it (a name met twice is a duplicate ACL); per ACL
    # remain two lookups and the checks on its name.
    shapes: dict[tuple, tuple[list, set, bool, Optional[str]]] = {}
    origins = acl_set.origins  # made when asked (LineOrigins): only for the ACLs warned about
    cluster, shape_of = ResourceType.CLUSTER, shapes.get
    for i, binding in enumerate(acl_set.bindings):
        rtype, name, host = binding.resource_type, binding.resource_name, binding.host
        shape = (rtype, binding.pattern_type, binding.principal, host, binding.operation, binding.permission)
        found = shape_of(shape)
        if found is None:
            found = shapes[shape] = ([], set(), bool(validation_errors(binding)),
                                     unmatchable_host_kind(host) if host != "*" else None)
        if not duplicates:
            found[0].append(name)
        elif name in found[1]:
            tally.add("duplicate ACLs (Kafka stores each once)", origins[i],
                      f"duplicate ACL {binding.standard_acl_str()} (Kafka stores it once)")
        else:
            found[1].add(name)
        if found[2] or not name or (rtype is cluster and name != CLUSTER_NAME):
            errors = validation_errors(binding)
            if errors:
                tally.add("ACLs the broker's CreateAcls would refuse", origins[i],
                          f"the broker's CreateAcls would refuse this ACL: {'; '.join(errors)}")
        if found[3] is not None:
            reason = unmatchable_host_reason(host)
            assert reason is not None  # a host of a kind that never matches says why
            tally.add(f"ACLs have a host that never matches a client address ({found[3]})", origins[i], reason)
    if not duplicates and any(len(set(names)) < len(names) for names, _, _, _ in shapes.values()):
        return None
    return tally


CLUSTER_PREFIX = "cluster:"


def is_cluster_source(spec) -> bool:
    return str(spec).startswith(CLUSTER_PREFIX)


def cluster_acl_set(spec, command_config=None, timeout: float | None = None) -> AclSet | None:
    """``cluster:HOST:PORT[,HOST:PORT...]``: the live cluster's ACLs (DescribeAcls), as an ACL set.

    ``None`` when ``spec`` is not a cluster source (the caller reads it as a file). The one place
    `diff`, `whatif` and anything else that takes an ACL set turn a live side into bindings.
    """
    if not is_cluster_source(spec):
        return None
    bootstrap = str(spec)[len(CLUSTER_PREFIX):]
    if not bootstrap:
        raise InputError(f"{spec!r}: expected cluster:HOST:PORT (the bootstrap servers)")
    from kafka_authz_cli.cluster import DEFAULT_TIMEOUT
    from kafka_authz_cli.services.live import close_admin, open_admin

    admin = open_admin(bootstrap, command_config, timeout or DEFAULT_TIMEOUT)
    try:
        bindings = admin.list_acls()
    finally:
        close_admin(admin)
    origin = f"{CLUSTER_PREFIX}{bootstrap}"
    return AclSet(bindings, [origin] * len(bindings), origin, "cluster")


def acl_set_from(spec, fmt: Optional[str] = None, command_config=None, timeout: float | None = None,
                 options: Mapping[str, str] | None = None) -> AclSet:
    """A file, or ``cluster:HOST:PORT`` read live."""
    return cluster_acl_set(spec, command_config, timeout) or load_source(spec, fmt, options=options)


def load_registry(types: Optional[Path]):
    """The rules language's class registry, with a --types file's classes when one is given."""
    from kafka_authz_cli.rules import TypeRegistry, load_types

    if types is None:
        return TypeRegistry()

    registry, ignored = load_types(types)
    if ignored:
        log.warning(f"{types}: ignored top-level key(s) {', '.join(k[:60] for k in ignored)} (a types file has "
                    "principal_types, resource_types and default_imports)")
    return registry
