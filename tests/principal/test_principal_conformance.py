"""Every TLS and Kerberos mapping sample recorded from Kafka's own classes."""

import json
from pathlib import Path

import pytest

from kafka_authz_cli.principal.mapping import KerberosName, KerberosShortNamer, MappingRulesError, SslPrincipalMapper

DATA = Path(__file__).parents[1] / "conformance" / "kafka-security"


def _rows(name):
    with open(DATA / name, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


SSL_ROWS = _rows("ssl_principal_mapper.jsonl")
KRB_ROWS = _rows("kerberos.jsonl")


def _error_dict(exc):
    d = {"class": exc.java_class, "message": exc.message}
    if exc.cause is not None:
        d["causes"] = [{"class": exc.cause.java_class, "message": exc.cause.message}]
    return d


@pytest.mark.parametrize("row", SSL_ROWS, ids=[r["id"] for r in SSL_ROWS])
def test_ssl_principal_mapper(row):
    try:
        mapper = SslPrincipalMapper.from_rules(row["rules"])
    except MappingRulesError as exc:
        assert not row["rules_ok"], exc
        assert exc.java.java_class == row["rules_error"]["class"]
        assert exc.java.message == row["rules_error"]["message"]
        return
    assert row["rules_ok"], row["rules_error"]
    assert str(mapper) == row["mapper_to_string"]
    for res in row["results"]:
        got = mapper.map(res["dn"])
        assert got.ok == res["ok"], (res, got)
        if res["ok"]:
            assert got.name == res["name"]
        else:
            assert _error_dict(got.error) == {k: v for k, v in res["error"].items()}


@pytest.mark.parametrize("row", KRB_ROWS, ids=[r["id"] for r in KRB_ROWS])
def test_kerberos_short_namer(row):
    rules = row.get("rules")
    if "rules_config" in row:
        from kafka_authz_cli.principal.mapping import split_kerberos_rules_config

        assert split_kerberos_rules_config(row["rules_config"]) == row["rules_config_parsed_list"]
        rules = row["rules_config_parsed_list"]
    try:
        namer = KerberosShortNamer.from_rules(row["default_realm"], rules)
    except MappingRulesError as exc:
        assert not row["rules_ok"], exc
        assert exc.java.java_class == row["rules_error"]["class"]
        assert exc.java.message == row["rules_error"]["message"]
        return
    assert row["rules_ok"], row["rules_error"]
    assert str(namer) == row["namer_to_string"]
    for res in row["results"]:
        try:
            name = KerberosName.parse(res["principal"])
        except Exception as exc:  # noqa: BLE001 - compared below
            assert not res["parse_ok"]
            assert exc.message == res["parse_error"]["message"]
            continue
        assert res["parse_ok"]
        assert (name.service_name, name.host_name, name.realm) == (res["service_name"], res["host_name"], res["realm"])
        assert str(name) == res["name_to_string"]
        got = namer.map(res["principal"])
        assert got.ok == res["ok"], (res, got)
        if res["ok"]:
            assert got.name == res["short_name"]
        else:
            assert _error_dict(got.error) == res["error"]
