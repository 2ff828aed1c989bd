"""Which principal a connection becomes: the broker's mappers resolved from flags or server.properties.

The mappers (:func:`tls_mapper`, :func:`kerberos_namer`) and :func:`map_connection` are shared by
`authz principal`, `authz simulate --tls-dn/--kerberos-principal` and `authz connect`;
:func:`map_tls_names` and :func:`map_kerberos_names` are `authz principal tls|kerberos`: read the names
(arguments, name files, certificates), map every one, and lint the rule set against them (``--check``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from kafka_authz_cli._java import JavaRegexUnsupported, PatternSyntaxException
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.principal import (
    KERBEROS_RULES_CONFIG,
    SSL_RULES_CONFIG,
    CheckReport,
    ConfiguredRules,
    DnError,
    KerberosShortNamer,
    Mapping,
    MappingRulesError,
    NameInput,
    SslPrincipalMapper,
    check_kerberos,
    check_tls,
    kerberos_broker_error,
    kerberos_rules_value_form,
    normalize_dn,
    read_cert_subjects,
    read_names,
    rules_from_broker_config,
    split_kerberos_rules_config,
    ssl_broker_error,
    super_users_from_broker_config,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ResolvedMapper:
    mapper: object  # SslPrincipalMapper | KerberosShortNamer
    source: str


def _rules_error(exc: MappingRulesError, where: ConfiguredRules, key: str) -> InputError:
    err = exc.error
    if isinstance(err, PatternSyntaxException):
        text = f"{err.java_class}: {err.one_line()}"
    elif isinstance(err, JavaRegexUnsupported):
        text = str(err)
    else:
        text = err.message
    consequence = ("" if isinstance(err, JavaRegexUnsupported)
                   else " (the broker refuses to start with this rule set)")
    reason = f"{key}: {text}{consequence}"
    path, line = None, None
    if ":" in where.source and where.key is not None:
        loc = where.source.split(" (", 1)[0]
        path, _, line_text = loc.rpartition(":")
        line = int(line_text) if line_text.isdigit() else None
    return InputError(reason, path or where.source, line)


def tls_mapper(rules: Optional[str | list[str]], broker_config: Optional[Path], listener: Optional[str],
               flag: str = "--rules") -> ResolvedMapper:
    """The broker's SslPrincipalMapper: --rules wins over server.properties (listener prefix first).
    Repeated --rules (each one rule, or the whole property value) are joined at commas: that is the
    one string ssl.principal.mapping.rules holds, which SslPrincipalMapper splits rule by rule."""
    if isinstance(rules, list):
        rules = ",".join(rules) if rules else None
    if rules is not None:
        where = ConfiguredRules(rules, flag)
    elif broker_config is not None:
        where = rules_from_broker_config(broker_config, SSL_RULES_CONFIG, listener)
    else:
        where = ConfiguredRules(None, "Kafka's default (DEFAULT)")
    try:
        return ResolvedMapper(SslPrincipalMapper.from_rules(where.value), where.source)
    except MappingRulesError as exc:
        raise _rules_error(exc, where, SSL_RULES_CONFIG) from None


def _kafka_refusal(rules: list[str]) -> str:
    """What the broker says of a rule list (KerberosShortNamer.parseRules), or "" when it takes it."""
    try:
        KerberosShortNamer.from_rules("", rules)
    except MappingRulesError as exc:
        return str(exc)
    return ""


def kerberos_rules_flags(values: list[str], flag: str = "--rules") -> tuple[list[str], str]:
    """The rule list of repeated --rules: each one rule, or the whole property value as Kafka's docs
    write it (``RULE:...,RULE:...,DEFAULT``), split as Kafka's ConfigDef splits a LIST. Returns the
    rules and the source to show."""
    rules: list[str] = []
    source = flag
    alternative = "--rules-config VALUE" if flag == "--rules" else "--broker-config FILE"
    for value in values:
        form, items = kerberos_rules_value_form(value)
        if form == "neither":
            raise OptionError(f"{value!r}: this is the one-string property form; use {alternative} or pass each "
                              f"rule as its own {flag} (as sasl.kerberos.principal.to.local.rules, Kafka splits "
                              f"it at every comma and the broker refuses it: {_kafka_refusal(items)})", flag)
        if form == "comma-rule":
            log.warning(f"{flag} {value!r} is one rule with a comma in it: sasl.kerberos.principal.to.local.rules "
                        "cannot hold it (Kafka's ConfigDef splits the LIST at every comma, and the broker "
                        f"refuses the pieces: {_kafka_refusal(split_kerberos_rules_config(value))})")
        if form == "property":
            source = f"{flag} (the one-string property form, split at commas as Kafka's ConfigDef does)"
        rules += items
    return rules, source


def kerberos_namer(rules: Optional[list[str]], rules_config: Optional[str], broker_config: Optional[Path],
                   listener: Optional[str], realm: Optional[str], flag: str = "--rules") -> ResolvedMapper:
    if rules and rules_config is not None:
        raise OptionError("give --rules (repeatable, one rule each) or --rules-config, not both", "--rules")
    parsed: Optional[list[str]]
    if rules:
        parsed, source = kerberos_rules_flags(rules, flag)
        where = ConfiguredRules(None, source)
    elif rules_config is not None:
        where, parsed = ConfiguredRules(rules_config, "--rules-config"), split_kerberos_rules_config(rules_config)
    elif broker_config is not None:
        where = rules_from_broker_config(broker_config, KERBEROS_RULES_CONFIG, listener)
        parsed = None if where.value is None else split_kerberos_rules_config(where.value)
    else:
        where, parsed = ConfiguredRules(None, "Kafka's default ([DEFAULT])"), None
    if realm is None:
        realm_flag = "--kerberos-realm" if flag == "--kerberos-rules" else "--realm"
        log.warning(f"no {realm_flag}: DEFAULT then maps only names whose realm is empty, as on a broker that cannot read "
             "its default realm from krb5.conf")
    try:
        return ResolvedMapper(KerberosShortNamer.from_rules(realm or "", parsed), where.source)
    except MappingRulesError as exc:
        raise _rules_error(exc, where, KERBEROS_RULES_CONFIG) from None


def mapping_row(kind: str, mapping: Mapping, origin: Optional[str] = None, dn_used: Optional[str] = None) -> dict:
    row: dict[str, Any] = {"input": mapping.input if dn_used is None else dn_used, "ok": mapping.ok, "name": mapping.name,
           "principal": mapping.principal,
           "rule_number": None if mapping.rule_index is None else mapping.rule_index + 1, "rule": mapping.rule,
           "error": None if mapping.error is None else mapping.error.as_dict(), "origin": origin}
    if dn_used is not None:
        row["given"] = mapping.input
        row["input"] = dn_used
    if mapping.error is not None:
        row["broker"] = (ssl_broker_error if kind == "tls" else kerberos_broker_error)(row["input"], mapping.error)
    return row


def map_connection(tls_dn: Optional[str], kerberos_principal: Optional[str], ssl_rules: Optional[str],
                   kerberos_rules: Optional[list[str]], realm: Optional[str], broker_config: Optional[Path],
                   listener: Optional[str]) -> Optional[dict]:
    """The principal a TLS DN or a Kerberos name becomes on the broker, as a mapping record for
    `authz simulate` (None when neither is given). A failed mapping is an AuthzError-free result
    with ``ok`` false: the caller reports that the connection never gets to authorization."""
    if tls_dn is None and kerberos_principal is None:
        if ssl_rules is not None or kerberos_rules:
            raise OptionError("mapping rules need --tls-dn or --kerberos-principal", "--tls-dn")
        return None
    if tls_dn is not None and kerberos_principal is not None:
        raise OptionError("give --tls-dn or --kerberos-principal, not both", "--tls-dn")
    if tls_dn is not None:
        resolved = tls_mapper(ssl_rules, broker_config, listener, "--ssl-mapping-rules")
        mapping = resolved.mapper.map(tls_dn)  # type: ignore[attr-defined]
        kind, key = "tls", SSL_RULES_CONFIG
    else:
        resolved = kerberos_namer(kerberos_rules, None, broker_config, listener, realm, "--kerberos-rules")
        mapping = resolved.mapper.map(kerberos_principal)  # type: ignore[attr-defined]
        kind, key = "kerberos", KERBEROS_RULES_CONFIG
    row = mapping_row(kind, mapping)
    row.update({"kind": kind, "config": key, "rules_source": resolved.source, "rules": str(resolved.mapper)})
    return row


# -- `authz principal tls|kerberos` -----------------------------------------------------------------


@dataclass(frozen=True)
class NameMappings:
    """Every name mapped by one rule set, in input order, and the --check report when asked for."""

    kind: str  # tls | kerberos
    resolved: ResolvedMapper
    inputs: list[NameInput]
    #: one per input, reported as given (``Mapping.input`` is the name as written)
    mappings: list[Mapping]
    #: the DN actually mapped when --normalize changed it, else None (one per input)
    used: list[Optional[str]]
    report: Optional[CheckReport] = None

    def rows(self) -> list[dict]:
        return [mapping_row(self.kind, m, n.origin, u) for n, m, u in zip(self.inputs, self.mappings, self.used)]

    def document(self) -> dict:
        """`principal tls|kerberos --check --format json`: the rules, the names and what the check found
        (without --check the JSON is :meth:`rows`)."""
        report = self.report
        assert report is not None  # the document of --check
        return {"rules": report.rules, "rules_source": self.resolved.source, "names": self.rows(),
                "rule_fires": {str(i + 1): n for i, n in sorted(report.fires.items())},
                "findings": [f.as_dict() for f in report.findings]}

    def failed(self, fail_level: str) -> bool:
        """Exit 1: with --check, a finding at or above ``fail_level``; without, a name the broker refuses."""
        if self.report is not None:
            return self.report.failing(fail_level)
        return any(not m.ok for m in self.mappings)


def name_inputs(args: Optional[list[str]], names_files: Optional[list[Path]],
                certs: Optional[list[Path]] = None) -> list[NameInput]:
    """The names to map: arguments, then each --names file, then each --cert's subjects (``certs`` is
    None for Kerberos, which has no --cert)."""
    out = [NameInput(a, "argument") for a in (args or [])]
    for f in names_files or []:
        out += read_names(f)
    for c in certs or []:
        out += read_cert_subjects(c)
    if not out:
        raise OptionError("give names as arguments, --names FILE" + (" or --cert FILE" if certs is not None else ""),
                          "NAMES")
    return out


def super_users(value: Optional[str], broker_config: Optional[Path]) -> set[str]:
    """--super-users, else the broker's super.users, else none."""
    from kafka_authz_cli.acl import AuthorizerConfigError, parse_super_users

    if value is not None:
        try:
            return set(parse_super_users(value))
        except AuthorizerConfigError as exc:
            raise InputError(f"--super-users: {exc}") from None
    if broker_config is not None:
        return super_users_from_broker_config(broker_config)
    return set()


def _normalized(inputs: list[NameInput]) -> tuple[list[NameInput], list[Optional[str]]]:
    """Each DN as the broker renders it, and for each the rendering when it differs from the text."""
    converted, used = [], []
    for n in inputs:
        try:
            dn = normalize_dn(n.text)
        except DnError as exc:
            raise InputError(f"cannot parse DN {n.text!r}: {exc}", n.origin) from None
        converted.append(NameInput(dn, n.origin))
        used.append(dn if dn != n.text else None)
    return converted, used


def map_tls_names(dns: Optional[list[str]], rules: Optional[str | list[str]], broker_config: Optional[Path],
                  listener: Optional[str], names: Optional[list[Path]], certs: Optional[list[Path]],
                  normalize: bool = False, check: bool = False, super_users_value: Optional[str] = None
                  ) -> NameMappings:
    """`authz principal tls`: every DN through the broker's SslPrincipalMapper (with --normalize, the
    broker's rendering of each DN), and with ``check`` the lint report."""
    resolved = tls_mapper(rules, broker_config, listener)
    inputs = name_inputs(dns, names, certs or [])
    if normalize:
        mapped_inputs, used = _normalized(inputs)
    else:
        mapped_inputs, used = inputs, [None] * len(inputs)
    mapper: SslPrincipalMapper = resolved.mapper  # type: ignore[assignment]
    report = None
    if check:
        report = check_tls(mapper, mapped_inputs, super_users(super_users_value, broker_config),
                           check_form=not normalize)
        mappings = [m for _, m in report.results]
    else:
        mappings = [mapper.map(n.text) for n in mapped_inputs]
    # Report each name as given (the DN actually mapped is shown next to it when --normalize changed it).
    mappings = [Mapping(n.text, m.name, m.error, m.rule_index, m.rule) for n, m in zip(inputs, mappings)]
    return NameMappings("tls", resolved, inputs, mappings, used, report)


def map_kerberos_names(principals: Optional[list[str]], rules: Optional[list[str]], rules_config: Optional[str],
                       realm: Optional[str], broker_config: Optional[Path], listener: Optional[str],
                       names: Optional[list[Path]], check: bool = False, super_users_value: Optional[str] = None
                       ) -> NameMappings:
    """`authz principal kerberos`: every name through the broker's KerberosShortNamer, and with
    ``check`` the lint report."""
    resolved = kerberos_namer(rules, rules_config, broker_config, listener, realm)
    inputs = name_inputs(principals, names)
    namer: KerberosShortNamer = resolved.mapper  # type: ignore[assignment]
    report = None
    if check:
        report = check_kerberos(namer, inputs, super_users(super_users_value, broker_config))
        mappings = [m for _, m in report.results]
    else:
        mappings = [namer.map(n.text) for n in inputs]
    return NameMappings("kerberos", resolved, inputs, mappings, [None] * len(inputs), report)
