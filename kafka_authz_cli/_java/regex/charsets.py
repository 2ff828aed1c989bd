"""Code point sets: what a Java character class matches, and its Python rendering.

A Java class (``[a-z&&[^q]]``, ``\\p{Lu}``, ``\\w`` ...) becomes a normalized tuple of inclusive code point
ranges, so unions, intersections and complements are exact; case-insensitive matching adds the case
variants Java's ``CASE_INSENSITIVE`` (ASCII) and ``UNICODE_CASE`` flags match; :func:`py_class` writes
the set back as a Python class that matches exactly the same code points.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

MAX_CP = 0x10FFFF

Ranges = tuple[tuple[int, int], ...]


def norm(ranges) -> Ranges:
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if lo > hi:
            continue
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple((a, b) for a, b in out)


def union(*sets: Ranges) -> Ranges:
    return norm([r for s in sets for r in s])


def complement(s: Ranges) -> Ranges:
    out, prev = [], 0
    for lo, hi in s:
        if lo > prev:
            out.append((prev, lo - 1))
        prev = hi + 1
    if prev <= MAX_CP:
        out.append((prev, MAX_CP))
    return tuple(out)


def intersect(a: Ranges, b: Ranges) -> Ranges:
    return complement(union(complement(a), complement(b)))


def chars(s: str) -> Ranges:
    return norm([(ord(c), ord(c)) for c in s])


ASCII_DIGIT = ((0x30, 0x39),)
ASCII_WORD = norm([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
ASCII_SPACE = chars(" \t\n\x0b\f\r")
H_SPACE = norm([(0x20, 0x20), (0x09, 0x09), (0xA0, 0xA0), (0x1680, 0x1680), (0x180E, 0x180E),
                 (0x2000, 0x200A), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000)])
V_SPACE = chars("\n\x0b\f\r\x85\u2028\u2029")
LINE_TERMINATORS = chars("\n\r\x85\u2028\u2029")

POSIX = {
    "Lower": ((0x61, 0x7A),),
    "Upper": ((0x41, 0x5A),),
    "ASCII": ((0x00, 0x7F),),
    "Alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "Digit": ASCII_DIGIT,
    "Alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "Punct": chars("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "Graph": ((0x21, 0x7E),),
    "Print": ((0x20, 0x7E),),
    "Blank": chars(" \t"),
    "Cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "XDigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
    "Space": ASCII_SPACE,
}


@lru_cache(maxsize=None)
def general_category(name: str) -> Ranges:
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


CATEGORIES = {"L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd",
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


def fold(ranges: Ranges, unicode_case: bool) -> Ranges:
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
    return union(ranges, tuple(extra))


def py_char(cp: int) -> str:
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


def py_class(ranges: Ranges) -> str:
    if not ranges:
        return "(?!)"
    if ranges == ((0, MAX_CP),):
        return "[\\x00-\\U0010ffff]"
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return py_char(ranges[0][0])
    comp = complement(ranges)
    if len(comp) < len(ranges):
        return "[^" + "".join(py_range(r) for r in comp) + "]"
    return "[" + "".join(py_range(r) for r in ranges) + "]"


def py_range(r: tuple[int, int]) -> str:
    lo, hi = r
    if lo == hi:
        return py_char(lo)
    if hi == lo + 1:
        return py_char(lo) + py_char(hi)
    return f"{py_char(lo)}-{py_char(hi)}"
