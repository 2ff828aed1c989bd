"""A file of another kind given where JSON (or TOML) is read says what it looks like; a JSON file with
a mistake keeps its located JSON error."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import json_lines, loads

ROOT = Path(__file__).parents[2]
LOG = ROOT / "examples" / "whatif" / "logs" / "kafka-authorizer.log"
POLICY = ROOT / "examples" / "policy"
SERVER_PROPERTIES = "broker.id=0\nlog.dirs=/tmp/kafka-logs\nzookeeper.connect=localhost:2181\nnum.partitions=1\n"


def _error(args) -> str:
    res = CliRunner().invoke(app, [str(a) for a in args])
    assert res.exit_code == 2, res.output
    return res.stderr.strip()


def test_a_log_given_as_requests_is_named():
    err = _error(["simulate", POLICY / "acls.json", "--requests", LOG])
    assert err.endswith("this looks like a log file, expected requests (JSON lines, a JSON array or CSV)")


def test_a_log_given_as_policy_or_policy_requests_is_named():
    assert "this looks like a log file, expected a KIP-201 policy" in _error(
        ["policy", "check", "--policy", LOG, "--cluster-state", POLICY / "cluster-state.json", POLICY / "requests.jsonl"])
    assert "this looks like a log file, expected topic requests" in _error(
        ["policy", "check", "--policy", POLICY / "topic-policy.json", "--cluster-state", POLICY / "cluster-state.json", LOG])


def test_server_properties_given_as_cluster_state_is_named(tmp_path):
    props = tmp_path / "server.properties"
    props.write_text(SERVER_PROPERTIES)
    err = _error(["policy", "check", "--policy", POLICY / "topic-policy.json", "--cluster-state", props,
                  POLICY / "requests.jsonl"])
    assert "this looks like a Kafka broker configuration (server.properties), expected a cluster state" in err


def test_json_with_a_mistake_keeps_its_located_error():
    with pytest.raises(InputError) as exc:
        loads('{"a": 1,,}', "f.json")
    assert (exc.value.line, exc.value.col) == (1, 9) and "invalid JSON" in exc.value.reason
    with pytest.raises(InputError) as exc:
        list(json_lines('{"a": 1}\n{"a": ,}\n', "f.jsonl"))
    assert exc.value.line == 2 and "invalid JSON" in exc.value.reason


def test_only_the_first_line_is_sniffed_in_json_lines():
    # a valid first line makes the file JSON lines: a later log line is a located JSON error
    with pytest.raises(InputError) as exc:
        list(json_lines('{"a": 1}\n[2024-01-01 00:00:00,000] INFO hello (kafka.authorizer.logger)\n', "f"))
    assert exc.value.line == 2


def test_a_toml_policy_with_a_mistake_keeps_the_toml_error(tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text('version = 1\ndefault = "deny"\n[[rules]\nname = "x"\n')
    err = _error(["policy", "check", "--policy", policy, "--cluster-state", POLICY / "cluster-state.json",
                  POLICY / "requests.jsonl"])
    assert "invalid TOML" in err
