"""`sasl.jaas.config` values read exactly as Kafka's client reads them.

Kafka parses the property with ``org.apache.kafka.common.security.JaasConfig``: a
``java.io.StreamTokenizer`` (default syntax, ``//`` and ``/* */`` comments, ``-``, ``_`` and ``$`` as
word characters), then ``<module> <flag> (<key>=<value>)* ;`` per entry. This module ports both, so a
value authz accepts is one the Java client accepts and means the same thing: quoted values are
unescaped as StreamTokenizer does (``\\"``, ``\\\\``, ``\\n``, octal...), a number is not a value, an
entry without its final ``;`` is refused. The messages are Kafka's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TT_EOF = -1
TT_WORD = -3
TT_NUMBER = -2

_WHITESPACE, _DIGIT, _ALPHA, _QUOTE, _COMMENT = 1, 2, 4, 8, 16


def _ctype_table() -> list[int]:
    ct = [0] * 256
    for c in range(ord("a"), ord("z") + 1):
        ct[c] |= _ALPHA
    for c in range(ord("A"), ord("Z") + 1):
        ct[c] |= _ALPHA
    for c in range(128 + 32, 256):
        ct[c] |= _ALPHA
    for c in range(0, ord(" ") + 1):
        ct[c] = _WHITESPACE
    ct[ord("/")] = _COMMENT
    ct[ord('"')] = _QUOTE
    ct[ord("'")] = _QUOTE
    for ch in "0123456789.-":
        ct[ord(ch)] |= _DIGIT
    # JaasConfig's additions
    for ch in "-_$":
        ct[ord(ch)] |= _ALPHA
    return ct


_CT = _ctype_table()
_ESCAPES = {"a": 0x7, "b": 0x8, "f": 0xC, "n": 0xA, "r": 0xD, "t": 0x9, "v": 0xB}


class StreamTokenizer:
    """``java.io.StreamTokenizer`` as JaasConfig configures it (only what that needs)."""

    def __init__(self, text: str):
        # Java reads UTF-16 code units; every unit >= 256 is a word character either way.
        self._units = text.encode("utf-16-le", "surrogatepass")
        self._n = len(self._units) // 2
        self._pos = 0
        self._peek: int | None = None
        self.ttype = -4
        self.sval: str | None = None
        self.nval = 0.0

    def _read(self) -> int:
        if self._pos >= self._n:
            return -1
        c = self._units[2 * self._pos] | (self._units[2 * self._pos + 1] << 8)
        self._pos += 1
        return c

    @staticmethod
    def _ctype(c: int) -> int:
        return _CT[c] if c < 256 else _ALPHA

    def next_token(self) -> int:
        """``nextToken()``: the next token's type (``ttype``), its text in ``sval`` (words and quoted
        strings) or its value in ``nval`` (numbers). Java's method, one branch per token kind."""
        self.sval = None
        c = self._peek if self._peek is not None else self._read()
        self._peek = None
        if c < 0:
            return self._eof()
        ctype = self._ctype(c)
        while ctype & _WHITESPACE:
            c = self._read()
            if c < 0:
                return self._eof()
            ctype = self._ctype(c)
        if ctype & _DIGIT:
            return self._number(c)
        if ctype & _ALPHA:
            return self._word(c)
        if ctype & _QUOTE:
            return self._quoted(c)
        if c == ord("/"):
            return self._comment()
        self.ttype = c
        return c

    def _eof(self) -> int:
        self.ttype = TT_EOF
        return TT_EOF

    def _number(self, c: int) -> int:
        """A number (``-`` alone is an ordinary character): a number is never a JAAS value."""
        neg = False
        if c == ord("-"):
            c = self._read()
            if c != ord(".") and not (ord("0") <= c <= ord("9")):
                self._peek = c
                self.ttype = ord("-")
                return self.ttype
            neg = True
        v, seendot = 0.0, 0
        while True:
            if c == ord(".") and seendot == 0:
                seendot = 1
            elif ord("0") <= c <= ord("9"):
                v = v * 10 + (c - ord("0"))
            else:
                break
            c = self._read()
        self._peek = c
        self.nval = -v if neg else v
        self.ttype = TT_NUMBER
        return TT_NUMBER

    def _word(self, c: int) -> int:
        """A word: word characters, then digits too (``a1`` is a word, ``1a`` a number and a word)."""
        buf = []
        while True:
            buf.append(c)
            c = self._read()
            ct = _WHITESPACE if c < 0 else self._ctype(c)
            if not ct & (_ALPHA | _DIGIT):
                break
        self._peek = c
        self.sval = _units_to_str(buf)
        self.ttype = TT_WORD
        return TT_WORD

    def _quoted(self, quote: int) -> int:
        """A quoted string; it ends at the same quote, a line break or the end of the text."""
        buf = []
        d = self._read()
        while d >= 0 and d != quote and d not in (0x0A, 0x0D):
            if d == ord("\\"):
                c, d = self._escape()
            else:
                c = d
                d = self._read()
            buf.append(c & 0xFFFF)
        self._peek = None if d == quote else d
        self.sval = _units_to_str(buf)
        self.ttype = quote
        return quote

    def _escape(self) -> tuple[int, int]:
        """After a backslash in a quoted string: the character it stands for (``\\n``, octal up to
        ``\\377``, any other character as itself) and the character read after it."""
        c = self._read()
        first = c
        if ord("0") <= c <= ord("7"):
            c -= ord("0")
            c2 = self._read()
            if ord("0") <= c2 <= ord("7"):
                c = (c << 3) + (c2 - ord("0"))
                c2 = self._read()
                if ord("0") <= c2 <= ord("7") and first <= ord("3"):
                    c = (c << 3) + (c2 - ord("0"))
                    return c, self._read()
            return c, c2
        c = _ESCAPES.get(chr(c), c) if c >= 0 else 0xFFFF
        return c, self._read()

    def _comment(self) -> int:
        """After a ``/``: a ``/* */`` comment, else the rest of the line (``//``, or ``/`` alone, still a
        comment character), then the token after it."""
        c = self._read()
        if c == ord("*"):
            if not self._skip_block_comment():
                return self._eof()
            return self.next_token()
        # The character after the '/' is skipped too, even a line break (as Java does).
        while True:
            c = self._read()
            if c in (0x0A, 0x0D) or c < 0:
                break
        self._peek = c
        return self.next_token()

    def _skip_block_comment(self) -> bool:
        """To the end of a ``/* */`` comment; False when the text ends first."""
        prev = 0
        while True:
            c = self._read()
            if c == ord("/") and prev == ord("*"):
                return True
            if c == 0x0D:
                c = self._read()
                if c == 0x0A:
                    c = self._read()
            elif c == 0x0A:
                c = self._read()
            if c < 0:
                return False
            prev = c


def _units_to_str(units: list[int]) -> str:
    data = b"".join(u.to_bytes(2, "little") for u in units)
    return data.decode("utf-16-le", errors="surrogatepass")


class JaasError(ValueError):
    """Kafka's IllegalArgumentException message for a malformed ``sasl.jaas.config``."""


@dataclass
class JaasEntry:
    login_module: str
    control_flag: str
    #: A key the tokenizer reads as a number is Java's null key (StreamTokenizer leaves its sval null).
    options: dict[str | None, str] = field(default_factory=dict)


_FLAGS = ("REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL")


def parse_jaas_config(text: str) -> list[JaasEntry]:
    """``new JaasConfig(ctx, text)``: every login module entry, or :class:`JaasError`."""
    tok = StreamTokenizer(text)
    entries = []
    while tok.next_token() != TT_EOF:
        module = tok.sval
        if tok.next_token() == TT_EOF:
            raise JaasError("Login module control flag not specified in JAAS config")
        flag = tok.sval
        if flag is None:
            raise JaasError("Login module control flag is not available in the JAAS config")
        if flag.upper() not in _FLAGS:
            raise JaasError(f"Invalid login module control flag '{flag}' in JAAS config")
        options: dict[str | None, str] = {}
        while tok.next_token() != TT_EOF and tok.ttype != ord(";"):
            key = tok.sval
            if tok.next_token() != ord("=") or tok.next_token() == TT_EOF or tok.sval is None:
                raise JaasError(f"Value not specified for key '{'null' if key is None else key}' in JAAS config")
            options[key] = tok.sval
        if tok.ttype != ord(";"):
            raise JaasError("JAAS config entry not terminated by semi-colon")
        entries.append(JaasEntry(module or "", flag.upper(), options))
    if not entries:
        raise JaasError("Login module not specified in JAAS config")
    return entries


def client_login(text: str) -> JaasEntry:
    """The single login module a Kafka client accepts (``JaasContext.loadClientContext``)."""
    entries = parse_jaas_config(text)
    if len(entries) != 1:
        raise JaasError(f"JAAS config property contains {len(entries)} login modules, should be 1 module")
    return entries[0]


def quote(value: str) -> str:
    """A double-quoted JAAS value that reads back as ``value`` (the inverse of the tokenizer)."""
    if "\n" in value or "\r" in value:
        raise JaasError("a JAAS value cannot contain a line break (the tokenizer ends a quoted string there)")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
