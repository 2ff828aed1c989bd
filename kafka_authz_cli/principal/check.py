"""Lint-style checks of a principal mapping rule set against the names it will meet.

Given a TLS or Kerberos rule set and a list of DNs / Kerberos principals (what the clients really
present), say which rule fires for each, which names collapse onto the same principal, which rules
never fire, and every way the mapping will fail or surprise at run time. Pure: no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from kafka_authz_cli.principal.mapping import KerberosShortNamer, Mapping, SslPrincipalMapper
from kafka_authz_cli.principal.x500 import dn_form_problems

SEVERITIES = ("info", "warning", "error")


@dataclass(frozen=True)
class CheckCode:
    code: str
    name: str
    severity: str
    summary: str


CODES: dict[str, CheckCode] = {c.code: c for c in [
    CheckCode("PM001", "no-rule-applies", "error",
              "No rule maps this name: the broker fails principal building and closes the connection."),
    CheckCode("PM002", "mapping-throws", "error",
              "A rule throws while mapping this name (a bad back reference, a non-simple Kerberos result ...): "
              "the connection fails."),
    CheckCode("PM003", "names-collapse", "warning",
              "Different names become the same principal: they share every ACL and cannot be told apart."),
    CheckCode("PM004", "rule-never-fires", "warning",
              "A rule maps none of the names checked (or only names an earlier rule already took)."),
    CheckCode("PM005", "unreachable-after-default", "warning",
              "A TLS rule after DEFAULT never applies: DEFAULT maps every DN."),
    CheckCode("PM006", "dn-not-broker-form", "warning",
              "This DN is not the string the broker maps (X500Principal.getName(): RFC 2253, no spaces after "
              "commas, most specific RDN first, emailAddress as an OID with DER hex)."),
    CheckCode("PM007", "anonymous-or-empty", "warning",
              "The mapped principal is User:ANONYMOUS (the principal of unauthenticated PLAINTEXT clients) or "
              "empty: it shares ACLs it should not."),
    CheckCode("PM008", "maps-to-super-user", "info",
              "The name maps to a super user: every ACL, DENY included, is bypassed for it."),
    CheckCode("PM009", "full-dn-principal", "info",
              "DEFAULT keeps the whole DN as the principal name: ACLs must spell it exactly (User:CN=...,O=...)."),
    CheckCode("PM010", "literal-back-reference", "info",
              "The replacement names a group the pattern does not have: Kafka escapes it and emits '$n' "
              "literally (a second such reference is escaped one character early and may throw)."),
]}


@dataclass(frozen=True)
class CheckFinding:
    code: str
    message: str
    subjects: tuple[str, ...] = ()
    rule_index: int | None = None

    @property
    def severity(self) -> str:
        return CODES[self.code].severity

    @property
    def name(self) -> str:
        return CODES[self.code].name

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
                    "PM001", f"{name.text}{where}: {mapping.error.message}", (name.text,)))
            else:
                report.findings.append(CheckFinding(
                    "PM002", f"{name.text}{where}: rule {mapping.rule_index + 1} `{mapping.rule}` throws "
                    f"{mapping.error.simple_name}: {mapping.error.message}", (name.text,), mapping.rule_index))
            continue
        if mapping.rule_index is not None:
            report.fires[mapping.rule_index] = report.fires.get(mapping.rule_index, 0) + 1
        principal = mapping.principal or ""
        if name.text not in by_principal[principal]:
            by_principal[principal].append(name.text)
        if mapping.name in ("", "ANONYMOUS"):
            report.findings.append(CheckFinding(
                "PM007", f"{name.text}{where} becomes {principal!r}", (name.text,), mapping.rule_index))
        if principal in super_users:
            report.findings.append(CheckFinding(
                "PM008", f"{name.text}{where} becomes super user {principal}", (name.text,), mapping.rule_index))
    for principal, names in by_principal.items():
        if len(names) > 1:
            shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
            report.findings.append(CheckFinding(
                "PM003", f"{len(names)} names become {principal}: {shown}", tuple(names)))


def check_tls(mapper: SslPrincipalMapper, names: list[NameInput], super_users: set[str] | None = None,
              check_form: bool = True) -> CheckReport:
    report = CheckReport("tls", [str(r) for r in mapper.rules], [(n, mapper.map(n.text)) for n in names])
    _common(report, super_users or set())
    default_at = next((i for i, r in enumerate(mapper.rules) if r.is_default), None)
    for i, rule in enumerate(mapper.rules):
        if default_at is not None and i > default_at:
            report.findings.append(CheckFinding(
                "PM005", f"rule {i + 1} `{rule}` comes after DEFAULT (rule {default_at + 1}) and never applies",
                rule_index=i))
        elif names and not report.fires.get(i):
            report.findings.append(CheckFinding(
                "PM004", f"rule {i + 1} `{rule}` maps none of the {len(names)} name(s)", rule_index=i))
        if not rule.is_default and rule.pattern is not None and rule.replacement is not None:
            literal = _literal_references(rule.replacement, rule.pattern.group_count)
            if literal:
                report.findings.append(CheckFinding(
                    "PM010", f"rule {i + 1} `{rule}`: {', '.join(literal)} "
                    f"{'is' if len(literal) == 1 else 'are'} not a group of the pattern "
                    f"({rule.pattern.group_count} group(s))", rule_index=i))
    if default_at is not None and report.fires.get(default_at):
        report.findings.append(CheckFinding(
            "PM009", f"DEFAULT (rule {default_at + 1}) maps {report.fires[default_at]} name(s) to their full DN",
            rule_index=default_at))
    if check_form:
        for name, _ in report.results:
            problems = dn_form_problems(name.text)
            if problems:
                where = f" ({name.origin})" if name.origin else ""
                report.findings.append(CheckFinding("PM006", f"{name.text}{where}: " + "; ".join(problems),
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
                "PM004", f"rule {i + 1} `{rule}` maps none of the {len(names)} name(s)", rule_index=i))
    report.findings.sort(key=lambda f: (-SEVERITIES.index(f.severity), f.code))
    return report
