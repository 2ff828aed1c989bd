"""Java ``.properties`` files (a broker's ``server.properties``), read as ``java.util.Properties`` does."""

from __future__ import annotations

from kafka_authz_cli.errors import InputError

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _logical_lines(text: str):
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        start = i + 1
        line = lines[i].lstrip(" \t\f")
        i += 1
        if not line or line[0] in "#!":
            continue
        # A line ending in an odd number of backslashes continues on the next one.
        while (len(line) - len(line.rstrip("\\"))) % 2 == 1:
            line = line[:-1]
            if i >= len(lines):
                break
            line += lines[i].lstrip(" \t\f")
            i += 1
        yield start, line


def _unescape(text: str, path: str, lineno: int) -> str:
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "u":
                code = text[i + 2:i + 6]
                try:
                    out.append(chr(int(code, 16)))
                except ValueError:
                    raise InputError(f"malformed \\u escape {text[i:i + 6]!r}", path, lineno) from None
                i += 6
                continue
            out.append(_ESCAPES.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def parse_properties(text: str, path: str = "<properties>") -> dict[str, str]:
    return {k: v for k, (v, _) in parse_properties_with_lines(text, path).items()}


def parse_properties_with_lines(text: str, path: str = "<properties>") -> dict[str, tuple[str, int]]:
    """Like :func:`parse_properties`, with the line each (last) definition starts on."""
    props: dict[str, tuple[str, int]] = {}
    for lineno, line in _logical_lines(text):
        i = 0
        while i < len(line):
            c = line[i]
            if c == "\\":
                i += 2
                continue
            if c in "=: \t\f":
                break
            i += 1
        key = line[:i]
        rest = line[i:].lstrip(" \t\f")
        if rest[:1] in ("=", ":"):
            rest = rest[1:].lstrip(" \t\f")
        props[_unescape(key, path, lineno)] = (_unescape(rest, path, lineno), lineno)
    return props
