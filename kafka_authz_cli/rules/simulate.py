"""Decide Kafka-style requests with a rules file, as the proxy would and as its docs say."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_authz_cli.acl import KafkaPrincipal, Request
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.rules.evaluate import Principal, ProxyAuthorizer, RulesAction
from kafka_authz_cli.rules.semantic_check import CheckedRules


@dataclass(frozen=True)
class RulesDecisionRow:
    decision: str
    rule: str
    documented_decision: str
    quirk: str | None


def decide_requests(checked: CheckedRules, requests: list[Request]) -> list[RulesDecisionRow]:
    registry = checked.registry
    authorizer = ProxyAuthorizer(checked)
    path = checked.file.path
    out = []
    for request in requests:
        principal = KafkaPrincipal.parse(request.principal)
        pclass = next((c.fqcn for c in registry.principals.values() if c.kafka_type == principal.principal_type), None)
        rclass = registry.resource_for_kafka(request.resource_type)
        if rclass is None:
            raise InputError(f"the rules language has no {request.resource_type.name} resources")
        if pclass is None:
            # No principal class of that type: the proxy's subject can hold no such principal.
            principals: tuple[Principal, ...] = ()
        else:
            principals = (Principal(pclass, principal.name),)
        got = authorizer.decide(RulesAction(principals, rclass.fqcn, request.operation.name, request.resource_name))
        if got.rule is not None:
            r = got.rule.rule
            rule = f"{r.effect} rule at {path}:{r.pos.line}"
        else:
            rule = "otherwise deny" + ("" if principals else " (no principal class for this principal type)")
        quirk = None
        if got.decision != got.documented_decision:
            quirk = f"the docs' first-match meaning says {got.documented_decision}: {got.quirk}"
        out.append(RulesDecisionRow(got.decision, rule, got.documented_decision, quirk))
    return out
