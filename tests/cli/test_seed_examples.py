"""The bundled examples of principal mapping, KIP-226, KIP-458 and KIP-201 say what the README says."""

import json
from pathlib import Path

from tests.cli_runner import run

EX = Path(__file__).parents[2] / "examples"


def test_principal_example():
    res = run("principal", "tls", "--broker-config", EX / "principal" / "server.properties", "--names",
              EX / "principal" / "client-dns.txt", "--check", "-f", "json")
    codes = {f["code"] for f in json.loads(res.stdout)["findings"]}
    assert {"PM003", "PM006", "PM009"} <= codes and res.exit_code == 1
    res = run("principal", "tls", "--broker-config", EX / "principal" / "server.properties", "--listener", "external",
              "-f", "json", "CN=acme-edi,OU=Partners,O=Globex", "CN=orders-svc,OU=ServiceUsers,O=Acme,C=US")
    assert [r["principal"] for r in json.loads(res.stdout)] == ["User:partner-acme-edi", None]


def test_config_example():
    res = run("config", "resolve", "--broker-config", EX / "config" / "server.properties", "--dynamic",
              EX / "config" / "dynamic.json", "-f", "json")
    doc = json.loads(res.stdout)
    by = {c["key"]: c for c in doc["configs"]}
    assert by["log.retention.ms"]["value"] == "259200000" and by["num.io.threads"]["value"] == "16"
    assert by["listener.name.external.ssl.keystore.location"]["value"] == "/etc/kafka/external-2026.jks"
    assert len(doc["ignored"]) == 2 and res.exit_code == 1


def test_connect_example():
    res = run("connect", "check-overrides", EX / "connect" / "orders-sink.json", "--worker",
              EX / "connect" / "worker.properties", "--acls", EX / "connect" / "acls.json", "-f", "json")
    doc = json.loads(res.stdout)
    assert doc["policy"] == "Principal" and doc["error_count"] == 1
    assert [a["decision"] for a in doc["needed_acls"]] == ["ALLOWED", "ALLOWED", "ALLOWED", "DENIED", "ALLOWED"]
    assert "not-a-real-password" not in res.stdout


def test_policy_example_expectations_all_hold():
    res = run("policy", "check", EX / "policy" / "requests.jsonl", "--policy", EX / "policy" / "topic-policy.json",
              "--cluster-state", EX / "policy" / "cluster-state.json", "--acls", EX / "policy" / "acls.json",
              "--super-users", "User:admin", "-f", "json")
    assert res.exit_code == 0, res.output
    assert all(r["ok"] for r in json.loads(res.stdout))
