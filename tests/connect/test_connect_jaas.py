"""Every recorded JaasConfig input, through the path `connect check-overrides` takes.

tests/conformance/kafka-security/jaas_config.jsonl holds 1,033 sasl.jaas.config texts with what
kafka-clients' own JaasConfig built or threw. A connector's client reads the text with
JaasContext.loadClientContext: JaasConfig, then exactly one login module. Here each text is a
consumer.override.sasl.jaas.config of one connector in a single JSON list, run through the command
itself (file reading, the policy, the effective client config, the identity), so nothing between the
file and the JAAS parser can read it differently from Kafka.
"""

import json
from pathlib import Path

from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

CASES = [json.loads(line) for line in
         (Path(__file__).parents[1] / "conformance" / "kafka-security" / "jaas_config.jsonl").read_text("utf-8")
         .splitlines()]


def _connector(i: int, text: str) -> dict:
    return {"name": f"c{i}", "config": {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "topics": "t",
        "consumer.override.security.protocol": "SASL_SSL", "consumer.override.sasl.mechanism": "PLAIN",
        "consumer.override.sasl.jaas.config": text}}


def _expected(case: dict) -> tuple[str | None, str | None]:
    """(principal, start error) as the Kafka client has them."""
    if "error" in case:
        return None, f"sasl.jaas.config: {case['message']}"
    entries = case["entries"]
    if len(entries) != 1:  # JaasContext.loadClientContext
        return None, f"sasl.jaas.config: JAAS config property contains {len(entries)} login modules, should be 1 module"
    user = entries[0]["options"].get("username")
    return (f"User:{user}" if user is not None else None), None


def test_every_recorded_jaas_text_reads_as_kafka_reads_it(tmp_path):
    assert len(CASES) == 1033
    path = tmp_path / "connectors.json"
    path.write_text(json.dumps([_connector(i, c["text"]) for i, c in enumerate(CASES)]), encoding="utf-8")
    result = CliRunner().invoke(app, ["connect", "check-overrides", str(path), "--policy", "Principal", "-f", "json"])
    assert result.exit_code == 1, result.output  # some texts are refused: those tasks fail to start
    docs = json.loads(result.stdout)
    assert len(docs) == len(CASES)
    wrong = []
    for i, (case, doc) in enumerate(zip(CASES, docs)):
        [consumer] = [c for c in doc["clients"] if c["client"] == "CONSUMER"]
        got = (consumer["principal"], consumer["start_error"])
        if got != _expected(case):
            wrong.append((i, case["text"], got, _expected(case)))
    assert not wrong, f"{len(wrong)} of {len(CASES)} disagree with JaasConfig, e.g. {wrong[:3]}"


def test_a_refused_jaas_text_alone_exits_1(tmp_path):
    path = tmp_path / "c.json"
    text = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password=1234;'
    path.write_text(json.dumps(_connector(0, text)), encoding="utf-8")
    res = CliRunner().invoke(app, ["connect", "check-overrides", str(path), "--policy", "Principal"])
    assert res.exit_code == 1
    assert "the consumer cannot be built: sasl.jaas.config: Value not specified for key 'password'" in \
        " ".join(res.stdout.split())
    # the same text with a value: allowed, exit 0
    path.write_text(json.dumps(_connector(0, text.replace("1234", '"p"'))), encoding="utf-8")
    res = CliRunner().invoke(app, ["connect", "check-overrides", str(path), "--policy", "Principal"])
    assert res.exit_code == 0, res.output


def test_an_empty_jaas_value_is_a_text_without_login_module(tmp_path):
    # Only an absent sasl.jaas.config falls back to the static JAAS file (JaasContext.loadClientContext);
    # "" is parsed, and JaasConfig refuses it.
    path = tmp_path / "c.properties"
    path.write_text("name=c\nconnector.class=FileStreamSink\ntopics=t\nconsumer.override.security.protocol=SASL_SSL\n"
                    "consumer.override.sasl.mechanism=PLAIN\nconsumer.override.sasl.jaas.config=\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["connect", "check-overrides", str(path), "-f", "json"])
    assert res.exit_code == 1
    [consumer] = json.loads(res.stdout)["clients"]
    assert consumer["start_error"] == "sasl.jaas.config: Login module not specified in JAAS config"
