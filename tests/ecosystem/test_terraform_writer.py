"""Bindings written as Terraform kafka_acl / confluent_kafka_acl resources with import blocks: exact round
trips (decision diff) for everything the providers hold, the providers' import IDs, stable unique labels,
refusal (or with --lossy a list) of the rest, and the options flowing through convert, cluster pull and
compile."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
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
from kafka_authz_cli.ecosystem.terraform.reader import CONFLUENT, MONGEY, read
from kafka_authz_cli.ecosystem.terraform.writer import import_id, why_not, write
from kafka_authz_cli.errors import OptionError
from tests.ecosystem.roundtrip import NO_ACLS

TYPES = [ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER, ResourceType.TRANSACTIONAL_ID,
         ResourceType.DELEGATION_TOKEN]
OPS = [o for o in AclOperation.concrete() if o.name not in ("CREATE_TOKENS", "DESCRIBE_TOKENS", "TWO_PHASE_COMMIT")]
texts = st.text(max_size=10).filter(lambda t: "|" not in t and "${" not in t and "%{" not in t)
expressible = st.builds(AclBinding, st.sampled_from(TYPES), texts,
                        st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
                        st.one_of(st.just("User:*"), texts.map(lambda t: "User:" + t), texts.map(lambda t: "Group:" + t)),
                        st.one_of(st.just("*"), texts), st.sampled_from(OPS),
                        st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))
anything = st.builds(AclBinding, st.sampled_from(ResourceType.concrete()), st.text(max_size=8),
                     st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
                     st.text(max_size=8).map(lambda t: "User:" + t), st.one_of(st.just("*"), st.text(max_size=6)),
                     st.sampled_from(AclOperation.concrete()), st.sampled_from(AclPermissionType.concrete()))
LABEL = re.compile(r'^resource "(?:confluent_)?kafka_acl" "([A-Za-z_][A-Za-z0-9_-]*)" \{$', re.M)


def acl(rtype, name, principal, op, perm="ALLOW", pattern="LITERAL", host="*"):
    return AclBinding.of(rtype, name, pattern, principal, host, op, perm)


@given(st.lists(expressible, max_size=20))
def test_everything_kafka_acl_holds_round_trips_exactly(bindings):
    text = write(bindings).text
    again = read(text, "w.tf").bindings
    assert sorted(map(str, again)) == sorted(map(str, set(bindings)))
    assert diff(bindings, again, NO_ACLS, NO_ACLS).verdict == "equivalent"
    labels = LABEL.findall(text)
    assert len(labels) == len(set(labels)) == len(set(bindings))


@given(st.lists(expressible.filter(lambda b: why_not(CONFLUENT, b) is None), max_size=15))
def test_everything_confluent_kafka_acl_holds_round_trips_exactly(bindings):
    text = write(bindings, provider="confluent", confluent_cluster="lkc-abc").text
    again = read(text, "w.tf").bindings
    assert sorted(map(str, again)) == sorted(map(str, set(bindings)))


@given(st.lists(anything, max_size=15))
def test_lossy_writing_never_widens_and_lists_exactly_what_it_left_out(bindings):
    written = write(bindings, lossy=True)
    again = read(written.text, "w.tf").bindings
    kept = [b for b in dict.fromkeys(bindings) if why_not(MONGEY, b) is None]
    assert sorted(map(str, again)) == sorted(map(str, kept))
    assert {str(x.binding) for x in written.lost} == {str(b) for b in dict.fromkeys(bindings) if why_not(MONGEY, b)}


def test_import_ids_are_the_providers_own():
    b = acl("TRANSACTIONAL_ID", "tx-", "User:alice", "IDEMPOTENT_WRITE", "DENY", "PREFIXED")
    # kafka_acl: StringlyTypedACL.String / importACL, acl_principal|acl_host|...|resource_pattern_type_filter
    assert import_id(MONGEY, b) == "User:alice|*|IdempotentWrite|Deny|TransactionalID|tx-|Prefixed"
    # confluent_kafka_acl: createKafkaAclId / deserializeAcl
    assert import_id(CONFLUENT, b, "lkc-1") == "lkc-1/TRANSACTIONAL_ID#tx-#PREFIXED#User:alice#*#IDEMPOTENT_WRITE#DENY"
    text = write([b]).text
    assert 'id = "User:alice|*|IdempotentWrite|Deny|TransactionalID|tx-|Prefixed"' in text
    assert "to = kafka_acl.deny_alice_idempotent_write_transactional_id_prefixed_tx" in text


def test_labels_are_readable_stable_and_unique():
    a = acl("TOPIC", "orders.eu", "User:alice", "READ")
    b = acl("TOPIC", "orders-eu", "User:alice", "READ")  # folds like a
    c = acl("GROUP", "*", "User:*", "READ")
    first = LABEL.findall(write([a, b, c]).text)
    assert first[2] == "allow_read_group_all"
    assert first[0].startswith("allow_alice_read_topic_orders_eu_") and first[0] != first[1]
    # a label depends on its binding (and those folding alike), not on the order or the other bindings
    assert LABEL.findall(write([c, b, a]).text) == first[::-1]
    assert LABEL.findall(write([c]).text) == [first[2]]


@pytest.mark.parametrize("binding, provider, reason", [
    (acl("USER", "bob", "User:a", "DESCRIBE"), "kafka", "no USER resource type"),
    (acl("DELEGATION_TOKEN", "t", "User:a", "DESCRIBE_TOKENS"), "kafka", "no DESCRIBE_TOKENS operation"),
    (acl("TOPIC", "a|b", "User:a", "READ"), "kafka", "breaks kafka_acl's import ID"),
    (acl("TOPIC", "t", "User:CN=a/b", "READ"), "confluent", "breaks confluent_kafka_acl's import ID"),
    (acl("TOPIC", "t#1", "User:a", "READ"), "confluent", "breaks confluent_kafka_acl's import ID"),
    (acl("TOPIC", "${x}", "User:a", "READ"), "kafka", "template sequence"),
])
def test_what_cannot_be_expressed_is_refused_with_its_reason(binding, provider, reason):
    with pytest.raises(NotExpressible, match=reason):
        write([binding], provider=provider, confluent_cluster="lkc-1" if provider == "confluent" else None)


def test_confluent_needs_its_cluster_id_and_only_confluent_takes_one():
    with pytest.raises(OptionError, match="needs the Kafka cluster id"):
        write([], provider="confluent")
    with pytest.raises(OptionError, match="only with --terraform-provider confluent"):
        write([], confluent_cluster="lkc-1")


def test_convert_with_the_provider_options_and_their_misuse(tmp_path):
    src = tmp_path / "acls.json"
    src.write_text(json.dumps({"version": 1, "acls": [acl("TOPIC", "orders", "User:sa-1", "READ").as_dict(),
                                                      acl("USER", "bob", "User:sa-1", "DESCRIBE").as_dict()]}))
    runner = CliRunner()
    refused = runner.invoke(app, ["convert", str(src), "--to", "terraform"])
    assert refused.exit_code == 2 and "terraform (kafka_acl) cannot express 1 binding(s)" in refused.stderr
    out = tmp_path / "acls.tf"
    done = runner.invoke(app, ["convert", str(src), "--to", "terraform", "--terraform-provider", "confluent",
                               "--terraform-confluent-cluster", "lkc-9", "--lossy", "-o", str(out)])
    assert done.exit_code == 0, done.output
    assert 'id = "lkc-9/TOPIC#orders#LITERAL#User:sa-1#*#READ#ALLOW"' in out.read_text()
    assert read(out.read_text(), str(out)).bindings == [acl("TOPIC", "orders", "User:sa-1", "READ")]
    wrong = runner.invoke(app, ["convert", str(src), "--to", "json", "--terraform-provider", "kafka"])
    assert wrong.exit_code == 2 and "only with --to terraform" in wrong.stderr
