"""ACL sources beyond the plain ACL formats: rules-language files compiled to bindings."""

from __future__ import annotations

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats.acls import AclSet


def compile_rules_text(text: str, path: str) -> AclSet:
    try:
        from kafka_authz_cli.rules import compile as rules_compile  # the rules-language package
    except ImportError:
        raise InputError("this looks like a rules-language file, which this build of authz cannot compile yet",
                         path, 1, 1) from None
    bindings = rules_compile.compile_rules_text(text, path)
    return AclSet(list(bindings), [path] * len(bindings), path, "rules")
