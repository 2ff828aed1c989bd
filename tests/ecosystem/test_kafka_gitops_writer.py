"""Bindings written as a kafka-gitops state file (users + customUserAcls): exact round trips for everything
it can hold, refusal (or, with --lossy, a list) for everything else, never a binding wider than given."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem import NotExpressible
from kafka_authz_cli.ecosystem.kafka_gitops.reader import OPERATIONS, PATTERNS, RESOURCE_TYPES, read
from kafka_authz_cli.ecosystem.kafka_gitops.writer import why_not, write
from tests.ecosystem.roundtrip import assert_lossy_keeps_what_it_can, assert_round_trips

texts = st.text(max_size=12)
expressible = st.builds(AclBinding, st.sampled_from(list(RESOURCE_TYPES.values())), texts,
                        st.sampled_from(list(PATTERNS.values())),
                        st.one_of(st.just("User:*"), texts.map(lambda t: "User:" + t), texts.map(lambda t: "Group:" + t),
                                  texts),
                        st.one_of(st.just("*"), texts), st.sampled_from(list(OPERATIONS.values())),
                        st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))
anything = st.builds(AclBinding, st.sampled_from(ResourceType.concrete()), st.text(max_size=8),
                     st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED, PatternType.MATCH]),
                     st.text(max_size=8).map(lambda t: "User:" + t),
                     st.one_of(st.just("*"), st.text(max_size=6)), st.sampled_from(AclOperation.concrete()),
                     st.sampled_from(AclPermissionType.concrete()))


@given(st.lists(expressible, max_size=25))
def test_everything_kafka_gitops_can_hold_round_trips_exactly(bindings):
    assert_round_trips(bindings, write(bindings).text, read, "w.yaml")


@given(st.lists(anything, max_size=15))
def test_lossy_writing_never_widens_and_lists_exactly_what_it_left_out(bindings):
    assert_lossy_keeps_what_it_can(bindings, write(bindings, lossy=True), read, "w.yaml", lambda b: why_not(b) is None)


@pytest.mark.parametrize("binding, reason", [
    (AclBinding(ResourceType.USER, "u", PatternType.LITERAL, "User:a", "*", AclOperation.DESCRIBE,
                AclPermissionType.ALLOW), "no resource type USER"),
    (AclBinding(ResourceType.USER, "u", PatternType.LITERAL, "User:a", "*", AclOperation.CREATE_TOKENS,
                AclPermissionType.ALLOW), "no resource type USER"),
    (AclBinding(ResourceType.TRANSACTIONAL_ID, "t", PatternType.LITERAL, "User:a", "*", AclOperation.TWO_PHASE_COMMIT,
                AclPermissionType.ALLOW), "no operation TWO_PHASE_COMMIT"),
    (AclBinding(ResourceType.TOPIC, "t", PatternType.MATCH, "User:a", "*", AclOperation.READ,
                AclPermissionType.ALLOW), "pattern type MATCH"),
])
def test_what_cannot_be_expressed_is_refused_with_its_reason(binding, reason):
    with pytest.raises(NotExpressible, match=reason):
        write([binding])


def test_the_written_file_is_users_with_no_roles_and_their_custom_acls():
    text = write([AclBinding.of("TOPIC", "t", "PREFIXED", "User:alice", "*", "READ", "ALLOW"),
                  AclBinding.of("GROUP", "g", "LITERAL", "Group:ops", "10.0.0.1", "READ", "DENY")]).text
    assert "roles: []" in text and "customUserAcls:" in text and "services" not in text
    acl_set = read(text, "w.yaml")
    assert not acl_set.warnings
    assert acl_set.origins[0].startswith("w.yaml:") and "customUserAcls entry" in acl_set.origins[0]


def test_convert_refuses_then_with_lossy_writes_the_rest_and_says_what_was_lost(tmp_path):
    src = tmp_path / "acls.json"
    src.write_text(json.dumps({"version": 1, "acls": [
        {"resource_type": "TOPIC", "resource_name": "foo", "pattern_type": "LITERAL", "principal": "User:alice",
         "host": "*", "operation": "READ", "permission": "ALLOW"},
        {"resource_type": "USER", "resource_name": "bob", "pattern_type": "LITERAL", "principal": "User:alice",
         "host": "*", "operation": "CREATE_TOKENS", "permission": "ALLOW"}]}))
    runner = CliRunner()
    refused = runner.invoke(app, ["convert", str(src), "--to", "kafka-gitops"])
    assert refused.exit_code == 2 and "kafka-gitops cannot express 1 binding(s)" in refused.stderr
    out = tmp_path / "state.yaml"
    done = runner.invoke(app, ["convert", str(src), "--to", "kafka-gitops", "--lossy", "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert "left out of the kafka-gitops output" in " ".join(done.stderr.split()) and "CREATE_TOKENS" in done.stderr
    assert [str(b) for b in read(out.read_text(), str(out)).bindings] == \
        [str(AclBinding.of("TOPIC", "foo", "LITERAL", "User:alice", "*", "READ", "ALLOW"))]
    wrong = runner.invoke(app, ["convert", str(src), "--to", "kafka-gitops", "--strimzi-cluster", "x"])
    assert wrong.exit_code == 2 and "only with --to strimzi" in wrong.stderr
