"""`authz lint`, `compile`, `decompile`: which files, with which classes, and what comes of them.

The rules language itself is ``kafka_authz_cli.rules``; here its inputs are found and read (the
rules files under a directory, told apart by content; YAMLs holding rules or naming them, with the
``aclFile``s they name followed as the proxy and the operator would; the ``--types`` classes, the ``--expand-against`` names, an ACL set
in any format) and its answers handed back for the CLI to render.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional

from kafka_authz_cli.codes import SEVERITIES
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.formats import RULES_HEAD as SNIFF_CHARS
from kafka_authz_cli.formats import files_under as _walk
from kafka_authz_cli.formats import is_rules, looks_like, open_regular, read_text
from kafka_authz_cli.rules import (
    CODES,
    RELATIVE_ACL_FILE,
    RULES_NOT_HERE,
    RULES_UNREADABLE,
    SYNTAX_ERROR,
    Finding,
    KroxyliciousYaml,
    LintResult,
    YamlSyntaxError,
    explain,
    lint_text,
    may_hold_rules,
    read_kroxylicious_yaml,
)
from kafka_authz_cli.rules.acl_file import acl_file_target, find_map, local_acl_file
from kafka_authz_cli.services.acl_sources import load_registry, load_source

if TYPE_CHECKING:
    from kafka_authz_cli.acl import AclBinding
    from kafka_authz_cli.rules import ExpansionNames


def explain_code(code: str) -> str:
    """``authz lint --explain CODE``: what the code means, and an input that produces it."""
    try:
        return explain(code)
    except KeyError:
        pass
    try:
        found = finding_codes()[code.upper()]
    except KeyError:
        raise OptionError(f"unknown code {code!r}; codes: {', '.join(finding_codes())}", param_hint="--explain") \
            from None
    example = found.example if isinstance(found.example, str) else "\n".join(
        f"# {name}\n{text}" for name, text in found.example.items())
    return found.explain() + "\nExample:\n\n" + example


def finding_codes() -> Mapping:
    """Every code lint reports: the rules language's (AZ), the ecosystem formats' (EA) and the apps
    files' (AP)."""
    from kafka_authz_cli.apps.appsfile import CODES as APPS_CODES
    from kafka_authz_cli.ecosystem import CODES as ECOSYSTEM_CODES

    return {**CODES, **ECOSYSTEM_CODES, **APPS_CODES}


@dataclass(frozen=True)
class Skipped:
    """A file of a directory that lint did not read as rules, and why."""

    path: str
    reason: str


@dataclass
class LintRun:
    """Every file's findings, in the order the files were given; what was skipped; what was resolved."""

    results: list[LintResult]
    skipped: list[Skipped] = field(default_factory=list)
    #: How each ``aclFile`` was followed (``file:line:col: filter X: ... -> ...``), for --verbose.
    followed: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Findings per severity (every severity present, least severe first)."""
        counts = {s: 0 for s in SEVERITIES}
        for r in self.results:
            for f in r.findings:
                counts[f.severity] += 1
        return counts

    def fails(self, fail_level: str) -> bool:
        """Is any finding at or above ``fail_level`` (what makes `authz lint` exit 1)?"""
        threshold = SEVERITIES.index(fail_level)
        return any(SEVERITIES.index(f.severity) >= threshold for r in self.results for f in r.findings)


@dataclass
class _Inputs:
    """The files to lint, sorted out by content."""

    rules: dict[Path, str] = field(default_factory=dict)  # rules files (dict: each once, in order)
    explicit_other: dict[Path, tuple[str, str | None]] = field(default_factory=dict)  # given, not rules
    yamls: dict[Path, KroxyliciousYaml] = field(default_factory=dict)
    #: files of an ecosystem format (Strimzi, KSM, JulieOps...): path -> (format, text)
    ecosystem: dict[Path, tuple] = field(default_factory=dict)
    #: apps files (a team's declared applications, apps/appsfile.py): path -> text
    apps: dict[Path, str] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)


def _read(path: Path, explicit: bool) -> tuple[str | None, str]:
    """The text, or None and why it is no text (binary, not UTF-8).

    A walk skips a file with a NUL near its start unread; a file given by name is decoded whole, as
    the proxy reads it (NULs are valid UTF-8, and the proxy refuses them at a position)."""
    with open_regular(path, str(path)) as fh:  # a FIFO or a device is refused, never read (it may never end)
        data = fh.read(SNIFF_CHARS)
        if b"\x00" in data and not explicit:
            return None, "looks like a binary file"  # and the rest of it is never read
        data += fh.read()
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, "is not UTF-8 text (the proxy reads rules as UTF-8)"


def _classify(path: Path, explicit: bool, inputs: _Inputs) -> None:
    """Rules by content; else a YAML holding rules or naming them; else skipped (or, given, linted anyway)."""
    try:
        text, why_not = _read(path, explicit)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    except InputError as exc:  # not a regular file: an error given by name, skipped (and said) in a walk
        if explicit:
            raise
        inputs.skipped.append(Skipped(str(path), exc.reason.split(":", 1)[0]))
        return
    if text is None and explicit:
        # No text at all is bad input (exit 2, as every command treats it), not a lint finding: there is
        # no statement for the proxy to report a position in.
        raise InputError(f"this {why_not}, expected a Kroxylicious rules file", str(path))
    if text is not None and is_rules(text):
        inputs.rules[path] = text
        return
    if text is not None and _is_apps(text):
        inputs.apps[path] = text
        return
    if text is not None and _ecosystem(path, text, inputs):
        return
    if text is not None and may_hold_rules(text):
        try:
            found = read_kroxylicious_yaml(text)
        except YamlSyntaxError as exc:
            if explicit:
                raise InputError(str(exc), str(path), exc.line, exc.col + 1) from None
            inputs.skipped.append(Skipped(str(path), f"{exc} (line {exc.line})"))
            return
        if found:
            inputs.yamls[path] = found
            return
        why_not = "" if explicit else f"looks like {looks_like(text)}, without rules or an Authorization filter"
    if explicit:
        inputs.explicit_other[path] = (text if text is not None else "", why_not or _not_rules(text or ""))
        return
    inputs.skipped.append(Skipped(str(path), why_not or _not_rules(text or "")))


def _is_apps(text: str) -> bool:
    from kafka_authz_cli.apps.appsfile import looks_like_apps

    return looks_like_apps(text)


def _ecosystem(path: Path, text: str, inputs: _Inputs) -> bool:
    """A file of an ecosystem format: linted for what its tool applies differently from how it reads."""
    from kafka_authz_cli.acl import ecosystem_format_of as format_of_text

    fmt = format_of_text(text)
    if fmt is None:
        return False
    inputs.ecosystem[path] = (fmt, text)
    return True


def _lint_ecosystem(path: Path, fmt, text: str, options: Mapping[str, str]) -> LintResult:
    """The coded findings of reading ``path`` as its tool does; a file the tool refuses is one error."""
    from kafka_authz_cli.ecosystem import SourceFinding
    from kafka_authz_cli.ecosystem.findings import UNREADABLE as U

    own = {k: v for k, v in options.items() if k in fmt.options}
    try:
        acl_set = fmt.read(text, str(path), own)
    except InputError as exc:
        col = (exc.col - 1) if exc.col else 0  # readers' columns are 1-based; lint's are 0-based
        return LintResult(str(path), [SourceFinding(U.code, str(path), exc.line or 1, col,
                                                    f"{fmt.title}: {exc.reason}", U.severity, U.name)])
    return LintResult(str(path), sorted(acl_set.findings, key=lambda f: (f.line, f.col, f.code)))


def _not_rules(text: str) -> str:
    what = looks_like(text)
    return f"looks like {what}" if what else "its first statement is no rules statement"


def _inputs(paths: list[Path], by_content: bool) -> _Inputs:
    inputs = _Inputs()
    for p in paths:
        if p.is_dir():
            before = len(inputs.rules) + len(inputs.yamls) + len(inputs.ecosystem) + len(inputs.apps)
            for f in _walk(p):
                _classify(f, False, inputs)
            if len(inputs.rules) + len(inputs.yamls) + len(inputs.ecosystem) + len(inputs.apps) == before \
                    and not by_content:
                skipped = sum(1 for s in inputs.skipped if Path(s.path).is_relative_to(p))
                raise InputError(f"no Kroxylicious rules file and no YAML holding rules under this directory "
                                 f"({skipped} file(s) skipped: none reads as rules by content)", str(p))
        elif p.exists():
            _classify(p, not by_content, inputs)
        else:
            raise InputError("no such file", str(p))
    return inputs


def lint_paths(paths: list[Path], types: Optional[Path], by_content: bool = False,
               options: Optional[Mapping[str, str]] = None) -> LintRun:
    """Lint rules files, YAMLs holding or naming them, the ecosystem's ACL files (Strimzi, KSM,
    JulieOps, kafka-gitops, Jikkou: what their tool applies differently from how they read), and
    directories of them (files by content). ``options``: the ecosystem formats' reading options, each
    format given the ones it knows.

    ``by_content``: files given by name are picked as a directory's are (the pre-commit hook passes
    every text file), and finding nothing to lint is no error."""
    registry = load_registry(types)
    inputs = _inputs(paths, by_content)
    run = LintRun([], inputs.skipped)
    yaml_results = _lint_yamls(inputs, registry, run)
    done = set()
    for path in list(inputs.rules) + list(inputs.explicit_other):
        if path.resolve() in done:
            continue
        done.add(path.resolve())
        if path in inputs.rules:
            run.results.append(lint_text(inputs.rules[path], str(path), registry))
        else:
            run.results.append(_lint_other(path, *inputs.explicit_other[path], registry))
    run.results += yaml_results
    run.results += [_lint_ecosystem(path, fmt, text, options or {}) for path, (fmt, text) in inputs.ecosystem.items()]
    if inputs.apps:
        from kafka_authz_cli.services.apps import lint_apps

        run.results += [lint_apps(path, text) for path, text in inputs.apps.items()]
    return run


def _lint_other(path: Path, text: str, why_not: str | None, registry) -> LintResult:
    """A file given explicitly that is no rules file: linted all the same (the proxy would read it), its
    first error saying what it looks like; the rest of its syntax errors are counted, not listed."""
    result = lint_text(text, str(path), registry)
    errors = [f for f in result.findings if f.code == SYNTAX_ERROR.code]
    if errors:
        what = why_not or _not_rules(text)
        what = f"this {what}" if what.startswith("looks like") else what
        first = replace(errors[0], message=f"{errors[0].message} ({what}, expected a Kroxylicious rules file)")
        result.findings = [first] + ([replace(errors[-1], message="... the other syntax errors are not listed: "
                                              "this is no rules file")] if len(errors) > 1 else [])
    return result


def _lint_yamls(inputs: _Inputs, registry, run: LintRun) -> list[LintResult]:
    """Each YAML's own problems, the rules it holds (mapped to its lines) and the aclFiles it names."""
    maps: dict[tuple, tuple[Path, dict]] = {}
    for path, found in inputs.yamls.items():
        for k, values in found.maps.items():
            maps.setdefault(k, (path, values))
    referenced: set[tuple] = set()
    results = {path: LintResult(str(path)) for path in inputs.yamls}
    for path, found in inputs.yamls.items():
        res = results[path]
        res.findings += [Finding(RULES_UNREADABLE.code, str(path), p.line, p.col, p.message) for p in found.problems]
        for ref in found.refs:
            _follow(ref, path, maps, referenced, inputs, res, run)
        for embedded in found.inline:
            _lint_embedded(res, embedded, registry)
    for (kind, namespace, name), (path, values) in maps.items():
        for key, embedded in values.items():
            if (kind, namespace, name, key) in referenced or is_rules(embedded.text):
                _lint_embedded(results[path], embedded, registry)
    for res in results.values():
        res.findings.sort(key=lambda f: (f.line, f.col, f.code))
    return list(results.values())


def _lint_embedded(res: LintResult, embedded, registry) -> None:
    """Lint rules held in a YAML scalar; each finding at the YAML's line:col, the proxy's own in the message."""
    for f in lint_text(embedded.text, embedded.where, registry).findings:
        line, col = embedded.place(f.line, f.col)
        res.findings.append(replace(f, path=res.path, line=line, col=col,
                                    message=f"{f.message} ({embedded.where}: {f.line}:{f.col} as the proxy reports it)"))


def _follow(ref, path: Path, maps: dict, referenced: set, inputs: _Inputs, res: LintResult, run: LintRun) -> None:
    """Where an aclFile leads, as the operator and the proxy would follow it."""
    def at(code: str, message: str) -> None:
        res.findings.append(Finding(code, str(path), ref.line, ref.col, f"{label}: {message}"))

    aim = acl_file_target(ref)
    label = aim.label
    if aim.refused:
        at(RULES_UNREADABLE.code, "the operator refuses `aclFile: " + ref.value + "`: Config provider placeholders "
           "cannot be preceded or followed by other characters (SecureConfigInterpolator)")
        return
    mk = aim.map_key
    if mk is not None:
        if mk.kind is None:
            at(RULES_UNREADABLE.code, f"unknown config provider {mk.provider!r}: the operator knows configmap and secret")
            return
        held = find_map(maps.items(), mk)
        if held is None:
            at(RULES_NOT_HERE.code, f"the rules are {mk.kind} {mk.name}, key {mk.key}, which none of the given files "
               "holds: not linted (give lint that YAML too)")
            return
        found, entry = held
        if mk.key not in entry[1]:
            at(RULES_UNREADABLE.code, f"{mk.kind} {mk.name} ({entry[0]}) has no key {mk.key!r}: the proxy pod's "
               f"{mk.mounted} will not exist and the proxy fails to start (AclAuthorizerService: NoSuchFileException)")
            return
        referenced.add((*found, mk.key))
        run.followed.append(f"{path}:{ref.line}:{ref.col}: {label} -> {mk.kind} {mk.name}, key {mk.key} ({entry[0]})")
        return
    if aim.pod_path is not None:
        at(RULES_NOT_HERE.code, f"aclFile {ref.value!r}{aim.unquoted} is a path inside the proxy pod: not linted "
           "(keep the rules in a ConfigMap and name it as ${configmap:NAME:KEY})")
        return
    target = _local_acl_file(ref, path, at)
    if target is None:
        return
    run.followed.append(f"{path}:{ref.line}:{ref.col}: {label} -> {target}")
    if any(target.resolve() == p.resolve() for p in (*inputs.rules, *inputs.explicit_other)):
        return
    text, why_not = _read(target, True)
    if text is None:
        at(RULES_UNREADABLE.code, f"aclFile {target} {why_not}")
        return
    inputs.rules[target] = text  # named by the configuration: the proxy reads it as rules, whatever it holds
    inputs.skipped[:] = [s for s in inputs.skipped if Path(s.path).resolve() != target.resolve()]


def _local_acl_file(ref, path: Path, at) -> Path | None:
    """A proxy configuration's aclFile on this machine (:func:`..rules.acl_file.local_acl_file`): a relative
    one is said to be opened from the proxy's working directory, whichever place it was found in."""
    local = local_acl_file(ref.value, path, Path.cwd())
    if local.special is not None:
        candidate, what = local.special
        at(RULES_NOT_HERE.code, f"aclFile {ref.value} " + (f"is not a regular file ({what})" if not local.relative
                                                           else f"is {candidate}, not a regular file ({what})")
           + ": not linted")
        return None
    if not local.relative:
        if local.found is None:
            at(RULES_NOT_HERE.code, f"aclFile {ref.value} does not exist on this machine: not linted")
        return local.found
    found = (f"linted {local.found}" if local.found is not None
             else f"found neither in {Path.cwd()} nor next to this file")
    at(RELATIVE_ACL_FILE.code, f"aclFile {ref.value!r} is relative: the proxy opens it from the directory it is "
       f"started in (AclAuthorizerService: Path.of(aclFile)), not from this file's directory; {found}")
    if local.found is None:
        at(RULES_NOT_HERE.code, f"aclFile {ref.value!r} not found: not linted")
    return local.found


def expansion_names(path: Path) -> ExpansionNames:
    """The ``--expand-against`` names, errors at their file:line."""
    from kafka_authz_cli.rules import ExpansionNames

    try:
        return ExpansionNames.parse(read_text(path))
    except ValueError as exc:
        located = re.match(r"line (\d+): (.*)", str(exc), re.S)
        if located:
            raise InputError(located.group(2), str(path), int(located.group(1))) from None
        raise InputError(str(exc), str(path)) from None


def compile_file(rules: Path, types: Optional[Path], expand_against: Optional[Path]) -> list[AclBinding]:
    """A rules file's Kafka ACL bindings (``--expand-against`` names expand regexes and prefixes)."""
    from kafka_authz_cli.rules import compile_rules_text

    expand = expansion_names(expand_against) if expand_against is not None else None
    return compile_rules_text(read_text(rules), str(rules), load_registry(types), expand)


@dataclass(frozen=True)
class RefusedBinding:
    """A binding the rules language cannot hold, where it came from and why."""

    origin: str
    binding: AclBinding
    reason: str


@dataclass
class Decompiled:
    """A rules file deciding as the ACL set does, or (``text`` None) every binding it cannot hold."""

    text: str | None
    refused: list[RefusedBinding]


def decompile_file(acls: Path, fmt: Optional[str], options: Optional[Mapping[str, str]] = None) -> Decompiled:
    """An ACL set in any format authz reads, written as a rules file."""
    from kafka_authz_cli.rules import DecompileError, decompile

    acl_set = load_source(acls, fmt, quiet=True, options=options)
    try:
        return Decompiled(decompile(acl_set.bindings), [])
    except DecompileError as exc:
        origins = {b: o for b, o in zip(acl_set.bindings, acl_set.origins)}
        return Decompiled(None, [RefusedBinding(origins.get(p.binding, ""), p.binding, p.reason)
                                 for p in exc.problems])
