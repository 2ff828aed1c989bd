"""`authz connect check-overrides`: a connector judged as its worker would, and the ACLs it needs.

Reads the connector and the worker, lets the worker's KIP-458 policy judge the overrides of the clients
the connector uses, finishes each client's identity with the broker's mapping rules (a Kerberos name,
a certificate given with --client-cert), lists the ACL checks the clients make and, given an ACL set,
decides them as the broker would.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from kafka_authz_cli.connect import (
    ConnectorCheck,
    Identity,
    PolicyError,
    RequiredAction,
    check_connector,
    read_connector,
    read_worker,
    required_actions,
)
from kafka_authz_cli.errors import AuthzError
from kafka_authz_cli.services.principal import kerberos_namer, tls_mapper
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.sources import load_source


@dataclass(frozen=True)
class MappingOptions:
    """How the brokers turn a connection into a principal (flags, else --broker-config, else Kafka's
    defaults): for the clients whose principal the mapping rules decide."""

    broker_config: Optional[Path] = None
    ssl_mapping_rules: Optional[str] = None
    client_cert: Optional[Path] = None
    kerberos_rules: Optional[list[str]] = None
    kerberos_realm: Optional[str] = None


@dataclass(frozen=True)
class OverridesReport:
    """The connector's check (identities mapped), the ACL checks its clients make, notes on what cannot
    be listed offline, and with --acls each check's decision (None where the principal is unknown)."""

    check: ConnectorCheck
    actions: list[RequiredAction]
    notes: list[str]
    decisions: Optional[list] = None  # list[Decision | None], None without --acls

    @property
    def rejected(self) -> bool:
        """An override the policy rejects for a client the connector uses: the task fails to start."""
        return any(c.rejected for c in self.check.clients if c.used)

    @property
    def denied(self) -> bool:
        return self.decisions is not None and any(d is not None and d.decision != "ALLOWED" for d in self.decisions)


def check_connector_overrides(connector: Path, policy: Optional[str] = None, worker: Optional[Path] = None,
                              connector_type: Optional[str] = None, topics: Optional[list[str]] = None,
                              mapping: MappingOptions = MappingOptions(), acls: Optional[Path] = None,
                              host: str = "127.0.0.1", super_users: Optional[str] = None) -> OverridesReport:
    name, config = read_connector(connector)
    worker_props = read_worker(worker) if worker is not None else {}
    try:
        result = check_connector(config, worker_props, policy, connector_type, name)
    except PolicyError as exc:
        raise AuthzError(str(exc)) from None
    clients = tuple(c if c.identity is None else replace(c, identity=_mapped_identity(c.identity, mapping))
                    for c in result.clients)
    result = replace(result, clients=clients)
    actions, notes = required_actions(result, config, list(topics or []))
    decisions = _decide(actions, acls, host, mapping.broker_config, super_users) if acls is not None else None
    return OverridesReport(result, actions, notes, decisions)


def _mapped_identity(ident: Identity, mapping: MappingOptions) -> Identity:
    """Finish an identity the broker's mapping rules decide (GSSAPI name, TLS certificate)."""
    m = mapping
    if ident.kerberos_name and (m.kerberos_rules or m.broker_config is not None or m.kerberos_realm):
        resolved = kerberos_namer(m.kerberos_rules, None, m.broker_config, None, m.kerberos_realm, "--kerberos-rules")
        mapped = resolved.mapper.map(ident.kerberos_name)  # type: ignore[attr-defined]
        if mapped.ok:
            return Identity(mapped.principal, f"{ident.how}: {ident.kerberos_name} -> {mapped.principal} "
                                              f"({resolved.source})", ident.mechanism, ident.kerberos_name)
        return Identity(None, f"{ident.how}: {ident.kerberos_name} is refused ({mapped.error.message}): the "
                              "connection fails", ident.mechanism, ident.kerberos_name)
    if ident.tls_keystore and m.client_cert is not None:
        from kafka_authz_cli.principal import read_cert_subjects

        [subject, *_] = read_cert_subjects(m.client_cert)
        resolved = tls_mapper(m.ssl_mapping_rules, m.broker_config, None, "--ssl-mapping-rules")
        mapped = resolved.mapper.map(subject.text)  # type: ignore[attr-defined]
        if mapped.ok:
            return Identity(mapped.principal, f"TLS certificate {m.client_cert} ({subject.text}) -> "
                                              f"{mapped.principal} ({resolved.source})", tls_keystore=ident.tls_keystore)
        return Identity(None, f"TLS certificate {subject.text} is refused ({mapped.error.message})",
                        tls_keystore=ident.tls_keystore)
    return ident


def _decide(actions: list[RequiredAction], acls: Path, host: str, broker_config: Optional[Path],
            super_users: Optional[str]) -> list:
    from kafka_authz_cli.acl import CLUSTER_NAME, AclOperation, Request, ResourceType

    settings = broker_settings(super_users, None, broker_config)
    authorizer = settings.authorizer(load_source(acls))
    out = []
    for a in actions:
        if a.principal is None:
            out.append(None)
            continue
        if a.operation == "CREATE" and a.resource_type == "TOPIC":
            # CreateTopics asks for CREATE on the cluster first, then on the topic.
            d = authorizer.authorize_many([Request(a.principal, host, AclOperation.CREATE, ResourceType.CLUSTER,
                                                   CLUSTER_NAME, log_if_denied=False)])[0]
            if d.decision == "ALLOWED":
                out.append(d)
                continue
        req = Request(a.principal, host, AclOperation[a.operation], ResourceType[a.resource_type], a.resource_name)
        out.append(authorizer.authorize_many([req])[0])
    return out
