"""formats.is_rules: a rules file is told by its content, as the grammar starts; other files never are."""

import json
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.formats import is_rules, looks_like, what_is

CONFORMANCE = Path(__file__).parents[2] / "tests" / "conformance" / "kroxylicious"

ident = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True)
string = st.text(st.characters(blacklist_characters='"\\', blacklist_categories=("Cs",)), max_size=10).map(
    lambda s: f'"{s}"')
skipped = st.lists(st.sampled_from([" ", "\n", "\t", "\r\n", "// a comment\n", "/* see a/b */", "\ufeff"]),
                   max_size=4).map("".join).filter(lambda s: "\ufeff" not in s[1:])
name_pred = st.one_of(string.map(lambda s: f"= {s}"), string.map(lambda s: f"like {s}"), st.just("*"),
                      st.lists(string, min_size=1, max_size=3).map(lambda xs: "in {" + ", ".join(xs) + "}"))
rule = st.builds(lambda kw, p, n, op, r, rn: f"{kw} {p} with name {n} to {op} {r} with name {rn};",
                 st.sampled_from(["allow", "deny"]), ident, name_pred, st.sampled_from(["*", "READ", "{READ, WRITE}"]),
                 ident, name_pred)
imports = st.builds(lambda pkg, names: f"from {'.'.join(pkg)} import {', '.join(names)};",
                    st.lists(ident, min_size=1, max_size=4), st.lists(ident, min_size=1, max_size=3))
rules_file = st.builds(lambda pre, imps, rs: pre + "\n".join(imps + rs + ["otherwise deny;"]) + "\n",
                       skipped, st.lists(imports, max_size=2), st.lists(rule, max_size=3))


@settings(max_examples=50)
@given(rules_file)
def test_any_rules_text_the_grammar_accepts_is_detected(text):
    assert is_rules(text)


@settings(max_examples=50)
@given(rules_file)
def test_a_rules_text_cut_after_its_first_statement_is_still_detected(text):
    # A broken file (cut, or missing `otherwise deny;`) must still be linted: the proxy refuses it.
    first = text.index(";") + 1
    assert is_rules(text[:first])


def test_every_recorded_sample_of_the_real_proxy_is_detected():
    files = sorted((CONFORMANCE / "valid").glob("*")) + sorted((CONFORMANCE / "invalid").glob("*"))
    undetected = [f.name for f in files if not is_rules(f.read_text(encoding="utf-8", errors="replace"))]
    # 114 files, broken in every way the proxy refuses; only the empty one holds no statement at all
    # (given by name, lint reports it as the proxy does).
    assert undetected == ["hand-empty-file.acl"]


key = st.lists(st.sampled_from(["allow", "deny", "from", "otherwise", "import", "super", "users", "listeners",
                                "sasl", "ssl", "acl", "found", "everyone", "if", "no"]) | ident,
               min_size=1, max_size=4).map(".".join)
value = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=20)
plain = st.recursive(st.none() | st.booleans() | st.integers() | value,
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(key, inner, max_size=3), max_leaves=8)


@settings(max_examples=50)
@given(st.lists(st.tuples(key, st.sampled_from(["=", ": ", " = ", " "]), value), min_size=1, max_size=6))
def test_a_properties_file_is_never_rules(pairs):
    text = "".join(f"{k}{sep}{v.replace(chr(10), ' ')}\n" for k, sep, v in pairs)
    assert not is_rules(text)


@settings(max_examples=50)
@given(st.dictionaries(key, plain, min_size=1, max_size=5))
def test_a_yaml_or_json_document_is_never_rules(doc):
    assert not is_rules(yaml.safe_dump(doc, allow_unicode=True))
    assert not is_rules(json.dumps(doc, ensure_ascii=False, indent=2))


def test_a_configmap_holding_rules_is_yaml_not_rules():
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: acl-rules\ndata:\n  acl-rules.txt: |\n"
            '    allow User with name = "a" to READ Topic with name *;\n    otherwise deny;\n')
    assert not is_rules(text) and looks_like(text) == "a Kubernetes ConfigMap resource"


def test_what_other_files_look_like():
    assert looks_like("allow.everyone.if.no.acl.found=true\n") == "a Java .properties file"
    assert looks_like('{"acls": []}') == "an authz ACL JSON"
    assert looks_like("filterDefinitions:\n- name: x\n") == "a Kroxylicious proxy configuration"
    assert looks_like("from kafka import KafkaConsumer\n") is None
    assert looks_like("   \n") == "an empty file"
    assert not is_rules("from kafka import KafkaConsumer\n")  # Python: no `;`


# formats.what_is names a rules file exactly when is_rules does. Where the sniffer's own looser test
# (a rules statement at the start of any line) and the loose test of acl.formats.detect_format (a text
# starting "from", "allow", "//" ...) said otherwise, the grammar's answer is kept:

def test_python_source_is_no_rules_file():
    python = "from __future__ import annotations\n\nimport os\n"
    assert not is_rules(python) and what_is(python).key == "python"


def test_a_rule_after_junk_the_proxy_refuses_makes_no_rules_file_without_its_end():
    text = "# acl rules\nallow User with name = \"a\" to READ Topic with name = \"t\";\n"
    assert not is_rules(text) and what_is(text) is None
    assert is_rules(text + "otherwise deny;\n") and what_is(text + "otherwise deny;\n").key == "rules"


def test_keywords_in_another_case_make_a_rules_file_the_proxy_refuses():
    text = "Allow User with name = \"a\" to READ Topic with name = \"t\";\nOtherwise deny;\n"
    assert is_rules(text) and what_is(text).key == "rules"


def test_a_comment_first_is_no_rules_file_by_itself():
    java = "// Licensed to the Apache Software Foundation\npackage x;\n\nimport java.util.Map;\n"
    assert not is_rules(java) and what_is(java) is None


def test_only_the_first_64_kb_are_looked_at():
    text = "x = 1\n" * 11_000 + "otherwise deny;\n"
    assert len(text) > 64 * 1024 and not is_rules(text)
    assert is_rules("/* long */\n" * 100 + "otherwise deny;\n")
