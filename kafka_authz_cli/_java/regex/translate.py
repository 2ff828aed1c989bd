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

Pure: no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from kafka_authz_cli._java.lang import (
    IllegalArgumentException,
    IndexOutOfBoundsException,
)

MAX_CP = 0x10FFFF

# -- errors ----------------------------------------------------------------------------------------


class PatternSyntaxException(IllegalArgumentException):
    """``java.util.regex.PatternSyntaxException``: description, pattern and index."""

    java_class = "java.util.regex.PatternSyntaxException"

    def __init__(self, description: str, pattern: str, index: int):
        self.description = description
        self.pattern = pattern
        self.index = index
        msg = description
        if index >= 0:
            msg += f" near index {index}"
        msg += "\n" + pattern
        if 0 <= index < len(pattern):
            msg += "\n" + " " * index + "^"
        super().__init__(msg)

    def one_line(self) -> str:
        near = f" near index {self.index}" if self.index >= 0 else ""
        return f"{self.description}{near} in {self.pattern!r}"


class JavaRegexUnsupported(Exception):
    """A valid Java construct authz cannot reproduce exactly (refused rather than approximated)."""

    def __init__(self, what: str, pattern: str, index: int):
        self.what = what
        self.pattern = pattern
        self.index = index
        super().__init__(f"authz cannot reproduce Java's {what} (at index {index} of {pattern!r}) exactly")


# -- code point sets -------------------------------------------------------------------------------

Ranges = tuple[tuple[int, int], ...]


def _norm(ranges) -> Ranges:
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if lo > hi:
            continue
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((a, b) for a, b in out)


def _union(*sets: Ranges) -> Ranges:
    return _norm([r for s in sets for r in s])


def _complement(s: Ranges) -> Ranges:
    out, prev = [], 0
    for lo, hi in s:
        if lo > prev:
            out.append((prev, lo - 1))
        prev = hi + 1
    if prev <= MAX_CP:
        out.append((prev, MAX_CP))
    return tuple(out)


def _intersect(a: Ranges, b: Ranges) -> Ranges:
    return _complement(_union(_complement(a), _complement(b)))


def _chars(s: str) -> Ranges:
    return _norm([(ord(c), ord(c)) for c in s])


ASCII_DIGIT = ((0x30, 0x39),)
ASCII_WORD = _norm([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
ASCII_SPACE = _chars(" \t\n\x0b\f\r")
H_SPACE = _norm([(0x20, 0x20), (0x09, 0x09), (0xA0, 0xA0), (0x1680, 0x1680), (0x180E, 0x180E),
                 (0x2000, 0x200A), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000)])
V_SPACE = _chars("\n\x0b\f\r\x85\u2028\u2029")
LINE_TERMINATORS = _chars("\n\r\x85\u2028\u2029")

POSIX = {
    "Lower": ((0x61, 0x7A),),
    "Upper": ((0x41, 0x5A),),
    "ASCII": ((0x00, 0x7F),),
    "Alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "Digit": ASCII_DIGIT,
    "Alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "Punct": _chars("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "Graph": ((0x21, 0x7E),),
    "Print": ((0x20, 0x7E),),
    "Blank": _chars(" \t"),
    "Cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "XDigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
    "Space": ASCII_SPACE,
}


@lru_cache(maxsize=None)
def _general_category(name: str) -> Ranges:
    """Code points whose Unicode general category is ``name`` (one letter = the whole group)."""
    ranges: list[tuple[int, int]] = []
    start = None
    for cp in range(MAX_CP + 1):
        cat = unicodedata.category(chr(cp))
        hit = cat == name if len(name) == 2 else cat[0] == name
        if hit and start is None:
            start = cp
        elif not hit and start is not None:
            ranges.append((start, cp - 1))
            start = None
    if start is not None:
        ranges.append((start, MAX_CP))
    return tuple(ranges)


_CATEGORIES = {"L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd",
               "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf",
               "Cs", "Co", "Cn"}


def _case_variants_unicode(cp: int) -> set[int]:
    # Java's Unicode case-insensitive single: toUpperCase and toLowerCase(toUpperCase) of each side.
    c = chr(cp)
    out = {cp}
    for v in (c.upper(), c.lower(), c.upper().lower(), c.lower().upper()):
        if len(v) == 1:
            out.add(ord(v))
    return out


@lru_cache(maxsize=1)
def _unicode_fold_table() -> dict[int, frozenset[int]]:
    """Code point -> every code point Java's Unicode case-insensitive matching treats as equal."""
    classes: dict[int, set[int]] = {}
    for cp in range(MAX_CP + 1):
        variants = _case_variants_unicode(cp)
        if len(variants) > 1:
            merged = set(variants)
            for v in variants:
                merged |= classes.get(v, set())
            for v in merged:
                classes[v] = merged
    return {k: frozenset(v) for k, v in classes.items()}


def _fold(ranges: Ranges, unicode_case: bool) -> Ranges:
    """Add the case variants Java's CASE_INSENSITIVE (and UNICODE_CASE) flags match."""
    extra: list[tuple[int, int]] = []
    for lo, hi in ranges:
        # ASCII letters always fold.
        a_lo, a_hi = max(lo, 0x41), min(hi, 0x5A)
        if a_lo <= a_hi:
            extra.append((a_lo + 32, a_hi + 32))
        a_lo, a_hi = max(lo, 0x61), min(hi, 0x7A)
        if a_lo <= a_hi:
            extra.append((a_lo - 32, a_hi - 32))
    if unicode_case:
        table = _unicode_fold_table()
        for lo, hi in ranges:
            if hi - lo > 0x3000:
                for cp, variants in table.items():
                    if lo <= cp <= hi:
                        extra.extend((v, v) for v in variants)
            else:
                for cp in range(lo, hi + 1):
                    for v in table.get(cp, ()):
                        extra.append((v, v))
    return _union(ranges, tuple(extra))


def _py_char(cp: int) -> str:
    c = chr(cp)
    if c.isalnum() and cp < 0x80:
        return c
    if cp < 0x20 or cp == 0x7F or 0xD800 <= cp <= 0xDFFF:
        return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"
    if cp < 0x80:
        return "\\" + c
    if cp > 0xFFFF:
        return f"\\U{cp:08x}"
    return f"\\u{cp:04x}"


def _py_class(ranges: Ranges) -> str:
    if not ranges:
        return "(?!)"
    if ranges == ((0, MAX_CP),):
        return "[\\x00-\\U0010ffff]"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _py_char(ranges[0][0])
    comp = _complement(ranges)
    if len(comp) < len(ranges):
        return "[^" + "".join(_py_range(r) for r in comp) + "]"
    return "[" + "".join(_py_range(r) for r in ranges) + "]"


def _py_range(r: tuple[int, int]) -> str:
    lo, hi = r
    if lo == hi:
        return _py_char(lo)
    if hi == lo + 1:
        return _py_char(lo) + _py_char(hi)
    return f"{_py_char(lo)}-{_py_char(hi)}"


# -- translation -----------------------------------------------------------------------------------

FLAG_BITS = {"d": 0x01, "i": 0x02, "x": 0x04, "m": 0x08, "s": 0x20, "u": 0x40, "U": 0x100}
UNIX_LINES, CASE_INSENSITIVE, COMMENTS, MULTILINE, DOTALL, UNICODE_CASE, UNICODE_CHARACTER_CLASS = (
    0x01, 0x02, 0x04, 0x08, 0x20, 0x40, 0x100)


@dataclass
class _Node:
    """A translated atom: Python source, and whether it may take a quantifier as is."""

    src: str
    atomic: bool = True


class _Translator:
    def __init__(self, pattern: str, flags: int = 0):
        self.p = pattern
        self.i = 0
        self.flags = flags
        self.groups = 0
        self.open_groups: list[int] = []
        self.names: dict[str, int] = {}

    # -- helpers
    def error(self, desc: str, index: int | None = None) -> PatternSyntaxException:
        return PatternSyntaxException(desc, self.p, self.i - 1 if index is None else index)

    def unsupported(self, what: str, index: int | None = None) -> JavaRegexUnsupported:
        return JavaRegexUnsupported(what, self.p, self.i if index is None else index)

    def peek(self) -> str | None:
        return self.p[self.i] if self.i < len(self.p) else None

    def has(self, flag: int) -> bool:
        return bool(self.flags & flag)

    def skip_comments(self) -> None:
        if not self.has(COMMENTS):
            return
        while self.i < len(self.p):
            c = self.p[self.i]
            if c in " \t\n\x0b\f\r":
                self.i += 1
            elif c == "#":
                while self.i < len(self.p) and self.p[self.i] not in "\n\r\x85\u2028\u2029":
                    self.i += 1
            else:
                break

    # -- grammar
    def translate(self) -> str:
        out = self.expr()
        if self.i < len(self.p):
            if self.p[self.i] == ")":
                raise self.error("Unmatched closing ')'", self.i - 1)
            raise self.error("Unexpected internal error")
        return out

    def expr(self) -> str:
        alts = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            alts.append(self.sequence())
        return "|".join(alts)

    def sequence(self) -> str:
        parts: list[str] = []
        while True:
            self.skip_comments()
            c = self.peek()
            if c is None or c in "|)":
                break
            node = self.atom()
            if node is None:  # a flag group like (?i): nothing to emit
                continue
            parts.append(self.closure(node))
        return "".join(parts)

    def closure(self, node: _Node) -> str:
        self.skip_comments()
        c = self.peek()
        if c is None or c not in "*+?{":
            return node.src
        start = self.i
        if c == "{":
            q = self.counted()
        else:
            self.i += 1
            q = c
        mod = self.peek()
        if mod in ("?", "+"):
            self.i += 1
            q += mod
        self.skip_comments()
        nxt = self.peek()
        if nxt is not None and nxt in "*+?":
            raise self.error(f"Dangling meta character '{nxt}'", self.i)
        if nxt == "{" and self._looks_counted(self.i):
            raise self.error("Dangling meta character '{'", self.i)
        del start
        src = node.src if node.atomic else f"(?:{node.src})"
        return src + q

    def _looks_counted(self, j: int) -> bool:
        return j + 1 < len(self.p) and self.p[j + 1].isdigit()

    def counted(self) -> str:
        # at '{'
        open_at = self.i
        self.i += 1
        c = self.peek()
        if c is None or not ("0" <= c <= "9"):
            raise self.error("Illegal repetition", open_at)
        lo = self._number()
        hi: int | None = lo
        if self.peek() == ",":
            self.i += 1
            hi = self._number() if (self.peek() or "").isdigit() else None
        if self.peek() != "}":
            raise self.error("Unclosed counted closure", self.i)
        self.i += 1
        if hi is not None and hi < lo:
            raise self.error("Illegal repetition range", open_at)
        if lo > 2**31 - 1 or (hi is not None and hi > 2**31 - 1):
            raise self.error("Illegal repetition", open_at)
        if hi == lo:
            return f"{{{lo}}}"
        return f"{{{lo},{'' if hi is None else hi}}}"

    def _number(self) -> int:
        start = self.i
        while (self.peek() or "").isdigit() and "0" <= self.peek() <= "9":  # type: ignore[operator]
            self.i += 1
        return int(self.p[start:self.i])

    def atom(self) -> _Node | None:
        c = self.p[self.i]
        if c == "(":
            return self.group()
        if c == "[":
            return _Node(_py_class(self.char_class()))
        if c == "\\":
            return self.escape()
        if c == ".":
            self.i += 1
            if self.has(DOTALL):
                return _Node(_py_class(((0, MAX_CP),)))
            if self.has(UNIX_LINES):
                return _Node("[^\\n]")
            return _Node(_py_class(_complement(LINE_TERMINATORS)))
        if c == "^":
            self.i += 1
            return _Node(self._caret(), atomic=False)
        if c == "$":
            self.i += 1
            return _Node(self._dollar(self.has(MULTILINE)), atomic=False)
        if c in "*+?":
            raise self.error(f"Dangling meta character '{c}'", self.i)
        if c == "{":
            raise self.error("Illegal repetition", self.i)
        return self.literal_run()

    def literal_run(self) -> _Node:
        # One literal character at a time: a quantifier binds to the last character only.
        cp = ord(self.p[self.i])
        self.i += 1
        return self.literal(cp)

    def literal(self, cp: int) -> _Node:
        if self.has(CASE_INSENSITIVE):
            return _Node(_py_class(_fold(((cp, cp),), self.has(UNICODE_CASE))))
        return _Node(_py_char(cp))

    def _caret(self) -> str:
        if not self.has(MULTILINE):
            return "\\A"
        if self.has(UNIX_LINES):
            return "(?:\\A|(?<=\\n))(?=[\\x00-\\U0010ffff])"
        return "(?:\\A|(?<=[\\n\\x85\\u2028\\u2029])|(?<=\\r)(?!\\n))(?=[\\x00-\\U0010ffff])"

    def _dollar(self, multiline: bool) -> str:
        if self.has(UNIX_LINES):
            return "(?=\\n|\\Z)" if multiline else "(?=\\n?\\Z)"
        if multiline:
            return "(?=[\\r\\x85\\u2028\\u2029]|(?<!\\r)\\n|\\Z)"
        return "(?=(?:\\r\\n|(?<!\\r)\\n|[\\r\\x85\\u2028\\u2029])?\\Z)"

    # -- groups
    def group(self) -> _Node | None:
        open_at = self.i
        self.i += 1
        saved = self.flags
        if self.peek() == "?":
            self.i += 1
            c = self.peek()
            if c == ":":
                self.i += 1
                head = "(?:"
            elif c == "=":
                self.i += 1
                head = "(?="
            elif c == "!":
                self.i += 1
                head = "(?!"
            elif c == ">":
                self.i += 1
                head = "(?>"
            elif c == "<":
                self.i += 1
                c2 = self.peek()
                if c2 == "=":
                    self.i += 1
                    head = "(?<="
                elif c2 == "!":
                    self.i += 1
                    head = "(?<!"
                else:
                    name = self.group_name()
                    self.groups += 1
                    if name in self.names:
                        raise self.error(f"Named capturing group <{name}> is already defined")
                    self.names[name] = self.groups
                    self.open_groups.append(self.groups)
                    head = f"(?P<{name}>"
            elif c is not None and (c in FLAG_BITS or c == "-"):
                self.parse_flags()
                c = self.peek()
                if c == ")":
                    self.i += 1
                    return None  # flags apply to the rest of the enclosing group
                if c != ":":
                    raise self.error("Unknown inline modifier", self.i)
                self.i += 1
                body = self.expr()
                self._close(open_at)
                self.flags = saved
                return _Node(f"(?:{body})")
            else:
                raise self.error("Unknown inline modifier", self.i)
            body = self.expr()
            self._close(open_at)
            if head.startswith("(?P<"):
                self.open_groups.pop()
            self.flags = saved
            return _Node(head + body + ")")
        self.groups += 1
        self.open_groups.append(self.groups)
        body = self.expr()
        self._close(open_at)
        self.open_groups.pop()
        self.flags = saved
        return _Node(f"({body})")

    def _close(self, open_at: int) -> None:
        if self.peek() != ")":
            raise self.error("Unclosed group", len(self.p))
        self.i += 1

    def group_name(self) -> str:
        start = self.i
        c = self.peek()
        if c is None or not (c.isascii() and c.isalpha()):
            raise self.error("capturing group name does not start with a Latin letter", self.i)
        while (self.peek() or "") .isascii() and (self.peek() or "").isalnum():
            self.i += 1
        if self.peek() != ">":
            raise self.error("named capturing group is missing trailing '>'", self.i)
        name = self.p[start:self.i]
        self.i += 1
        return name

    def parse_flags(self) -> None:
        on = True
        while True:
            c = self.peek()
            if c == "-":
                on = False
                self.i += 1
                continue
            if c not in FLAG_BITS:
                return
            bit = FLAG_BITS[c]
            if bit == UNICODE_CHARACTER_CLASS and on:
                raise self.unsupported("(?U) UNICODE_CHARACTER_CLASS flag")
            self.flags = (self.flags | bit) if on else (self.flags & ~bit)
            self.i += 1

    # -- escapes
    def escape(self) -> _Node:
        at = self.i
        self.i += 1
        c = self.peek()
        if c is None:
            raise self.error("Unexpected internal error", len(self.p))
        self.i += 1
        if "1" <= c <= "9":
            return self.backref(ord(c) - 48)
        if c == "k":
            if self.peek() != "<":
                raise self.error("\\k is not followed by '<' for named capturing group", self.i)
            self.i += 1
            name = self.group_name()
            if name not in self.names:
                raise self.error(f"named capturing group <{name}> does not exist", self.i - 1)
            return self._backref_node(self.names[name])
        if c == "Q":
            end = self.p.find("\\E", self.i)
            text = self.p[self.i:] if end < 0 else self.p[self.i:end]
            self.i = len(self.p) if end < 0 else end + 2
            if not text:
                return _Node("", atomic=False)
            nodes = [self.literal(ord(ch)).src for ch in text]
            # A quantifier after \Q..\E binds to the last character, as in Java.
            return _Node("".join(nodes), atomic=len(nodes) == 1)
        if c == "b":
            if self.peek() == "{":
                raise self.unsupported("\\b{g} grapheme boundary", at)
            w = _py_class(ASCII_WORD)
            return _Node(f"(?:(?<={w})(?!{w})|(?<!{w})(?={w}))", atomic=False)
        if c == "B":
            w = _py_class(ASCII_WORD)
            return _Node(f"(?:(?<={w})(?={w})|(?<!{w})(?!{w}))", atomic=False)
        if c == "A":
            return _Node("\\A", atomic=False)
        if c == "z":
            return _Node("\\Z", atomic=False)
        if c == "Z":
            return _Node(self._dollar(False), atomic=False)
        if c == "G":
            raise self.unsupported("\\G (end of previous match)", at)
        if c == "X":
            raise self.unsupported("\\X (grapheme cluster)", at)
        if c == "R":
            return _Node("(?>\\r\\n|" + _py_class(V_SPACE) + ")")
        cls = self.class_escape(c, at)
        if cls is not None:
            return _Node(_py_class(cls))
        cp = self.char_escape(c, at)
        return self.literal(cp)

    def backref(self, num: int) -> _Node:
        # Java: \1..\9 always a reference; more digits only while they name an existing group.
        while (self.peek() or "").isdigit() and "0" <= self.peek() <= "9":  # type: ignore[operator]
            new = num * 10 + (ord(self.p[self.i]) - 48)
            if self.groups < new:
                break
            num = new
            self.i += 1
        return self._backref_node(num)

    def _backref_node(self, num: int) -> _Node:
        if num > self.groups:
            return _Node("(?!)")  # a group that does not exist never matched: the reference fails
        if num in self.open_groups:
            raise self.unsupported("back reference to a group from inside it", self.i)
        if self.has(CASE_INSENSITIVE):
            scope = "i" if self.has(UNICODE_CASE) else "ai"
            return _Node(f"(?{scope}:\\{num})")
        return _Node(f"(?:\\{num})")

    def class_escape(self, c: str, at: int) -> Ranges | None:
        """Predefined classes (``\\d`` ``\\p{..}`` ...) as code point sets, or None for other escapes."""
        table = {"d": ASCII_DIGIT, "w": ASCII_WORD, "s": ASCII_SPACE, "h": H_SPACE, "v": V_SPACE}
        if c in table:
            return table[c]
        if c.lower() in table and c.isupper():
            return _complement(table[c.lower()])
        if c in "pP":
            name = self.prop_name(at)
            ranges = self.property(name, at)
            return _complement(ranges) if c == "P" else ranges
        return None

    def prop_name(self, at: int) -> str:
        c = self.peek()
        if c is None:
            raise self.error("Illegal character property", self.i)
        if c != "{":
            self.i += 1
            return c
        end = self.p.find("}", self.i)
        if end < 0:
            raise self.error("Unclosed character family", len(self.p))
        name = self.p[self.i + 1:end]
        self.i = end + 1
        if not name:
            raise self.error("Empty character family", self.i - 1)
        return name

    def property(self, name: str, at: int) -> Ranges:
        base = name
        if "=" in name:
            key, _, value = name.partition("=")
            if key in ("gc", "general_category"):
                base = value
            else:
                raise self.unsupported(f"\\p{{{name}}} (Unicode script or block)", at)
        elif name.startswith("Is"):
            base = name[2:]
        if name in POSIX:
            ranges = POSIX[name]
            if self.has(CASE_INSENSITIVE) and name in ("Lower", "Upper"):
                ranges = POSIX["Alpha"]
            return ranges
        if base in _CATEGORIES:
            return _general_category(base)
        if base == "LC":
            return _union(_general_category("Lu"), _general_category("Ll"), _general_category("Lt"))
        if name.startswith(("java", "In", "Is")) or "=" in name:
            raise self.unsupported(f"\\p{{{name}}}", at)
        raise self.error(f"Unknown character property name {{{name}}}", self.i - 1)

    def char_escape(self, c: str, at: int) -> int:
        simple = {"t": 0x09, "n": 0x0A, "r": 0x0D, "f": 0x0C, "a": 0x07, "e": 0x1B}
        if c in simple:
            return simple[c]
        if c == "0":
            digits = ""
            while len(digits) < 3 and (self.peek() or "") in "01234567" and self.peek() is not None:
                if len(digits) == 2 and digits[0] > "3":
                    break
                digits += self.p[self.i]
                self.i += 1
            if not digits:
                raise self.error("Illegal octal escape sequence", self.i - 1)
            return int(digits, 8)
        if c == "x":
            if self.peek() == "{":
                end = self.p.find("}", self.i)
                text = self.p[self.i + 1:end] if end > 0 else ""
                if end < 0 or not text or not re.fullmatch(r"[0-9a-fA-F]+", text):
                    raise self.error("Unclosed hexadecimal escape sequence" if end < 0 else
                                     "Illegal hexadecimal escape sequence", self.i)
                self.i = end + 1
                value = int(text, 16)
                if value > MAX_CP:
                    raise self.error("Hexadecimal codepoint is too big", self.i - 1)
                return value
            text = self.p[self.i:self.i + 2]
            if len(text) < 2 or not re.fullmatch(r"[0-9a-fA-F]{2}", text):
                raise self.error("Illegal hexadecimal escape sequence", self.i)
            self.i += 2
            return int(text, 16)
        if c == "u":
            text = self.p[self.i:self.i + 4]
            if len(text) < 4 or not re.fullmatch(r"[0-9a-fA-F]{4}", text):
                raise self.error("Illegal Unicode escape sequence", self.i)
            self.i += 4
            value = int(text, 16)
            # A surrogate pair written as two \\u escapes is one code point.
            if 0xD800 <= value <= 0xDBFF and self.p[self.i:self.i + 2] == "\\u":
                low_text = self.p[self.i + 2:self.i + 6]
                if re.fullmatch(r"[0-9a-fA-F]{4}", low_text) and 0xDC00 <= int(low_text, 16) <= 0xDFFF:
                    self.i += 6
                    return 0x10000 + ((value - 0xD800) << 10) + (int(low_text, 16) - 0xDC00)
            return value
        if c == "c":
            if self.peek() is None:
                raise self.error("Illegal control escape sequence", self.i)
            ch = self.p[self.i]
            self.i += 1
            return ord(ch) ^ 64
        if c == "N":
            raise self.unsupported("\\N{name}", at)
        if c.isascii() and c.isalpha():
            raise self.error("Illegal/unsupported escape sequence", self.i - 1)
        return ord(c)

    # -- character classes
    def char_class(self) -> Ranges:
        """``[...]`` with unions, ``&&`` intersections and nested classes, as a code point set."""
        open_at = self.i
        self.i += 1
        negate = False
        if self.peek() == "^":
            negate = True
            self.i += 1
        result: Ranges | None = None  # the current intersection operand being built
        acc: Ranges = ()
        first = True
        while True:
            if self.has(COMMENTS):
                while (self.peek() or "x") in " \t\n\x0b\f\r":
                    self.i += 1
            c = self.peek()
            if c is None:
                raise self.error("Unclosed character class", len(self.p) - 1)
            if c == "]" and not first:
                self.i += 1
                break
            if c == "[":
                acc = _union(acc, self.char_class())
                first = False
                continue
            if c == "&" and self.p[self.i:self.i + 2] == "&&":
                self.i += 2
                left = acc
                result = left if result is None else _intersect(result, left)
                acc = ()
                first = False
                # An empty right operand (e.g. "[a&&]") leaves the left side unchanged in Java.
                if self.peek() == "]":
                    acc = result
                    result = None
                continue
            first = False
            acc = _union(acc, self.class_item())
        if result is not None:
            acc = _intersect(result, acc)
        if negate:
            acc = _complement(acc)
        del open_at
        return acc

    def class_item(self) -> Ranges:
        start_cp = self.class_char()
        if isinstance(start_cp, tuple):
            return start_cp
        if self.peek() == "-" and self.i + 1 < len(self.p) and self.p[self.i + 1] not in "]":
            if self.p[self.i + 1] == "[":
                # "a-[" : the '-' is a literal, the '[' starts a nested class.
                self.i += 1
                return self._single(start_cp) + ((0x2D, 0x2D),)
            dash_at = self.i
            self.i += 1
            end_cp = self.class_char()
            if isinstance(end_cp, tuple):
                raise self.error("Illegal character range", dash_at)
            if end_cp < start_cp:
                raise self.error("Illegal character range", self.i - 1)
            return self._range(start_cp, end_cp)
        return self._single(start_cp)

    def _single(self, cp: int) -> Ranges:
        if self.has(CASE_INSENSITIVE):
            return _fold(((cp, cp),), self.has(UNICODE_CASE))
        return ((cp, cp),)

    def _range(self, lo: int, hi: int) -> Ranges:
        if self.has(CASE_INSENSITIVE):
            return _fold(((lo, hi),), self.has(UNICODE_CASE))
        return ((lo, hi),)

    def class_char(self) -> int | Ranges:
        c = self.p[self.i]
        if c != "\\":
            self.i += 1
            return ord(c)
        at = self.i
        self.i += 1
        c = self.peek()
        if c is None:
            raise self.error("Unclosed character class", len(self.p) - 1)
        self.i += 1
        if c == "Q":
            end = self.p.find("\\E", self.i)
            text = self.p[self.i:] if end < 0 else self.p[self.i:end]
            self.i = len(self.p) if end < 0 else end + 2
            ranges: Ranges = ()
            for ch in text:
                ranges = _union(ranges, self._single(ord(ch)))
            return ranges
        if "1" <= c <= "9" or c in "bBAzZGXRk":
            raise self.error("Illegal/unsupported escape sequence", self.i - 1)
        cls = self.class_escape(c, at)
        if cls is not None:
            return cls
        return self.char_escape(c, at)


# -- compiled pattern and matcher ------------------------------------------------------------------


@dataclass(frozen=True)
class JavaPattern:
    """A compiled Java regex: ``pattern()`` is the source, ``regex`` the equivalent Python pattern."""

    source: str
    regex: re.Pattern = field(compare=False)
    group_count: int = 0
    named_groups: dict = field(default_factory=dict, compare=False)

    def __str__(self) -> str:  # Pattern.toString() is the source text
        return self.source

    def matches(self, text: str) -> re.Match | None:
        return self._run(self.regex.fullmatch, text)

    def looking_at(self, text: str) -> re.Match | None:
        return self._run(self.regex.match, text)

    def _run(self, method, text: str, *args) -> re.Match | None:
        try:
            return method(text, *args)
        except SystemError:
            # CPython 3.11's engine fails on some nested possessive quantifiers at match time
            # ("The span of capturing group is wrong"): refused like any construct authz cannot run.
            raise JavaRegexUnsupported("nested possessive quantifiers", self.source, -1) from None

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
                cursor += 1
                if cursor == n:
                    raise IllegalArgumentException("Illegal group reference: group index is missing")
                ch = replacement[cursor]
                if ch == "{":
                    cursor += 1
                    name = []
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
                    ref = self.named_groups[gname]
                    cursor += 1
                else:
                    ref = ord(ch) - 48
                    if not 0 <= ref <= 9:
                        raise IllegalArgumentException("Illegal group reference")
                    cursor += 1
                    while cursor < n:
                        d = ord(replacement[cursor]) - 48
                        if not 0 <= d <= 9:
                            break
                        new = ref * 10 + d
                        if self.group_count < new:
                            break
                        ref = new
                        cursor += 1
                if ref > self.group_count:
                    raise IndexOutOfBoundsException(f"No group {ref}")
                value = m.group(ref)
                if value is not None:
                    out.append(value)
            else:
                out.append(ch)
                cursor += 1
        return "".join(out)


@lru_cache(maxsize=4096)
def compile_java(pattern: str, flags: int = 0) -> JavaPattern:
    """``Pattern.compile``: raises :class:`PatternSyntaxException` as Java would (or
    :class:`JavaRegexUnsupported` for the few constructs authz cannot reproduce)."""
    t = _Translator(pattern, flags)
    src = t.translate()
    try:
        regex = re.compile(src)
    except re.error as exc:  # a construct Python's engine refuses (e.g. variable-width lookbehind)
        raise JavaRegexUnsupported(f"construct ({exc.msg})", pattern, -1) from None
    return JavaPattern(pattern, regex, t.groups, dict(t.names))


def replace_all(text: str, pattern: str, replacement: str) -> str:
    """``String.replaceAll(regex, replacement)``."""
    return compile_java(pattern).replace_all(text, replacement)
