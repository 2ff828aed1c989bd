"""acl.registry: one entry per format, each function it names there, and what the table makes."""

import importlib

import pytest

from kafka_authz_cli.acl.registry import (
    ACL_SET_READS,
    ECOSYSTEM,
    FORMATS,
    KAFKA,
    KROXYLICIOUS,
    ecosystem_format_of,
    format_of,
    told_apart,
)
from kafka_authz_cli.errors import OptionError
from kafka_authz_cli.formats import what_is, wrong_kind

USER = ("apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\nmetadata:\n  name: a\nspec:\n  authorization:\n"
        "    type: simple\n    acls:\n      - resource: {type: topic, name: t}\n        operations: [Read]\n")
KSM_YAML = "users:\n  alice:\n    topics:\n      t:\n        - Read\n"
KSM_CSV = "KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n"


@pytest.mark.parametrize("fmt", FORMATS.values(), ids=lambda f: f.name)
def test_every_function_an_entry_names_exists(fmt):
    for reference in (fmt.reader, fmt.many_reader, fmt.writer, fmt.sniffer):
        if reference is not None:
            module, _, name = reference.partition(":")
            assert callable(getattr(importlib.import_module(module), name)), reference
    assert fmt.family in (KAFKA, KROXYLICIOUS, ECOSYSTEM)
    assert fmt.either or fmt.reader or fmt.many_reader
    assert fmt.either or fmt.sniffer or fmt.kinds  # told by content, one way or the other
    assert all(FORMATS[name] for name in fmt.either)


def test_the_ecosystem_formats_read_directories_and_take_reading_options():
    for fmt in FORMATS.values():
        assert (fmt.family == ECOSYSTEM) == bool(fmt.many_reader and fmt.reader)
        assert (fmt.options is None) == (fmt.family == KAFKA or fmt.name == "rules")


def test_what_the_acl_readers_take_is_every_format_terraform_too():
    for fmt in FORMATS.values():
        assert (fmt.title in ACL_SET_READS) != bool(fmt.either)
    assert "Terraform kafka_acl / confluent_kafka_acl resources" in ACL_SET_READS
    error = wrong_kind("broker.id=1\nlog.dirs=/tmp\n", "server.properties", "an ACL set", ACL_SET_READS)
    assert "formats authz reads here: authz ACL JSON; " in str(error) and "; Terraform kafka_acl" in str(error)


def test_formats_with_a_test_of_their_own_are_tried_first_then_what_is():
    assert format_of(USER).name == "strimzi" and ecosystem_format_of(USER).name == "strimzi"
    assert format_of('resource "kafka_acl" "a" {\n}\n').name == "terraform"
    assert format_of('{"version": 1, "acls": []}').name == "json"
    assert format_of("otherwise deny;\n").name == "rules" and what_is("otherwise deny;\n").key == "rules"
    assert format_of(KSM_CSV).name == "csv"
    assert format_of("broker.id=1\n") is None
    assert ecosystem_format_of('{"version": 1, "acls": []}') is None


def test_ksm_names_either_of_its_formats_told_apart_by_content():
    assert told_apart(FORMATS["ksm"], KSM_YAML).name == "ksm-yaml"
    assert told_apart(FORMATS["ksm"], KSM_CSV).name == "csv"
    assert told_apart(FORMATS["json"], KSM_CSV).name == "json"


def test_one_check_of_reading_options():
    assert FORMATS["strimzi"].check_options({"cluster": "prod"}) == {"cluster": "prod"}
    with pytest.raises(OptionError, match=r"^strimzi has no reading option x \(its options: cluster: "):
        FORMATS["strimzi"].check_options({"x": "1"})
    with pytest.raises(OptionError, match=r"ksm-yaml has no reading option x \(its options: none\)"):
        FORMATS["ksm-yaml"].check_options({"x": "1"})
    with pytest.raises(OptionError, match=r"kroxylicious has no reading option x \(its options: filter: "):
        FORMATS["kroxylicious"].check_options({"x": "1"})
    with pytest.raises(OptionError, match=r"reading options are for the ecosystem's formats \(strimzi, ksm-yaml, "
                                          r"julieops, jikkou, kafka-gitops, terraform\), not this ACL set"):
        FORMATS["rules"].check_options({"x": "1"})
    assert FORMATS["json"].check_options(None) == {}
