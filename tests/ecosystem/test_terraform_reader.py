"""Terraform kafka_acl / confluent_kafka_acl resources read as the providers create them: exact strings,
defaults, what a file states (variables, locals, count), located refusals, state JSON, and the EA5xx
findings (each example produces its code and only it)."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclBinding, ecosystem_format_of
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem.terraform.reader import FINDINGS, read, read_many, sniff
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import what_is


def acl(rtype, name, principal, op, perm="ALLOW", pattern="LITERAL", host="*"):
    return AclBinding.of(rtype, name, pattern, principal, host, op, perm)


def kafka_acl(label="a", **values):
    attrs = {"resource_name": '"orders"', "resource_type": '"Topic"', "acl_principal": '"User:alice"',
             "acl_host": '"*"', "acl_operation": '"Read"', "acl_permission_type": '"Allow"'}
    attrs.update(values)
    body = "".join(f"  {k} = {v}\n" for k, v in attrs.items() if v is not None)
    return f'resource "kafka_acl" "{label}" {{\n{body}}}\n'


def codes(warnings):
    return sorted({c for w in warnings for c in re.findall(r"\bEA5\d\d\b", w)})


def test_a_kafka_acl_is_one_binding_with_the_literal_default_and_its_origin():
    got = read(kafka_acl(), "acls.tf")
    assert got.bindings == [acl("TOPIC", "orders", "User:alice", "READ")]
    assert got.origins == ["acls.tf:1 (kafka_acl.a)"] and got.format == "terraform"


def test_every_provider_spelling_maps_exactly():
    text = kafka_acl("p", resource_type='"TransactionalID"', resource_pattern_type_filter='"Prefixed"',
                     acl_operation='"IdempotentWrite"', acl_permission_type='"Deny"', acl_host='"10.0.0.1"')
    text += kafka_acl("c", resource_type='"Cluster"', resource_name='"kafka-cluster"', acl_operation='"ClusterAction"')
    text += kafka_acl("d", resource_type='"DelegationToken"', acl_operation='"DescribeConfigs"')
    assert read(text, "x.tf").bindings == [
        acl("TRANSACTIONAL_ID", "orders", "User:alice", "IDEMPOTENT_WRITE", "DENY", "PREFIXED", "10.0.0.1"),
        acl("CLUSTER", "kafka-cluster", "User:alice", "CLUSTER_ACTION"),
        acl("DELEGATION_TOKEN", "orders", "User:alice", "DESCRIBE_CONFIGS")]


def test_confluent_kafka_acl_takes_kafka_spellings_and_ignores_where_it_goes():
    text = """resource "confluent_kafka_acl" "x" {
  kafka_cluster {
    id = confluent_kafka_cluster.basic.id
  }
  resource_type = "TRANSACTIONAL_ID"
  resource_name = "tx-"
  pattern_type  = "PREFIXED"
  principal     = "User:sa-1"
  host          = "*"
  operation     = "DESCRIBE_CONFIGS"
  permission    = "DENY"
  rest_endpoint = confluent_kafka_cluster.basic.rest_endpoint
}
"""
    got = read(text, "c.tf")
    assert got.bindings == [acl("TRANSACTIONAL_ID", "tx-", "User:sa-1", "DESCRIBE_CONFIGS", "DENY", "PREFIXED")]
    assert got.origins == ["c.tf:1 (confluent_kafka_acl.x)"]


@pytest.mark.parametrize("values, message, line", [
    ({"acl_operation": '"WRITE"'}, "acl_operation 'WRITE' is not one of .*exactly 'Write'", 6),
    ({"resource_type": '"*"'}, "resource_type '\\*' is not one of", 3),
    ({"acl_permission_type": '"Any"'}, "the broker refuses it", 7),
    ({"resource_pattern_type_filter": '"Match"'}, "the broker refuses it", 8),
    ({"acl_host": None}, "kafka_acl needs acl_host", 1),
])
def test_values_the_provider_or_the_broker_refuse_are_one_located_error(values, message, line):
    with pytest.raises(InputError, match=message) as e:
        read(kafka_acl(**values), "x.tf")
    assert e.value.path == "x.tf" and e.value.line == line


def test_confluent_pattern_type_is_required_and_case_matters():
    text = kafka_acl().replace("kafka_acl", "confluent_kafka_acl")
    with pytest.raises(InputError, match="needs principal"):
        read(text, "c.tf")
    text = ('resource "confluent_kafka_acl" "x" {\n resource_type = "Topic"\n resource_name = "t"\n'
            ' pattern_type = "LITERAL"\n principal = "User:a"\n host = "*"\n operation = "READ"\n permission = "ALLOW"\n}\n')
    with pytest.raises(InputError, match="exactly 'TOPIC'"):
        read(text, "c.tf")


def test_variables_locals_templates_and_count_on_a_literal_condition_are_evaluated():
    text = """variable "team" {
  default = "payments"
}
variable "restore" {
  default = false
}
locals {
  principal = "User:${var.team}-app"
}
""" + kafka_acl("a", acl_principal="local.principal", resource_name='"${var.team}.$${raw}"') + \
        kafka_acl("b", count="var.restore ? 1 : 0") + kafka_acl("c", count="2", acl_operation='"Write"')
    got = read(text, "x.tf")
    assert got.bindings == [acl("TOPIC", "payments.${raw}", "User:payments-app", "READ"),
                            acl("TOPIC", "orders", "User:alice", "WRITE")]
    assert any("count is 0" in w for w in got.warnings)
    assert any("defaults of variable(s) team" in w for w in got.warnings)


def test_for_each_and_count_make_one_binding_per_instance():
    text = """variable "apps" {
  default = {
    billing = { topic = "invoices", op = "Write" }
    orders  = { topic = "orders", op = "Read" }
  }
}
""" + kafka_acl("a", for_each="var.apps", acl_principal='"User:${each.key}"', resource_name="each.value.topic",
                 acl_operation="each.value.op") + \
        kafka_acl("b", for_each='toset(["z", "y", "z"])', acl_principal='"User:${each.value}"') + \
        kafka_acl("c", count="2", resource_name='"t-${count.index}"')
    got = read(text, "x.tf")
    assert [(str(b.principal), b.resource_name, b.operation.name) for b in got.bindings] == [
        ("User:billing", "invoices", "WRITE"), ("User:orders", "orders", "READ"), ("User:y", "orders", "READ"),
        ("User:z", "orders", "READ"), ("User:alice", "t-0", "READ"), ("User:alice", "t-1", "READ")]
    assert got.origins[0] == 'x.tf:7 (kafka_acl.a["billing"])' and got.origins[-1] == "x.tf:25 (kafka_acl.c[1])"


def test_an_expression_authz_cannot_evaluate_is_an_error_naming_the_attribute_or_skipped_with_ea505():
    text = kafka_acl("ok") + kafka_acl("x", acl_principal='"User:${confluent_service_account.app.id}"')
    with pytest.raises(InputError) as e:
        read(text, "x.tf")
    assert e.value.line == 12 and "kafka_acl.x: acl_principal = " in str(e.value)
    assert "--option unevaluated=skip" in str(e.value)
    got = read(text, "x.tf", {"unevaluated": "skip"})
    assert got.bindings == [acl("TOPIC", "orders", "User:alice", "READ")]
    assert codes(got.warnings) == ["EA504"]
    with pytest.raises(InputError, match="for_each = random_password.p: a reference authz does not evaluate"):
        read(kafka_acl(for_each="random_password.p"), "x.tf")
    with pytest.raises(InputError, match="for_each must be a map or a set of strings") as e:
        read(kafka_acl(for_each='["a"]'), "x.tf")
    assert e.value.line == 8


def test_a_resource_defined_twice_is_refused_as_terraform_does():
    with pytest.raises(InputError, match="kafka_acl.a is defined again") as e:
        read_many([(kafka_acl("a"), "a.tf"), (kafka_acl("a"), "b.tf")], "dir")
    assert e.value.path == "b.tf" and e.value.line == 1


def test_a_syntax_error_is_one_located_line():
    with pytest.raises(InputError, match="not valid HCL") as e:
        read('resource "kafka_acl" "a" {\n  acl_host = "*"\n  = 3\n}\n', "bad.tf")
    assert e.value.line == 3


@pytest.mark.parametrize("finding", FINDINGS, ids=[f.code for f in FINDINGS])
def test_every_finding_example_produces_its_code_and_only_it(finding):
    options = {"unevaluated": "skip"} if finding.code == "EA504" else {}
    got = read(finding.example, "example.tf", options)
    assert codes(got.warnings) == [finding.code], got.warnings
    line = next(w for w in got.warnings if finding.code in w)
    assert re.search(rf"example\.tf:\d+: {finding.code} ", line)


def test_findings_are_counted_per_kind_with_the_first_places():
    text = "".join(kafka_acl(f"a{i}", resource_name=f'"t{i}-*"') for i in range(8))
    lines = [w for w in read(text, "x.tf").warnings if "EA501" in w]
    assert len(lines) == 1 and lines[0].startswith("8 EA501 ") and "and 5 more" in lines[0]


SHOW = {"format_version": "1.0", "terraform_version": "1.9.0", "values": {"root_module": {
    "resources": [
        {"address": "kafka_acl.a", "mode": "managed", "type": "kafka_acl", "name": "a",
         "provider_name": "registry.terraform.io/mongey/kafka", "schema_version": 1,
         "values": {"acl_host": "*", "acl_operation": "Read", "acl_permission_type": "Allow",
                    "acl_principal": "User:alice", "id": "User:alice|*|Read|Allow|Topic|orders|Literal",
                    "resource_name": "orders", "resource_pattern_type_filter": "Literal", "resource_type": "Topic"}},
        {"address": "kafka_topic.t", "mode": "managed", "type": "kafka_topic", "name": "t", "values": {"name": "t"}}],
    "child_modules": [{"address": "module.m", "resources": [
        {"address": "module.m.confluent_kafka_acl.b[0]", "mode": "managed", "type": "confluent_kafka_acl",
         "name": "b", "index": 0, "values": {
             "kafka_cluster": [{"id": "lkc-1"}], "resource_type": "GROUP", "resource_name": "g",
             "pattern_type": "PREFIXED", "principal": "User:sa-1", "host": "*", "operation": "READ",
             "permission": "ALLOW"}}]}]}}}


def test_terraform_show_json_with_child_modules():
    text = json.dumps(SHOW, indent=2)
    assert sniff(text) and ecosystem_format_of(text).name == "terraform"
    assert what_is(text).key == "terraform-state"
    got = read(text, "show.json")
    assert got.bindings == [acl("TOPIC", "orders", "User:alice", "READ"),
                            acl("GROUP", "g", "User:sa-1", "READ", pattern="PREFIXED")]
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if '"module.m.confluent_kafka_acl.b[0]"' in ln)
    assert got.origins[1] == f"show.json:{line} (module.m.confluent_kafka_acl.b[0], cluster lkc-1)"


def test_a_saved_plan_reads_its_planned_values_and_names_what_is_known_only_after_apply():
    values = dict(SHOW["values"]["root_module"]["resources"][0]["values"])
    plan = {"format_version": "1.2", "planned_values": {"root_module": {"resources": [
        {"address": "kafka_acl.a", "mode": "managed", "type": "kafka_acl", "name": "a", "values": values}]}}}
    assert read(json.dumps(plan), "plan.json").bindings == [acl("TOPIC", "orders", "User:alice", "READ")]
    del values["acl_principal"]
    with pytest.raises(InputError, match="needs acl_principal .*known only after apply"):
        read(json.dumps(plan), "plan.json")


def test_confluent_integer_ids_of_older_states_are_warned():
    values = dict(SHOW["values"]["root_module"]["child_modules"][0]["resources"][0]["values"], principal="User:12345")
    doc = {"format_version": "1.0", "values": {"root_module": {"resources": [
        {"address": "confluent_kafka_acl.x", "mode": "managed", "type": "confluent_kafka_acl", "values": values}]}}}
    got = read(json.dumps(doc), "show.json")
    assert got.bindings[0].principal == "User:12345"
    assert any("integer id" in w for w in got.warnings)


def test_tfstate_v4():
    state = {"version": 4, "terraform_version": "1.9.0", "serial": 3, "lineage": "x", "outputs": {}, "resources": [
        {"mode": "managed", "type": "kafka_acl", "name": "a", "provider": "provider[\"registry.terraform.io/mongey/kafka\"]",
         "instances": [{"index_key": "k", "schema_version": 1, "attributes": SHOW["values"]["root_module"]["resources"][0]["values"]}]}]}
    got = read(json.dumps(state, indent=1), "terraform.tfstate")
    assert got.bindings == [acl("TOPIC", "orders", "User:alice", "READ")]
    assert got.origins[0].endswith('(kafka_acl.a["k"])')
    with pytest.raises(InputError, match="version 3"):
        read(json.dumps({**state, "version": 3}), "old.tfstate")


def test_a_directory_is_one_module_variables_shared(tmp_path):
    (tmp_path / "variables.tf").write_text('variable "who" {\n  default = "User:bob"\n}\n')
    (tmp_path / "acls.tf").write_text(kafka_acl(acl_principal="var.who"))
    (tmp_path / "README.md").write_text("# nothing\n")
    result = CliRunner().invoke(app, ["convert", str(tmp_path), "--to", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["acls"][0]["principal"] == "User:bob"
    assert "defaults of variable(s) who" in result.stderr and "also loads" not in result.stderr
    (tmp_path / "terraform.tfvars").write_text('who = "User:carol"\n')
    result = CliRunner().invoke(app, ["convert", str(tmp_path), "--to", "json"])
    assert "Terraform also loads" in result.stderr and "terraform.tfvars" in result.stderr


def test_read_many_keeps_one_binding_for_two_resources_of_one_acl():
    got = read_many([(kafka_acl("a"), "a.tf"), (kafka_acl("b"), "b.tf")], "dir")
    assert len(got.bindings) == 1 and got.origins == ["a.tf:1 (kafka_acl.a)"]


def test_cli_reads_terraform_with_acls_format_and_says_what_another_file_is(tmp_path):
    f = tmp_path / "x.tf"
    f.write_text(kafka_acl())
    runner = CliRunner()
    ok = runner.invoke(app, ["convert", str(f), "--to", "kafka-acls", "--acls-format", "terraform"])
    assert ok.exit_code == 0 and "User:alice" in ok.stdout
    other = tmp_path / "users.yaml"
    other.write_text("users:\n  alice:\n    topics:\n      t:\n        - Read\n")
    bad = runner.invoke(app, ["convert", str(other), "--to", "json", "--acls-format", "terraform"])
    assert bad.exit_code == 2 and "looks like a Kafka Security Manager YAML file" in bad.stderr
    opt = runner.invoke(app, ["convert", str(f), "--to", "json", "--option", "unevaluated=maybe"])
    assert opt.exit_code == 2 and "expected error or skip" in opt.stderr
