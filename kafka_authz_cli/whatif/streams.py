"""One audit-log file or stream, whatever it holds: told by its content, read by its reader.

A log4j authorizer log (:mod:`.auditlog`) never starts with ``{``; a file of Confluent audit-log
events (:mod:`.cloudevents`) always does (after blank lines and a byte-order mark). A file that is
plainly no log (an ACL file, a broker configuration) is refused saying what it looks like
(:mod:`.sniffing`).
"""

from __future__ import annotations

import itertools
from typing import BinaryIO, Iterator

from kafka_authz_cli.whatif.auditlog import AuditDecision, Quarantined, ReadStats, iter_file_lines, read_lines
from kafka_authz_cli.whatif.cloudevents import looks_like_events, read_event_lines
from kafka_authz_cli.whatif.sniffing import not_a_log, peek


def read_stream(fh: BinaryIO, source: str, stats: ReadStats, quarantine: list[Quarantined],
                on_bytes=None) -> Iterator[AuditDecision]:
    """Decisions of one file or stream (stdin), memory flat in its size, every line accounted for.
    A file that is plainly no log is refused (InputError) before anything of it is counted."""
    fh, head, whole = peek(fh)
    wrong = not_a_log(head, whole, source)
    if wrong is not None:
        raise wrong
    stats.files += 1
    lines = iter_file_lines(fh, source, stats, on_bytes)
    first_lines = []
    for line in lines:
        first_lines.append(line)
        if line.strip():
            break
    every = itertools.chain(first_lines, lines)
    if first_lines and looks_like_events(first_lines[-1]):
        yield from read_event_lines(every, source, stats, quarantine)
    else:
        yield from read_lines(every, source, stats, quarantine)
