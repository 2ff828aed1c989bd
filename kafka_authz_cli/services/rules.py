"""`authz lint`, `compile`, `decompile`: which files, with which classes, and what comes of them.

The rules language itself is ``kafka_authz_cli.rules``; here its inputs are found and read (the
rules files under a directory, the ``--types`` classes, the ``--expand-against`` names, an ACL set
in any format) and its answers handed back for the CLI to render.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from kafka_authz_cli.codes import SEVERITIES
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.formats import read_text
from kafka_authz_cli.rules import CODES, LintResult, explain, lint_text
from kafka_authz_cli.services.sources import load_registry, load_source

if TYPE_CHECKING:
    from kafka_authz_cli.acl import AclBinding
    from kafka_authz_cli.rules import ExpansionNames

#: What a rules file is called, when lint walks a directory.
RULES_SUFFIXES = (".acl", ".rules", ".authz")


def explain_code(code: str) -> str:
    """``authz lint --explain CODE``: what the code means, and a rules file that produces it."""
    try:
        return explain(code)
    except KeyError:
        raise OptionError(f"unknown code {code!r}; codes: {', '.join(CODES)}", param_hint="--explain") from None


def rules_files(paths: list[Path]) -> list[Path]:
    """The files to lint: files as given, directories walked for rules files (sorted)."""
    out = []
    for p in paths:
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in RULES_SUFFIXES)
            if not found:
                raise InputError(f"no rules files ({', '.join(RULES_SUFFIXES)}) under this directory", str(p))
            out += found
        elif p.exists():
            out.append(p)
        else:
            raise InputError("no such file", str(p))
    return out


@dataclass
class LintRun:
    """Every file's findings, in the order the files were given."""

    results: list[LintResult]

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


def lint_paths(paths: list[Path], types: Optional[Path]) -> LintRun:
    """Lint rules files and directories of them, with the classes of a ``--types`` file if one is given."""
    registry = load_registry(types)
    return LintRun([lint_text(read_text(f), str(f), registry) for f in rules_files(paths)])


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


def decompile_file(acls: Path, fmt: Optional[str]) -> Decompiled:
    """An ACL set in any format authz reads, written as a rules file."""
    from kafka_authz_cli.rules import DecompileError, decompile

    acl_set = load_source(acls, fmt, quiet=True)
    try:
        return Decompiled(decompile(acl_set.bindings), [])
    except DecompileError as exc:
        origins = {b: o for b, o in zip(acl_set.bindings, acl_set.origins)}
        return Decompiled(None, [RefusedBinding(origins.get(p.binding, ""), p.binding, p.reason)
                                 for p in exc.problems])
