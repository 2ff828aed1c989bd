"""`authz app check|acls`'s JSON documents and sentence, built by the service without the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from kafka_authz_cli.services.apps import (
    AppOptions,
    DeclaredCheck,
    acls_document,
    app_acls,
    check_app,
    check_document,
    check_sentence,
    declared_document,
)

ACL = {"resource_type": "TOPIC", "resource_name": "orders", "pattern_type": "LITERAL", "principal": "User:alice",
       "host": "*", "operation": "READ", "permission": "ALLOW"}


def _acls(tmp_path: Path, *entries: dict) -> Path:
    path = tmp_path / "acls.json"
    path.write_text(json.dumps({"version": 1, "acls": [dict(ACL, **e) for e in entries]}))
    return path


def test_a_failing_check_is_plain_json_with_its_fix_in_both_forms(tmp_path):
    acls = _acls(tmp_path, {}, {"resource_type": "GROUP", "resource_name": "billing", "operation": "DESCRIBE"})
    result = check_app(AppOptions(kind="consumer", acls=acls, principal="User:alice", topics=("orders",),
                                  configs=("group.id=billing",)))
    doc = check_document(result)
    assert json.loads(json.dumps(doc)) == doc  # plain values only: what the one emitter writes
    assert doc["message"] == check_sentence(result)
    assert doc["missing"] == [dict(ACL, resource_type="GROUP", resource_name="billing")]
    assert doc["missing_kafka_acls"] == ["kafka-acls --bootstrap-server BROKER --add --allow-principal User:alice "
                                         "--operation Read --group billing"]
    assert (doc["works"], doc["exception"], doc["blocked"], doc["denies"]) == (
        False, "GroupAuthorizationException", None, [])


def test_a_deny_is_named_in_the_sentence(tmp_path):
    acls = _acls(tmp_path, {}, {"permission": "DENY", "host": "10.0.0.9"})
    result = check_app(AppOptions(kind="consumer", acls=acls, principal="User:alice", host="10.0.0.9",
                                  topics=("orders",)))
    assert "is denied by DENY READ on TOPIC orders for User:alice from 10.0.0.9" in check_sentence(result)
    assert check_document(result)["denies"] == [dict(ACL, permission="DENY", host="10.0.0.9")]


def test_the_acls_document_holds_the_set_the_text_and_one_proof_per_acl(tmp_path):
    result = app_acls(AppOptions(kind="producer", principal="User:alice", topics=("t",)))
    doc = acls_document(result, "kafka-acls", "TEXT")
    assert json.loads(json.dumps(doc)) == doc
    assert (doc["format"], doc["text"], doc["works_with_them"]) == ("kafka-acls", "TEXT", True)
    assert [p["acl"] for p in doc["proof"]] == doc["acls"] == [dict(ACL, resource_name="t", operation="WRITE")]
    assert doc["proof"][0]["without_it"]["exception"] == "TopicAuthorizationException"


def test_an_application_that_could_not_be_checked_says_why(tmp_path):
    from kafka_authz_cli.apps.appsfile import read_apps

    app = read_apps("apps:\n  - name: x\n    kind: bogus\n    principal: User:alice\n", "team.yaml")[0]
    doc = declared_document(DeclaredCheck(app, problem="unknown kind"))
    assert doc == {"name": "x", "declared_at": f"{app.line}:{app.col}", "kind": "bogus", "principal": "User:alice",
                   "works": None, "problem": "unknown kind"}
