"""The commands' format choices are acl.registry's table: --acls-format every format, --to every format
with a writer, --option's help each format's reading options, in the table's order."""

from enum import Enum

import pytest

from kafka_authz_cli.acl.registry import FORMATS
from kafka_authz_cli.cli.app import command_tree
from kafka_authz_cli.cli.common import ACLS_OPTION_HELP, AclFormat, WriteFormat

READ = list(FORMATS)
WRITTEN = [f.name for f in FORMATS.values() if f.writer]
COMMANDS = list(command_tree())


def _choices(name: str) -> dict[str, list[str]]:
    """The choices of option ``name`` in each command that has it (the enum its annotation names)."""
    found = {}
    for path, command, ctx in COMMANDS:
        for param in command.get_params(ctx):
            annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
            if name in getattr(param, "opts", ()) and isinstance(annotation, type) and issubclass(annotation, Enum):
                found[path] = [member.value for member in annotation]
    return found


def test_the_enums_are_the_table():
    assert [f.value for f in AclFormat] == READ
    assert [f.value for f in WriteFormat] == WRITTEN == ["json", "kafka-acls", "csv", "strimzi", "ksm-yaml", "jikkou",
                                                         "kafka-gitops", "terraform"]


def test_every_acls_format_option_offers_every_format():
    found = _choices("--acls-format")
    assert len(found) >= 12 and all(choices == READ for choices in found.values()), found


def test_every_to_option_of_an_acl_set_offers_the_formats_authz_writes():
    found = {path: choices for path, choices in _choices("--to").items() if path != "authz decompile"}
    assert set(found) == {"authz convert", "authz compile", "authz generate", "authz compact", "authz cluster pull",
                          "authz app acls"}
    assert all(choices == WRITTEN for choices in found.values()), found


@pytest.mark.parametrize("fmt", [f for f in FORMATS.values() if f.options], ids=lambda f: f.name)
def test_the_option_help_speaks_of_every_format_with_reading_options(fmt):
    assert fmt.option_help and fmt.option_help in ACLS_OPTION_HELP
    assert all(key in fmt.option_help for key in fmt.options) or fmt.name == "julieops"
