"""Bindings written as KafkaUsers: exact round trips for everything a KafkaUser can hold, refusal
(or, with --lossy, a list) for everything else, and never a binding wider than the one given."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.acl import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
    diff,
)
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem import NotExpressible
from kafka_authz_cli.ecosystem.strimzi.reader import OPERATIONS, read
from kafka_authz_cli.ecosystem.strimzi.writer import write
from tests.ecosystem.roundtrip import NO_ACLS

k8s_label = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?", fullmatch=True)
k8s_names = st.lists(k8s_label, min_size=1, max_size=3).map(".".join)
principals = st.one_of(k8s_names.map(lambda n: f"User:{n}"),
                       k8s_names.filter(lambda n: len(n) <= 64).map(lambda n: f"User:CN={n}"))
texts = st.text(min_size=1, max_size=12)
resources = st.one_of(
    st.tuples(st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID]), texts,
              st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED])),
    st.just((ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL)))
expressible = st.builds(lambda r, p, h, o, perm: AclBinding(r[0], r[1], r[2], p, h, o, perm), resources, principals,
                        st.one_of(st.just("*"), texts), st.sampled_from(list(OPERATIONS.values())),
                        st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))
anything = st.builds(AclBinding, st.sampled_from(ResourceType.concrete()), texts,
                     st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
                     st.one_of(principals, st.just("User:*"), texts.map(lambda t: "Group:" + t),
                               texts.map(lambda t: "User:" + t)),
                     st.one_of(st.just("*"), texts), st.sampled_from(AclOperation.concrete()),
                     st.sampled_from(AclPermissionType.concrete()))


@given(st.lists(expressible, max_size=25), st.sampled_from(["v1", "v1beta2"]))
def test_everything_a_kafka_user_can_hold_round_trips_exactly(bindings, api_version):
    # one KafkaUser per name: User:x and User:CN=x cannot both be written (one name, one resource)
    names = {p.removeprefix("User:").removeprefix("CN="): p for p in (x.principal for x in bindings)}
    assume(len(names) == len({x.principal for x in bindings}))
    written = write(bindings, api_version=api_version)
    assert written.lost == []
    again = read(written.text, "w.yaml").bindings
    assert not read(written.text, "w.yaml").warnings or not bindings
    assert set(again) == set(bindings) and len(again) == len(set(bindings))
    result = diff(bindings, again, NO_ACLS, NO_ACLS)
    assert result.verdict == "equivalent"


@given(st.lists(anything, max_size=25))
def test_lossy_writes_exactly_what_it_can_and_lists_the_rest_never_widening(bindings):
    written = write(bindings, lossy=True)
    again = read(written.text, "w.yaml").bindings
    lost = {x.binding for x in written.lost}
    assert set(again) == set(bindings) - lost
    assert set(again) <= set(bindings)  # nothing written that was not given
    if lost:
        with pytest.raises(NotExpressible):
            write(bindings)


def b(principal="User:app", rtype=ResourceType.TOPIC, name="t", op=AclOperation.READ, pattern=PatternType.LITERAL):
    return AclBinding(rtype, name, pattern, principal, "*", op, AclPermissionType.ALLOW)


@pytest.mark.parametrize("binding,reason", [
    (b("Group:ops"), "always for a User principal"),
    (b("User:*"), "User:* (every user)"),
    (b("User:Alice_1"), "not a Kubernetes object name"),
    (b("User:CN=a,O=b"), "not a Kubernetes object name"),
    (b(rtype=ResourceType.DELEGATION_TOKEN), "no DELEGATION_TOKEN resources"),
    (b(rtype=ResourceType.USER), "no USER resources"),
    (b(rtype=ResourceType.CLUSTER, name="other"), "always LITERAL kafka-cluster"),
    (b(op=AclOperation.CREATE_TOKENS), "no CREATE_TOKENS operation"),
])
def test_what_a_kafka_user_cannot_hold_is_refused_by_name(binding, reason):
    with pytest.raises(NotExpressible) as info:
        write([b(), binding])
    assert "cannot express 1 binding(s)" in str(info.value) and reason in str(info.value)


def test_the_authentication_option_decides_the_principal_form():
    assert "type: tls-external" in write([b("User:CN=app")], authentication="tls-external").text
    with pytest.raises(NotExpressible, match="principal is User:CN=<name>"):
        write([b("User:app")], authentication="tls")
    with pytest.raises(NotExpressible, match=r"not a Kubernetes object name"):
        write([b("User:CN=app")], authentication="scram-sha-512")
    # without the option: User:CN=x is tls, User:x scram-sha-512; one name cannot be both
    with pytest.raises(NotExpressible, match="cannot hold both principals"):
        write([b("User:CN=app"), b("User:app")])


def test_cluster_label_and_api_version():
    text = write([b()], cluster="prod").text
    assert "strimzi.io/cluster: prod" in text and "apiVersion: kafka.strimzi.io/v1\n" in text
    old = write([b(), b(op=AclOperation.WRITE)], api_version="v1beta2").text
    # Strimzi 0.22-0.31 have no `operations`: one rule per `operation` reads on every v1beta2 release
    assert "apiVersion: kafka.strimzi.io/v1beta2\n" in old and old.count("operation: ") == 2
    assert "operations" not in old


def test_convert_refuses_then_lossy_writes_and_says_what_was_lost(tmp_path):
    src = tmp_path / "acls.csv"
    src.write_text("KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n"
                   "User:CN=app,Topic,LITERAL,t,Read,Allow,*\nGroup:ops,Topic,LITERAL,t,Read,Allow,*\n")
    runner = CliRunner()
    refused = runner.invoke(app, ["convert", str(src), "--to", "strimzi"])
    assert refused.exit_code == 2 and "cannot express 1 binding(s)" in refused.stderr and "Group:ops" in refused.stderr
    lossy = runner.invoke(app, ["convert", str(src), "--to", "strimzi", "--lossy", "--strimzi-cluster", "prod"])
    assert lossy.exit_code == 0, lossy.output
    assert "name: app" in lossy.stdout and "strimzi.io/cluster: prod" in lossy.stdout
    assert "1 binding(s) left out of the strimzi output (it cannot express them): ALLOW Group:ops READ " \
           "TOPIC:LITERAL:t" in " ".join(lossy.stderr.split())


def test_lossy_names_the_first_lost_bindings_and_counts_the_rest(tmp_path):
    src = tmp_path / "acls.csv"
    src.write_text("KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n"
                   + "".join(f"Group:ops,Topic,LITERAL,t{i},Read,Allow,*\n" for i in range(5000)))
    lossy = CliRunner().invoke(app, ["convert", str(src), "--to", "strimzi", "--lossy"])
    assert lossy.exit_code == 0, lossy.output
    said = " ".join(lossy.stderr.split())
    assert "5,000 binding(s) left out" in said and "TOPIC:LITERAL:t19 " in said and "t20 " not in said
    assert "and 4,980 more" in said and len(lossy.stderr) < 5000


def test_strimzi_options_need_to_strimzi(tmp_path):
    src = tmp_path / "acls.csv"
    src.write_text("KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n")
    result = CliRunner().invoke(app, ["convert", str(src), "--to", "json", "--strimzi-cluster", "x"])
    assert result.exit_code == 2 and "only with --to strimzi" in result.stderr
