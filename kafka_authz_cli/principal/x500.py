"""The DN string Kafka's TLS principal mapping sees: ``X500Principal.getName()`` (RFC 2253 form).

A broker never maps what ``openssl x509 -subject`` prints: it maps the JDK's RFC 2253 rendering of
the certificate's subject, which

* lists the RDNs most specific first (the reverse of the DER order OpenSSL prints by default),
* separates them with ``,`` and no space, joins multi-valued RDNs with ``+``,
* names only CN, C, L, ST, O, OU, STREET, DC and UID by keyword; every other attribute (emailAddress,
  serialNumber, title, givenName ...) is written as its dotted OID and ``#`` plus the hex of its DER
  encoding (``1.2.840.113549.1.9.1=#1611616c696365406578616d706c652e636f6d``),
* escapes ``, = + < > # ; " \\`` with a backslash, and leading or trailing spaces.

:func:`rfc2253_from_der` renders a DER-encoded Name exactly as ``sun.security.x509.AVA`` and ``RDN``
do. :func:`normalize_dn` parses a DN *string* the way ``new X500Principal(String)`` does for the
common forms (RFC 1779/2253, ``;`` separators, quoted values, ``\\`` escapes, ``#hex``) and renders it.
:func:`dn_form_problems` says why a DN written by hand is not the form the broker passes.

Pure: no I/O (certificate bytes are parsed, files are read elsewhere).
"""

from __future__ import annotations

from dataclasses import dataclass

# OID -> the keyword getName() uses (AVAKeyword entries that are RFC 2253 compliant).
RFC2253_KEYWORDS = {
    "2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O", "2.5.4.11": "OU",
    "2.5.4.9": "STREET", "0.9.2342.19200300.100.1.25": "DC", "0.9.2342.19200300.100.1.1": "UID",
}
# Every keyword X500Principal(String) accepts (AVAKeyword table), upper case -> OID.
KEYWORD_OIDS = {
    "CN": "2.5.4.3", "C": "2.5.4.6", "L": "2.5.4.7", "S": "2.5.4.8", "ST": "2.5.4.8", "O": "2.5.4.10",
    "OU": "2.5.4.11", "T": "2.5.4.12", "IP": "1.3.6.1.4.1.42.2.11.2.1", "STREET": "2.5.4.9",
    "DC": "0.9.2342.19200300.100.1.25", "DNQUALIFIER": "2.5.4.46", "DNQ": "2.5.4.46", "SURNAME": "2.5.4.4",
    "GIVENNAME": "2.5.4.42", "INITIALS": "2.5.4.43", "GENERATION": "2.5.4.44",
    "EMAIL": "1.2.840.113549.1.9.1", "EMAILADDRESS": "1.2.840.113549.1.9.1",
    "UID": "0.9.2342.19200300.100.1.1", "SERIALNUMBER": "2.5.4.5",
}
EMAIL_OID = "1.2.840.113549.1.9.1"
DC_OID = "0.9.2342.19200300.100.1.25"

TAG_UTF8, TAG_PRINTABLE, TAG_T61, TAG_IA5, TAG_GENERAL, TAG_BMP = 0x0C, 0x13, 0x14, 0x16, 0x1B, 0x1E
_STRING_TAGS = {TAG_PRINTABLE, TAG_T61, TAG_IA5, TAG_GENERAL, TAG_BMP, TAG_UTF8}
_ESCAPEES = ',=+<>#;"\\'


class DnError(ValueError):
    """A DN string the JDK refuses (message in the JDK's words where it has one)."""


def is_printable_string_char(c: str) -> bool:
    """``DerValue.isPrintableStringChar``."""
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or ("0" <= c <= "9") or c in " '()+,-./:=?"


@dataclass(frozen=True)
class Ava:
    oid: str
    tag: int
    content: bytes

    def der(self) -> bytes:
        return bytes([self.tag]) + _der_length(len(self.content)) + self.content

    def rfc2253(self) -> str:
        """``AVA.toRFC2253String()``."""
        keyword = RFC2253_KEYWORDS.get(self.oid, self.oid)
        if keyword[0].isdigit() or self.tag not in _STRING_TAGS:
            return keyword + "=#" + self.der().hex()
        # The JDK decodes the content bytes as UTF-8 whatever the string type says.
        value = self.content.decode("utf-8", errors="replace")
        buf = []
        for c in value:
            if is_printable_string_char(c) or c in _ESCAPEES:
                if c in _ESCAPEES:
                    buf.append("\\")
                buf.append(c)
            elif c == "\x00":
                buf.append("\\00")
            else:
                buf.append(c)
        chars = "".join(buf)
        lead = 0
        while lead < len(chars) and chars[lead] in " \r":
            lead += 1
        trail = len(chars) - 1
        while trail >= 0 and chars[trail] in " \r":
            trail -= 1
        out = [("\\" + c) if (i < lead or i > trail) else c for i, c in enumerate(chars)]
        return keyword + "=" + "".join(out)


def _der_length(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def _read_tlv(data: bytes, pos: int) -> tuple[int, bytes, int]:
    if pos + 2 > len(data):
        raise DnError("truncated DER")
    tag = data[pos]
    length = data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or pos + count > len(data):
            raise DnError("bad DER length")
        length = int.from_bytes(data[pos:pos + count], "big")
        pos += count
    if pos + length > len(data):
        raise DnError("truncated DER")
    return tag, data[pos:pos + length], pos + length


def _oid_from_der(body: bytes) -> str:
    if not body:
        raise DnError("empty OID")
    first = body[0]
    parts = [min(first // 40, 2), first - 40 * min(first // 40, 2)]
    value = 0
    for b in body[1:]:
        value = (value << 7) | (b & 0x7F)
        if not b & 0x80:
            parts.append(value)
            value = 0
    return ".".join(str(p) for p in parts)


def parse_name_der(der: bytes) -> list[list[Ava]]:
    """A DER ``Name`` (SEQUENCE OF SET OF AttributeTypeAndValue) as RDNs in DER order."""
    tag, body, _ = _read_tlv(der, 0)
    if tag != 0x30:
        raise DnError("not a DER Name")
    rdns: list[list[Ava]] = []
    pos = 0
    while pos < len(body):
        tag, rdn_body, pos = _read_tlv(body, pos)
        if tag != 0x31:
            raise DnError("RDN is not a SET")
        avas = []
        p = 0
        while p < len(rdn_body):
            tag, atv, p = _read_tlv(rdn_body, p)
            if tag != 0x30:
                raise DnError("AttributeTypeAndValue is not a SEQUENCE")
            otag, oid_body, q = _read_tlv(atv, 0)
            if otag != 0x06:
                raise DnError("attribute type is not an OID")
            vtag, value, _ = _read_tlv(atv, q)
            avas.append(Ava(_oid_from_der(oid_body), vtag, value))
        rdns.append(avas)
    return rdns


def render_rfc2253(rdns: list[list[Ava]]) -> str:
    """``X500Name.getRFC2253Name()``: RDNs in reverse DER order, ``,`` between, ``+`` inside."""
    return ",".join("+".join(a.rfc2253() for a in rdn) for rdn in reversed(rdns))


def rfc2253_from_der(der: bytes) -> str:
    return render_rfc2253(parse_name_der(der))


# -- DN strings (X500Principal(String), DEFAULT format) ---------------------------------------------


def _split_unescaped(text: str, seps: str) -> list[str]:
    parts, buf, quoted, i = [], [], False, 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            buf.append(text[i:i + 2])
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        if c in seps and not quoted:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(c)
        i += 1
    parts.append("".join(buf))
    return parts


def _parse_value(oid: str, raw: str) -> Ava:
    """One AVA's value as ``X500Principal(String)`` reads it: ``#`` and DER hex, a quoted string, or
    plain text with ``\\`` escapes."""
    text = raw.lstrip(" \n")
    if text.startswith("#"):
        return _hex_value(oid, raw, text)
    value = _quoted_value(text) if text.startswith('"') else _unquoted_value(text)
    if oid == EMAIL_OID or oid == DC_OID:
        return Ava(oid, TAG_IA5, value.encode("utf-8"))
    if all(is_printable_string_char(c) for c in value):
        return Ava(oid, TAG_PRINTABLE, value.encode("ascii"))
    return Ava(oid, TAG_UTF8, value.encode("utf-8"))


def _hex_value(oid: str, raw: str, text: str) -> Ava:
    """``#`` then the hex of a whole DER value (its tag kept as written)."""
    hexpart = text[1:].strip()
    try:
        der = bytes.fromhex(hexpart)
    except ValueError:
        raise DnError(f"AVA parse, invalid hex digit in {raw!r}") from None
    tag, content, end = _read_tlv(der, 0)
    if end != len(der):
        raise DnError("AVA parse, extra data after the hex value")
    return Ava(oid, tag, content)


def _quoted_value(text: str) -> str:
    """``"..."``: everything up to the last quote, a backslash taking the next character as is."""
    end = text.rfind('"')
    if end <= 0:
        raise DnError("Quoted string did not end with quote")
    rest = text[end + 1:].strip(" ")
    if rest:
        raise DnError("Invalid text following the quoted string")
    body = text[1:end]
    chars: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            c = body[i + 1]
            i += 1
        chars.append(c)
        i += 1
    return "".join(chars)


class _UnquotedValue:
    """The characters of an unquoted value: ``\\xx`` pairs collect UTF-8 bytes (decoded together at the
    next character), and trailing unescaped spaces are not part of the value."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.pending = bytearray()
        self.significant = 0  # length of chars up to the last significant (non-trailing-space) character

    def _flush(self) -> None:
        if self.pending:
            self.chars.append(self.pending.decode("utf-8", errors="replace"))
            self.pending.clear()

    def add(self, c: str, significant: bool) -> None:
        self._flush()
        self.chars.append(c)
        if significant:
            self.significant = len(self.chars)

    def value(self) -> str:
        if self.pending:
            self._flush()
            self.significant = len(self.chars)
        return "".join(self.chars[:self.significant])


def _unquoted_value(text: str) -> str:
    out = _UnquotedValue()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            if c in '=<>#;"':
                raise DnError(f"Character '{c}' in AVA appears without escape")
            out.add(c, c != " ")
            i += 1
            continue
        if i + 1 >= len(text):
            raise DnError("Invalid escape at the end of the value")
        hexpair = text[i + 1:i + 3]
        if len(hexpair) == 2 and all(h in "0123456789abcdefABCDEF" for h in hexpair):
            out.pending.append(int(hexpair, 16))
            i += 3
            continue
        nxt = text[i + 1]
        if nxt not in ',=\n+<>#;\\" ':
            raise DnError(f"Invalid escaped character in AVA: '{nxt}'")
        out.add(nxt, True)
        i += 2
    return out.value()


def _keyword_oid(keyword: str) -> str:
    key = keyword.upper().strip()
    if key in KEYWORD_OIDS:
        return KEYWORD_OIDS[key]
    if key.startswith("OID."):
        key = key[4:]
    if not key or not key[0].isdigit():
        raise DnError(f'Invalid keyword "{key}"')
    if not all(part.isdigit() for part in key.split(".")) or len(key.split(".")) < 2:
        raise DnError(f"ObjectIdentifier() -- Invalid format: {key}")
    return key


def parse_dn(text: str) -> list[list[Ava]]:
    """``new X500Principal(String)`` for the common forms: RDNs in DER order."""
    if not text:
        return []
    rdns = []
    for rdn_text in _split_unescaped(text, ",;"):
        avas = []
        for ava_text in _split_unescaped(rdn_text, "+"):
            if "=" not in ava_text:
                raise DnError("Incorrect AVA format")
            keyword, _, raw = ava_text.partition("=")
            avas.append(_parse_value(_keyword_oid(keyword), raw))
        rdns.append(avas)
    rdns.reverse()
    return rdns


def normalize_dn(text: str) -> str:
    """The string the broker would map for a certificate whose subject is ``text``."""
    return render_rfc2253(parse_dn(text))


def dn_form_problems(dn: str) -> list[str]:
    """Why ``dn`` (written by hand) is not what ``X500Principal.getName()`` would print."""
    problems = []
    stripped = dn.strip()
    if stripped.startswith("/") and "=" in stripped:
        problems.append("looks like OpenSSL's '/C=../O=../CN=..' form: the broker sees "
                        "'CN=..,O=..,C=..' (most specific RDN first, commas, no slashes)")
        return problems
    try:
        normal = normalize_dn(dn)
    except DnError as exc:
        problems.append(f"not a DN the JDK can parse ({exc})")
        return problems
    parts = _split_unescaped(dn, ",")
    keywords = [p.split("=", 1)[0].strip() for p in parts if "=" in p]
    reversed_order = bool(keywords) and keywords[0].upper() == "C" and len(keywords) > 1 and \
        keywords[-1].upper() == "CN"
    if normal == dn and not reversed_order:
        return problems
    if any(p.startswith(" ") for p in parts[1:]):
        problems.append("has spaces after commas; the broker's form has none")
    if any("=" in p and (p.split("=", 1)[0] != p.split("=", 1)[0].strip() or p.split("=", 1)[1][:1] == " ")
           for p in parts):
        problems.append("has spaces around '='; the broker's form has none")
    for kw in keywords:
        up = kw.upper()
        if up in KEYWORD_OIDS and KEYWORD_OIDS[up] not in RFC2253_KEYWORDS:
            problems.append(f"'{kw}=' is printed by the broker as its OID and DER hex "
                            f"({KEYWORD_OIDS[up]}=#...), never as '{kw}='")
        elif up in KEYWORD_OIDS and kw != RFC2253_KEYWORDS.get(KEYWORD_OIDS[up], kw):
            problems.append(f"keyword '{kw}' is printed as '{RFC2253_KEYWORDS[KEYWORD_OIDS[up]]}'")
    if reversed_order:
        problems.append("RDNs are in OpenSSL's order (C first): a certificate with this subject is mapped as "
                        + ",".join(reversed(_split_unescaped(normal, ","))))
        return problems
    if not problems:
        problems.append("differs from the broker's rendering")
    problems.append(f"the broker would map: {normal}")
    return problems
