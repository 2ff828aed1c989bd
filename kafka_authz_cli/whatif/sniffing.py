"""Is this file an audit log at all? A file that is plainly something else is refused by name.

Users paste what they have: an ACL file (any format authz reads), a server.properties, a proxy
configuration, a README. Read as a log, each of its lines would be quarantined and the run would report
nothing, successfully. Instead, per file and from its first MiB (gzip undone), a file in which the
reader finds no decision there, and no log4j line (timestamp and level) either, is refused
(:func:`why_not_a_log`) when

- the text looks like another kind of input (``formats.what_is``, the sniffer every reader's failure
  path uses): ``FILE: this looks like X, expected an authorizer log ...``; or
- read by the reader itself, most of its complete non-blank lines would be quarantined, whatever it
  looks like (prose, another program's log): said with the count of lines that are no record.

What is never refused: a file with a decision line in that prefix (a real log that starts with
broker startup lines, other loggers, stack traces); a file with a log4j line (a broker's server.log,
whose startup dump of KafkaConfig values reads like properties; a log whose first line is still being
written); a file the sniffer calls authorizer records or Confluent audit-log events (its bad records are
quarantined, each with its reason); and a file most of whose lines the reader takes as other records or
blank. An empty file is no error either (an active log just rotated is empty): a run in which no file
holds a decision line gets one warning (:func:`no_decision_lines`).

A file named on the command line that is no log stops the run (exit 2); one found in a directory or by
a glob is skipped, and the run says so once, with a count and the first names (:func:`sort_out`).
"""

from __future__ import annotations

import io
import zlib
from typing import BinaryIO, cast

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
#: ... and the kinds that are audit records: never refused (a record that does not parse is quarantined,
#: with the reason, which says more than a refusal would).
_AUDIT_KINDS = frozenset({"authorizer-log", "confluent-audit"})


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
    return cast(BinaryIO, _Replayed(raw, fh)), text, whole  # a raw stream, read as a binary file


def why_not_a_log(head: str, whole: bool, source: str) -> str | None:
    """Why the file whose first MiB is ``head`` (``whole``: the file) is no log (``this looks like X``),
    or None to read it."""
    kind = what_is(head[:_SNIFFED].replace("\r\n", "\n"))
    if not whole:
        head = head[:head.rfind("\n") + 1]  # cut short by the prefix: its last line is partial
    if has_log4j_line(head) or kind is not None and kind.key in _AUDIT_KINDS:
        return None  # a log (of other loggers too, or cut short), or audit records: bad ones are quarantined
    if kind is not None and kind.key not in _LOG_KINDS and not _holds_a_decision(head, source):
        return f"this looks like {kind.name}"
    read = _read_head(head, source)
    if read is not None and not head.endswith("\n"):
        # Counted over its complete lines: an unterminated last one may be a record still being written.
        read = _read_head(head[:head.rfind("\n") + 1], source)
    if read is None or read.quarantined_lines * 2 <= read.lines:
        return None  # a decision, or mostly records of other loggers (or blank lines): read as a log
    return (f"no line is a decision and {read.quarantined_lines:,} of {read.lines:,} non-blank line(s)"
            + ("" if whole else " of its first MiB") + " are no log record")


def not_a_log(head: str, whole: bool, source: str) -> InputError | None:
    """The refusal for a file whose first MiB is ``head`` (``whole``: the file), or None to read it."""
    why = why_not_a_log(head, whole, source)
    return None if why is None else InputError(f"{why}, expected {EXPECTED}", source)


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


def _read_head(text: str, source: str) -> ReadStats | None:
    """The reader's accounting of ``text`` (``lines``: the non-blank ones), or None at its first decision."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()  # after the last newline: no line
    first = next((ln for ln in lines if ln.strip()), "")
    read = read_event_lines if looks_like_events(first) else read_lines
    stats = ReadStats()
    for _ in read(lines, source, stats, []):
        return None
    stats.lines = sum(1 for ln in lines if ln.strip())
    return stats


def check_log_file(path: str, source: str) -> None:
    """Refuse ``path`` (reported as ``source``) if it is plainly no log (before a Spark job starts)."""
    wrong = not_a_log(*_head_of(path), source)
    if wrong is not None:
        raise wrong


def _head_of(path: str) -> tuple[str, bool]:
    with open(path, "rb") as fh:
        _, head, whole = peek(fh)
    return head, whole


def sort_out(found: list[str], names: dict[str, str]) -> tuple[list[str], list[dict[str, str]]]:
    """The files found in a directory or by a glob that are logs, and the others (``{"file", "reason"}``,
    by the names authz reports them by): skipped, not refused (a stray README beside the logs)."""
    logs, skipped = [], []
    for f in found:
        source = names.get(f, f)
        why = why_not_a_log(*_head_of(f), source)
        if why is None:
            logs.append(f)
        else:
            skipped.append({"file": source, "reason": why})
    return logs, skipped


#: A warning names at most this many skipped files (a directory of 5,000 stray files is one line).
SKIPPED_NAMED = 3


def _named(skipped: list[dict[str, str]]) -> str:
    named = "; ".join(f"{s['file']} ({s['reason']})" for s in skipped[:SKIPPED_NAMED])
    return named + (f"; and {len(skipped) - SKIPPED_NAMED:,} more" if len(skipped) > SKIPPED_NAMED else "")


def skipped_warning(skipped: list[dict[str, str]]) -> str | None:
    """The one warning for the files skipped as no log: how many, and the first few with why."""
    if not skipped:
        return None
    return f"skipped {len(skipped):,} file(s) found beside the logs that are no log: {_named(skipped)}"


def no_log_found(skipped: list[dict[str, str]], where: str) -> InputError:
    """The error when every file found (and none named) is no log: nothing would be read."""
    return InputError(f"none of the {len(skipped):,} file(s) found is a log: {_named(skipped)}; expected {EXPECTED}",
                      where)


def no_decision_lines(stats: ReadStats) -> str | None:
    """The one warning for a run of files none of which holds a decision line, else None."""
    if stats.files and not stats.decision_lines:
        return f"no decision line in {stats.files} file(s): is this an authorizer log?"
    return None
