"""Which principal a connection becomes: the broker's mappers resolved from flags or server.properties.

Shared by `authz principal` and `authz simulate --tls-dn/--kerberos-principal`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from kafka_authz_cli._java.regex import JavaRegexUnsupported, PatternSyntaxException
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.principal.files import ConfiguredRules, rules_from_broker_config
from kafka_authz_cli.principal.mapping import (
    KERBEROS_RULES_CONFIG,
    SSL_RULES_CONFIG,
    KerberosShortNamer,
    Mapping,
    MappingRulesError,
    SslPrincipalMapper,
    kerberos_broker_error,
    split_kerberos_rules_config,
    ssl_broker_error,
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


def tls_mapper(rules: Optional[str], broker_config: Optional[Path], listener: Optional[str],
               flag: str = "--rules") -> ResolvedMapper:
    """The broker's SslPrincipalMapper: --rules wins over server.properties (listener prefix first)."""
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


def kerberos_namer(rules: Optional[list[str]], rules_config: Optional[str], broker_config: Optional[Path],
                   listener: Optional[str], realm: Optional[str], flag: str = "--rules") -> ResolvedMapper:
    if rules and rules_config is not None:
        raise OptionError("give --rules (repeatable, one rule each) or --rules-config, not both", "--rules")
    if rules:
        where, parsed = ConfiguredRules(None, flag), list(rules)
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
    row = {"input": mapping.input if dn_used is None else dn_used, "ok": mapping.ok, "name": mapping.name,
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
