"""The Java and Kafka parsing semantics every other package relies on, written once.

Kafka reads its configuration with Java's own string and number functions, and their edges differ
from Python's: ``String.trim()`` strips every character up to U+0020 (controls included) but no
Unicode space; ``Integer.parseInt`` accepts any Unicode decimal digit (``٤٠٩٦`` is 4096) but no
underscore or surrounding space; ``ConfigDef``'s LIST type splits at commas with the whitespace
around them and keeps empty items. A value authz reads must mean what it means to the broker, so
each of these is defined here and nowhere else; the conformance data recorded from Kafka is the
oracle (tests/conformance/kafka-security, tests/test_java_lang.py).

Pure: no I/O.
"""

from __future__ import annotations

import base64
import math
import re
import unicodedata
from decimal import Decimal

# -- Java's exceptions -----------------------------------------------------------------------------


class JavaException(Exception):
    """An exception as Java would throw it: simple class name, fully-qualified class and message."""

    java_class = "java.lang.RuntimeException"

    def __init__(self, message: str, cause: "JavaException | None" = None):
        self.message = message
        self.cause = cause
        super().__init__(message)

    @property
    def simple_name(self) -> str:
        return self.java_class.rsplit(".", 1)[-1].rsplit("$", 1)[-1]

    def to_string(self) -> str:
        """``Throwable.toString()``: the class name, then ``": " + message`` when there is one."""
        return self.java_class if self.message is None else f"{self.java_class}: {self.message}"

    def as_dict(self) -> dict:
        out: dict[str, object] = {"class": self.java_class, "message": self.message}
        if self.cause is not None:
            out["causes"] = [{"class": c.java_class, "message": c.message} for c in self._causes()]
        return out

    def _causes(self):
        c = self.cause
        while c is not None:
            yield c
            c = c.cause


class IllegalArgumentException(JavaException):
    java_class = "java.lang.IllegalArgumentException"


class IndexOutOfBoundsException(JavaException):
    java_class = "java.lang.IndexOutOfBoundsException"


class NullPointerException(JavaException):
    java_class = "java.lang.NullPointerException"


class NumberFormatException(IllegalArgumentException):
    java_class = "java.lang.NumberFormatException"


def java_parse_int(text: str | None) -> int:
    """``Integer.parseInt``: optional sign, Unicode decimal digits, 32-bit range; Java's messages."""
    if text is None:
        raise NumberFormatException("Cannot parse null string")
    if text == "":
        raise NumberFormatException('For input string: ""')
    i, neg = 0, False
    if text[0] in "+-":
        neg = text[0] == "-"
        i = 1
        if len(text) == 1:
            raise NumberFormatException(f'For input string: "{text}"')
    value = 0
    for ch in text[i:]:
        d = unicodedata.decimal(ch, -1)
        if d < 0:
            raise NumberFormatException(f'For input string: "{text}"')
        value = value * 10 + d
    if neg:
        value = -value
    if not -2**31 <= value <= 2**31 - 1:
        raise NumberFormatException(f'For input string: "{text}"')
    return value


def java_trim(text: str) -> str:
    """``String.trim()``: strips every character up to U+0020 (controls included), nothing else."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def is_blank(text: str | None) -> bool:
    """Kafka's ``Utils.isBlank``: null, or nothing left after ``String.trim()`` (so ``"\\u00a0"`` is not
    blank, ``"\\x01"`` is)."""
    return text is None or not java_trim(text)


def java_lower(text: str) -> str:
    """``toLowerCase(Locale.ENGLISH)``: full Unicode case mapping (final sigma included)."""
    return text.lower()


def java_upper(text: str) -> str:
    """``toUpperCase(Locale.ENGLISH)``: full Unicode case mapping (``ß`` becomes ``SS``)."""
    return text.upper()


def utf16_key(text: str) -> bytes:
    """A sort key equal to ``String.compareTo``'s order: UTF-16 code units, not code points (a
    character above U+FFFF sorts below U+E000 in Java)."""
    return text.encode("utf-16-be", "surrogatepass")


def utf16_units(text: str) -> list[int]:
    """The UTF-16 code units Java's ``char``s hold for ``text``."""
    data = utf16_key(text)
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]


def java_chars(text: str) -> str:
    """The string as Java indexes it: one Python character per UTF-16 code unit (a character above
    U+FFFF becomes its two surrogates), so that lengths, prefixes and positions are Java's."""
    if text.isascii() or max(text) < "\U00010000":
        return text
    return "".join(map(chr, utf16_units(text)))


def from_java_chars(units: str) -> str:
    """The inverse of :func:`java_chars`."""
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def utf16_length(text: str) -> int:
    """``String.length()``: UTF-16 code units (a character outside the BMP counts 2)."""
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


# Java's \\s (ASCII whitespace: space, \\t, \\n, \\x0B, \\f, \\r) around each comma.
_COMMA_WITH_WHITESPACE = re.compile(r"[ \t\n\x0b\f\r]*,[ \t\n\x0b\f\r]*")


def java_split(text: str, separator: "str | re.Pattern[str]", keep_trailing_empty: bool = False) -> list[str]:
    """``text.split(separator)`` as Java's ``String.split`` does it, for a separator that never
    matches the empty string: no match leaves the text whole (``""`` is one empty item); otherwise
    the empty items at the end are dropped, all of them if every item is empty (``","`` is no item
    at all). ``keep_trailing_empty`` is ``split(separator, -1)``, which keeps them."""
    parts = separator.split(text) if isinstance(separator, re.Pattern) else text.split(separator)
    if keep_trailing_empty or len(parts) == 1:
        return parts
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def split_at_commas(text: str, keep_trailing_empty: bool = False) -> list[str]:
    """``text.split("\\s*,\\s*")`` (see :func:`java_split`)."""
    return java_split(text, _COMMA_WITH_WHITESPACE, keep_trailing_empty)


def kafka_list(value: str | None) -> list[str]:
    """A LIST-type config value as ``ConfigDef.parseType`` reads it: trimmed, split at every comma
    and the whitespace around it, empty items kept (``"a,,b"`` is three items); an empty (or
    all-space) value is the empty list."""
    if value is None:
        return []
    trimmed = java_trim(value)
    if not trimmed:
        return []
    return split_at_commas(trimmed, keep_trailing_empty=True)


def java_list_string(items) -> str:
    """``List.toString()`` / ``AbstractCollection.toString()``: ``[a, b]``."""
    return "[" + ", ".join(str(i) for i in items) + "]"


# -- bytes and text ----------------------------------------------------------------------------------

_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def java_base64_decode(text: str | None) -> bytes:
    """``Base64.getDecoder().decode(String)`` with the JDK's exceptions and messages."""
    if text is None:
        raise NullPointerException('Cannot invoke "String.getBytes(java.nio.charset.Charset)" because "src" is null')
    src = text.encode("latin-1", errors="replace")  # String.getBytes(ISO_8859_1): unmappable -> '?'
    if len(src) == 0:
        return b""
    if len(src) < 2:
        raise IllegalArgumentException("Input byte[] should at least have 2 bytes for base64 bytes")
    out = bytearray()
    bits, shiftto, sp, sl = 0, 18, 0, len(src)
    while sp < sl:
        b = src[sp]
        sp += 1
        value = _B64.get(chr(b), -2 if b == 0x3D else -1)
        if value < 0:
            if value == -2:
                if (shiftto == 6 and (sp == sl or src[sp] != 0x3D)) or shiftto == 18:
                    raise IllegalArgumentException("Input byte array has wrong 4-byte ending unit")
                if shiftto == 6:
                    sp += 1
                break
            signed = b - 256 if b > 127 else b
            raise IllegalArgumentException(f"Illegal base64 character {_java_hex(signed)}")
        bits |= value << shiftto
        shiftto -= 6
        if shiftto < 0:
            out += bytes([(bits >> 16) & 0xFF, (bits >> 8) & 0xFF, bits & 0xFF])
            shiftto, bits = 18, 0
    if shiftto == 6:
        out.append((bits >> 16) & 0xFF)
    elif shiftto == 0:
        out += bytes([(bits >> 16) & 0xFF, (bits >> 8) & 0xFF])
    elif shiftto == 12:
        raise IllegalArgumentException("Last unit does not have enough valid bits")
    if sp < sl:
        raise IllegalArgumentException(f"Input byte array has incorrect ending byte at {sp}")
    return bytes(out)


def _java_hex(value: int) -> str:
    return "-" + format(-value, "x") if value < 0 else format(value, "x")


def java_base64_encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def java_utf8(text: str) -> bytes:
    """``getBytes(UTF_8)``: an unpaired surrogate becomes '?'."""
    return text.encode("utf-8", errors="replace")


def java_new_string_utf8(data: bytes) -> str:
    """``new String(bytes, UTF_8)``: malformed input becomes U+FFFD."""
    return data.decode("utf-8", errors="replace")


def java_double_string(x: float) -> str:
    """``Double.toString(double)`` (``String.valueOf``): the shortest digits that read back (JDK 19+),
    plain for 10^-3 <= |x| < 10^7, else computerized scientific notation (``1.0E20``, ``1.5E-5``)."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    d = Decimal(repr(x))
    sign, digit_tuple, _ = d.as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    exponent = d.adjusted()
    minus = "-" if sign else ""
    if 1e-3 <= abs(x) < 1e7:
        if exponent >= 0:
            whole, frac = digits[:exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1:]
        else:
            whole, frac = "0", "0" * (-exponent - 1) + digits
        return f"{minus}{whole}.{frac or '0'}"
    return f"{minus}{digits[0]}.{digits[1:] or '0'}E{exponent}"
