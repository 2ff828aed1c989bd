"""Every reader of untrusted text in authz, as ``name -> function(text)``, with the errors it may raise.

Shared by the property tests (test_reader_properties.py) and the fuzz harness
(tests/bench/fuzz_readers.py): a reader may return anything or raise one of its documented
errors; any other exception is a bug.
"""

from __future__ import annotations

import json

from kafka_authz_cli._java.properties import parse_properties
from kafka_authz_cli.acl import FORMATS
from kafka_authz_cli.acl.request_files import parse_requests

# imported here, not where used: the fuzz harness instruments what this module imports (atheris)
from kafka_authz_cli.ecosystem.jikkou import reader as _jikkou  # noqa: F401
from kafka_authz_cli.ecosystem.jikkou.match import compile_match
from kafka_authz_cli.ecosystem.julieops import reader as _julieops  # noqa: F401
from kafka_authz_cli.ecosystem.kafka_gitops import reader as _kafka_gitops  # noqa: F401
from kafka_authz_cli.ecosystem.ksm import reader as _ksm  # noqa: F401
from kafka_authz_cli.ecosystem.strimzi import reader as _strimzi  # noqa: F401
from kafka_authz_cli.ecosystem.terraform import reader as _terraform  # noqa: F401
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats.strict_input import csv_table, json_lines, loads
from kafka_authz_cli.rules.types_file import parse_types
from kafka_authz_cli.scram.credential import (
    KafkaScramServer,
    ScramCredential,
    ScramError,
    ScramMechanism,
    parse_add_scram,
)
from kafka_authz_cli.scram.records import parse_records
from kafka_authz_cli.services.acl_sources import parse_acl_source as parse_acls

LABEL = "fuzz"
_CRED = ScramCredential.from_password(ScramMechanism.SCRAM_SHA_256, "pw", b"salt", 4096)


def _acls_auto(text: str):
    from kafka_authz_cli.acl.formats import detect_format

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


def _fields(build, keys):
    """A reader of a valid document with one field replaced, both chosen by the input: the first
    character picks the field, the rest is the new value (as JSON when it parses, else a string).
    Reaches the field checks that random text rarely gets to."""

    def reader(text: str):
        if not text:
            return None
        key = keys[ord(text[0]) % len(keys)]
        rest = text[1:]
        try:
            value = json.loads(rest)
        except (ValueError, RecursionError):
            value = rest
        try:
            doc = build(key, value)
        except (ValueError, RecursionError):
            return None  # not representable as JSON text (a lone surrogate, a huge integer)
        return doc

    return reader


def _acl_doc(key, value):
    from tests.hostile.hostile_catalogue import ACL

    return parse_acls(json.dumps({"version": 1, "acls": [dict(ACL, **{key: value})]}, indent=1), LABEL)


def _request_doc(key, value):
    from tests.hostile.hostile_catalogue import REQUEST

    return parse_requests(json.dumps(dict(REQUEST, **{key: value})), LABEL)


def _record_doc(key, value):
    from tests.hostile.hostile_catalogue import _record

    return parse_records(json.dumps(dict(_record(), **{key: value}), indent=2), LABEL)


def _types_doc(key, value):
    doc = {"principal_types": [{"short": "A", "class": "a.A", key: value}],
           "resource_types": [{"short": "T", "class": "a.T", "operations": ["READ"], key: value}],
           "default_imports": {key: value}}
    return parse_types(json.dumps(doc), LABEL)


def _ecosystem(name: str, **options):
    """The reader of one ecosystem format (one file, read as ``--acls-format NAME`` reads it)."""

    def reader(text: str):
        return FORMATS[name].read(text, LABEL, options)

    return reader


#: the topics the MATCH reader matches patterns against (legal topic names, the worst for backtracking)
MATCH_TOPICS = ["orders", "orders-eu.v1", "a" * 40 + "b", "_internal", "x" * 249]


def _jikkou_match(text: str):
    """A MATCH pattern (the whole text) compiled and matched as Jikkou's planner does, bounded."""
    class Node:  # where the pattern is, for the located error
        class start_mark:
            line, column = 0, 0

    pattern = compile_match(text, Node, LABEL)
    return [t for t in MATCH_TOPICS if pattern.matches(t)]


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
    "acls-json-fields": (_fields(_acl_doc, ["resource_type", "resource_name", "pattern_type", "principal", "host",
                                            "operation", "permission", "comment", "x"]), (InputError,)),
    "requests-fields": (_fields(_request_doc, ["principal", "host", "operation", "resource_type", "resource_name",
                                               "api_key", "request", "resource_ref_count", "log_if_allowed",
                                               "log_if_denied", "expect", "x"]), (InputError,)),
    "scram-records-fields": (_fields(_record_doc, ["name", "mechanism", "salt", "storedKey", "serverKey",
                                                   "iterations", "x"]), (InputError,)),
    "types-fields": (_fields(_types_doc, ["short", "class", "operations", "implies", "kafka_type", "x"]),
                     (InputError,)),
    # the ecosystem formats, each read as --acls-format names it
    "strimzi": (_ecosystem("strimzi"), (InputError,)),
    "ksm-yaml": (_ecosystem("ksm-yaml"), (InputError,)),
    "julieops": (_ecosystem("julieops"), (InputError,)),
    "jikkou": (_ecosystem("jikkou"), (InputError,)),
    "kafka-gitops": (_ecosystem("kafka-gitops"), (InputError,)),
    "terraform": (_ecosystem("terraform"), (InputError,)),
    "terraform-skip": (_ecosystem("terraform", unevaluated="skip"), (InputError,)),
    "jikkou-match": (_jikkou_match, (InputError,)),
}

#: Readers of the ecosystem formats (kafka_authz_cli/ecosystem/).
ECOSYSTEM_READERS = ("strimzi", "ksm-yaml", "julieops", "jikkou", "kafka-gitops", "terraform", "terraform-skip",
                     "jikkou-match")

#: Readers whose code lives in kafka_authz_cli/rules/ (the rules language).
RULES_READERS = ("rules-lint",)
