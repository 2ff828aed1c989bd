"""What the ecosystem readers compute from a file is bounded: Terraform's values evaluated once per reference
and within stated limits (instances, nesting, string length, digits), Terraform's JSON read strictly, Jikkou's
MATCH patterns matched in linear time where RE2 reads them as Java does and within a CPU budget otherwise,
special files never read, KSM CSV headers checked in one pass."""

from __future__ import annotations

import os
import re
import socket
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import FORMATS
from kafka_authz_cli.ecosystem.jikkou.match import MATCH_SECONDS, compile_match
from kafka_authz_cli.ecosystem.terraform.hcl import MAX_DEPTH, MAX_STRING
from kafka_authz_cli.ecosystem.terraform.reader import MAX_INSTANCES, MAX_INSTANCES_IN_ALL
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import read_bytes, read_text, text_lines
from kafka_authz_cli.services.acl_sources import load_acl_set

ACL = ('resource "kafka_acl" "a" {{\n  resource_name       = {name}\n  resource_type       = "Topic"\n'
       '  acl_principal       = "User:alice"\n  acl_host            = "*"\n  acl_operation       = "Read"\n'
       '  acl_permission_type = "Allow"\n{extra}}}\n')


def tf(text: str, **options):
    return FORMATS["terraform"].read(text, "m.tf", options)


# -- Terraform: each value once, each expansion bounded ----------------------------------------------

def test_a_local_is_evaluated_once_however_often_it_is_referred_to():
    # 2^38 references if each were evaluated where it is used: with one evaluation per local, instant
    levels = 38
    text = "locals {\n  a0 = \"x\"\n" + "".join(f"  a{n + 1} = [local.a{n}, local.a{n}]\n" for n in range(levels)) \
        + "}\n"
    start = time.monotonic()
    with pytest.raises(InputError, match=r"kafka_acl.a: resource_name must be a string, got a list"):
        tf(text + ACL.format(name=f"local.a{levels}", extra=""))
    # 2^38 evaluations would take days; the bound leaves room for a loaded CI machine (2.4 s seen there)
    assert time.monotonic() - start < 30


def test_a_string_of_strings_stops_at_the_stated_length():
    text = "locals {\n  a0 = \"x\"\n" + "".join(f'  a{n + 1} = "${{local.a{n}}}${{local.a{n}}}"\n' for n in range(30)) \
        + "}\n"
    with pytest.raises(InputError, match=rf"longer than {MAX_STRING:,} characters .*authz evaluates strings up to that"):
        tf(text + ACL.format(name="local.a30", extra=""))
    [binding] = tf(text + ACL.format(name="local.a10", extra="")).bindings
    assert binding.resource_name == "x" * 1024


def test_locals_see_no_instance_of_the_resource_that_refers_to_them():
    # Terraform allows each and count only in the resource's own arguments
    text = 'locals {\n  n = "t-${count.index}"\n}\n' + ACL.format(name="local.n", extra="  count = 2\n")
    with pytest.raises(InputError, match=r"count.index: a reference authz does not evaluate"):
        tf(text)
    ok = ACL.format(name='"t-${count.index}"', extra="  count = 2\n")
    assert [b.resource_name for b in tf(ok).bindings] == ["t-0", "t-1"]


def test_count_and_for_each_expand_up_to_the_stated_cap_and_name_the_size():
    assert len(tf(ACL.format(name='"t-${count.index}"', extra=f"  count = {MAX_INSTANCES}\n")).bindings) == MAX_INSTANCES
    with pytest.raises(InputError, match=rf"^m.tf:8:11: kafka_acl.a: count = {MAX_INSTANCES + 1:,}: authz expands at "
                                         rf"most {MAX_INSTANCES:,} instances of a resource and {MAX_INSTANCES_IN_ALL:,} "
                                         r"in all"):
        tf(ACL.format(name='"t"', extra=f"  count = {MAX_INSTANCES + 1}\n"))
    with pytest.raises(InputError, match=r"^m.tf:\d+:11: kafka_acl.a: count = 100,000,000"):
        tf('variable "n" {\n  default = 100000000\n}\n' + ACL.format(name='"t"', extra="  count = var.n\n"))
    many = "".join(ACL.format(name='"t-${count.index}"', extra=f"  count = {MAX_INSTANCES}\n").replace('"a"', f'"a{i}"')
                   for i in range(MAX_INSTANCES_IN_ALL // MAX_INSTANCES + 1))
    with pytest.raises(InputError, match=r"kafka_acl.a10: count = 10,000: .* and 100,000 in all"):
        tf(many)


@pytest.mark.parametrize("expression", [
    "(" * 5000 + '"x"' + ")" * 5000,
    "[" * 3000 + '"x"' + "]" * 3000,
    "true ? " * 3000 + '"x"' + ' : "y"' * 3000,
    "!(" * 3000 + "true" + ")" * 3000,
])
def test_deep_expressions_are_one_located_error(expression):
    with pytest.raises(InputError, match=rf"^m.tf:\d+:\d+: kafka_acl.a: an expression nested more than {MAX_DEPTH} levels"):
        tf(ACL.format(name=expression, extra=""))


def test_a_long_chain_of_references_and_of_attributes_is_bounded():
    chain = "locals {\n  a0 = \"x\"\n" + "".join(f"  a{n + 1} = local.a{n}\n" for n in range(400)) + "}\n"
    with pytest.raises(InputError, match=rf"references nested more than {MAX_DEPTH} levels deep"):
        tf(chain + ACL.format(name="local.a400", extra=""))
    assert tf(chain + ACL.format(name="local.a100", extra="")).bindings[0].resource_name == "x"
    attributes = 'locals {\n  o = {a = "x"}\n}\n' + ACL.format(name="local.o" + ".a" * 20_000, extra="")
    with pytest.raises(InputError, match=r"resource_name = local\.o\.a\.a[.a]*\.\.\.: local\.o has no a"):
        tf(attributes)


def test_numbers_and_escapes_python_cannot_hold_are_located_errors():
    with pytest.raises(InputError, match=r"^m.tf:8:11: kafka_acl.a: an integer of 5,000 digits"):
        tf(ACL.format(name='"t"', extra=f"  count = {'9' * 5000}\n"))
    with pytest.raises(InputError, match=r"the escape \\UFFFFFFFF is no Unicode character"):
        tf(ACL.format(name='"t-\\UFFFFFFFF"', extra=""))
    with pytest.raises(InputError, match=r"the escape \\uD800 is no Unicode character"):
        tf(ACL.format(name='"t-\\uD800"', extra=""))


# -- Terraform's JSON: the strict reader -------------------------------------------------------------------

STATE = ('{{"version": 4, "terraform_version": "1.5.7", "serial": 1, "resources": [{{"mode": "managed", '
         '"type": "kafka_acl", "name": "a", "instances": [{{"attributes": {attributes}}}]}}]}}')
ATTRIBUTES = ('{"resource_name": "t", "resource_type": "Topic", "acl_principal": "User:a", "acl_host": "*", '
              '"acl_operation": "Read", "acl_permission_type": "Allow", "resource_pattern_type_filter": "Literal"}')


@pytest.mark.parametrize("attributes, message", [
    (ATTRIBUTES[:-1] + ', "acl_principal": "User:*"}', r"^s:1:\d+: duplicate key 'acl_principal'"),
    (ATTRIBUTES.replace('"acl_host": "*"', '"acl_host": 7'),
     r"^s:1:\d+: resources\[0\]\.instances\[0\]\.attributes\.acl_host: kafka_acl\.a: acl_host must be a string "
     r"\(the provider writes one\), got a number"),
    (ATTRIBUTES.replace('"acl_host": "*"', '"acl_host": true'), r"acl_host must be a string .*got a boolean"),
    ('"x"', r"^s:1:\d+: resources\[0\]\.instances\[0\]\.attributes: attributes must be an object, got a string"),
    (ATTRIBUTES[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}", r"^s:1:\d+: invalid JSON: nested too deeply"),
])
def test_a_tfstate_is_read_strictly(attributes, message):
    with pytest.raises(InputError, match=message):
        FORMATS["terraform"].read(STATE.format(attributes=attributes), "s", {})


def test_show_json_is_read_strictly_and_its_modules_without_recursion():
    module = '{"resources": [{"address": "kafka_acl.a", "mode": "managed", "type": "kafka_acl", "values": ' \
             + ATTRIBUTES + '}], "child_modules": [CHILD]}'
    text = module
    for _ in range(150):
        text = text.replace("CHILD", module.replace('"kafka_acl.a"', '"kafka_acl.b"'), 1)
    text = '{"format_version": "1.0", "values": {"root_module": ' + text.replace("[CHILD]", "[]") + "}}"
    assert len(FORMATS["terraform"].read(text, "s", {}).bindings) == 1
    with pytest.raises(InputError, match=r"^s:1:\d+: values\.root_module\.resources: resources must be a list"):
        FORMATS["terraform"].read('{"format_version": "1.0", "values": {"root_module": {"resources": {}}}}', "s", {})


# -- Jikkou MATCH: RE2 where it agrees with Java, a CPU budget elsewhere --------------------------------------

class Node:
    class start_mark:
        line, column = 6, 14


@pytest.mark.parametrize("pattern, engine", [
    ("orders-.*", "RE2"), ("(a+)+$", "RE2"), ("(?i)ORDERS", "RE2"), (r"[a-z]{2,5}\.v\d", "RE2"),
    (r"(a+)+\1", "backtracking"), ("(?=o)orders", "backtracking"), ("a*+b", "backtracking"),
    (r"\u0061+", "backtracking"), ("a{1001}", "backtracking"), ("(?i)ſ", "backtracking"),
])
def test_re2_reads_the_patterns_whose_meaning_it_shares_with_java(pattern, engine):
    assert compile_match(pattern, Node, "f").engine == engine


def test_catastrophic_backtracking_is_linear_in_re2():
    pattern = compile_match("(a+)+$", Node, "f")
    start = time.monotonic()
    assert not pattern.matches("a" * 40 + "b") and pattern.matches("a" * 249)
    assert time.monotonic() - start < 10  # backtracking on 40 a's takes 2^40 steps: hours


def test_a_pattern_only_backtracking_reads_stops_at_its_budget_naming_pattern_and_topic():
    pattern = compile_match(r"(a+)+\1x", Node, "f")
    start = time.process_time()
    with pytest.raises(InputError, match=rf"^f:7:15: MATCH pattern '\(a\+\)\+\\\\1x' backtracks for more than "
                                         rf"{MATCH_SECONDS:g} s of CPU on topic 'a{{40}}b': authz stops there\. .*"
                                         r"Jikkou's planner, which matches with java.util.regex, would backtrack on it"):
        pattern.matches("a" * 40 + "b")
    assert time.process_time() - start < MATCH_SECONDS + 1
    with pytest.raises(InputError, match="backtracks for more than"):  # the budget is the rule's, over its topics
        pattern.matches("a" * 40 + "c")


def test_the_budget_leaves_other_timers_alone():
    import signal

    seen = []
    previous = signal.signal(signal.SIGVTALRM, lambda *a: seen.append(1))
    try:
        assert compile_match(r"(a)\1", Node, "f").matches("aa")
        assert signal.getsignal(signal.SIGVTALRM) is not None and signal.getitimer(signal.ITIMER_VIRTUAL)[0] == 0
    finally:
        signal.signal(signal.SIGVTALRM, previous)


def test_deeply_nested_groups_are_one_located_error():
    with pytest.raises(InputError, match=r"^f:7:15: MATCH pattern '\(\(\(.*groups nested more than 100 deep"):
        compile_match("(" * 5000 + "a" + ")" * 5000, Node, "f")


_PIECES = st.sampled_from(["a", "b", ".", "-", "_", "0", "(", ")", "|", "*", "+", "?", "{1,3}", "[a-c]", "[^b]",
                           r"\d", r"\w", r"\.", "^", "$", "(?:", "*?", "(?i)", "A"])


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=12), topics=st.lists(st.text("abAB0._-", max_size=12), max_size=5))
def test_re2_and_the_java_reading_agree_on_topic_names(pieces, topics):
    """Where RE2 takes a pattern, whole topic names match in RE2 as in the Java-equivalent reading (Python's
    re in ASCII mode, held to java.util.regex by test_jikkou_reader)."""
    text = "".join(pieces)
    try:
        pattern = compile_match(text, Node, "f")
    except InputError:
        return
    if pattern.linear is None:
        return
    for topic in topics:
        assert pattern.matches(topic) == bool(pattern.regex.fullmatch(topic)), (text, topic)


# -- special files: never read --------------------------------------------------------------------------------

def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "acls.yaml"
    os.mkfifo(fifo)
    result = {}

    def read():
        try:
            read_text(fifo)
        except InputError as exc:
            result["error"] = str(exc)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(5)
    assert result.get("error") == f"{fifo}: not a regular file (a FIFO): authz reads inputs from regular files (pipe " \
                                  "other sources to standard input, '-')"
    with pytest.raises(InputError, match="not a regular file"):
        list(text_lines(fifo))


def test_devices_and_sockets_are_refused(tmp_path):
    with pytest.raises(InputError, match=r"^/dev/zero: not a regular file \(a character device\)"):
        read_bytes("/dev/zero")
    path = tmp_path / "s.yaml"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(InputError, match=r"not a regular file \(a socket\)"):
            read_bytes(path)
    finally:
        server.close()
    with pytest.raises(InputError, match="is a directory"):
        read_bytes(tmp_path)


def test_jikkou_topics_option_and_a_kroxylicious_acl_file_refuse_special_files(tmp_path, monkeypatch):
    from kafka_authz_cli.errors import OptionError

    jikkou = FORMATS["jikkou"]
    with pytest.raises(OptionError, match=r"topics=/dev/zero: cannot read it \(/dev/zero: not a regular file"):
        jikkou.read("", "f", {"topics": "/dev/zero"})
    fifo = tmp_path / "rules.txt"
    os.mkfifo(fifo)
    config = tmp_path / "proxy.yaml"
    config.write_text("filterDefinitions:\n- name: authz\n  type: Authorization\n  config:\n"
                      f"    authorizer: AclAuthorizerService\n    authorizerConfig:\n      aclFile: {fifo}\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match=rf"proxy.yaml:7:\d+: filter authz: aclFile '{re.escape(str(fifo))}' is "
                                         r".*, which is not a regular file \(a FIFO\)"):
        load_acl_set(config)


def test_lint_skips_a_fifo_in_a_directory_and_refuses_one_given(tmp_path):
    from kafka_authz_cli.services.rules import lint_paths

    (tmp_path / "rules.acl").write_text('from io.kroxylicious.filter.authorization import TopicResource as Topic;\n'
                                        'allow User with name = "a" to READ Topic with name = "t";\notherwise deny;\n')
    os.mkfifo(tmp_path / "other.acl")
    run = lint_paths([tmp_path], None)
    assert any(s.path.endswith("other.acl") and "not a regular file" in s.reason for s in run.skipped)
    with pytest.raises(InputError, match="not a regular file"):
        lint_paths([tmp_path / "other.acl"], None)


# -- KSM CSV: one pass over the header ----------------------------------------------------------------------

def test_a_header_of_150_000_unknown_columns_is_one_short_error():
    from kafka_authz_cli.acl import parse_acls

    header = "KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host" + "".join(
        f",c{i}" for i in range(150_000))
    start = time.monotonic()
    with pytest.raises(InputError) as info:
        parse_acls(header + "\nUser:a,Topic,LITERAL,t,Read,Allow,*\n", "a.csv", "csv")
    assert time.monotonic() - start < 5
    assert str(info.value).startswith("a.csv:1:1: CSV header has unknown column(s) c0, c1, c2, c3, c4 and 149,995 more")
    assert len(str(info.value)) < 300
    with pytest.raises(InputError, match=r"names column\(s\) Host more than once"):
        parse_acls(header.split(",c0")[0] + ",Host\n", "a.csv", "csv")
