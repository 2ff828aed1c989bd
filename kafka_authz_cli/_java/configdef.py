"""A config value as Kafka's ``ConfigDef`` reads it: ``parseType`` for each type, ``Range`` validators.

``ConfigDef.parseType`` trims a string value (``String.trim``) and parses it with Java's own
functions: ``Integer.parseInt`` (INT), ``Short.parseShort`` (SHORT), ``Long.parseLong`` (LONG),
``Double.parseDouble`` (DOUBLE), ``equalsIgnoreCase("true"/"false")`` (BOOLEAN). A value that does not
parse is refused with ``ConfigException(name, value, "Not a number of type " + type)``. A ``Range``
validator (its ``toString`` is ``[min,...]``, ``[...,max]`` or ``[min,...,max]``) compares
``doubleValue()``s and says "Value must be at least <min>" / "no more than <max>".

Pure: no I/O.
"""

from __future__ import annotations

import math
import re
import unicodedata
from decimal import Decimal

from kafka_authz_cli._java.lang import JavaException, NumberFormatException, java_parse_int, java_trim

_LONG_MIN, _LONG_MAX = -2**63, 2**63 - 1


class ConfigException(JavaException):
    """``org.apache.kafka.common.config.ConfigException(name, value, message)``."""

    java_class = "org.apache.kafka.common.config.ConfigException"

    def __init__(self, name: str, value, message: str | None = None):
        text = "null" if value is None else value if isinstance(value, str) else java_number_string(value)
        super().__init__(f"Invalid value {text} for configuration {name}" + ("" if message is None else f": {message}"))


def java_parse_long(text: str | None) -> int:
    """``Long.parseLong``: ``Integer.parseInt``'s grammar over 64 bits, Java's messages."""
    if text is None:
        raise NumberFormatException("Cannot parse null string")
    try:
        return java_parse_int(text)
    except NumberFormatException:
        pass
    sign = text[:1] in "+-" and len(text) > 1
    digits = text[1:] if sign else text
    if not digits or any(unicodedata.decimal(ch, -1) < 0 for ch in digits):
        raise NumberFormatException(f'For input string: "{text}"')
    value = int("".join(str(unicodedata.decimal(ch)) for ch in digits))
    value = -value if text[0] == "-" else value
    if not _LONG_MIN <= value <= _LONG_MAX:
        raise NumberFormatException(f'For input string: "{text}"')
    return value


def java_parse_short(text: str | None) -> int:
    """``Short.parseShort``: ``Integer.parseInt``, then the 16-bit range."""
    value = java_parse_int(text)
    if not -2**15 <= value < 2**15:
        raise NumberFormatException(f'Value out of range. Value:"{text}" Radix:10')
    return value


# FloatingDecimal.readJavaFormatString: sign, NaN | Infinity | decimal | hexadecimal (p exponent
# required), then an optional f/F/d/D suffix (not after NaN or Infinity); ASCII digits only.
_DOUBLE = re.compile(r"[+-]?(?:(NaN|Infinity)|(?:(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?"
                     r"|(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+))[fFdD]?)", re.ASCII)


def java_parse_double(text: str | None) -> float:
    """``Double.parseDouble``: trims (``String.trim``) itself; ``1e3``, ``.5``, ``1.``, ``0x1p3``, ``2d``,
    ``NaN``, ``-Infinity``; overflow is infinite. Java's messages."""
    if text is None:
        raise JavaException("null")  # NullPointerException in the JDK; ConfigDef never passes null here
    s = java_trim(text)
    if not s:
        raise NumberFormatException("empty String")
    m = _DOUBLE.fullmatch(s)
    if m is None:
        # FloatingDecimal's digit scan stops at a second point with its own message
        body = s[1:] if s[:1] in "+-" else s
        if not body.lower().startswith("0x"):
            scanned = body[:len(body) - len(body.lstrip("0123456789."))]
            if scanned.count(".") > 1:
                raise NumberFormatException("multiple points")
        raise NumberFormatException(f'For input string: "{s}"')
    negative = s.startswith("-")
    if m.group(1):
        value = math.nan if m.group(1) == "NaN" else math.inf
    elif m.group(4):
        try:
            value = float.fromhex(m.group(4))
        except OverflowError:
            value = math.inf  # Java rounds an overflowing literal to Infinity
    else:
        value = float(m.group(2) + (m.group(3) or ""))
    return -value if negative else value


def parse_number(text: str, kind: str) -> int | float:
    """A number of ConfigDef type ``kind`` (INT SHORT LONG DOUBLE) from its text, as ``parseType``
    reads it; NumberFormatException otherwise."""
    trimmed = java_trim(text)
    if kind == "INT":
        return java_parse_int(trimmed)
    if kind == "SHORT":
        return java_parse_short(trimmed)
    if kind == "LONG":
        return java_parse_long(trimmed)
    if kind == "DOUBLE":
        return java_parse_double(trimmed)
    raise ValueError(f"not a numeric ConfigDef type: {kind}")


def parse_config_value(name: str, text: str, kind: str):
    """``ConfigDef.parseType(name, text, kind)`` for the scalar types; ConfigException as Kafka's."""
    if kind in ("INT", "SHORT", "LONG", "DOUBLE"):
        try:
            return parse_number(text, kind)
        except NumberFormatException:
            raise ConfigException(name, text, f"Not a number of type {kind}") from None
    if kind == "BOOLEAN":
        trimmed = java_trim(text)
        if trimmed.lower() in ("true", "false") and trimmed.isascii():
            return trimmed.lower() == "true"
        raise ConfigException(name, text, "Expected value to be either true or false")
    return java_trim(text) if kind in ("STRING", "CLASS") else text


_RANGE = re.compile(r"\[(?:(?P<min>[^,\[\]]+),\.\.\.(?:,(?P<max>[^,\[\]]+))?|\.\.\.,(?P<onlymax>[^,\[\]]+))\]")


def range_bounds(validator: str | None) -> tuple[float | None, float | None] | None:
    """(min, max) of a ``ConfigDef.Range`` from its ``toString``; None for any other validator."""
    if not validator:
        return None
    m = _RANGE.fullmatch(validator)
    if m is None:
        return None

    def num(t):
        return None if t is None else float(t) if any(c in t for c in ".eE") else int(t)

    return num(m.group("min")), num(m.group("max") or m.group("onlymax"))


def check_range(name: str, value: int | float, validator: str | None) -> None:
    """``Range.ensureValid``: compares ``doubleValue()``s; ConfigException as Kafka's."""
    bounds = range_bounds(validator)
    if bounds is None:
        return
    low, high = bounds
    if low is not None and float(value) < float(low):
        raise ConfigException(name, value, f"Value must be at least {java_number_string(low)}")
    if high is not None and float(value) > float(high):
        raise ConfigException(name, value, f"Value must be no more than {java_number_string(high)}")


def java_number_string(value: int | float) -> str:
    """``Long.toString`` / ``Double.toString``: ``1.0E10``, ``0.001``, ``1.0E-4``, ``Infinity``, with the
    shortest digits that read back (JDK 19+; JDK 17 prints an extra digit for some doubles)."""
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    if 1e-3 <= abs(value) < 1e7:
        text = repr(value)
        return text if "." in text else text + ".0"
    # computerized scientific notation with the shortest digits that read back (Python's repr)
    _sign, digits, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    assert isinstance(exponent, int)  # a finite value: NaN and the infinities returned above
    text = "".join(map(str, digits))
    return f"{'-' if value < 0 else ''}{text[0]}.{text[1:] or '0'}E{exponent + len(text) - 1}"
