"""Is this file an audit log at all? A file that is plainly something else is refused by name.

Users paste what they have: an ACL file (any format authz reads), a server.properties, a proxy
configuration. Read as a log, each of its lines would be quarantined and the run would report
nothing, successfully. Instead, per file and from its first MiB (gzip undone): when no line of it
is a decision and the text looks like another kind of input (``formats.what_is``, the sniffer every
reader's failure path uses), the file is refused with ``FILE: this looks like X, expected an
authorizer log ...``.

What is never refused: a file with a decision line in that prefix (a real log that starts with
broker startup lines, other loggers, stack traces), a file with a log4j line (timestamp and level)
in it (a broker's server.log whose startup dump of KafkaConfig values reads like properties), and a
file that looks like nothing known (read as before, every line accounted for). An empty file is no
error either (an active log just rotated is empty): a run in which no file holds a decision line
gets one warning (:func:`no_decision_lines`).
"""

from __future__ import annotations

import io
import zlib
from typing import BinaryIO

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import what_is
from kafka_authz_cli.whatif.auditlog import GZIP_MAGIC, ReadStats, has_log4j_line, read_lines
from kafka_authz_cli.whatif.cloudevents import looks_like_events, read_event_lines

EXPECTED = "an authorizer log (kafka-authorizer.log) or Confluent audit-log events"
#: The prefix a file is judged by: a real log shows a decision or a log4j line long before.
PREFIX_BYTES = 1 << 20
#: What the sniffer is given: it reads less (and a JSON document whole up to a quarter of this).
_SNIFFED = 1 << 17
#: What the sniffer may call a file that is read as a log.
_LOG_KINDS = frozenset({"authorizer-log", "log", "confluent-audit"})


class _Replayed(io.RawIOBase):
    """A stream whose first bytes were already read: gives them again, then the rest."""

    def __init__(self, head: bytes, rest: BinaryIO):
        self._head, self._rest = head, rest

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if not self._head:
            return self._rest.read(size)
        if size is None or size < 0:
            out, self._head = self._head + self._rest.read(), b""
            return out
        out, self._head = self._head[:size], self._head[size:]
        return out


def _decoded_head(raw: bytes) -> tuple[str, bool]:
    """(the text of up to PREFIX_BYTES of the file, is that the whole of it); gzip members undone
    (a corrupt or truncated one gives what it held)."""
    if raw[:2] != GZIP_MAGIC:
        return raw.decode("utf-8", "replace"), len(raw) < PREFIX_BYTES
    out, data = b"", raw
    while data[:2] == GZIP_MAGIC and len(out) < PREFIX_BYTES:
        d = zlib.decompressobj(wbits=31)
        try:
            out += d.decompress(data, PREFIX_BYTES - len(out))
        except zlib.error:
            return out.decode("utf-8", "replace"), False
        if not d.eof:
            break
        data = d.unused_data
    return out.decode("utf-8", "replace"), len(raw) < PREFIX_BYTES and len(out) < PREFIX_BYTES


def peek(fh: BinaryIO) -> tuple[BinaryIO, str, bool]:
    """(a stream that reads as ``fh`` did, the text of its first MiB, whether that is all of it)."""
    raw = b""
    while len(raw) < PREFIX_BYTES:  # a pipe may give less than asked before its end
        more = fh.read(PREFIX_BYTES - len(raw))
        if not more:
            break
        raw += more
    text, whole = _decoded_head(raw)
    return _Replayed(raw, fh), text, whole


def not_a_log(head: str, whole: bool, source: str) -> InputError | None:
    """The refusal for a file whose first MiB is ``head`` (``whole``: the file), or None to read it."""
    kind = what_is(head[:_SNIFFED].replace("\r\n", "\n"))
    if kind is None or kind.key in _LOG_KINDS:
        return None
    if not whole:
        head = head[:head.rfind("\n") + 1]  # cut short by the prefix: its last line is partial
    if has_log4j_line(head):
        return None
    if _holds_a_decision(head, source):
        return None  # a log, whatever else its first lines look like
    return InputError(f"this looks like {kind.name}, expected {EXPECTED}", source)


def _holds_a_decision(text: str, source: str) -> bool:
    """Does the reader find a decision in ``text``? Read by the reader itself, but only when the text
    holds what every decision holds (cheap on a MiB of YAML)."""
    lines = text.split("\n")
    first = next((ln for ln in lines if ln.strip()), "")
    events = looks_like_events(first)
    if ("authorizationInfo" if events else "Principal = ") not in text:
        return False
    read = read_event_lines if events else read_lines
    return any(True for _ in read(lines, source, ReadStats(), []))


def check_log_file(path: str, source: str) -> None:
    """Refuse ``path`` (reported as ``source``) if it is plainly no log (before a Spark job starts)."""
    with open(path, "rb") as fh:
        _, head, whole = peek(fh)
    wrong = not_a_log(head, whole, source)
    if wrong is not None:
        raise wrong


def no_decision_lines(stats: ReadStats) -> str | None:
    """The one warning for a run of files none of which holds a decision line, else None."""
    if stats.files and not stats.decision_lines:
        return f"no decision line in {stats.files} file(s): is this an authorizer log?"
    return None
