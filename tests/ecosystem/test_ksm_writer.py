"""Bindings written as KSM YAML: exact round trips for everything it can hold, refusal (or, with --lossy,
a list) for everything else, and never a binding wider than the one given."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem import NotExpressible
from kafka_authz_cli.ecosystem.ksm.reader import OPERATIONS, SECTIONS, read
from kafka_authz_cli.ecosystem.ksm.writer import why_not, write
from tests.ecosystem.roundtrip import assert_lossy_keeps_what_it_can, assert_round_trips

texts = st.text(min_size=1, max_size=12)
names = texts.filter(lambda t: t == t.strip())
resources = st.one_of(
    st.tuples(st.sampled_from(list(SECTIONS.values())), names.filter(lambda n: n == "*" or not n.endswith("*")),
              st.just(PatternType.LITERAL)),
    st.tuples(st.sampled_from(list(SECTIONS.values())), names, st.just(PatternType.PREFIXED)))
expressible = st.builds(lambda r, p, h, o, perm: AclBinding(r[0], r[1], r[2], p, h, o, perm), resources,
                        st.one_of(st.just("User:*"), st.text(max_size=10).map(lambda t: "User:" + t)),
                        st.one_of(st.just("*"), texts.filter(lambda h: "," not in h)),
                        st.sampled_from(list(OPERATIONS.values())),
                        st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))
anything = st.builds(AclBinding, st.sampled_from(ResourceType.concrete()), st.text(max_size=8),
                     st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
                     st.one_of(st.text(max_size=8).map(lambda t: "User:" + t), texts.map(lambda t: "Group:" + t)),
                     st.one_of(st.just("*"), st.text(max_size=6)), st.sampled_from(AclOperation.concrete()),
                     st.sampled_from(AclPermissionType.concrete()))


@given(st.lists(expressible, max_size=25))
def test_everything_ksm_yaml_can_hold_round_trips_exactly(bindings):
    assert_round_trips(bindings, write(bindings).text, read, "w.yml")


@given(st.lists(anything, max_size=15))
def test_lossy_writing_never_widens_and_lists_exactly_what_it_left_out(bindings):
    assert_lossy_keeps_what_it_can(bindings, write(bindings, lossy=True), read, "w.yml", lambda b: why_not(b) is None)


@pytest.mark.parametrize("binding, reason", [
    (AclBinding(ResourceType.TOPIC, "t", PatternType.LITERAL, "Group:g", "*", AclOperation.READ,
                AclPermissionType.ALLOW), "always User:"),
    (AclBinding(ResourceType.TOPIC, "t*", PatternType.LITERAL, "User:a", "*", AclOperation.READ,
                AclPermissionType.ALLOW), "reads back PREFIXED"),
    (AclBinding(ResourceType.TOPIC, "", PatternType.PREFIXED, "User:a", "*", AclOperation.READ,
                AclPermissionType.ALLOW), "LITERAL wildcard"),
    (AclBinding(ResourceType.DELEGATION_TOKEN, "t", PatternType.LITERAL, "User:a", "*", AclOperation.DESCRIBE,
                AclPermissionType.ALLOW), "no DELEGATION_TOKEN section"),
    (AclBinding(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:a", "1.2.3.4,5", AclOperation.READ,
                AclPermissionType.ALLOW), "splits entries on ','"),
    (AclBinding(ResourceType.TOPIC, " t", PatternType.LITERAL, "User:a", "*", AclOperation.READ,
                AclPermissionType.ALLOW), "trims"),
])
def test_what_cannot_be_expressed_is_refused_with_its_reason(binding, reason):
    with pytest.raises(NotExpressible, match=reason):
        write([binding])


def test_convert_refuses_then_with_lossy_writes_the_rest_and_says_what_was_lost(tmp_path):
    src = tmp_path / "acls.csv"
    src.write_text("KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n"
                   "User:alice,Topic,LITERAL,foo,Read,Allow,*\nGroup:ops,Topic,LITERAL,foo,Read,Allow,*\n")
    runner = CliRunner()
    refused = runner.invoke(app, ["convert", str(src), "--to", "ksm-yaml"])
    assert refused.exit_code == 2 and "KSM YAML cannot express 1 binding(s)" in refused.stderr
    assert "Group:ops" in refused.stderr
    out = tmp_path / "acls.yml"
    done = runner.invoke(app, ["convert", str(src), "--to", "ksm-yaml", "--lossy", "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert "left out of the ksm-yaml output" in " ".join(done.stderr.split()) and "Group:ops" in done.stderr
    assert [str(b) for b in read(out.read_text(), str(out)).bindings] == \
        [str(AclBinding(ResourceType.TOPIC, "foo", PatternType.LITERAL, "User:alice", "*", AclOperation.READ,
                        AclPermissionType.ALLOW))]
    wrong = runner.invoke(app, ["convert", str(src), "--to", "ksm-yaml", "--strimzi-cluster", "x"])
    assert wrong.exit_code == 2 and "only with --to strimzi" in wrong.stderr


def test_the_helpers_are_never_written(tmp_path):
    text = write([AclBinding(ResourceType.TOPIC, "t", PatternType.LITERAL, "User:a", "*", op,
                             AclPermissionType.ALLOW) for op in (AclOperation.DESCRIBE, AclOperation.READ)]).text
    assert "Consume" not in text and "Describe,Allow,*" in text
