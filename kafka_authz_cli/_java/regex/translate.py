"""The translator: a Java pattern rewritten as a Python pattern that matches exactly the same strings.

A recursive descent over Java's grammar (alternation, sequence, quantifiers, groups, escapes,
character classes), tracking the flags in force at each point (inline ``(?i)`` applies to the rest of
the enclosing group), so the Python source it emits needs no Python flag at all. Java's error
messages and indexes are reproduced; a construct Python cannot express faithfully is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafka_authz_cli._java.regex.atomic import AtomicRegions
from kafka_authz_cli._java.regex.charsets import (
    ASCII_DIGIT,
    ASCII_SPACE,
    ASCII_WORD,
    CATEGORIES,
    H_SPACE,
    LINE_TERMINATORS,
    MAX_CP,
    POSIX,
    V_SPACE,
    Ranges,
    complement,
    fold,
    general_category,
    intersect,
    py_char,
    py_class,
    union,
)
from kafka_authz_cli._java.regex.errors import JavaRegexUnsupported, PatternSyntaxException

FLAG_BITS = {"d": 0x01, "i": 0x02, "x": 0x04, "m": 0x08, "s": 0x20, "u": 0x40, "U": 0x100}
UNIX_LINES, CASE_INSENSITIVE, COMMENTS, MULTILINE, DOTALL, UNICODE_CASE, UNICODE_CHARACTER_CLASS = (
    0x01, 0x02, 0x04, 0x08, 0x20, 0x40, 0x100)


@dataclass
class _Node:
    """A translated atom: Python source, and whether it may take a quantifier as is."""

    src: str
    atomic: bool = True


class Translator:
    """One pattern's translation: ``translate()`` returns the Python source, ``groups`` and ``names``
    the capturing groups Java numbers and names."""

    def __init__(self, pattern: str, flags: int = 0):
        self.p = pattern
        self.i = 0
        self.flags = flags
        self.groups = 0
        self.open_groups: list[int] = []
        self.names: dict[str, int] = {}
        self.atomic = AtomicRegions()

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
        mark = self.atomic.mark()
        alts = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            alts.append(self.sequence())
        if len(alts) > 1:
            self.atomic.retried(mark)
        return "|".join(alts)

    def sequence(self) -> str:
        parts: list[str] = []
        while True:
            self.skip_comments()
            c = self.peek()
            if c is None or c in "|)":
                break
            at, groups, mark = self.i, self.groups, self.atomic.mark()
            node = self.atom()
            if node is None:  # a flag group like (?i): nothing to emit
                continue
            parts.append(self.closure(node, (at, groups, mark)))
        return "".join(parts)

    def closure(self, node: _Node, operand: tuple) -> str:
        """``node`` with its quantifier; ``operand`` is where it started (index, groups before it, and
        the atomic regions' mark), for the book of captures inside atomic regions."""
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
        at, groups_before, mark = operand
        if q.endswith("+") and len(q) > 1:
            self.atomic.close(mark, range(groups_before + 1, self.groups + 1), at)
            # Possessive: Java's X*+ is exactly the atomic group (?>X*). Written so, because CPython's
            # own possessive repeat loses the captures of groups inside it (((a)|b)*+ on "ab" leaves
            # group 2 empty; Java has "a") or stops with SystemError ("The span of capturing group is
            # wrong"); its atomic group keeps them as Java does.
            return f"(?>{src}{q[:-1]})"
        self.atomic.retried(mark)
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
            return _Node(py_class(self.char_class()))
        if c == "\\":
            return self.escape()
        if c == ".":
            self.i += 1
            if self.has(DOTALL):
                return _Node(py_class(((0, MAX_CP),)))
            if self.has(UNIX_LINES):
                return _Node("[^\\n]")
            return _Node(py_class(complement(LINE_TERMINATORS)))
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
            return _Node(py_class(fold(((cp, cp),), self.has(UNICODE_CASE))))
        return _Node(py_char(cp))

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
            groups, mark = self.groups, self.atomic.mark()
            body = self.expr()
            self._close(open_at)
            self._book(head, mark, range(groups + 1, self.groups + 1), open_at)
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

    def _book(self, head: str, mark: tuple[int, bool], groups: range, open_at: int) -> None:
        """An atomic group or a lookaround ends: neither is backtracked into (atomic.py)."""
        if head == "(?>":
            self.atomic.close(mark, groups, open_at)
        elif head != "(?:" and not head.startswith("(?P<"):
            self.atomic.lookaround(mark)

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
            return self.named_backref()
        if c == "Q":
            return self.quoted()
        node = self.boundary_escape(c, at)
        if node is not None:
            return node
        cls = self.class_escape(c, at)
        if cls is not None:
            return _Node(py_class(cls))
        cp = self.char_escape(c, at)
        return self.literal(cp)

    def named_backref(self) -> _Node:
        """``\\k<name>``, after the ``k``."""
        if self.peek() != "<":
            raise self.error("\\k is not followed by '<' for named capturing group", self.i)
        self.i += 1
        name = self.group_name()
        if name not in self.names:
            raise self.error(f"named capturing group <{name}> does not exist", self.i - 1)
        return self._backref_node(self.names[name])

    def quoted(self) -> _Node:
        """``\\Q...\\E`` (or to the end of the pattern), after the ``Q``."""
        end = self.p.find("\\E", self.i)
        text = self.p[self.i:] if end < 0 else self.p[self.i:end]
        self.i = len(self.p) if end < 0 else end + 2
        if not text:
            return _Node("", atomic=False)
        nodes = [self.literal(ord(ch)).src for ch in text]
        # A quantifier after \Q..\E binds to the last character, as in Java.
        return _Node("".join(nodes), atomic=len(nodes) == 1)

    def boundary_escape(self, c: str, at: int) -> _Node | None:
        """Boundaries, anchors and ``\\R`` (None for other escapes); ``\\b`` and ``\\B`` are ASCII (JDK 19+)."""
        if c == "b":
            if self.peek() == "{":
                raise self.unsupported("\\b{g} grapheme boundary", at)
            w = py_class(ASCII_WORD)
            return _Node(f"(?:(?<={w})(?!{w})|(?<!{w})(?={w}))", atomic=False)
        if c == "B":
            w = py_class(ASCII_WORD)
            return _Node(f"(?:(?<={w})(?={w})|(?<!{w})(?!{w}))", atomic=False)
        anchors = {"A": "\\A", "z": "\\Z", "Z": self._dollar(False)}
        if c in anchors:
            return _Node(anchors[c], atomic=False)
        if c == "G":
            raise self.unsupported("\\G (end of previous match)", at)
        if c == "X":
            raise self.unsupported("\\X (grapheme cluster)", at)
        if c == "R":
            return _Node("(?>\\r\\n|" + py_class(V_SPACE) + ")")
        return None

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
            return complement(table[c.lower()])
        if c in "pP":
            name = self.prop_name(at)
            ranges = self.property(name, at)
            return complement(ranges) if c == "P" else ranges
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
        if base in CATEGORIES:
            return general_category(base)
        if base == "LC":
            return union(general_category("Lu"), general_category("Ll"), general_category("Lt"))
        if name.startswith(("java", "In", "Is")) or "=" in name:
            raise self.unsupported(f"\\p{{{name}}}", at)
        raise self.error(f"Unknown character property name {{{name}}}", self.i - 1)

    def char_escape(self, c: str, at: int) -> int:
        simple = {"t": 0x09, "n": 0x0A, "r": 0x0D, "f": 0x0C, "a": 0x07, "e": 0x1B}
        if c in simple:
            return simple[c]
        numeric = {"0": self.octal_escape, "x": self.hex_escape, "u": self.unicode_escape, "c": self.control_escape}
        if c in numeric:
            return numeric[c]()
        if c == "N":
            raise self.unsupported("\\N{name}", at)
        if c.isascii() and c.isalpha():
            raise self.error("Illegal/unsupported escape sequence", self.i - 1)
        return ord(c)

    def octal_escape(self) -> int:
        """``\\0n``, ``\\0nn``, ``\\0mnn`` (m at most 3), after the ``0``."""
        digits = ""
        while len(digits) < 3 and (self.peek() or "") in "01234567" and self.peek() is not None:
            if len(digits) == 2 and digits[0] > "3":
                break
            digits += self.p[self.i]
            self.i += 1
        if not digits:
            raise self.error("Illegal octal escape sequence", self.i - 1)
        return int(digits, 8)

    def hex_escape(self) -> int:
        """``\\xhh`` and ``\\x{h...h}``, after the ``x``."""
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

    def unicode_escape(self) -> int:
        """``\\uhhhh``, after the ``u``."""
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

    def control_escape(self) -> int:
        """``\\cX``, after the ``c``."""
        if self.peek() is None:
            raise self.error("Illegal control escape sequence", self.i)
        ch = self.p[self.i]
        self.i += 1
        return ord(ch) ^ 64

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
                acc = union(acc, self.char_class())
                first = False
                continue
            if c == "&" and self.p[self.i:self.i + 2] == "&&":
                self.i += 2
                left = acc
                result = left if result is None else intersect(result, left)
                acc = ()
                first = False
                # An empty right operand (e.g. "[a&&]") leaves the left side unchanged in Java.
                if self.peek() == "]":
                    acc = result
                    result = None
                continue
            first = False
            acc = union(acc, self.class_item())
        if result is not None:
            acc = intersect(result, acc)
        if negate:
            acc = complement(acc)
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
            return fold(((cp, cp),), self.has(UNICODE_CASE))
        return ((cp, cp),)

    def _range(self, lo: int, hi: int) -> Ranges:
        if self.has(CASE_INSENSITIVE):
            return fold(((lo, hi),), self.has(UNICODE_CASE))
        return ((lo, hi),)

    def class_char(self) -> int | Ranges:
        c = self.p[self.i]
        if c != "\\":
            self.i += 1
            return ord(c)
        at = self.i
        self.i += 1
        if self.i >= len(self.p):
            raise self.error("Unclosed character class", len(self.p) - 1)
        c = self.p[self.i]
        self.i += 1
        if c == "Q":
            end = self.p.find("\\E", self.i)
            text = self.p[self.i:] if end < 0 else self.p[self.i:end]
            self.i = len(self.p) if end < 0 else end + 2
            ranges: Ranges = ()
            for ch in text:
                ranges = union(ranges, self._single(ord(ch)))
            return ranges
        if "1" <= c <= "9" or c in "bBAzZGXRk":
            raise self.error("Illegal/unsupported escape sequence", self.i - 1)
        cls = self.class_escape(c, at)
        if cls is not None:
            return cls
        return self.char_escape(c, at)
