"""The fast reader of plain .tf files (terraform.hcl.fast_parse) against python-hcl2's grammar: on every file
it accepts, the same blocks, labels, positions and values; anything outside its shape is left to the grammar."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.ecosystem.terraform import hcl
from kafka_authz_cli.ecosystem.terraform.writer import write

TYPES = [ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER, ResourceType.TRANSACTIONAL_ID]
texts = st.text(max_size=8).filter(lambda t: "|" not in t and "${" not in t and "%{" not in t)
bindings = st.builds(AclBinding, st.sampled_from(TYPES), texts, st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
                     texts.map(lambda t: "User:" + t), st.one_of(st.just("*"), texts),
                     st.sampled_from([AclOperation.READ, AclOperation.WRITE]),
                     st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]))
#: lines a hand-written file adds between others
extras = st.sampled_from(["", "# a comment", "// another", "  ", '  count = 1', '  count = 0 # off',
                          '  lifecycle {', '    prevent_destroy = true', '  }', '  acl_host = "*"', "/* block */",
                          '  acl_principal = "User:${var.x}"', '  x = -1', '  y = "$$x"', '  z = "a\\\\b\\u00e9"',
                          'variable "v" {', '  default = "d"', '}', '  kafka_cluster { id = "x" }', "\t}", "}",
                          '  to = kafka_acl.a', '  n = var.x', '  m = a.b.c.d', '  q = a.b[0]', 'import {'])


def shape(blocks, text):
    def one(b):
        attrs = {}
        for k, node in b.attributes.items():
            try:
                value = hcl.evaluate(node, hcl.Scope({}), text)
            except hcl.Unevaluable:
                value = "<unevaluable>"
            attrs[k] = (value, hcl.where(node))
        return (b.type, b.labels, b.line, b.col, attrs, [one(c) for c in b.blocks])
    return [one(b) for b in blocks]


def grammar(text):
    try:
        return shape(hcl.grammar_parse(text, "x.tf"), text)
    except Exception as e:  # the grammar refuses it: the fast reader must not accept it
        return type(e).__name__


@settings(max_examples=150, deadline=None)
@given(st.lists(bindings, max_size=6), st.lists(st.tuples(st.integers(0, 400), extras), max_size=6), st.randoms())
def test_the_fast_reader_reads_what_it_accepts_exactly_as_the_grammar(acls, inserts, rnd):
    lines = write(acls, lossy=True).text.split("\n")
    for at, extra in inserts:
        lines.insert(at % (len(lines) + 1), extra)
    text = "\n".join(lines)
    if rnd.random() < 0.3:
        text = text.replace(" = ", "=")
    fast = hcl.fast_parse(text, "x.tf")
    if fast is not None:
        assert shape(fast, text) == grammar(text)


def test_what_authz_writes_takes_the_fast_path():
    acls = [AclBinding.of("TOPIC", 'a"b\\c\u00e9\n', "LITERAL", "User:x", "*", "READ", "ALLOW")]
    text = write(acls).text
    assert hcl.fast_parse(text, "x.tf") is not None
    assert shape(hcl.fast_parse(text, "x.tf"), text) == grammar(text)


@pytest.mark.parametrize("text", [
    'resource "kafka_acl" "a" {\n  acl_principal = "User:${var.x}"\n}\n',
    'resource "kafka_acl" "a" {\n  n = -1\n}\n',
    'resource "kafka_acl" "a" { # trailing\n}\n',
    'x = 1\n',
    'resource "kafka_acl" "a" {\n  n = 1\n  n = 2\n}\n',
    'resource "kafka_acl" "a" {\n',
])
def test_anything_outside_the_plain_shape_is_left_to_the_grammar(text):
    assert hcl.fast_parse(text, "x.tf") is None
