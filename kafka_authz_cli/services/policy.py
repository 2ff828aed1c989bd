"""`authz policy check` and `authz simulate --topic-policy`: KIP-201 verdicts, alone or with the ACLs.

A verdict is returned as one flat record per request (what the json/jsonl/csv formats print and the
table shows): the policy's decision, what the broker refuses before any policy, and with ACLs the
request-level verdict and the refusing step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from kafka_authz_cli.config import kafka_configs, load_sources
from kafka_authz_cli.errors import OptionError
from kafka_authz_cli.policy import (
    ClusterState,
    CombinedVerdict,
    PolicyRequest,
    PolicyVerdict,
    TopicPolicy,
    decide,
    evaluate,
    read_cluster_state,
    read_policy,
    read_requests,
    request_from_dict,
)
from kafka_authz_cli.services.acl_sources import load_source
from kafka_authz_cli.services.settings import broker_settings

#: The request `authz simulate --topic-policy` checks for each ACL operation on a topic.
SIMULATED_REQUESTS = {"CREATE": "CreateTopics", "ALTER": "CreatePartitions", "ALTER_CONFIGS": "IncrementalAlterConfigs",
                      "DELETE": "DeleteTopics"}


def verdict_row(req: PolicyRequest, pv: PolicyVerdict, combined: CombinedVerdict | None = None) -> dict:
    state = pv.state
    row = {
        "request": req.request, "operation": req.operation, "principal": req.principal, "topic": req.topic,
        "policy_allowed": pv.allowed and pv.broker_error is None, "policy_rule": pv.rule,
        "violations": list(pv.violations), "broker_error": pv.broker_error, "notes": list(pv.notes),
        "requested_state": None if state is None else {
            "partitions": state.partitions, "replication_factor": state.replication_factor,
            "configs": state.configs, "requested_configs": state.requested_configs},
        "broker_hook": req.broker_hook, "origin": req.origin,
    }
    if combined is not None:
        d = combined.acl_decision
        row.update({"verdict": combined.verdict, "refused_by": combined.refused_by, "error": combined.error,
                    "acl_operation": req.acl_operation, "acl_checks": list(combined.acl_checks),
                    "acl_decision": d.decision, "acl_rule": d.rule, "acl_explanation": d.explain()})
    else:
        row["verdict"] = "ALLOWED" if row["policy_allowed"] else "DENIED"
        row["error"] = (pv.broker_error if pv.broker_error else
                        None if pv.allowed else f"POLICY_VIOLATION: {pv.message}")
        row["refused_by"] = None if pv.allowed and not pv.broker_error else "broker" if pv.broker_error else "policy"
    if req.expect is not None:
        row["expect"] = req.expect
        row["ok"] = row["verdict"] == req.expect
    return row


def check_requests(policy: TopicPolicy, requests: list[PolicyRequest], cluster: ClusterState, broker_sources,
                   authorizer=None, kafka=None) -> list[dict]:
    rows = []
    for req in requests:
        if authorizer is not None:
            c = decide(authorizer, policy, req, cluster, broker_sources, kafka)
            rows.append(verdict_row(req, c.policy, c))
        else:
            rows.append(verdict_row(req, evaluate(policy, req, cluster, broker_sources, kafka)))
    return rows


def _kafka(kafka_version: Optional[str]):
    try:
        return kafka_configs(kafka_version)
    except ValueError as exc:
        raise OptionError(str(exc), "--kafka-version") from None


def _broker_sources(broker_config: Optional[Path]):
    return load_sources(broker_config, None, None)[0] if broker_config is not None else None


def check_policy(requests: Path, policy: Path, cluster_state: Optional[Path], broker_config: Optional[Path],
                 acls: Optional[Path], acls_format: Optional[str], super_users: Optional[str],
                 allow_everyone: Optional[bool], kafka_version: Optional[str] = None) -> list[dict]:
    """`authz policy check`: one verdict row per request of the file; with ``acls``, the request's
    verdict as a broker gives it (the ACLs, then the broker's own checks, then the policy); topic
    configs read as Kafka ``kafka_version`` reads them."""
    kafka = _kafka(kafka_version)
    pol = read_policy(policy)
    reqs = read_requests(requests)
    cluster = read_cluster_state(cluster_state)
    broker_sources = _broker_sources(broker_config)
    authorizer = None
    if acls is not None:
        from kafka_authz_cli.acl import StandardAuthorizer

        settings = broker_settings(super_users, allow_everyone, broker_config)
        authorizer = StandardAuthorizer(load_source(acls, acls_format).bindings, settings)
    return check_requests(pol, reqs, cluster, broker_sources, authorizer, kafka)


def simulate_topic_policy(policy_path: Path, authorizer, principal: str, host: str, operation: str, topic: str,
                          partitions: Optional[int], replication_factor: Optional[int], configs: list[str],
                          cluster_state: Optional[Path], broker_config: Optional[Path]) -> dict:
    """The combined verdict `authz simulate --topic-policy` shows for one request from flags."""
    kind = SIMULATED_REQUESTS.get(operation)
    if kind is None:
        raise OptionError("--topic-policy decides Create, Alter (partitions), AlterConfigs or Delete on a --topic",
                          param_hint="--topic-policy")
    parsed: dict[str, str] = {}
    for item in configs:
        if "=" not in item:
            raise OptionError(f"expected key=value, got {item!r}", param_hint="--config")
        k, _, v = item.partition("=")
        parsed[k] = v
    rec: dict[str, object] = {"request": kind, "principal": principal, "topic": topic, "host": host, "configs": parsed}
    if partitions is not None:
        rec["partitions"] = partitions
    if replication_factor is not None:
        rec["replication_factor"] = replication_factor
    try:
        req = request_from_dict(rec, "flags")
    except ValueError as exc:
        raise OptionError(str(exc), param_hint="--topic-policy") from None
    [row] = check_requests(read_policy(policy_path), [req], read_cluster_state(cluster_state),
                           _broker_sources(broker_config), authorizer)
    return row
