"""Bindings written as Jikkou KafkaPrincipalAuthorizations: exact round trips for every binding Jikkou can
be given (hypothesis), refusal (or, with --lossy, a list) for the rest, never a wider binding; convert,
cluster pull and compile write it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem import NotExpressible
from kafka_authz_cli.ecosystem.jikkou.reader import read
from kafka_authz_cli.ecosystem.jikkou.writer import why_not, write
from tests.ecosystem.roundtrip import assert_lossy_keeps_what_it_can, assert_round_trips

texts = st.text(max_size=12).filter(lambda t: not any(m in t for m in ("{{", "{%", "{#")))
expressible = st.builds(AclBinding, st.sampled_from(ResourceType.concrete()), texts,
                        st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
                        st.one_of(st.just("User:*"), texts.map(lambda t: "User:" + t), texts.map(lambda t: "Group:" + t)),
                        st.one_of(st.just("*"), texts), st.sampled_from(AclOperation.concrete()),
                        st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))
anything = st.builds(AclBinding, st.sampled_from(ResourceType.concrete()), st.text(max_size=6),
                     st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
                     st.one_of(st.text(max_size=6), st.text(max_size=6).map(lambda t: "User:" + t)),
                     st.one_of(st.just("*"), st.text(max_size=6)), st.sampled_from(AclOperation.concrete()),
                     st.sampled_from(AclPermissionType.concrete()))


@given(st.lists(expressible, max_size=25))
def test_everything_jikkou_can_hold_round_trips_exactly(bindings):
    assert_round_trips(bindings, write(bindings).text, read, "w.yaml")


@given(st.lists(anything, max_size=15))
def test_lossy_writing_never_widens_and_lists_exactly_what_it_left_out(bindings):
    assert_lossy_keeps_what_it_can(bindings, write(bindings, lossy=True), read, "w.yaml", lambda b: why_not(b) is None)


@pytest.mark.parametrize("binding, reason", [
    (AclBinding.of("TOPIC", "t", "LITERAL", "alice", "*", "READ", "ALLOW"), "Type:name"),
    (AclBinding.of("TOPIC", "{{ x }}", "LITERAL", "User:a", "*", "READ", "ALLOW"), "Jinja"),
    (AclBinding.of("TOPIC", "t", "LITERAL", "User:{%a", "*", "READ", "ALLOW"), "Jinja"),
    (AclBinding.of("TOPIC", "t", "LITERAL", "User:a", "{#", "READ", "ALLOW"), "Jinja"),
    (AclBinding(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:a", "*", AclOperation.ANY, AclPermissionType.ALLOW),
     "not a value Kafka stores"),
])
def test_what_cannot_be_expressed_is_refused_with_its_reason(binding, reason):
    with pytest.raises(NotExpressible, match=reason):
        write([binding])


def test_one_resource_per_principal_every_field_explicit_no_roles():
    text = write([AclBinding.of("TOPIC", "orders", "LITERAL", "User:alice", "*", op, "ALLOW") for op in ("READ", "DESCRIBE")]
                 + [AclBinding.of("GROUP", "app-", "PREFIXED", "User:alice", "10.0.0.1", "READ", "DENY"),
                    AclBinding.of("CLUSTER", "kafka-cluster", "LITERAL", "User:bob", "*", "IDEMPOTENT_WRITE", "ALLOW")]).text
    assert text.count("kind: KafkaPrincipalAuthorization") == 2 and "roles" not in text
    assert "operations: [READ, DESCRIBE]" in text and "type: DENY" in text
    assert "host: 10.0.0.1" in text or 'host: "10.0.0.1"' in text
    assert text.startswith("---\napiVersion: kafka.jikkou.io/v1\n")


def test_convert_refuses_then_with_lossy_writes_the_rest(tmp_path):
    src = tmp_path / "acls.json"
    src.write_text('{"version": 1, "acls": ['
                   '{"resource_type": "TOPIC", "resource_name": "foo", "pattern_type": "LITERAL", "principal": '
                   '"User:alice", "host": "*", "operation": "READ", "permission": "ALLOW"},'
                   '{"resource_type": "TOPIC", "resource_name": "{{x}}", "pattern_type": "LITERAL", "principal": '
                   '"User:alice", "host": "*", "operation": "READ", "permission": "ALLOW"}]}')
    runner = CliRunner()
    refused = runner.invoke(app, ["convert", str(src), "--to", "jikkou"])
    assert refused.exit_code == 2 and "jikkou cannot express 1 binding(s)" in refused.stderr
    out = tmp_path / "acls.yaml"
    done = runner.invoke(app, ["convert", str(src), "--to", "jikkou", "--lossy", "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert "left out of the jikkou output" in " ".join(done.stderr.split())
    assert [str(b) for b in read(out.read_text(), str(out)).bindings] == \
        [str(AclBinding.of("TOPIC", "foo", "LITERAL", "User:alice", "*", "READ", "ALLOW"))]
