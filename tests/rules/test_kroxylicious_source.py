"""Kroxylicious configurations as ACL sources (issue 25): the rules an Authorization filter applies,
found as the proxy and its operator find them (real files from the Kroxylicious repository and docs,
tests/realworld/rules/, sources in cases.toml), compiled, positions in the YAML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.services.acl_sources import load_acl_set

REAL = Path(__file__).parents[1] / "realworld" / "rules"
OPERATOR = REAL / "operator-authorization"
RULES = """from io.kroxylicious.filter.authorization import TopicResource as Topic;
allow User with name = "alice" to READ Topic with name = "orders";
otherwise deny;
"""
runner = CliRunner()


def _indented(text: str, by: str = "    ") -> str:
    return "".join(by + line for line in text.splitlines(True))


def test_the_operator_example_reads_to_what_its_configmap_compiles_to():
    via_filter = load_acl_set(OPERATOR, "kroxylicious")
    configmap = load_acl_set(OPERATOR / "02.ConfigMap.acl-rules.yaml")
    assert via_filter.bindings == configmap.bindings and len(via_filter.bindings) == 24
    # 02.ConfigMap.acl-rules.yaml: the block scalar starts at line 15; its rules are on lines 16-18
    lines = {o.split(" ", 1)[0].rsplit(":", 1)[1] for o in via_filter.origins}
    assert lines == {"16", "17", "18"}
    assert all("(rules of KafkaProtocolFilter authorization, ConfigMap acl-rules, key acl-rules)" in o
               for o in via_filter.origins)


def test_a_directory_holding_kafkausers_and_a_filter_asks_which():
    with pytest.raises(InputError, match="say which to read with --acls-format strimzi or --acls-format kroxylicious"):
        load_acl_set(OPERATOR)


def test_the_filter_alone_says_its_configmap_is_missing_at_its_aclfile_line():
    with pytest.raises(InputError) as exc:
        load_acl_set(OPERATOR / "03.Filter.authorization.yaml")
    assert (exc.value.line, exc.value.col) == (18, 15)
    assert "ConfigMap acl-rules, key acl-rules, which this input does not hold" in exc.value.reason


def test_the_docs_configmap_alone_is_its_rules_file():
    acl_set = load_acl_set(REAL / "docs" / "configmap-acl-rules.yaml")
    assert acl_set.format == "kroxylicious" and acl_set.bindings


def test_a_proxy_config_whose_aclfile_is_missing_is_one_located_error():
    result = runner.invoke(app, ["convert", str(REAL / "docs" / "proxy-config-filterDefinitions.yaml"), "--to",
                                 "json"])
    assert result.exit_code == 2
    said = " ".join(result.stderr.split())
    assert "proxy-config-filterDefinitions.yaml:7:17: filter my-authorization: aclFile '/path/to/to/acl-rules.txt' " \
           "does not exist" in said


def test_a_proxy_config_reads_its_aclfile_and_origins_name_the_rules_lines(tmp_path, monkeypatch):
    (tmp_path / "acl-rules.txt").write_text(RULES)
    config = tmp_path / "proxy.yaml"
    config.write_text("filterDefinitions:\n- name: authz\n  type: Authorization\n  config:\n"
                      "    authorizer: AclAuthorizerService\n    authorizerConfig:\n      aclFile: acl-rules.txt\n")
    monkeypatch.chdir(tmp_path)
    acl_set = load_acl_set(config)
    assert ("READ", "orders") in {(b.operation.name, b.resource_name) for b in acl_set.bindings}
    assert acl_set.origins[0].startswith(f"{tmp_path / 'acl-rules.txt'}:2 (rules of filter authz at {config}:7)")


def _two_filters(tmp_path) -> Path:
    config = tmp_path / "proxy.yaml"
    (tmp_path / "a.txt").write_text(RULES)
    (tmp_path / "b.txt").write_text(RULES.replace("alice", "bob"))
    config.write_text("filterDefinitions:\n"
                      f"- name: one\n  type: Authorization\n  config:\n    authorizer: AclAuthorizerService\n"
                      f"    authorizerConfig:\n      aclFile: {tmp_path / 'a.txt'}\n"
                      f"- name: two\n  type: Authorization\n  config:\n    authorizer: AclAuthorizerService\n"
                      f"    authorizerConfig:\n      aclFile: {tmp_path / 'b.txt'}\n")
    return config


def test_several_filters_need_option_filter(tmp_path):
    config = _two_filters(tmp_path)
    with pytest.raises(InputError, match=r"2 Authorization filters \(one, two\): say which .* --option filter=NAME"):
        load_acl_set(config)
    [b] = {b.principal for b in load_acl_set(config, options={"filter": "two"}).bindings}
    assert b == "User:bob"
    result = runner.invoke(app, ["convert", str(config), "--option", "filter=three", "--to", "json"])
    assert result.exit_code == 2 and "no Authorization filter of that name here (there are: one, two)" in \
        " ".join(result.stderr.split())


def test_a_configmap_with_two_rules_values_needs_option_key(tmp_path):
    cm = tmp_path / "cm.yaml"
    cm.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rules\ndata:\n"
                  f"  a: |\n{_indented(RULES)}  b: |\n{_indented(RULES.replace('alice', 'bob'))}")
    with pytest.raises(InputError, match="2 values hold rules .* --option key=KEY"):
        load_acl_set(cm)
    assert {b.principal for b in load_acl_set(cm, "kroxylicious", {"key": "b"}).bindings} == {"User:bob"}


def test_an_error_in_embedded_rules_is_placed_in_the_yaml(tmp_path):
    cm = tmp_path / "cm.yaml"
    bad = RULES.replace('to READ Topic', 'to READ Topik')
    cm.write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rules\ndata:\n  acl-rules: |\n{_indented(bad)}")
    result = runner.invoke(app, ["convert", str(cm), "--acls-format", "kroxylicious", "--to", "json"])
    assert result.exit_code == 2
    said = " ".join(result.stderr.split())
    # rules line 2 is YAML line 8; the YAML indents the rules by 4 columns
    assert f"{cm}:8:" in said and "as the proxy reports it" in said and "Topik" in said


def test_simulate_and_diff_name_the_rule_line_in_the_yaml(tmp_path):
    cm = tmp_path / "cm.yaml"
    cm.write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rules\ndata:\n  acl-rules: |\n{_indented(RULES)}")
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    doc = json.loads(runner.invoke(app, ["diff", str(empty), str(cm), "--format", "json"]).stdout)
    assert {b["origin"] for b in doc["bindings"]["added"]} == {f"{cm}:8 (rules of ConfigMap rules, key acl-rules)"}


def test_a_yaml_that_is_no_kroxylicious_configuration_is_refused_as_what_it_is(tmp_path):
    result = runner.invoke(app, ["convert", str(REAL / "configs" / "example-proxy-config.yaml"), "--to", "json"])
    assert result.exit_code == 2 and "looks like a Kroxylicious proxy configuration" in " ".join(result.stderr.split())


def test_option_key_that_the_filter_does_not_name_is_an_error_not_ignored():
    """The filter's aclFile names ConfigMap acl-rules, key acl-rules: --option key=other asks for rules
    the proxy never reads, and was silently dropped; the same key is accepted."""
    with pytest.raises(InputError) as exc:
        load_acl_set(OPERATOR, "kroxylicious", {"key": "other"})
    assert "--option key=other: filter authorization's aclFile names key acl-rules" in exc.value.reason \
        or "--option key=other: KafkaProtocolFilter authorization's aclFile names key acl-rules" in exc.value.reason
    assert (exc.value.line, exc.value.col) == (18, 15)
    assert load_acl_set(OPERATOR, "kroxylicious", {"key": "acl-rules"}).bindings == \
        load_acl_set(OPERATOR, "kroxylicious").bindings
