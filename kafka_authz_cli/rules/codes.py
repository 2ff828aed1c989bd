"""`authz lint`'s finding codes (AZ...): one :class:`~kafka_authz_cli.codes.FindingCode` each.

Each code's ``example`` is a :class:`LintExample`: a rules file (and the ``--types`` document it
needs, if any) that lint reports with that code and no other (tests/rules/test_lint_codes.py runs
them all). The lint passes name the objects below, never the code strings; ``--explain``, the lint
help's code list and the report formats (SARIF rules) read :data:`CODES`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kafka_authz_cli.codes import CodeRegistry, FindingCode

_TOPIC = "from io.kroxylicious.filter.authorization import TopicResource as Topic;\n"


@dataclass(frozen=True)
class LintExample:
    """A rules file that ``authz lint`` reports with exactly one code."""

    rules: str
    #: The ``--types`` document the file needs (classes beyond the built-in ones), or None.
    types: dict[str, Any] | None = None
    #: Codes that cannot be kept apart from this one (their condition is part of its own).
    also: tuple[str, ...] = ()
    #: For the codes about where rules come from: a YAML configuration (proxy config, ConfigMap,
    #: KafkaProtocolFilter) linted instead of ``rules``.
    config: str | None = None

    def render(self) -> str:
        """The ``Example:`` block of ``--explain``: the file, indented (and its types document)."""
        out = "Example:\n" + _indented(self.config if self.config is not None else self.rules)
        if self.types is not None:
            out += "  with --types naming its classes:\n" + _indented(json.dumps(self.types) + "\n")
        if self.also:
            out += f"  (lint reports {', '.join(self.also)} there too)\n"
        return out


def _indented(text: str) -> str:
    return "".join(f"    {line}" if line.strip() else line for line in text.splitlines(keepends=True))


SYNTAX_ERROR = FindingCode(
    "AZ001", "syntax-error", "error", "The proxy's parser rejects the file.",
    "The proxy (ANTLR grammar AclRules.g4) refuses a file with any lexer or parser error and starts "
    "without loading it. Keywords are lower case only; statements must come in the order imports, deny "
    "rules, allow rules, `otherwise deny;`; `matching` is allowed on resource names only; a regex is "
    "written /.../, not quoted. authz reports the first error at the line and column the proxy reports.",
    LintExample(_TOPIC + 'allow User with name = "alice" READ Topic with name = "orders";\notherwise deny;\n'))

SEMANTIC_ERROR = FindingCode(
    "AZ002", "semantic-error", "error", "The proxy's build step rejects the file.",
    "After parsing, the proxy resolves every class a rule names, checks import aliases, `like` patterns "
    "(a '*' is only allowed last) and regexes (RE2 syntax). Any problem stops the file from loading; "
    "the proxy lists them all, authz too.",
    LintExample('allow User with name = "alice" to READ Topic with name = "orders";\notherwise deny;\n'))

BUILD_EXCEPTION = FindingCode(
    "AZ003", "build-exception", "error", "An exception aborts the proxy's build.",
    "Operation names are looked up case-sensitively with Enum.valueOf on the resource class: an unknown "
    "name (ALL, read, CONNECT on a Topic) throws IllegalArgumentException, which aborts loading and hides "
    "any other error. There is no ALL operation: use `*`.",
    LintExample(_TOPIC + 'allow User with name = "alice" to ALL Topic with name = "orders";\notherwise deny;\n'))

IGNORED_AFTER_OTHERWISE = FindingCode(
    "AZ101", "ignored-after-otherwise", "warning", "Content after `otherwise deny;` is ignored.",
    "The proxy's grammar ends at the first `otherwise deny;` (its `<EOF>` marker is silently ignored by "
    "ANTLR): every rule after it is never applied, without any error.",
    LintExample(_TOPIC + 'allow User with name = "alice" to READ Topic with name = "orders";\notherwise deny;\n'
                'allow User with name = "bob" to READ Topic with name = "orders";\n'))

BLOCK_COMMENT = FindingCode(
    "AZ102", "block-comment", "warning", "Block comments are fragile.",
    "A `/* ... */` comment without a '/' inside lexes as a REGEX token (same length, REGEX is declared "
    "first) and is a syntax error. This one works only because it contains a '/'. Prefer // comments "
    "(ending with a newline).",
    LintExample(_TOPIC + "/* owners: see https://wiki.example.com/kafka */\n"
                'allow User with name = "alice" to READ Topic with name = "orders";\notherwise deny;\n'))

BACKSLASH_STRIPPED = FindingCode(
    "AZ103", "backslash-stripped", "warning", "A backslash is stripped from a name or regex.",
    "The proxy runs replaceAll(\"\\\\\\\\(.)\", \"$1\") on `=`/`in` names and on regexes: every backslash "
    "escapes the next character, so \\n becomes n and /\\d+/ becomes the regex d+ (letters d). Write "
    "\\\\d in the file to get \\d.",
    LintExample(_TOPIC + 'allow User with name = "alice" to READ Topic with name = "orders\\.eu";\n'
                "otherwise deny;\n"))

PREFIX_FLOOR = FindingCode(
    "AZ104", "prefix-floor", "warning", "Overlapping `like` prefixes: the proxy consults only the closest one.",
    "Rules are stored in a sorted map and a prefix lookup takes the single closest key at or below the "
    "name (floorEntry). With `like \"payments-*\"` and `like \"payments-eu-*\"`, a name such as "
    "`payments-f` floors to `payments-eu-`, which does not match, and the broader rule is never tried: "
    "the first-match meaning the docs describe does not hold. The finding names a resource or principal "
    "that gets the surprising answer.",
    LintExample(_TOPIC + 'allow User with name = "alice" to READ Topic with name like "payments-*";\n'
                'allow User with name = "alice" to WRITE Topic with name like "payments-eu-*";\notherwise deny;\n'))

CROSS_TYPE_PREFIX = FindingCode(
    "AZ105", "cross-type-prefix", "warning", "A principal prefix rule leaks across principal types.",
    "The prefix lookup does not check the class of the key it finds: when no key of the principal's own "
    "class is at or below the lookup point, a prefix rule of another principal class (sorted by class "
    "name) can apply. The finding names a principal that is affected.",
    LintExample(_TOPIC + "from com.example import ServiceAccount;\n"
                'allow ServiceAccount with name like "svc-*" to READ Topic with name = "orders";\notherwise deny;\n',
                {"principal_types": [{"short": "ServiceAccount", "class": "com.example.ServiceAccount"}]},
                # A principal prefix is itself not expressible as a Kafka ACL (AZ109, info).
                also=("AZ109",)))

DENY_IMPLIES = FindingCode(
    "AZ106", "deny-implies", "info", "A deny rule also denies implied operations.",
    "The proxy expands implies() for deny rules too: `deny ... to READ` also denies DESCRIBE. Kafka's DENY "
    "ACLs do not follow implication, so the compiled ACLs need explicit DENY DESCRIBE entries (authz "
    "compile emits them).",
    LintExample(_TOPIC + 'deny User with name = "mallory" to READ Topic with name = "orders";\notherwise deny;\n'))

DUPLICATE_RULE = FindingCode(
    "AZ107", "duplicate-rule", "warning", "The same rule appears twice.",
    "Grants accumulate, so a duplicate changes nothing; it is usually a copy-paste slip.",
    LintExample(_TOPIC + 'allow User with name = "alice" to READ Topic with name = "orders";\n'
                'allow User with name = "alice" to READ Topic with name = "orders";\notherwise deny;\n'))

SHADOWED_RULE = FindingCode(
    "AZ108", "shadowed-rule", "warning", "An allow rule is entirely overruled by a deny rule.",
    "Deny rules always win. This allow rule grants nothing that a deny rule does not take away.",
    LintExample(_TOPIC + 'deny User with name = "alice" to DESCRIBE Topic with name *;\n'
                'allow User with name = "alice" to DESCRIBE Topic with name = "orders";\notherwise deny;\n'))

NOT_KAFKA_EXPRESSIBLE = FindingCode(
    "AZ109", "not-kafka-expressible", "info", "Kafka ACLs cannot express this construct.",
    "Kafka ACLs have literal and prefixed resource names, exact principals and User:*. Regex resource "
    "names and principal prefixes have no equivalent: `authz compile` refuses them unless "
    "--expand-against gives the names to expand them against.",
    LintExample(_TOPIC + 'allow User with name = "alice" to READ Topic with name matching /logs-[0-9]+/;\n'
                "otherwise deny;\n"))

UNKNOWN_TO_KAFKA = FindingCode(
    "AZ110", "unknown-to-kafka", "info", "A resource type or operation Kafka does not know.",
    "The resource class has no Kafka resource type, or the operation (e.g. CONNECT) is proxy-only: it "
    "cannot be compiled to a Kafka ACL.",
    LintExample("from io.kroxylicious.filter.authorization import ClusterResource as Cluster;\n"
                'allow User with name = "alice" to CONNECT Cluster with name *;\notherwise deny;\n'))

MATCHES_NOBODY = FindingCode(
    "AZ111", "matches-nobody", "warning", "The rule's principal type matches no principal.",
    "The proxy compares principal classes exactly (getClass()). The Principal interface itself is never "
    "the class of a real principal, so this rule never applies.",
    LintExample(_TOPIC + "from io.kroxylicious.proxy.authentication import Principal;\n"
                'allow Principal with name = "alice" to READ Topic with name = "orders";\notherwise deny;\n'))

_FILTER = ("filterDefinitions:\n  - name: authz\n    type: Authorization\n    config:\n"
           "      authorizer: AclAuthorizerService\n      authorizerConfig:\n")

RULES_UNREADABLE = FindingCode(
    "AZ004", "rules-unreadable", "error", "The proxy (or the operator) cannot get to the rules.",
    "An Authorization filter's configuration the proxy refuses before reading any rule: no `aclFile` "
    "(AclAuthorizerService opens authorizerConfig.aclFile), a property AclAuthorizerConfig does not have "
    "(the proxy's ConfigParser fails on unknown properties, so rules written inline are refused, not read), "
    "a `${configmap:NAME:KEY}` whose ConfigMap has no such key (the mounted file is missing), or a "
    "placeholder with other text around it (the operator's SecureConfigInterpolator refuses it).",
    LintExample("", config=_FILTER + "        rules: |\n          otherwise deny;\n"))

RULES_NOT_HERE = FindingCode(
    "AZ112", "rules-not-here", "warning", "The rules a configuration names are not among the files given.",
    "The aclFile does not exist on this machine, or names a ConfigMap or Secret that none of the given "
    "files holds: those rules were not linted. Give lint the rules file, or the ConfigMap's YAML too.",
    LintExample("", config=_FILTER + "        aclFile: /nonexistent/acl-rules.txt\n"))

RELATIVE_ACL_FILE = FindingCode(
    "AZ113", "relative-acl-file", "info", "A relative aclFile is opened from the proxy's working directory.",
    "AclAuthorizerService opens Path.of(aclFile): a relative path is resolved against the directory the "
    "proxy was started in, not the configuration file's. authz looks in its own working directory first, "
    "then next to the configuration, and says which file it linted.",
    LintExample("", config=_FILTER + "        aclFile: acl-rules.txt\n", also=("AZ112",)))

#: Every lint code, in order: AZ0xx the proxy refuses the file, AZ1xx it loads it.
CODES = CodeRegistry("AZ", [
    SYNTAX_ERROR, SEMANTIC_ERROR, BUILD_EXCEPTION, RULES_UNREADABLE, IGNORED_AFTER_OTHERWISE, BLOCK_COMMENT, BACKSLASH_STRIPPED,
    PREFIX_FLOOR, CROSS_TYPE_PREFIX, DENY_IMPLIES, DUPLICATE_RULE, SHADOWED_RULE, NOT_KAFKA_EXPRESSIBLE,
    UNKNOWN_TO_KAFKA, MATCHES_NOBODY, RULES_NOT_HERE, RELATIVE_ACL_FILE,
])


def explain(code: str) -> str:
    """``authz lint --explain CODE``: the code's text, then its example; ``KeyError`` for an unknown code."""
    finding_code = CODES[code]
    return finding_code.explain() + "\n" + finding_code.example.render()
