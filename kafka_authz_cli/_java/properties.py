"""Java ``.properties`` files (a broker's ``server.properties``), read as Kafka reads them.

Kafka: ``org.apache.kafka.common.utils.Utils.loadProps`` calls ``Properties.load(InputStream)``, which
decodes the bytes as ISO-8859-1 (``java.util.Properties.LineReader``; only ``\\uXXXX`` escapes give
other characters). So, exactly as on the broker:

- a UTF-8 byte-order mark is three characters of the first key (``ï»¿super.users`` is not
  ``super.users``: the setting silently does not apply), and any other non-ASCII character is
  read as its UTF-8 bytes (``José`` is ``JosÃ©``);
- lines end at ``\\n``, ``\\r`` or ``\\r\\n`` (and nowhere else: ``\\f`` is white space);
- a line ending in an odd number of backslashes continues on the next, whose leading white space is
  dropped; a comment line (``#`` or ``!`` first) never continues;
- the key ends at the first unescaped ``=``, ``:`` or white space; a malformed ``\\uXXXX`` escape is
  an error (``IllegalArgumentException: Malformed \\uxxxx encoding``: the broker does not start).

Where the result is surely not what the user meant (the byte-order mark, non-ASCII text, lines of a
pasted multi-line value that became keys of their own) a warning is logged, one line per kind with
the count and the first lines.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from functools import lru_cache

from kafka_authz_cli.errors import InputError

log = logging.getLogger(__name__)

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_WHITE = " \t\f"
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_NEWLINE = re.compile(r"\r\n|\r|\n")
#: A UTF-8 byte-order mark as Properties.load(InputStream) reads it: three ISO-8859-1 characters.
UTF8_BOM_READ_AS_LATIN1 = "\ufeff".encode("utf-8").decode("latin-1")
#: How many example lines a warning names.
EXAMPLES = 3


class _Lines:
    """Physical line numbers of offsets (lines end at \\n, \\r or \\r\\n)."""

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset)


def _logical_lines(text: str):
    """(first physical line, last physical line, logical line, starts indented) per logical line, as
    JDK 17's ``Properties.LineReader.readLine`` cuts them (Kafka 4 runs on Java 17+)."""
    lines = _Lines(text)
    n, off = len(text), 0
    while True:
        buf: list[str] = []
        skip_ws, appended, backslash, start = True, False, False, -1
        while True:
            if off >= n:
                if buf:
                    yield _logical(text, lines, start, off, buf, backslash)
                return
            c = text[off]
            off += 1
            if skip_ws:
                if c in _WHITE or not appended and c in "\r\n":
                    continue
                skip_ws = appended = False
            if not buf and c in "#!":  # a comment: to the end of the line, whatever it ends with
                while off < n and text[off] not in "\r\n":
                    off += 1
                skip_ws = True
                continue
            if c not in "\r\n":
                if not buf:
                    start = off - 1
                buf.append(c)
                backslash = not backslash if c == "\\" else False
                continue
            if not buf:
                skip_ws = True
                continue
            if off >= n or not backslash:
                yield _logical(text, lines, start, off - 1, buf, backslash)
                break
            buf.pop()  # the backslash at the end of a line is not part of it
            skip_ws, appended, backslash = True, True, False
            if c == "\r" and text[off] == "\n":
                off += 1


def _logical(text: str, lines: _Lines, start: int, end: int, buf: list[str], backslash: bool):
    first = lines.line(start)
    indented = text[lines.starts[first - 1]:lines.starts[first - 1] + 1] in (" ", "\t", "\f")
    return first, lines.line(max(start, end - 1)), "".join(buf[:-1] if backslash else buf), indented


def _unescape(text: str, path: str, lineno: int) -> str:
    # Kafka: java.util.Properties.loadConvert
    if "\\" not in text:
        return text
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "u":
                code = text[i + 2:i + 6]
                if not _HEX4.fullmatch(code):
                    raise InputError(f"malformed \\uxxxx encoding {text[i:i + 6]!r} (Properties.load refuses the "
                                     "file)", path, lineno)
                out.append(chr(int(code, 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _split(line: str) -> tuple[str, str, bool]:
    """(raw key, raw value, whether a separator = or : was there)."""
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "=: \t\f":
            break
        i += 1
    rest = line[i:].lstrip(_WHITE)
    has_sep = rest[:1] in ("=", ":")
    if has_sep:
        rest = rest[1:].lstrip(_WHITE)
    return line[:i], rest, has_sep


def parse_properties(text: str, path: str = "<properties>") -> dict[str, str]:
    return {k: v for k, (v, _) in parse_properties_with_lines(text, path).items()}


def parse_properties_with_lines(text: str, path: str = "<properties>") -> dict[str, tuple[str, int]]:
    """Like :func:`parse_properties`, with the line each (last) definition starts on."""
    props, warnings = _parse(text, path)
    for warning in warnings:
        log.warning(warning)
    return dict(props)


@lru_cache(maxsize=8)  # one command often reads one server.properties twice: parse and warn once
def _parse(text: str, path: str) -> tuple[tuple[tuple[str, tuple[str, int]], ...], tuple[str, ...]]:
    # Properties.load(InputStream): the bytes as ISO-8859-1 (authz read them as UTF-8).
    latin1 = text.encode("utf-8", "surrogatepass").decode("latin-1")
    props: dict[str, tuple[str, int]] = {}
    junk: list[tuple[int, str]] = []
    non_ascii: list[int] = []
    template: list[int] = []  # Jinja markup (`{% if %}`, `{{ var }}`): a template, not yet a file Kafka reads
    previous_had_value = False
    previous_end = 0
    for lineno, end, line, indented in _logical_lines(latin1):
        if any(c > "\x7f" for c in (line[3:] if lineno == 1 and text.startswith("\ufeff") else line)):
            non_ascii.append(lineno)
        raw_key, raw_value, has_sep = _split(line)
        key = _unescape(raw_key, path, lineno)
        # A pasted multi-line value (a wrapped JAAS config, a PEM block) goes on without a trailing
        # backslash: its next lines become keys of their own. Only lines right after a value count.
        follows_value = previous_had_value and previous_end == lineno - 1
        is_junk = follows_value and (indented or not has_sep and "=" not in line and ":" not in line)
        if line.startswith(("{%", "{{")):
            template.append(lineno)
        elif is_junk:
            junk.append((lineno, key))
        props[key] = (_unescape(raw_value, path, lineno), lineno)
        previous_had_value, previous_end = bool(raw_value) or is_junk, end
    return tuple(props.items()), tuple(_warnings(text, path, props, junk, non_ascii, template))


def _examples(items: list[str]) -> str:
    shown = ", ".join(items[:EXAMPLES])
    return shown + (f" and {len(items) - EXAMPLES} more" if len(items) > EXAMPLES else "")


def _warnings(text: str, path: str, props: dict[str, tuple[str, int]], junk: list[tuple[int, str]],
              non_ascii: list[int], template: list[int]) -> list[str]:
    out = []
    if text.startswith("\ufeff"):
        first = min(props.items(), key=lambda kv: kv[1][1])[0] if props else ""
        if first.startswith(UTF8_BOM_READ_AS_LATIN1):
            meant = first[3:]
            out.append(f"{path}:1: the file starts with a UTF-8 byte-order mark, which Kafka reads as part of the "
                       f"first key (Properties.load reads ISO-8859-1): the broker sees {first!r}, not {meant!r}, "
                       f"so {meant!r} is NOT set. Save the file without a BOM")
    mojibake = [f"{path}:{line}" for line in non_ascii]
    if mojibake:
        out.append(f"{path}: {len(mojibake)} line(s) with non-ASCII text, which Kafka reads byte by byte as ISO-8859-1 "
                   f"(Properties.load): 'é' is 'Ã©' on the broker; write \\uXXXX escapes ({_examples(mojibake)})")
    if template:
        shown = [f"line {line}" for line in template]
        out.append(f"{path}: {len(template)} line(s) of template markup ({{% ... %}}, {{{{ ... }}}}), which "
                   f"java.util.Properties reads as keys: render the template first ({_examples(shown)})")
    if junk:
        shown = [f"line {line} {key[:40]!r}" for line, key in junk]
        out.append(f"{path}: {len(junk)} line(s) after a value became keys of their own, surely the rest of a "
                   f"pasted multi-line value (a value continues only after a trailing backslash): {_examples(shown)}")
    return out
