"""Is this text a Kroxylicious rules file? Decided by content, as the grammar starts, never by name.

Kroxylicious's own docs call the file ``acl-rules.txt``; the proxy reads whatever ``aclFile`` names.
So a directory is linted file by file on what each file holds. The grammar (AclRules.g4) is
``rule: importStmt* denyRule* allowRule* endRule``: a rules file's first statement is ``from ...
import ...;``, ``deny``/``allow <Type> with ...`` or ``otherwise deny;``, after any comments and
whitespace the proxy's lexer skips. A file is taken as rules when that first statement is
recognisable (keywords compared case-insensitively: ``Allow User with`` is a rules file the proxy
will refuse, and lint must say so), or when a line starts ``otherwise deny;`` (a rules file whose
first statement is broken). Python's ``from a import b`` has no ``;``; a ``.properties`` key
``allow.everyone.if.no.acl.found`` is followed by ``.``, not a type and ``with``.

:func:`looks_like` names what a file that is not rules seems to be, for the skip list and for a
file given explicitly that the proxy would refuse.
"""

from __future__ import annotations

import re

# Whitespace, line and block comments: what the lexer skips. Possessive: linear on any input.
_SKIPPED = r"(?:\s|//[^\n]*\n|/\*.*?\*/)*+"
_IDENT = r"[A-Za-z][A-Za-z0-9_]*"
_FIRST_STATEMENT = re.compile(
    "\ufeff?" + _SKIPPED + r"(?:"
    rf"from\s+{_IDENT}(?:\s*\.\s*{_IDENT})*\s+import\s+{_IDENT}(?:\s+as\s+{_IDENT})?"
    rf"(?:\s*,\s*{_IDENT}(?:\s+as\s+{_IDENT})?)*\s*;"
    rf"|(?:allow|deny)\s+{_IDENT}\s+with\b"
    r"|otherwise\s+deny\s*;)",
    re.IGNORECASE | re.DOTALL)
_END_LINE = re.compile(r"^otherwise[ \t]+deny[ \t]*;", re.MULTILINE | re.IGNORECASE)

#: How much of a file decides: a first statement that long is already unusual.
SNIFF_CHARS = 64 * 1024


def is_rules(text: str) -> bool:
    """Does this text read as a Kroxylicious rules file (valid or not)?"""
    head = text[:SNIFF_CHARS]
    return bool(_FIRST_STATEMENT.match(head) or _END_LINE.search(text))


_SHAPES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"\A\s*[\[{]"), "JSON"),
    (re.compile(r"^\s*ACLs for (?:resource|principal) `", re.M), "kafka-acls output"),
    (re.compile(r"^(?:filterDefinitions|virtualClusters|defaultFilters|management)\s*:", re.M),
     "a Kroxylicious proxy configuration"),
    (re.compile(r"^(?:apiVersion|kind|metadata|spec|data)\s*:", re.M), "a Kubernetes resource"),
    (re.compile(r"^---\s*$", re.M), "a YAML document"),
    (re.compile(r"^\s*(?:KafkaClient|KafkaServer|Client)\s*\{", re.M), "a JAAS configuration"),
    (re.compile(r"^\s*[A-Za-z0-9_.-]+\.[A-Za-z0-9_.-]+\s*[=:]", re.M), "a Java .properties file"),
    (re.compile(r"\A\s*<"), "XML or HTML"),
    (re.compile(r"^\s*(?:import|from)\s+[\w.]+(?:\s+import\s+[\w., ]+)?\s*$", re.M), "source code"),
    (re.compile(r"^\s*#", re.M), "a file with # comments (shell, properties or YAML)"),
]


_KIND = re.compile(r"^kind:\s*[\"']?([A-Za-z]+)", re.M)


def looks_like(text: str) -> str | None:
    """What a text that is not a rules file seems to be (``None`` when nothing fits)."""
    head = text[:SNIFF_CHARS].lstrip("\ufeff")
    if not head.strip():
        return "an empty file"
    if "\x00" in head:
        return "a binary file"
    for pattern, what in _SHAPES:
        if pattern.search(head):
            kinds = list(dict.fromkeys(_KIND.findall(head))) if what == "a Kubernetes resource" else []
            if len(kinds) == 1:
                return f"a Kubernetes {kinds[0]} resource"
            return f"Kubernetes {', '.join(kinds)} resources" if kinds else what
    return None
