"""Kroxylicious configurations as ACL sources: the rules an Authorization filter applies, found exactly
as the proxy and its Kubernetes operator find them, compiled like any rules file.

Three shapes (``rules/embedded.py`` reads each, following Kroxylicious 0.24):

- a proxy configuration: ``filterDefinitions[]`` with ``type: Authorization`` and
  ``config.authorizerConfig.aclFile``, a path the proxy opens from its working directory
  (``AclAuthorizerService.initialize``: ``Path.of(aclFile)``);
- the operator's ``KafkaProtocolFilter`` whose ``aclFile`` is ``${configmap:NAME:KEY}`` (or
  ``${secret:...}``), resolved against the ConfigMaps and Secrets of the same input (a multi-document
  YAML, or the files of a directory), as the operator mounts them;
- a ConfigMap (or Secret) alone: it names no filter, so a value that reads as a rules file is the rules.

Nothing is guessed: several Authorization filters need ``--option filter=NAME``, a ConfigMap with several
rules values ``--option key=KEY``; a missing file, ConfigMap or key is one located error; a configuration
the proxy refuses is refused. Every position of the rules (errors, origins) points into the YAML: the
block scalar's line plus the line inside it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from kafka_authz_cli.acl import FORMATS, AclSet
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import files_under, read_text

if TYPE_CHECKING:
    from kafka_authz_cli.rules import KroxyliciousYaml

#: ``--acls-format`` name (its entry in acl.registry: title, reading options, file suffixes)
FORMAT = "kroxylicious"


def sniff(text: str) -> bool:
    """A YAML holding or naming rules (cheap test; ``read`` decides)."""
    from kafka_authz_cli.rules import may_hold_rules

    return may_hold_rules(text) and not text.lstrip("\ufeff").lstrip().startswith(("{", "["))


@dataclass(frozen=True)
class _Yaml:
    path: str
    found: KroxyliciousYaml


def read(texts: Iterable[tuple[str, str]], source: str, options: Mapping[str, str] | None = None) -> AclSet:
    """The bindings of the rules that ``texts`` (``(text, path)`` of each YAML file) make the proxy apply."""
    options = _checked(options)
    yamls = [_parse(text, path) for text, path in texts]
    for y in yamls:
        for p in y.found.problems:
            raise InputError(f"{p.message}: the proxy would not start with this configuration", y.path, p.line, p.col)
        for embedded in y.found.inline:
            line, col = embedded.anchor
            raise InputError(f"{embedded.where}: rules written inline are refused by the proxy (only aclFile names "
                             "them)", y.path, line, col)
    refs = [(y, ref) for y in yamls for ref in y.found.refs]
    if refs:
        y, ref = _the_filter(refs, options.get("filter"), source)
        return _from_ref(y, ref, yamls, options.get("key"))
    if "filter" in options:
        raise InputError(f"--option filter={options['filter']}: no Authorization filter here", source)
    return _from_maps(yamls, options.get("key"), source)


def _checked(options: Mapping[str, str] | None) -> Mapping[str, str]:
    return FORMATS[FORMAT].check_options(options)


def _parse(text: str, path: str) -> _Yaml:
    from kafka_authz_cli.rules import YamlSyntaxError, read_kroxylicious_yaml

    try:
        return _Yaml(path, read_kroxylicious_yaml(text))
    except YamlSyntaxError as exc:
        raise InputError(str(exc), path, exc.line, exc.col) from None


def _the_filter(refs: list, name: str | None, source: str):
    """The one Authorization filter meant: the only one, or the one ``--option filter`` names."""
    names = sorted({ref.filter_name for _, ref in refs})
    if name is not None:
        chosen = [(y, ref) for y, ref in refs if ref.filter_name == name]
        if not chosen:
            raise InputError(f"--option filter={name}: no Authorization filter of that name here (there are: "
                             f"{', '.join(names)})", source)
        refs = chosen
    if len(refs) > 1:
        y, ref = refs[1]
        raise InputError(f"{len(refs)} Authorization filters ({', '.join(names)}): say which one's rules to read with "
                         "--option filter=NAME", y.path, ref.line, ref.col)
    return refs[0]


def _from_ref(y: _Yaml, ref, yamls: list[_Yaml], key_option: str | None) -> AclSet:
    from kafka_authz_cli.rules.acl_file import acl_file_target, find_map

    target = acl_file_target(ref)
    label = target.label
    if target.refused:
        raise InputError(f"{label}: the operator refuses `aclFile: {ref.value}`: a config provider placeholder "
                         "cannot be preceded or followed by other characters (SecureConfigInterpolator)",
                         y.path, ref.line, ref.col)
    if target.pod_path is not None:
        raise InputError(f"{label}: aclFile {ref.value!r}{target.unquoted} is a path inside the proxy pod, which this "
                         "input does not hold (keep the rules in a ConfigMap and name it as ${configmap:NAME:KEY})",
                         y.path, ref.line, ref.col)
    mk = target.map_key
    if key_option is not None and (mk is None or mk.key != key_option):
        # The filter's aclFile says where the rules are: a key asked for elsewhere is not silently dropped.
        named = f"key {mk.key}" if mk is not None else f"the file {ref.value}"
        raise InputError(f"--option key={key_option}: {label}'s aclFile names {named}; --option key chooses among "
                         "a ConfigMap's keys only where no filter names one", y.path, ref.line, ref.col)
    if mk is not None:
        if mk.kind is None:
            raise InputError(f"{label}: unknown config provider {mk.provider!r} (the operator knows configmap and "
                             "secret)", y.path, ref.line, ref.col)
        holder = find_map(((k, (yy.path, values)) for yy in yamls for k, values in yy.found.maps.items()), mk)
        if holder is None:
            raise InputError(f"{label}: the rules are {mk.kind} {mk.name}, key {mk.key}, which this input does not "
                             "hold (give that YAML too, or a directory holding both)", y.path, ref.line, ref.col)
        map_path, values = holder[1]
        if mk.key not in values:
            raise InputError(f"{label}: {mk.kind} {mk.name} ({map_path}) has no key {mk.key!r}: the proxy pod's "
                             f"{mk.mounted} does not exist and the proxy fails to start", y.path, ref.line, ref.col)
        return _compile_embedded(values[mk.key], map_path, f"rules of {label}, {values[mk.key].where}")
    file = _local_file(ref, y.path)
    return _from_file(read_text(file), str(file), f"rules of {label} at {y.path}:{ref.line}")


def _local_file(ref, config_path: str) -> Path:
    """The aclFile as the proxy opens it (:func:`..rules.acl_file.local_acl_file`); one found only next to
    the configuration is read too (a proxy started elsewhere would not find it: lint says so, AZ112)."""
    from kafka_authz_cli.rules.acl_file import local_acl_file

    local = local_acl_file(ref.value, Path(config_path), Path.cwd())
    if local.found is not None:
        return local.found
    if local.special is not None:  # there, but no file to read rules from: say what it is, not that it is missing
        candidate, what = local.special
        raise InputError(f"filter {ref.filter_name}: aclFile {ref.value!r} is {candidate}, which is not a regular "
                         f"file ({what}): authz reads rules only from regular files", config_path, ref.line, ref.col)
    where = f" (looked in {os.getcwd()} and next to the configuration)" if local.relative else ""
    raise InputError(f"filter {ref.filter_name}: aclFile {ref.value!r} does not exist{where}: the proxy would fail "
                     "to start (AclAuthorizerService: NoSuchFileException)", config_path, ref.line, ref.col)


def _from_maps(yamls: list[_Yaml], key_option: str | None, source: str) -> AclSet:
    """No filter: the ConfigMap/Secret values that read as rules files; exactly one, or the one ``key`` names."""
    from kafka_authz_cli.formats import is_rules

    held = [(y.path, key, e) for y in yamls for values in y.found.maps.values() for key, e in values.items()
            if is_rules(e.text)]
    if key_option is not None:
        held = [h for h in held if h[1] == key_option]
        if not held:
            raise InputError(f"--option key={key_option}: no ConfigMap or Secret key of that name holds rules", source)
    if not held:
        raise InputError("no Authorization filter and no ConfigMap or Secret value holding rules: this holds no "
                         "ACLs the proxy would apply", source)
    if len(held) > 1:
        path, _, e = held[1]
        raise InputError(f"{len(held)} values hold rules ({', '.join(h[2].where for h in held)}): each is a rules "
                         "file of its own; say which with --option key=KEY", path, *e.anchor)
    path, _, embedded = held[0]
    return _compile_embedded(embedded, path, f"rules of {embedded.where}")


def _compile_embedded(embedded, path: str, what: str) -> AclSet:
    """Rules held in a YAML scalar, compiled; an error in them placed at the YAML's line:col."""
    try:
        acl_set = _compile(embedded.text, embedded.where)
    except InputError as exc:
        if exc.line is None:
            raise InputError(f"{embedded.where}: {exc.reason}", path, *embedded.anchor) from None
        line, col = embedded.place(exc.line, exc.col or 0)
        raise InputError(f"{exc.reason} ({embedded.where}: {exc.line}:{exc.col} as the proxy reports it)",
                         path, line, col) from None
    origins = [f"{path}:{embedded.place(line, 0)[0] if line else embedded.anchor[0]} ({what})"
               for line in acl_set.lines]
    return AclSet(acl_set.bindings, origins, path, FORMAT, acl_set.warnings)


@dataclass
class _Compiled:
    bindings: list
    lines: list  # per binding, its rule's line in the rules text (None: no one rule)
    warnings: list


def _compile(text: str, label: str) -> _Compiled:
    """The proxy reads an aclFile as rules whatever it holds: compiled as such (no sniffing)."""
    from kafka_authz_cli.rules import compile_rules_lines

    lines = compile_rules_lines(text, label)
    warnings = [] if lines else [f"{label}: the rules file has no rules (they allow nothing)"]
    return _Compiled(list(lines), list(lines.values()), warnings)


def _from_file(text: str, label: str, what: str) -> AclSet:
    compiled = _compile(text, label)
    origins = [f"{label}{'' if line is None else f':{line}'} ({what})" for line in compiled.lines]
    return AclSet(compiled.bindings, origins, label, FORMAT, compiled.warnings)


def holds(text: str) -> bool:
    """Whether ``text`` is a YAML that names or holds rules (a filter, a ConfigMap with a rules value)."""
    from kafka_authz_cli.rules import YamlSyntaxError, read_kroxylicious_yaml

    if not sniff(text):
        return False
    try:
        return bool(read_kroxylicious_yaml(text))
    except YamlSyntaxError:
        return False


def yaml_files(root: Path) -> list[Path]:
    """A directory's YAML files (formats.files_under: hidden ones skipped)."""
    return files_under(root, FORMATS[FORMAT].suffixes)


def read_directory(root: Path, options: Mapping[str, str] | None = None) -> AclSet:
    """The YAML files of a directory as one input (a filter in one file, its ConfigMap in another);
    files that hold nothing of Kroxylicious's are left out."""
    texts = [(read_text(p), str(p)) for p in yaml_files(root)]
    return read([(t, p) for t, p in texts if holds(t)], str(root), options)
