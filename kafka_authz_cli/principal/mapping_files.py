"""Inputs of principal mapping: name lists, certificates, and the rules in a server.properties."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from kafka_authz_cli._java import parse_properties_with_lines
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import read_text
from kafka_authz_cli.principal.mapping import listener_key
from kafka_authz_cli.principal.mapping_check import NameInput
from kafka_authz_cli.principal.x500 import DnError, rfc2253_from_der


def read_names(path: Path | str) -> list[NameInput]:
    """One name per line (a DN or a Kerberos principal); blank lines and lines starting with ``#``
    are skipped. ``-`` reads stdin. Lines are kept verbatim (no trimming: spaces are significant)."""
    if str(path) == "-":
        text, origin = sys.stdin.read(), "<stdin>"
    else:
        text, origin = read_text(path), str(path)
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        out.append(NameInput(line, f"{origin}:{lineno}"))
    return out


def read_cert_subjects(path: Path | str) -> list[NameInput]:
    """Subjects of the certificates in a PEM (one or more) or DER file, as the broker renders them."""
    from cryptography import x509

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), str(path)) from None
    try:
        if b"-----BEGIN" in data:
            certs = x509.load_pem_x509_certificates(data)
        else:
            certs = [x509.load_der_x509_certificate(data)]
    except ValueError as exc:
        raise InputError(f"not a PEM or DER X.509 certificate: {exc}", str(path)) from None
    out = []
    for i, cert in enumerate(certs, 1):
        try:
            dn = rfc2253_from_der(cert.subject.public_bytes())
        except DnError as exc:
            raise InputError(f"certificate {i}: {exc}", str(path)) from None
        out.append(NameInput(dn, f"{path} (certificate {i})" if len(certs) > 1 else str(path)))
    return out


@dataclass(frozen=True)
class ConfiguredRules:
    value: str | None  # None: not configured (Kafka's default applies)
    source: str  # "path:line (key)" or "default" or "--rules"
    key: str | None = None


def rules_from_broker_config(path: Path | str, key: str, listener: str | None) -> ConfiguredRules:
    """The value a broker uses for ``key`` on ``listener``: ``listener.name.<l>.key`` first."""
    props = parse_properties_with_lines(read_text(path), str(path))
    for k in listener_key(key, listener):
        if k in props:
            value, line = props[k]
            return ConfiguredRules(value, f"{path}:{line} ({k})", k)
    return ConfiguredRules(None, f"{path} (not set: Kafka's default)", None)


def super_users_from_broker_config(path: Path | str) -> set[str]:
    from kafka_authz_cli.acl import AuthorizerConfigError, parse_super_users

    props = parse_properties_with_lines(read_text(path), str(path))
    raw, line = props.get("super.users", ("", 0))
    try:
        return set(parse_super_users(raw))
    except AuthorizerConfigError as exc:
        raise InputError(f"super.users: {exc}", str(path), line or None) from None
