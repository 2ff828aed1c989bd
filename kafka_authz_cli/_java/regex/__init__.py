"""``java.util.regex`` semantics on top of Python's ``re``.

Kafka's principal mapping rules are Java regexes applied with Java's ``Matcher``: ``matches()``,
``lookingAt()``, the ``find()`` loop behind ``replaceAll``/``replaceFirst`` and Java's replacement
syntax (``$n`` taking as many digits as form an existing group, ``${name}``, ``\\`` escapes). Python's
``re`` differs in many small ways (``.`` and ``$`` and line terminators, ``\\w`` and ``\\b`` being
Unicode, ``{`` as a literal, class unions and intersections, inline flags in the middle of a
pattern, case folding), so a Java pattern is *translated*: every construct is rewritten into a Python
form that matches exactly the same strings, with no Python flags left to interpret. What cannot be
translated faithfully (``\\G``, ``\\X``, Unicode scripts and blocks, the ``U`` flag, comments mode
subtleties aside) is refused with :class:`JavaRegexUnsupported` rather than approximated.

Semantics followed: JDK 17+ with the JDK 19+ ASCII ``\\b`` (consistent with ``\\w``). Case-insensitive
matching is ASCII-only unless ``(?u)`` is given, as in Java.

The package: ``charsets`` (code point sets, Unicode categories, case folding and their Python
rendering), ``translate`` (the Java grammar rewritten as Python source), ``atomic`` (captures inside
possessive quantifiers and atomic groups: where Python's answer is Java's), ``pattern`` (the compiled
pattern, Java's ``Matcher`` and replacement syntax) and ``errors``.

Pure: no I/O.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli._java.regex.errors import JavaRegexUnsupported, PatternSyntaxException
    from kafka_authz_cli._java.regex.pattern import JavaPattern, compile_java, replace_all
    from kafka_authz_cli._java.regex.translate import (
        CASE_INSENSITIVE,
        COMMENTS,
        DOTALL,
        MULTILINE,
        UNICODE_CASE,
        UNICODE_CHARACTER_CLASS,
        UNIX_LINES,
    )

__getattr__, __all__ = lazy_face(__name__, {
    "compile_java": "pattern", "JavaPattern": "pattern", "replace_all": "pattern",
    "PatternSyntaxException": "errors", "JavaRegexUnsupported": "errors",
    # Pattern's flags (compile_java's second argument)
    "UNIX_LINES": "translate", "CASE_INSENSITIVE": "translate", "COMMENTS": "translate", "MULTILINE": "translate",
    "DOTALL": "translate", "UNICODE_CASE": "translate", "UNICODE_CHARACTER_CLASS": "translate",
})
