"""The model against the facts recorded from Kafka's own classes."""

import json
from pathlib import Path

import pytest

from kafka_authz_cli.acl.model import (
    SUPPORTED_OPERATIONS,
    AclBinding,
    AclError,
    AclOperation,
    AclPermissionType,
    KafkaPrincipal,
    PatternType,
    ResourceType,
    validation_errors,
)

FACTS = json.loads((Path(__file__).parent.parent / "conformance" / "kafka-security" / "acl_facts.json").read_text())


@pytest.mark.parametrize("enum_cls, key", [(AclOperation, "AclOperation"), (ResourceType, "ResourceType"),
                                           (PatternType, "PatternType"), (AclPermissionType, "AclPermissionType")])
def test_enum_codes_match_kafka(enum_cls, key):
    for fact in FACTS[key]:
        member = enum_cls[fact["name"]]
        assert member.code == fact["code"]
        if "pascal_name" in fact:
            assert member.pascal == fact["pascal_name"]


def test_supported_operations_match_kafka():
    for rtype, ops in FACTS["AclEntry.supportedOperations"].items():
        if isinstance(ops, dict):
            continue
        kafka_ops = [o for o in SUPPORTED_OPERATIONS[ResourceType[rtype]] if o is not AclOperation.TWO_PHASE_COMMIT]
        assert [o.name for o in kafka_ops] == ops


def test_principal_parsing_matches_kafka():
    for fact in FACTS["SecurityUtils.parseKafkaPrincipal"]:
        if fact["input"] is None:
            continue
        if fact["ok"]:
            p = KafkaPrincipal.parse(fact["input"])
            assert (p.principal_type, p.name, str(p)) == (fact["principal_type"], fact["name"], fact["to_string"])
        else:
            with pytest.raises(AclError) as info:
                KafkaPrincipal.parse(fact["input"])
            assert str(info.value) == fact["error"]["message"]


def test_to_string_formats_match_kafka():
    fmts = FACTS["to_string_formats"]
    b = AclBinding.of("TOPIC", "foo", "LITERAL", "User:alice", "*", "READ", "ALLOW")
    assert str(b) == fmts["AclBinding(rp,ace)"]
    assert str(b.pattern) == fmts["ResourcePattern(TOPIC,foo,LITERAL)"]


def test_validation_as_create_acls_does_it():
    ok = AclBinding.of("TOPIC", "t", "LITERAL", "User:a", "*", "READ", "ALLOW")
    assert validation_errors(ok) == []
    assert any("kafka-cluster" in e for e in validation_errors(AclBinding.of("CLUSTER", "c", "LITERAL", "User:a", "*", "ALTER", "ALLOW")))
    assert any("not supported on GROUP" in e for e in validation_errors(AclBinding.of("GROUP", "g", "LITERAL", "User:a", "*", "WRITE", "ALLOW")))
    assert any("has no ':'" in e for e in validation_errors(AclBinding.of("TOPIC", "t", "LITERAL", "alice", "*", "READ", "ALLOW")))
    assert any("must not be empty" in e for e in validation_errors(AclBinding.of("TOPIC", "", "PREFIXED", "User:a", "*", "READ", "ALLOW")))
    assert validation_errors(AclBinding.of("TRANSACTIONAL_ID", "t", "LITERAL", "User:a", "*", "TWO_PHASE_COMMIT", "ALLOW")) == []
