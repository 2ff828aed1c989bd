"""Every StandardAuthorizer case recorded from the real Kafka code must be reproduced exactly."""

import json
from pathlib import Path

import pytest

from kafka_authz_cli.acl import AuthorizerConfigError, BrokerSettings
from kafka_authz_cli.acl.engine import Outcome, Request, StandardAuthorizer
from kafka_authz_cli.acl.model import AclBinding, AclOperation, ResourceType

CASES_FILE = Path(__file__).parent.parent / "conformance" / "kafka-authorizer" / "cases.jsonl"
CASES = [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


def build(case, **kw):
    acls = [AclBinding.of(a["resource_type"], a["resource_name"], a["pattern_type"], a["principal"],
                          a["host"], a["operation"], a["permission"]) for a in case["acls"]]
    super_users = case["super_users_config"] if "super_users_config" in case else ";".join(case.get("super_users") or [])
    settings = BrokerSettings(super_users=super_users, allow_everyone_if_no_acl_found=case["allow_if_no_acl"])
    return StandardAuthorizer(acls, settings, load_complete=case["load_complete"], **kw)


def request_of(action):
    return Request(principal=action["principal"], host=action["host"],
                   operation=AclOperation.parse(action["operation"]),
                   resource_type=ResourceType.parse(action["resource_type"]),
                   resource_name=action["resource_name"], api_key=action.get("api_key"),
                   resource_ref_count=action.get("resource_ref_count", 1),
                   log_if_allowed=action.get("log_if_allowed", True), log_if_denied=action.get("log_if_denied", True))


def check_case(case, authorizer_factory):
    if "expected_error" in case:
        with pytest.raises(AuthorizerConfigError) as info:
            authorizer_factory(case)
        assert case["expected_error"].endswith(str(info.value))
        return
    authorizer = authorizer_factory(case)
    for action, expected in zip(case["actions"], case["expected"], strict=True):
        decision = authorizer.authorize(request_of(action))
        assert decision.client_address == expected["client_address"]
        if "error" in expected:
            assert decision.outcome is Outcome.NOT_READY
            assert decision.error == expected["error"]
            continue
        context = f"{case['id']}: {action}"
        assert decision.decision == expected["decision"], context
        assert decision.rule == expected["rule"], context
        assert decision.audit_level == expected["audit_level"], context
        assert decision.audit == expected["audit"], context


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_indexed_engine_reproduces_kafka(case):
    check_case(case, build)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_sorted_walk_reproduces_kafka(case):
    """The step-by-step walk (used for Kafka's quirky corners) must agree on every case too."""
    check_case(case, lambda c: build(c, force_walk=True))


def test_every_case_ran():
    assert len(CASES) == 198
    assert sum(len(c.get("expected", [])) for c in CASES) == 1272
