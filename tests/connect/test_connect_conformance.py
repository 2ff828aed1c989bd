"""Every connector override policy sample recorded from Kafka Connect's own policy classes."""

import json
from pathlib import Path

import pytest

from kafka_authz_cli.connect.overrides import (
    DEFAULT_POLICY,
    POLICY_CONFIG,
    PREFIXES,
    PRINCIPAL_ALLOWED,
    policy_message,
    policy_name,
    validate,
    worker_exception,
)

DATA = Path(__file__).parents[1] / "conformance" / "kafka-security"
ROWS = [json.loads(line) for line in (DATA / "connect_override_policies.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]
FACTS = json.loads((DATA / "connect_override_policy_facts.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_policy(row):
    values = validate(row["policy"], row["client_props"])
    assert [{"name": v.name, "value": v.value, "error_messages": list(v.error_messages), "to_string": v.to_string()}
            for v in values] == row["config_values"]
    assert sum(1 for v in values if v.error_messages) == row["error_count"]
    assert worker_exception(values) == row["worker_exception_message_if_any"]


def test_facts():
    assert FACTS["worker_config"]["name"] == POLICY_CONFIG
    assert FACTS["worker_config"]["default"] == DEFAULT_POLICY
    for alias, cls in FACTS["aliases"].items():
        if alias == "rule":
            continue
        assert policy_name(alias) == alias
        assert policy_name(cls) == alias
        assert policy_name(cls.rsplit(".", 1)[1]) == alias
    assert {k.upper(): v for k, v in FACTS["connector_config_prefixes"].items()} == PREFIXES
    assert FACTS["policies"]["Principal"]["allowed_keys"] == sorted(PRINCIPAL_ALLOWED)
    template = FACTS["error_message_template"]
    assert policy_message("None", "acks") == template.replace("<PolicyName>", "None").replace("<key>", "acks")
