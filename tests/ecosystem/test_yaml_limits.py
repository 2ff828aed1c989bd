"""YAML read as each tool's YAML library reads it (yaml_aliases): aliases per library, never expanded past its
limits; a byte-order mark, CRLF and empty documents as the tools read them; content detection that never
refuses (alone or in a directory) a file the format reads."""

from __future__ import annotations

import pytest

from kafka_authz_cli.acl import FORMATS
from kafka_authz_cli.ecosystem import read_directory
from kafka_authz_cli.ecosystem import yamlnodes as y
from kafka_authz_cli.ecosystem.yaml_aliases import (
    BOUNDED,
    EXPANDED_FLOOR,
    JACKSON,
    KUBERNETES,
    SNAKEYAML,
    allowed_alias_ratio,
)
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.services.acl_sources import load_acl_set, parse_acl_source

USER = ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaUser\nmetadata:\n  name: {name}\n  labels:\n"
        "    strimzi.io/cluster: c\nspec:\n  authorization:\n    type: simple\n    acls:\n"
        "      - resource: {{type: topic, name: orders}}\n        operations: [Read]\n")


def _docs(text: str, policy: str, warned=None) -> list:
    return list(y.documents(text, "f", policy, None if warned is None else lambda line, m: warned.append((line, m))))


def test_jackson_reads_an_alias_as_the_anchor_name_and_says_so():
    # jackson-dataformat-yaml YAMLParser: an alias is a VALUE_STRING holding the anchor's name
    warned = []
    [doc] = _docs("a: &g {x: 1}\nb: *g\nc: *nowhere\n", JACKSON, warned)
    values = {k.value: v for k, v in doc.value}
    assert values["b"].id == "scalar" and values["b"].value == "g" and values["c"].value == "nowhere"
    assert [line for line, _ in warned] == [2, 3] and "reads it as the text 'g'" in warned[0][1]


def test_a_julieops_group_given_as_an_alias_is_the_anchor_name_as_julieops_reads_it():
    text = ('context: "c"\nprojects:\n  - name: "p"\n    consumers:\n      - principal: "User:a"\n'
            '        group: &g "real-group"\n      - principal: "User:b"\n        group: *g\n'
            '    topics:\n      - name: "t"\n')
    acl_set = FORMATS["julieops"].read(text, "t.yaml", {})
    groups = {(b.principal, b.resource_name) for b in acl_set.bindings if b.resource_type.name == "GROUP"}
    assert groups == {("User:a", "real-group"), ("User:b", "g")}
    assert any("*g is an alias: Jackson's YAML parser reads it as the text 'g'" in w for w in acl_set.warnings)


def test_an_alias_where_a_mapping_belongs_says_it_was_read_as_text():
    text = "services:\n  s0: &s\n    type: application\n    principal: User:s\n    produces: [t]\n  s1: *s\n"
    with pytest.raises(InputError, match=r"^f:6:7: services -> s1 must be a mapping with a type \(this is the alias "
                                         r"\*s, which the tool's YAML parser, Jackson's, reads as the text 's'\)"):
        FORMATS["kafka-gitops"].read(text, "f", {})


def _ksm(users: int, scalar: bool = False) -> str:
    if scalar:  # aliases of a scalar: SnakeYAML does not count them
        return "users:\n  u0:\n    topics:\n      t: [&r Read]\n" + "".join(
            f"  u{i}:\n    topics:\n      t: [*r]\n" for i in range(1, users))
    return "users:\n  u0: &p\n    topics:\n      t: [Read]\n" + "".join(f"  u{i}: *p\n" for i in range(1, users))


def test_snakeyaml_takes_50_aliases_of_collections_and_refuses_the_51st():
    assert len(FORMATS["ksm-yaml"].read(_ksm(51), "f", {}).bindings) == 51
    with pytest.raises(InputError, match=r"^f:55:8: YAML alias \*p: Number of aliases for non-scalar nodes exceeds the "
                                         r"specified max=50 \(SnakeYAML's LoaderOptions"):
        FORMATS["ksm-yaml"].read(_ksm(52), "f", {})
    assert len(FORMATS["ksm-yaml"].read(_ksm(300, scalar=True), "f", {}).bindings) == 300


def test_kubernetes_alias_ratio_is_go_yamls():
    # go.yaml.in/yaml/v2 decode.go: 99% up to 400,000 decodes, 10% from 4,000,000, linear between
    assert allowed_alias_ratio(1000) == 0.99 and allowed_alias_ratio(400_000) == 0.99
    assert allowed_alias_ratio(4_000_000) == 0.10 and allowed_alias_ratio(10**9) == 0.10
    assert allowed_alias_ratio(2_200_000) == pytest.approx(0.545)


def test_kubectl_takes_a_few_aliases_and_refuses_excessive_aliasing():
    few = "apiVersion: v1\nkind: List\nitems:\n- &u\n" + "".join("  " + ln for ln in USER.format(name="a")
                                                                   .splitlines(keepends=True)) + "- *u\n" * 5
    assert len(set(FORMATS["strimzi"].read(few, "f", {}).bindings)) == 1  # the same user six times
    rules = "".join(f"      - *r{i % 3}\n" for i in range(3000))
    bomb = ("apiVersion: v1\nkind: List\nitems:\n- &u\n  apiVersion: kafka.strimzi.io/v1beta2\n  kind: KafkaUser\n"
            "  metadata: {name: u}\n  spec:\n    authorization:\n      type: simple\n      acls:\n"
            + "".join(f"      - &r{i} {{resource: {{type: topic, name: t{i}}}, operations: [Read]}}\n" for i in range(3))
            + rules + "- *u\n" * 200)
    with pytest.raises(InputError, match=r"YAML alias \*u: document contains excessive aliasing \(kubectl's YAML "
                                         r"decoder, go.yaml.in/yaml/v2, refuses it\)"):
        FORMATS["strimzi"].read(bomb, "f", {})


@pytest.mark.parametrize("policy", [KUBERNETES, SNAKEYAML, BOUNDED])
def test_a_recursive_alias_is_refused(policy):
    with pytest.raises(InputError, match=r"^f:1:11: YAML alias \*a: anchor 'a' value contains itself"):
        _docs("a: &a [1, *a]\n", policy)


def test_no_policy_lets_aliases_expand_past_authz_bound():
    laughs = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 10)}]\n" for n in range(1, 8))
    with pytest.raises(InputError, match=rf"more than .* YAML nodes .*authz reads at most 10 times the nodes written "
                                         rf"\(or {EXPANDED_FLOOR:,}\)"):
        _docs(laughs, BOUNDED)
    [doc] = _docs(laughs, JACKSON)  # read as text: nothing expands
    assert doc.value[-1][1].value[0].value == "l6"


def test_empty_documents_are_skipped_as_kubectl_skips_them():
    text = "---\n---\n# only a comment\n---\nnull\n---\n" + USER.format(name="a") + "---\n"
    assert [b.principal for b in FORMATS["strimzi"].read(text, "f", {}).bindings] == ["User:a"]


def test_nested_lists_are_flattened_in_order_without_recursion():
    text = USER.format(name="first")
    for i in range(400):  # libyaml nests at most 1,000 levels: 400 lists of lists
        text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
            "  " + ln if n else "- " + ln for n, ln in enumerate(text.splitlines(keepends=True)))
    text += "- " + "\n  ".join(USER.format(name="last").splitlines()) + "\n"
    assert [b.principal for b in FORMATS["strimzi"].read(text, "f", {}).bindings] == ["User:first", "User:last"]


@pytest.mark.parametrize("fmt, text", [
    ("strimzi", USER.format(name="alice")),
    ("jikkou", 'apiVersion: kafka.jikkou.io/v1\nkind: KafkaPrincipalAuthorization\nmetadata:\n  name: "User:alice"\n'
               'spec:\n  acls:\n    - resource: {type: TOPIC, pattern: orders, patternType: LITERAL}\n'
               '      type: ALLOW\n      operations: [READ]\n      host: "*"\n'),
])
@pytest.mark.parametrize("bom, crlf", [(True, False), (False, True), (True, True)])
def test_a_bom_and_crlf_are_read_as_the_tools_read_them(fmt, text, bom, crlf):
    text = ("\ufeff" if bom else "") + (text.replace("\n", "\r\n") if crlf else text)
    assert FORMATS[fmt].sniff(text)
    for forced in (fmt, None):
        acl_set = parse_acl_source(text, "f.yaml", forced)
        assert [b.principal for b in acl_set.bindings] == ["User:alice"]


FLOW = ("{apiVersion: kafka.strimzi.io/v1, kind: KafkaUser, metadata: {name: flow, labels: {strimzi.io/cluster: c}}, "
        "spec: {authorization: {type: simple, acls: [{resource: {type: topic, name: t}, operations: [Read]}]}}}\n")


def test_acls_format_reads_a_file_content_detection_does_not_recognise():
    assert not FORMATS["strimzi"].sniff(FLOW)  # a flow-style KafkaUser: detection's heuristics miss it
    assert [b.principal for b in parse_acl_source(FLOW, "f.yaml", "strimzi").bindings] == ["User:flow"]
    with pytest.raises(InputError, match="this looks like a Kafka Security Manager CSV, expected Strimzi"):
        parse_acl_source("KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n",
                         "f", "strimzi")
    with pytest.raises(InputError, match=r"this looks like YAML, expected Strimzi KafkaUser resources \(as "):
        parse_acl_source("a: 1\n", "f", "strimzi")  # read, but nothing of the format in it


def test_a_directory_keeps_every_file_the_format_reads(tmp_path):
    (tmp_path / "a.yaml").write_text(USER.format(name="a"))
    (tmp_path / "b.yaml").write_bytes(USER.format(name="b").replace("\n", "\r\n").encode())
    (tmp_path / "c.yaml").write_text(FLOW)
    (tmp_path / "d.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n")
    for fmt in ("strimzi", None):
        acl_set = read_directory(tmp_path, fmt)
        assert sorted({b.principal for b in acl_set.bindings}) == ["User:a", "User:b", "User:flow"]
        assert any("1 file(s) are not Strimzi KafkaUser resources and were skipped" in w for w in acl_set.warnings)


def test_a_julieops_topology_whose_projects_come_late_is_one(tmp_path):
    text = 'context: "c"\n' + "# a long header\n" * 10_000 + 'projects:\n  - name: "p"\n    topics:\n      - name: "t"\n' \
           '    consumers:\n      - principal: "User:a"\n        group: "g"\n'
    assert FORMATS["julieops"].sniff(text)
    path = tmp_path / "t.yaml"
    path.write_text(text)
    assert {b.principal for b in load_acl_set(path).bindings} == {"User:a"}
