"""Every reader of untrusted text in authz, as ``name -> function(text)``, with the errors it may raise.

Shared by the property tests (test_reader_properties.py) and the fuzz harness
(tests/bench/fuzz_readers.py): a reader may return anything or raise one of its documented
errors; any other exception is a bug.
"""

from __future__ import annotations

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats.acls import parse_acls
from kafka_authz_cli.formats.properties import parse_properties
from kafka_authz_cli.formats.reading import csv_table, json_lines, loads
from kafka_authz_cli.formats.requests import parse_requests
from kafka_authz_cli.formats.scram_records import parse_records
from kafka_authz_cli.formats.types_file import parse_types
from kafka_authz_cli.scram import (
    KafkaScramServer,
    ScramCredential,
    ScramError,
    ScramMechanism,
    parse_add_scram,
)

LABEL = "fuzz"
_CRED = ScramCredential.from_password(ScramMechanism.SCRAM_SHA_256, "pw", b"salt", 4096)


def _acls_auto(text: str):
    from kafka_authz_cli.formats.acls import detect_format

    if detect_format(text) == "rules":
        return None  # the rules language has its own target
    return parse_acls(text, LABEL)


def _rules_lint(text: str):
    from kafka_authz_cli.rules.lint import lint_text
    from kafka_authz_cli.rules.types import TypeRegistry

    return lint_text(text, LABEL, TypeRegistry())


def _server_first(text: str):
    server = KafkaScramServer(ScramMechanism.SCRAM_SHA_256, {"alice": _CRED}, "nonce")
    return server.client_first(text)


#: name -> (reader, exceptions it may raise besides returning)
READERS = {
    "json": (lambda t: loads(t, LABEL), (InputError,)),
    "json-lines": (lambda t: list(json_lines(t, LABEL)), (InputError,)),
    "acls-json": (lambda t: parse_acls(t, LABEL, "json"), (InputError,)),
    "acls-kafka-acls": (lambda t: parse_acls(t, LABEL, "kafka-acls"), (InputError,)),
    "acls-csv": (lambda t: parse_acls(t, LABEL, "csv"), (InputError,)),
    "acls-detected": (_acls_auto, (InputError,)),
    "requests": (lambda t: parse_requests(t, LABEL), (InputError,)),
    "scram-records": (lambda t: parse_records(t, LABEL), (InputError,)),
    "types": (lambda t: parse_types(t, LABEL), (InputError,)),
    "users-csv": (lambda t: list(csv_table(t, LABEL, ["user"], ["mechanism", "iterations"], normalise=str.strip)),
                  (InputError,)),
    "properties": (lambda t: parse_properties(t, LABEL), (InputError,)),
    "add-scram": (parse_add_scram, (ScramError,)),
    "credential-string": (lambda t: ScramCredential.from_credential_string(t, ScramMechanism.SCRAM_SHA_256),
                          (ScramError,)),
    "scram-client-first": (_server_first, (ScramError,)),
    "rules-lint": (_rules_lint, (InputError,)),
}

#: Readers whose code lives in kafka_authz_cli/rules/ (the rules language).
RULES_READERS = ("rules-lint",)
