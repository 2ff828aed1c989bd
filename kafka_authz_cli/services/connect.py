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
    PREFIXES,
    ConnectorCheck,
    Identity,
    PolicyError,
    RequiredAction,
    check_connector,
    hide_secret,
    read_connector_file,
    read_worker,
    redact,
    required_actions,
)
from kafka_authz_cli.errors import AuthzError
from kafka_authz_cli.services.acl_sources import load_source
from kafka_authz_cli.services.principal import kerberos_namer, tls_mapper
from kafka_authz_cli.services.settings import broker_settings


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
    shape: str = ""  # what the file is (connect.shapes)

    @property
    def rejected(self) -> bool:
        """Connect refuses the connector or its task fails to start: an override the policy rejects for
        a client the connector uses, or a client that cannot be built (invalid sasl.jaas.config...)."""
        return any(c.rejected or c.start_error for c in self.check.clients if c.used)

    @property
    def denied(self) -> bool:
        return self.decisions is not None and any(d is not None and d.decision != "ALLOWED" for d in self.decisions)


def check_connector_overrides(connector: Path, policy: Optional[str] = None, worker: Optional[Path] = None,
                              connector_type: Optional[str] = None, topics: Optional[list[str]] = None,
                              mapping: MappingOptions = MappingOptions(), acls: Optional[Path] = None,
                              host: str = "127.0.0.1", super_users: Optional[str] = None,
                              name: Optional[str] = None) -> list[OverridesReport]:
    """One report per connector of the file (``name``: the URL's name of a PUT body; in a file of
    several, the one to check)."""
    found = read_connector_file(connector, name)
    worker_props = read_worker(worker) if worker is not None else {}
    authorizer = None
    if acls is not None:
        from kafka_authz_cli.acl import StandardAuthorizer

        settings = broker_settings(super_users, None, mapping.broker_config)
        authorizer = StandardAuthorizer(load_source(acls).bindings, settings)
    reports = []
    for c in found:
        try:
            result = check_connector(c.config, worker_props, policy, connector_type, c.name, c.declared_type)
        except PolicyError as exc:
            raise AuthzError(str(exc)) from None
        clients = tuple(k if k.identity is None else replace(k, identity=_mapped_identity(k.identity, mapping))
                        for k in result.clients)
        result = replace(result, clients=clients)
        actions, notes = required_actions(result, c.config, list(topics or []))
        decisions = _decide(actions, authorizer, host) if authorizer is not None else None
        reports.append(OverridesReport(result, actions, list(c.notes) + notes, decisions, c.shape))
    return reports


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


def _decide(actions: list[RequiredAction], authorizer, host: str) -> list:
    from kafka_authz_cli.acl import CLUSTER_NAME, AclOperation, Decision, Request, ResourceType

    out: list[Decision | None] = []
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


def _client_json(c) -> dict:
    prefix = PREFIXES[c.client]
    return {
        "client": c.client, "used": c.used,
        "overrides": [{"name": prefix + v.name, "key": v.name, "value": hide_secret(v).value,
                       "allowed": not v.error_messages, "error_messages": list(v.error_messages),
                       "to_string": hide_secret(v).to_string()} for v in c.values],
        "effective_config": redact(c.effective) if c.used else None,
        "principal": c.identity.principal if c.identity else None,
        "principal_how": c.identity.how if c.identity else None,
        "worker_exception": c.shown_worker_exception(),
        "start_error": c.start_error,
    }


def overrides_document(report: OverridesReport) -> dict:
    """One connector's `authz connect check-overrides --format json` object."""
    result, decisions = report.check, report.decisions
    out = {"connector": result.name, "file_shape": report.shape, "type": result.connector_type, "type_reason": result.type_reason,
           "policy": result.policy, "policy_source": result.policy_source, "error_count": result.rest_error_count,
           "clients": [_client_json(c) for c in result.clients], "notes": report.notes}
    out["needed_acls"] = [{"client": a.client, "principal": a.principal, "operation": a.operation,
                           "resource_type": a.resource_type, "resource_name": a.resource_name, "why": a.why,
                           "decision": None if decisions is None or decisions[i] is None else decisions[i].decision,
                           "rule": None if decisions is None or decisions[i] is None else decisions[i].rule}
                          for i, a in enumerate(report.actions)]
    return out
