"""authz's port of Kafka's JaasConfig (and java.io.StreamTokenizer) against the real parser.

tests/conformance/kafka-security/jaas_config.jsonl was recorded from kafka-clients 4.1.1's own
JaasConfig (by reflection, tests/live/tools/record_jaas.py): 1,033 texts, hand-picked and random
(quotes, escapes, octal, comments, numbers, line breaks, non-ASCII), with the entries it built or
the exact message it threw."""

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_authz_cli._java import JaasError, parse_jaas_config, quote

CASES = [json.loads(line) for line in
         (Path(__file__).parents[1] / "conformance" / "kafka-security" / "jaas_config.jsonl").read_text("utf-8").splitlines()]


def parse(text):
    try:
        return {"entries": [{"module": e.login_module, "flag": e.control_flag, "options": e.options}
                            for e in parse_jaas_config(text)]}
    except JaasError as exc:
        return {"error": "IllegalArgumentException", "message": str(exc)}


def test_recorded_cases_are_many_and_varied():
    assert len(CASES) > 1000
    assert sum("entries" in c for c in CASES) > 200


@pytest.mark.parametrize("case", CASES, ids=range(len(CASES)))
def test_same_as_kafkas_jaas_config(case):
    expected = {k: v for k, v in case.items() if k != "text"}
    assert parse(case["text"]) == expected


@given(st.text(max_size=40), st.text(max_size=40))
def test_quote_reads_back_any_single_line_value(user, password):
    if any(c in user + password for c in "\n\r"):
        return
    entry = parse_jaas_config(f"m required username={quote(user)} password={quote(password)};")[0]
    assert entry.options == {"username": user, "password": password}


@given(st.text(max_size=60))
def test_never_crashes(text):
    try:
        parse_jaas_config(text)
    except JaasError:
        pass
