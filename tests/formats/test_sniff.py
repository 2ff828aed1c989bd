"""The content sniffer: every format authz writes is sniffed as itself; real kinds of files are named."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl.formats import dump_acls
from kafka_authz_cli.acl.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType
from kafka_authz_cli.formats import what_is, wrong_kind
from kafka_authz_cli.rules import decompile

names = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\x85"),
                min_size=1, max_size=12) | st.sampled_from([
                    # another format's markers inside a name must not change what the file is
                    "-----BEGIN CERTIFICATE-----", "KafkaPrincipal,x", "Current ACLs for resource `x", "<html>",
                    "[2024-01-01 00:00:00,000] INFO", "allow User with name", "otherwise deny;", "{%"])
bindings = st.builds(
    AclBinding,
    resource_type=st.sampled_from(list(ResourceType.concrete())),
    resource_name=names,
    pattern_type=st.sampled_from([PatternType.LITERAL, PatternType.PREFIXED]),
    principal=st.builds(lambda t, n: f"{t}:{n}", st.sampled_from(["User", "Group"]), names | st.just("*")),
    host=st.sampled_from(["*", "10.0.0.1"]),
    operation=st.sampled_from(AclOperation.concrete()),
    permission=st.sampled_from([AclPermissionType.ALLOW, AclPermissionType.DENY]),
)
KIND_OF = {"json": "acl-json", "kafka-acls": "kafka-acls", "csv": "ksm-csv"}


@settings(max_examples=300, deadline=None)
@given(acls=st.lists(bindings, min_size=1, max_size=10), fmt=st.sampled_from(sorted(KIND_OF)),
       bom=st.booleans())
def test_every_acl_format_authz_writes_is_sniffed_as_itself(acls, fmt, bom):
    text = ("\ufeff" if bom else "") + dump_acls(acls, fmt)
    assert what_is(text).key == KIND_OF[fmt]


@settings(max_examples=60, deadline=None)
@given(acls=st.lists(st.builds(AclBinding, resource_type=st.sampled_from([ResourceType.TOPIC, ResourceType.GROUP]),
                               resource_name=names, pattern_type=st.sampled_from([PatternType.LITERAL,
                                                                                  PatternType.PREFIXED]),
                               principal=st.builds("User:{}".format, names), host=st.just("*"),
                               operation=st.sampled_from([AclOperation.READ, AclOperation.WRITE]),
                               permission=st.just(AclPermissionType.ALLOW)),
                     min_size=1, max_size=6))
def test_decompiled_rules_are_sniffed_as_rules(acls):
    assert what_is(decompile(acls)).key == "rules"


SAMPLES = {
    "server-properties": "# Licensed to the Apache Software Foundation\nbroker.id=0\nlisteners=PLAINTEXT://:9092\n"
                         "log.dirs=/tmp/kafka-logs\n",
    "connector-properties": "name=local-file-source\nconnector.class=FileStreamSource\ntasks.max=1\n",
    "client-properties": "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n",
    "log4j-properties": "log4j.rootLogger=INFO, stdout\nlog4j.appender.stdout=org.apache.log4j.ConsoleAppender\n",
    "authorizer-log": "[2024-05-01 10:00:00,123] INFO Principal = User:alice is Allowed Operation = Read from host = "
                      "10.0.0.1 on resource = Topic:LITERAL:orders for request = Fetch with resourceRefCount = 1 "
                      "(kafka.authorizer.logger)\n",
    "log": "[2024-05-01 10:00:00,123] INFO [KafkaServer id=0] started (kafka.server.KafkaServer)\n" * 3,
    "strimzi-kafkauser": "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaUser\nmetadata:\n  name: my-user\n",
    "strimzi-kafkaconnector": "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaConnector\nmetadata:\n  name: c\n",
    "kroxylicious-config": "virtualClusters:\n  - name: demo\n",
    "rules": "from io.kroxylicious.filter.authorization import TopicResource as Topic;\n"
             "allow User with name = \"alice\" to READ Topic with name = \"t\";\notherwise deny;\n",
    "zk-acl-json": '{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow",'
                   '"operations":["Read"],"hosts":["*"]}]}',
    "connector-json": '{"name": "c", "config": {"connector.class": "FileStreamSink"}}',
    "json-lines": '{"principal": "User:a"}\n{"principal": "User:b"}\n',
    "json": '{"a": 1}',
    "yaml": "a:\n  b: 1\nc: 2\n",
    "pem": "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    "pem-key": "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n",
    "jaas": "KafkaServer {\n  org.apache.kafka.common.security.plain.PlainLoginModule required\n"
            "  username=\"admin\";\n};\n",
    "csv": "principal,host,operation\nUser:a,*,Read\n",
    "html": "<!DOCTYPE html>\n<html><body>Kafka</body></html>\n",
    "kafka-configs": "Dynamic configs for broker 0 are:\n  log.cleaner.threads=2 sensitive=false synonyms={}\n",
    "terraform": 'resource "kafka_acl" "a" {\n  resource_name = "t"\n}\n',
    "binary": "PK\x03\x04\x00\x00binary",
    "python": "import json\nfrom pathlib import Path\n\nACLS = {\"a\": 1}\n\ndef main():\n    pass\n",
    "shell-script": "#!/usr/bin/env bash\nset -euo pipefail\nkafka-acls.sh --list\n",
}


@pytest.mark.parametrize("key", sorted(SAMPLES))
def test_named_kinds(key):
    assert what_is(SAMPLES[key]).key == key
    assert what_is(SAMPLES[key]).name  # every kind has a human name


@pytest.mark.parametrize("text", ["", "  \n", "\ufeff", "hello"])
def test_nothing_known_is_none(text):
    assert what_is(text) is None


@given(st.text(max_size=300))
def test_never_raises(text):
    kind = what_is(text)
    assert kind is None or kind.key and kind.name


def test_wrong_kind_is_one_line_saying_what_and_what_was_expected():
    err = wrong_kind(SAMPLES["server-properties"], "server.properties", "an ACL set", "json, csv")
    assert str(err) == ("server.properties: this looks like a Kafka broker configuration (server.properties), "
                        "expected an ACL set (formats authz reads here: json, csv)")
    assert "\n" not in str(err) and err.exit_code == 2
    assert str(wrong_kind("???", "x", "an ACL set", "json")) == (
        "x: cannot tell what this is, expected an ACL set (formats authz reads here: json)")


def test_large_json_is_sniffed_from_its_head():
    big = json.dumps({"version": 1, "acls": [{"resource_type": "TOPIC"}] * 100_000})
    assert what_is(big).key == "acl-json"


def test_a_list_of_kafka_users_is_a_kafka_user_and_a_list_of_others_is_not():
    listed = "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: kafka.strimzi.io/v1\n    kind: KafkaUser\n"
    assert what_is(listed).key == "strimzi-kafkauser"
    assert what_is(listed.replace("KafkaUser", "KafkaTopic")).key != "strimzi-kafkauser"


@pytest.mark.parametrize("text, key", [
    ("#!/usr/bin/python3\nprint('acls')\n", "python"),
    ("#!/usr/bin/env -S python3 -u\nx = 1\n", "python"),
    ("#!/bin/sh\nexec kafka-acls.sh \"$@\"\n", "shell-script"),
    ('"""Generate ACLs."""\nimport yaml\n\n\nclass Team:\n    pass\n', "python"),
])
def test_scripts_are_named(text, key):
    assert what_is(text).key == key


@pytest.mark.parametrize("text", [
    # one Python-looking line is not enough: a properties key may be `import`
    "import foo\nbar=1\n",
    # a rules file's import ends with ';' and is a rules file
    "from io.kroxylicious.filter.authorization import TopicResource as Topic;\notherwise deny;\n",
    # YAML with a key named class
    "class: gold\nimport: x\n",
])
def test_what_only_looks_a_little_like_python_is_not_python(text):
    kind = what_is(text)
    assert kind is None or kind.key != "python"


def test_a_python_file_given_as_acls_is_named(tmp_path):
    script = tmp_path / "make_acls.py"
    script.write_text("import json\nimport sys\n\ndef main():\n    json.dump([], sys.stdout)\n")
    err = wrong_kind(script.read_text(), str(script), "an ACL set", "json")
    assert str(err).startswith(f"{script}: this looks like Python source, expected an ACL set")
