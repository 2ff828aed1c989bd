"""The compiled pattern and Java's ``Matcher`` on it: ``matches``, ``lookingAt``, the ``find()`` loop,
``replaceAll``/``replaceFirst`` with Java's replacement syntax."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from kafka_authz_cli._java.lang import IllegalArgumentException, IndexOutOfBoundsException
from kafka_authz_cli._java.regex.errors import JavaRegexUnsupported
from kafka_authz_cli._java.regex.translate import Translator


@dataclass(frozen=True)
class JavaPattern:
    """A compiled Java regex: ``pattern()`` is the source, ``regex`` the equivalent Python pattern."""

    source: str
    regex: re.Pattern = field(compare=False)
    group_count: int = 0
    named_groups: dict = field(default_factory=dict, compare=False)
    #: groups inside possessive quantifiers and atomic groups (see atomic.py)
    atomic_groups: frozenset = field(default=frozenset(), compare=False)

    def __str__(self) -> str:  # Pattern.toString() is the source text
        return self.source

    def matches(self, text: str) -> re.Match | None:
        return self._run(self.regex.fullmatch, text)

    def looking_at(self, text: str) -> re.Match | None:
        return self._run(self.regex.match, text)

    def _run(self, method, text: str, *args) -> re.Match | None:
        try:
            return method(text, *args)
        except (SystemError, RecursionError) as exc:
            # The last resort at the regex boundary: CPython's engine failing inside a match (its
            # possessive repeat raised SystemError "The span of capturing group is wrong" before the
            # translation wrote possessives as atomic groups) is a one-line refusal, never a traceback.
            raise JavaRegexUnsupported(f"match: Python's regex engine failed ({type(exc).__name__}: {exc})",
                                       self.source, -1) from None

    def find_all(self, text: str):
        """The successive matches of Java's ``find()`` loop (an empty match moves on one character)."""
        first, last = -1, 0
        while True:
            nxt = last + 1 if last == first else last
            if nxt > len(text):
                return
            m = self._run(self.regex.search, text, nxt)
            if m is None:
                return
            if m.start() > nxt and any(m.group(g) is None for g in self.atomic_groups):
                # Java's find() would report what an earlier start position captured there.
                raise JavaRegexUnsupported("find() here (a group of a possessive quantifier or atomic group "
                                           "is unset, and Java keeps what an earlier start position captured)",
                                           self.source, -1)
            yield m
            first, last = m.start(), m.end()

    def find(self, text: str) -> re.Match | None:
        return next(self.find_all(text), None)

    def replace_all(self, text: str, replacement: str) -> str:
        """``Matcher.replaceAll``: every match replaced, Java's replacement syntax."""
        out: list[str] = []
        pos = 0
        found = False
        for m in self.find_all(text):
            found = True
            out.append(text[pos:m.start()])
            out.append(self.expand(m, replacement))
            pos = m.end()
        if not found:
            return text
        out.append(text[pos:])
        return "".join(out)

    def replace_first(self, text: str, replacement: str) -> str:
        m = self.find(text)
        if m is None:
            return text
        return text[:m.start()] + self.expand(m, replacement) + text[m.end():]

    def expand(self, m: re.Match, replacement: str) -> str:
        """``Matcher.appendExpandedReplacement`` for one match, with Java's exceptions."""
        out: list[str] = []
        cursor = 0
        n = len(replacement)
        while cursor < n:
            ch = replacement[cursor]
            if ch == "\\":
                cursor += 1
                if cursor == n:
                    raise IllegalArgumentException("character to be escaped is missing")
                out.append(replacement[cursor])
                cursor += 1
            elif ch == "$":
                ref, cursor = self._group_reference(replacement, cursor + 1)
                if ref > self.group_count:
                    raise IndexOutOfBoundsException(f"No group {ref}")
                value = m.group(ref)
                if value is not None:
                    out.append(value)
            else:
                out.append(ch)
                cursor += 1
        return "".join(out)

    def _group_reference(self, replacement: str, cursor: int) -> tuple[int, int]:
        """The group a ``$`` refers to (``${name}`` or ``$n``) and where the replacement goes on."""
        if cursor == len(replacement):
            raise IllegalArgumentException("Illegal group reference: group index is missing")
        if replacement[cursor] == "{":
            return self._named_reference(replacement, cursor + 1)
        return self._numbered_reference(replacement, cursor)

    def _named_reference(self, replacement: str, cursor: int) -> tuple[int, int]:
        """``${name}``, from after the ``{``."""
        n = len(replacement)
        name = []
        ch = "{"
        while cursor < n:
            ch = replacement[cursor]
            if ch.isascii() and ch.isalnum():
                name.append(ch)
                cursor += 1
            else:
                break
        if not name:
            raise IllegalArgumentException("named capturing group has 0 length name")
        if ch != "}":
            raise IllegalArgumentException("named capturing group is missing trailing '}'")
        gname = "".join(name)
        if gname[0].isdigit():
            raise IllegalArgumentException(f"capturing group name {{{gname}}} starts with digit character")
        if gname not in self.named_groups:
            raise IllegalArgumentException(f"No group with name {{{gname}}}")
        return self.named_groups[gname], cursor + 1

    def _numbered_reference(self, replacement: str, cursor: int) -> tuple[int, int]:
        """``$n``: the first digit always, more digits only while they name an existing group."""
        ref = ord(replacement[cursor]) - 48
        if not 0 <= ref <= 9:
            raise IllegalArgumentException("Illegal group reference")
        cursor += 1
        while cursor < len(replacement):
            d = ord(replacement[cursor]) - 48
            if not 0 <= d <= 9:
                break
            new = ref * 10 + d
            if self.group_count < new:
                break
            ref = new
            cursor += 1
        return ref, cursor


@lru_cache(maxsize=4096)
def compile_java(pattern: str, flags: int = 0) -> JavaPattern:
    """``Pattern.compile``: raises :class:`PatternSyntaxException` as Java would (or
    :class:`JavaRegexUnsupported` for the few constructs authz cannot reproduce)."""
    t = Translator(pattern, flags)
    try:
        src = t.translate()
        t.atomic.check(pattern)
        regex = re.compile(src)
    except re.error as exc:  # a construct Python's engine refuses (e.g. variable-width lookbehind)
        raise JavaRegexUnsupported(f"construct ({exc.msg})", pattern, -1) from None
    except (RecursionError, OverflowError) as exc:  # nesting deeper than the translator or re can take
        raise JavaRegexUnsupported(f"pattern (nested too deeply for Python: {type(exc).__name__})", pattern, -1
                                   ) from None
    return JavaPattern(pattern, regex, t.groups, dict(t.names), t.atomic.captured())


def replace_all(text: str, pattern: str, replacement: str) -> str:
    """``String.replaceAll(regex, replacement)``."""
    return compile_java(pattern).replace_all(text, replacement)
