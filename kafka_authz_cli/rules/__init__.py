"""The Kroxylicious ACL rules language: parse, check, decide, lint, compile to Kafka ACLs and back.

``parser`` reads a rules file exactly as the proxy's ANTLR grammar does (``lexer`` and ``fastparse``
are its two speeds, ``grammar`` the one definition of the syntax); ``semantic_check`` is the proxy's build
step (classes resolved through ``types``, which a ``--types`` file read by ``types_file`` extends);
``evaluate`` decides requests as the proxy does and as its docs say, ``simulate`` over Kafka-style
requests; ``lint`` finds where those differ and what the proxy refuses, each finding under a code
of ``codes`` (``report`` writes them as JSON, SARIF, GitHub annotations, JUnit); ``compile`` turns
rules into Kafka ACL bindings that decide alike, and an ACL set back into rules.

Pure: no terminal, no Spark, no network. Other packages import what is listed here.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.rules.codes import (
        CODES,
        RELATIVE_ACL_FILE,
        RULES_NOT_HERE,
        RULES_UNREADABLE,
        SYNTAX_ERROR,
        LintExample,
        explain,
    )
    from kafka_authz_cli.rules.compile import (
        CompileError,
        DecompileError,
        ExpansionNames,
        compile_checked,
        compile_rules_lines,
        compile_rules_text,
        decompile,
        load_checked,
    )
    from kafka_authz_cli.rules.embedded import (
        MOUNTED,
        PLACEHOLDER,
        KroxyliciousYaml,
        YamlSyntaxError,
        may_hold_rules,
        read_kroxylicious_yaml,
    )
    from kafka_authz_cli.rules.evaluate import Principal, ProxyAuthorizer, RulesAction
    from kafka_authz_cli.rules.lint import Finding, LintResult, lint_text
    from kafka_authz_cli.rules.parser import RulesSyntaxError, parse_rules
    from kafka_authz_cli.rules.report import to_github, to_json, to_junit, to_sarif
    from kafka_authz_cli.rules.semantic_check import CheckedRules, check_rules
    from kafka_authz_cli.rules.simulate import RulesDecisionRow, decide_requests
    from kafka_authz_cli.rules.types import USER_CLASS, TypeRegistry
    from kafka_authz_cli.rules.types_file import load_types, parse_types

__getattr__, __all__ = lazy_face(__name__, {
    # lint and its codes
    "Finding": "lint", "LintResult": "lint", "lint_text": "lint",
    "CODES": "codes", "LintExample": "codes", "explain": "codes",
    "to_github": "report", "to_json": "report", "to_junit": "report", "to_sarif": "report",
    "SYNTAX_ERROR": "codes", "RULES_UNREADABLE": "codes", "RULES_NOT_HERE": "codes", "RELATIVE_ACL_FILE": "codes",
    # rules inside a proxy configuration, ConfigMap, KafkaProtocolFilter (a rules file is told by formats.is_rules)
    "read_kroxylicious_yaml": "embedded", "may_hold_rules": "embedded", "KroxyliciousYaml": "embedded",
    "YamlSyntaxError": "embedded", "PLACEHOLDER": "embedded", "MOUNTED": "embedded",
    # parse, check, decide
    "RulesSyntaxError": "parser", "parse_rules": "parser",
    "CheckedRules": "semantic_check", "check_rules": "semantic_check",
    "Principal": "evaluate", "ProxyAuthorizer": "evaluate", "RulesAction": "evaluate",
    "RulesDecisionRow": "simulate", "decide_requests": "simulate",
    # classes
    "TypeRegistry": "types", "USER_CLASS": "types", "load_types": "types_file", "parse_types": "types_file",
    # compile and decompile
    "CompileError": "compile", "DecompileError": "compile", "ExpansionNames": "compile",
    "compile_checked": "compile", "compile_rules_text": "compile", "compile_rules_lines": "compile", "decompile": "compile", "load_checked": "compile",
})
