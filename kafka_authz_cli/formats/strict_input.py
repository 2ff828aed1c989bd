"""Reading untrusted input: files and stdin as UTF-8 text, JSON documents, JSON lines, CSV rows.

Every reader of authz goes through these helpers, so every one of them fails the same way on
hostile input: an :class:`InputError` naming the file and, where there is one, the line and
column (``file:line:col: reason``), never a Python exception from deep inside a library.

What they refuse, and why:

- bytes that are not UTF-8 (Kafka's files and tools are UTF-8; anything else would be silently
  misread), with the line of the first bad byte;
- JSON nested deeper than Python's decoder can follow (it would raise ``RecursionError``);
- JSON objects with a duplicate key (``json`` silently keeps the last value: an ACL file with two
  ``"host"`` keys would mean something else than it says), at the second occurrence;
- ``NaN``/``Infinity`` (not JSON) and integers too long to convert (Python's 4,300-digit limit);
- ``\\ud800``-style escapes of a lone surrogate, which cannot be written back as UTF-8;
- CSV rows with more or fewer fields than the header, headers lacking required columns or naming
  unknown ones; CSV fields of any length are accepted (the ``csv`` module's 128 KB limit is not a
  property of the data).
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import re
import stat
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Iterator

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats.sniff import HEAD, other_kind

STDIN = "-"
STDIN_LABEL = "<stdin>"
#: Fields longer than this are refused (far above any real ACL or request field; 2**31-1 is the
#: most the C ``csv`` module can take).
CSV_FIELD_LIMIT = 2**31 - 1
#: Python refuses to convert longer integer literals (sys.int_info.default_max_str_digits).
_MAX_INT_DIGITS = 4300


# ---------------------------------------------------------------------------------------------
# Bytes and text

def read_bytes(path: str | Path, label: str | None = None) -> bytes:
    """The whole content of ``path`` (``-``: standard input), or an InputError saying why not."""
    if str(path) == STDIN:
        stream = sys.stdin
        try:
            return stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode("utf-8")
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", label or STDIN_LABEL) from None
    name = label or str(path)
    try:
        with open_regular(path, name) as fh:
            return fh.read()
    except FileNotFoundError:
        raise InputError("no such file", name) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", name) from None
    except PermissionError:
        raise InputError("permission denied", name) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", name) from None


_SPECIAL = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
            (stat.S_ISSOCK, "a socket"))


def special_file(mode: int) -> str | None:
    """What a file of ``mode`` is when it is neither a regular file nor a directory (None: it is one of those)."""
    return next((what for test, what in _SPECIAL if test(mode)), None if stat.S_ISREG(mode) or stat.S_ISDIR(mode)
                else "not a regular file")


def not_regular(what: str, label: str) -> InputError:
    """``label: not a regular file (a FIFO)``: an input authz refuses to open (reading a FIFO blocks until
    someone writes, a device such as /dev/zero never ends); standard input (``-``) is how to pipe one in."""
    return InputError(f"not a regular file ({what}): authz reads inputs from regular files (pipe other sources to "
                      "standard input, '-')", label)


def open_regular(path: str | Path, label: str):
    """``open(path, "rb")`` for a regular file only: a FIFO, device or socket is refused before a byte is read.

    The file is opened without blocking (opening a FIFO blocks until a writer comes) and checked on the
    descriptor itself (no race with a rename); a socket cannot be opened at all, so its path is checked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket (or a FIFO opened for writing): say what it is
            try:
                what = special_file(os.stat(path).st_mode)
            except OSError:
                what = None
            if what is not None:
                raise not_regular(what, label) from None
        raise
    try:
        what = special_file(os.fstat(fd).st_mode)
        if what is not None:
            raise not_regular(what, label)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def decode_utf8(data: bytes, label: str) -> str:
    """Strict UTF-8; the first bad byte is reported by line and column.

    A leading byte-order mark is kept (the rules-language lexer must see it, as the proxy's does);
    the JSON and CSV readers below skip it.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        col = len(data[line_start:exc.start].decode("utf-8", "replace")) + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", label, line, col) from None
    return text


def read_text(path: str | Path, label: str | None = None) -> str:
    """A file (or ``-``, standard input) as strict UTF-8 text."""
    name = label or (STDIN_LABEL if str(path) == STDIN else str(path))
    return decode_utf8(read_bytes(path, name), name)


def text_lines(path: str | Path, label: str | None = None) -> Iterator[str]:
    """The lines of a file (or ``-``, standard input) as strict UTF-8 text, read as they are needed:
    each with its line ending, so a reader holds one line at a time however long the file is.
    Errors are those of :func:`read_text`, located at the line (a byte-order mark is kept)."""
    name = label or (STDIN_LABEL if str(path) == STDIN else str(path))
    if str(path) == STDIN:
        stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None
        if stream is None:
            yield from io.StringIO(sys.stdin.read())
            return
        yield from _decoded_lines(stream, name)
        return
    try:
        fh = open_regular(path, name)
    except OSError:
        read_bytes(path, name)  # raises the located error read_text gives
        raise  # pragma: no cover - read_bytes raised
    with fh:
        yield from _decoded_lines(fh, name)


def _decoded_lines(stream, label: str) -> Iterator[str]:
    lineno = 0
    try:
        for raw in stream:
            lineno += 1
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                col = len(raw[:exc.start].decode("utf-8", "replace")) + 1
                raise InputError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x})", label, lineno, col) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", label) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", label) from None


def source_label(path: str | Path) -> str:
    return STDIN_LABEL if str(path) == STDIN else str(path)


def next_stdin_line(label: str = "--password-stdin") -> str | None:
    """The next line of standard input (without its line ending), strictly UTF-8; None at the end of
    the input. ``label`` names the flag in an error.

    The line is never echoed in an error: it may be a secret.
    """
    stream = sys.stdin
    raw = stream.buffer.readline() if hasattr(stream, "buffer") else stream.readline().encode("utf-8", "surrogateescape")
    if not raw:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at position {exc.start + 1}); "
                         "Kafka hashes the UTF-8 bytes of the password", label) from None
    return text.rstrip("\r\n")


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` in ``text`` (for many offsets, use :class:`LineIndex`)."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


class LineIndex:
    """Line and column of many offsets in one text, each in O(log lines)."""

    def __init__(self, text: str):
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_col(self, offset: int) -> tuple[int, int]:
        import bisect

        i = bisect.bisect_right(self._starts, offset) - 1
        return i + 1, offset - self._starts[i] + 1


# ---------------------------------------------------------------------------------------------
# JSON

_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKEN = re.compile(r'(?P<key>' + _STRING + r')\s*:|(?P<str>' + _STRING + r')|(?P<open>[\[{])|(?P<close>[\]}])'
                    r'|(?P<comma>,)|(?P<scalar>-?[0-9][0-9.eE+-]*|true|false|null|NaN|-?Infinity)', re.S)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONG_INT = re.compile(r"-?[0-9]{%d,}" % (_MAX_INT_DIGITS + 1))


class _Duplicate(Exception):
    pass


class _BadNumber(Exception):
    def __init__(self, reason: str, literal: str):
        super().__init__(reason)
        self.reason = reason
        self.literal = literal


def _pairs(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Duplicate()
    return obj


def _constant(name: str):
    raise _BadNumber(f"{name} is not JSON (only finite numbers are)", name)


def _int(literal: str) -> int:
    if len(literal) > _MAX_INT_DIGITS:
        raise _BadNumber(f"integer with {len(literal):,} digits is too long", literal[:20])
    return int(literal)


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_constant, parse_int=_int)


def _decode(text: str) -> Any:
    return _DECODER.decode(text)


def json_type(value: Any) -> str:
    """The JSON type of a decoded value, in words (never its text: it may be huge or deeply nested)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _depth_offset(text: str, limit: int) -> int | None:
    """Offset of the first bracket that opens nesting level ``limit + 1`` (strings skipped)."""
    depth = 0
    for m in _TOKEN.finditer(text):
        if m.lastgroup == "open":
            depth += 1
            if depth > limit:
                return m.start()
        elif m.lastgroup == "close":
            depth -= 1
    return None


def _duplicate_offset(text: str) -> tuple[int, str] | None:
    """Offset and name of the first key repeated within one object, in document order."""
    stack: list[set | None] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "open":
            stack.append(set() if m.group() == "{" else None)
        elif kind == "close":
            if stack:
                stack.pop()
        elif kind == "key" and stack and stack[-1] is not None:
            try:
                key = json.loads(m.group("key"))
            except ValueError:
                continue
            if key in stack[-1]:
                return m.start(), key
            stack[-1].add(key)
    return None


def _lone_surrogate_offset(text: str) -> int | None:
    for m in _TOKEN.finditer(text):
        literal = m.group("key") or m.group("str")
        if literal and _SURROGATE_ESCAPE.search(literal):
            try:
                json.loads(literal).encode("utf-8")
            except UnicodeEncodeError:
                return m.start()
            except ValueError:
                continue
    return None


def _constant_offset(text: str, literal: str):
    """The first ``literal`` outside a string."""
    pattern = re.compile(_STRING + "|" + re.escape(literal), re.S)
    for m in pattern.finditer(text):
        if m.group() == literal:
            return m
    return None


def loads(text: str, label: str, first_line: int = 1, expected: str = "JSON") -> Any:
    """One JSON document, strictly: see the module documentation for what is refused.

    ``first_line`` is the line ``text`` starts at in the file (for JSON lines). A whole file that is
    no JSON but clearly something else (a log, properties, YAML) is refused as that kind, ``expected``
    naming what the caller reads.
    """

    def error(reason: str, offset: int | None = None, line: int | None = None, col: int | None = None):
        if offset is not None:
            line, col = line_col(text, offset)
        if line is not None:
            line += first_line - 1
        return InputError(reason, label, line, col)

    if text.startswith("\ufeff"):
        text = " " + text[1:]  # same offsets, so columns stay right
    try:
        value = _decode(text)
    except json.JSONDecodeError as exc:
        other = other_kind(text, label, expected) if first_line == 1 else None
        raise (other or error(f"invalid JSON: {exc.msg}", exc.pos)) from None
    except RecursionError:
        where = _depth_offset(text, 100)
        raise error("invalid JSON: nested too deeply (authz reads JSON nested up to a few hundred levels)",
                    where) from None
    except _Duplicate:
        found = _duplicate_offset(text)
        if found is None:  # pragma: no cover - the locator and the decoder agree on what a key is
            raise error("invalid JSON: duplicate key in an object") from None
        offset, key = found
        raise error(f"duplicate key {key!r} (JSON readers disagree on which value wins; write it once)",
                    offset) from None
    except _BadNumber as exc:
        if exc.literal in ("NaN", "Infinity", "-Infinity"):
            m = _constant_offset(text, exc.literal)
        else:
            m = _LONG_INT.search(text)
        where = m.start() if m else None
        raise error(f"invalid JSON: {exc.reason}", where) from None
    if _SURROGATE_ESCAPE.search(text):
        lone_at = _lone_surrogate_offset(text)
        if lone_at is not None:
            raise error("invalid JSON: a \\u escape of a lone UTF-16 surrogate (not a character; it cannot be "
                        "written as UTF-8)", lone_at)
    return value


def json_lines(text: str | Iterable[str], label: str, comments: bool = True,
               expected: str = "JSON lines") -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line (``#`` comments skipped when ``comments``).

    ``text`` is the whole text, or its lines (as :func:`text_lines` reads them: one at a time). When
    the first line is no JSON and the text clearly another kind, the error says which (``expected``
    names what the caller reads)."""
    # Fast path per line; any doubt (an error, a surrogate escape, a BOM) goes through loads(),
    # which either raises the located error or returns the same value.
    whole = text if isinstance(text, str) else None
    suspicious = bool(_SURROGATE_ESCAPE.search(whole)) if whole is not None else False
    decode = _DECODER.decode
    first = True
    for lineno, line in enumerate(whole.split("\n") if whole is not None else text, 1):
        stripped = line.strip()
        if not stripped or (comments and stripped[0] == "#"):
            continue
        if suspicious or (whole is None and "\\u" in line and _SURROGATE_ESCAPE.search(line)):
            yield lineno, loads(line, label, lineno)
            continue
        value = _flat_object(stripped)
        if value is None:
            try:
                value = decode(stripped)
            except (ValueError, RecursionError, _Duplicate, _BadNumber):
                if first and stripped[0] not in "{[\"":
                    other = other_kind(whole[:HEAD] if whole is not None else line, label, expected)
                    if other is not None:
                        raise other from None
                value = loads(line, label, lineno)
        first = False
        yield lineno, value


_PLAIN_DECODE = json.JSONDecoder().decode


def _flat_object(text: str) -> dict | None:
    """A one-level JSON object with no escape, read by the C decoder without hooks, when that is
    exactly what the strict reader reads; else None (the caller reads it strictly). Without escapes a
    string's text is its value, so a repeated key shows as one ':' more in the text than the object's
    keys and strings account for; floats (NaN) and nested values are left to the strict reader."""
    if "\\" in text:
        return None
    try:
        value = _PLAIN_DECODE(text)
    except (ValueError, RecursionError):
        return None
    if type(value) is not dict:
        return None
    colons = len(value)
    for key, item in value.items():
        kind = type(item)
        if kind is str:
            colons += item.count(":")
        elif kind is float or kind is dict or kind is list:
            return None
        colons += key.count(":")
    return value if text.count(":") == colons else None


def array_element_offsets(text: str, array_start: int) -> list[int]:
    """Offsets of the elements of the (valid) JSON array whose '[' is at ``array_start``."""
    decoder = json.JSONDecoder()
    offsets: list[int] = []
    i = array_start + 1
    ws = " \t\r\n"
    n = len(text)
    while True:
        while i < n and text[i] in ws:
            i += 1
        if i >= n or text[i] == "]":
            return offsets
        offsets.append(i)
        _, i = decoder.raw_decode(text, i)
        while i < n and text[i] in ws:
            i += 1
        if i < n and text[i] == ",":
            i += 1


def brief(value: Any, limit: int = 60) -> str:
    """A value for an error message: quoted, and cut (saying so) when long."""
    if not isinstance(value, str):
        return json_type(value)
    if len(value) <= limit:
        return repr(value)
    return repr(value[:limit]) + f"... ({len(value):,} characters)"


def locate(text: str, path: Iterable[str | int]) -> tuple[int, int] | None:
    """Line and column where the value at ``path`` (object keys and list indexes) starts in ``text``.

    For error messages about a value that decoded fine but means nothing to authz; slow, so only
    called once something is wrong.
    """
    want = list(path)
    # Stack of [container kind, current key or index, path length when entered].
    stack: list[list] = []
    cur: list = []
    pending_key = None
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "key":
            try:
                pending_key = json.loads(m.group("key"))
            except ValueError:
                return None
            continue
        if kind == "comma":
            if stack and stack[-1][0] == "list":
                stack[-1][1] += 1
            continue
        if kind == "close":
            if stack:
                stack.pop()
            continue
        # A value starts here: a string, or a container.
        if stack:
            container = stack[-1]
            if container[0] == "object":
                here = cur[:container[2]] + [pending_key]
            else:
                here = cur[:container[2]] + [container[1]]
        else:
            here = []
        if here == want:
            return line_col(text, m.start())
        if kind == "open":
            cur = here
            stack.append(["object" if m.group() == "{" else "list", 0, len(here)])
    return None


# ---------------------------------------------------------------------------------------------
# CSV

def _without_bom(lines: Iterable[str]) -> Iterator[str]:
    first = True
    for line in lines:
        if first and line.startswith("\ufeff"):
            line = line[1:]
        first = False
        yield line


def csv_rows(text: str | Iterable[str], label: str) -> Iterator[tuple[int, list[str]]]:
    """``(line the record starts on, fields)`` for every record, blank lines included as ``[]``;
    ``text`` is the whole text or its lines with their endings (:func:`text_lines`)."""
    old = csv.field_size_limit()
    csv.field_size_limit(CSV_FIELD_LIMIT)
    try:
        source: Iterable[str]
        if isinstance(text, str):
            source = io.StringIO(text[1:] if text.startswith("\ufeff") else text, newline="")
        else:
            source = _without_bom(text)
        reader = csv.reader(source)
        start = 1
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise InputError(f"invalid CSV: {exc}", label, start) from None
            yield start, row
            start = reader.line_num + 1
    finally:
        csv.field_size_limit(old)


def _few(names: list[str], shown: int = 5) -> str:
    """Column names for an error line: the first few, each cut, and how many more."""
    out = ", ".join(n if len(n) <= 60 else n[:60] + "..." for n in names[:shown])
    return out + (f" and {len(names) - shown:,} more" if len(names) > shown else "")


def csv_table(text: str | Iterable[str], label: str, required: Iterable[str], optional: Iterable[str] = (),
              normalise=lambda name: name.strip().lower(), comments: bool = False,
              extra_columns: bool = False) -> Iterator[tuple[int, dict[str, str]]]:
    """Records of a CSV file with a header row, as ``(line, {column: value})``.

    The header must name every ``required`` column and (unless ``extra_columns``) no column
    outside ``required`` and ``optional``; each record must have as many fields as the header.
    Blank lines (and with ``comments``, lines whose first field starts with ``#``) are skipped.
    """
    required = list(required)
    known = set(required) | set(optional)
    header = None
    for lineno, row in csv_rows(text, label):
        if not row or all(not c.strip() for c in row) or (comments and row[0].lstrip().startswith("#")):
            continue
        if header is None:
            header = [normalise(c) for c in row]
            missing = [c for c in required if c not in header]
            if missing:
                raise InputError(f"CSV header lacks column(s) {', '.join(missing)} (expected "
                                 f"{','.join(required)}" + (f" and optionally {','.join(optional)})" if optional
                                                            else ")"), label, lineno, 1)
            # linear in the header's width (a header of 150,000 columns is one pass, and named by a few)
            counts = Counter(header)
            dupes = sorted(c for c, n in counts.items() if n > 1)
            if dupes:
                raise InputError(f"CSV header names column(s) {_few(dupes)} more than once", label, lineno, 1)
            unknown = [c for c in header if c not in known]
            if unknown and not extra_columns:
                raise InputError(f"CSV header has unknown column(s) {_few(unknown)} (expected "
                                 f"{','.join(required)}" + (f" and optionally {','.join(optional)})" if optional
                                                            else ")"), label, lineno, 1)
            continue
        if len(row) != len(header):
            raise InputError(f"expected {len(header)} fields, found {len(row)} (the header has {len(header)})", label, lineno, 1)
        yield lineno, dict(zip(header, row))
    if header is None:
        raise InputError("empty CSV file: expected a header row (" + ",".join(required) + ")", label)
