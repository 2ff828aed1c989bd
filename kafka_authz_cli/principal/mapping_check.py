"""Lint-style checks of a principal mapping rule set against the names it will meet.

Given a TLS or Kerberos rule set and a list of DNs / Kerberos principals (what the clients really
present), say which rule fires for each, which names collapse onto the same principal, which rules
never fire, and every way the mapping will fail or surprise at run time. Pure: no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from kafka_authz_cli.codes import SEVERITIES, FindingCode
from kafka_authz_cli.principal.codes import (
    ANONYMOUS_OR_EMPTY,
    DN_NOT_BROKER_FORM,
    FULL_DN_PRINCIPAL,
    LITERAL_BACK_REFERENCE,
    MAPPING_THROWS,
    MAPS_TO_SUPER_USER,
    NAMES_COLLAPSE,
    NO_RULE_APPLIES,
    RULE_NEVER_FIRES,
    UNREACHABLE_AFTER_DEFAULT,
)
from kafka_authz_cli.principal.mapping import KerberosShortNamer, Mapping, SslPrincipalMapper
from kafka_authz_cli.principal.x500 import dn_form_problems


@dataclass(frozen=True)
class CheckFinding:
    """One finding: its registered code (:mod:`.codes`), the message and what it is about."""

    definition: FindingCode
    message: str
    subjects: tuple[str, ...] = ()
    rule_index: int | None = None

    @property
    def code(self) -> str:
        return self.definition.code

    @property
    def severity(self) -> str:
        return self.definition.severity

    @property
    def name(self) -> str:
        return self.definition.name

    def as_dict(self) -> dict:
        return {"code": self.code, "name": self.name, "severity": self.severity, "message": self.message,
                "subjects": list(self.subjects), "rule": self.rule_index}


@dataclass(frozen=True)
class NameInput:
    text: str
    origin: str | None = None


@dataclass
class CheckReport:
    kind: str  # tls | kerberos
    rules: list[str]
    results: list[tuple[NameInput, Mapping]]
    findings: list[CheckFinding] = field(default_factory=list)
    fires: dict[int, int] = field(default_factory=dict)

    def worst(self) -> str | None:
        if not self.findings:
            return None
        return max((f.severity for f in self.findings), key=SEVERITIES.index)

    def failing(self, level: str) -> bool:
        threshold = SEVERITIES.index(level)
        return any(SEVERITIES.index(f.severity) >= threshold for f in self.findings)


def _common(report: CheckReport, super_users: set[str]) -> None:
    by_principal: dict[str, list[str]] = defaultdict(list)
    for name, mapping in report.results:
        where = f" ({name.origin})" if name.origin else ""
        if mapping.error is not None:
            if mapping.rule_index is None:
                report.findings.append(CheckFinding(
                    NO_RULE_APPLIES, f"{name.text}{where}: {mapping.error.message}", (name.text,)))
            else:
                report.findings.append(CheckFinding(
                    MAPPING_THROWS, f"{name.text}{where}: rule {mapping.rule_index + 1} `{mapping.rule}` throws "
                    f"{mapping.error.simple_name}: {mapping.error.message}", (name.text,), mapping.rule_index))
            continue
        if mapping.rule_index is not None:
            report.fires[mapping.rule_index] = report.fires.get(mapping.rule_index, 0) + 1
        principal = mapping.principal or ""
        if name.text not in by_principal[principal]:
            by_principal[principal].append(name.text)
        if mapping.name in ("", "ANONYMOUS"):
            report.findings.append(CheckFinding(
                ANONYMOUS_OR_EMPTY, f"{name.text}{where} becomes {principal!r}", (name.text,), mapping.rule_index))
        if principal in super_users:
            report.findings.append(CheckFinding(
                MAPS_TO_SUPER_USER, f"{name.text}{where} becomes super user {principal}", (name.text,), mapping.rule_index))
    for principal, names in by_principal.items():
        if len(names) > 1:
            shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
            report.findings.append(CheckFinding(
                NAMES_COLLAPSE, f"{len(names)} names become {principal}: {shown}", tuple(names)))


def check_tls(mapper: SslPrincipalMapper, names: list[NameInput], super_users: set[str] | None = None,
              check_form: bool = True) -> CheckReport:
    report = CheckReport("tls", [str(r) for r in mapper.rules], [(n, mapper.map(n.text)) for n in names])
    _common(report, super_users or set())
    default_at = next((i for i, r in enumerate(mapper.rules) if r.is_default), None)
    for i, rule in enumerate(mapper.rules):
        if default_at is not None and i > default_at:
            report.findings.append(CheckFinding(
                UNREACHABLE_AFTER_DEFAULT, f"rule {i + 1} `{rule}` comes after DEFAULT (rule {default_at + 1}) and never applies",
                rule_index=i))
        elif names and not report.fires.get(i):
            report.findings.append(CheckFinding(
                RULE_NEVER_FIRES, f"rule {i + 1} `{rule}` maps none of the {len(names)} name(s)", rule_index=i))
        if not rule.is_default and rule.pattern is not None and rule.replacement is not None:
            literal = _literal_references(rule.replacement, rule.pattern.group_count)
            if literal:
                report.findings.append(CheckFinding(
                    LITERAL_BACK_REFERENCE, f"rule {i + 1} `{rule}`: {', '.join(literal)} "
                    f"{'is' if len(literal) == 1 else 'are'} not a group of the pattern "
                    f"({rule.pattern.group_count} group(s))", rule_index=i))
    if default_at is not None and report.fires.get(default_at):
        report.findings.append(CheckFinding(
            FULL_DN_PRINCIPAL, f"DEFAULT (rule {default_at + 1}) maps {report.fires[default_at]} name(s) to their full DN",
            rule_index=default_at))
    if check_form:
        for name, _ in report.results:
            problems = dn_form_problems(name.text)
            if problems:
                where = f" ({name.origin})" if name.origin else ""
                report.findings.append(CheckFinding(DN_NOT_BROKER_FORM, f"{name.text}{where}: " + "; ".join(problems),
                                                    (name.text,)))
    report.findings.sort(key=lambda f: (-SEVERITIES.index(f.severity), f.code))
    return report


def _literal_references(replacement: str, group_count: int) -> list[str]:
    import re

    out = []
    for m in re.finditer(r"\$(\d+)", replacement):
        num = m.group(1)
        if num.startswith("0") or group_count == 0:
            continue
        index = int(num)
        while index > group_count and index >= 10:
            index //= 10
        if index > group_count:
            out.append("$" + num)
    return out


def check_kerberos(namer: KerberosShortNamer, names: list[NameInput],
                   super_users: set[str] | None = None) -> CheckReport:
    report = CheckReport("kerberos", [str(r) for r in namer.rules], [(n, namer.map(n.text)) for n in names])
    _common(report, super_users or set())
    for i, rule in enumerate(namer.rules):
        if names and not report.fires.get(i):
            report.findings.append(CheckFinding(
                RULE_NEVER_FIRES, f"rule {i + 1} `{rule}` maps none of the {len(names)} name(s)", rule_index=i))
    report.findings.sort(key=lambda f: (-SEVERITIES.index(f.severity), f.code))
    return report
