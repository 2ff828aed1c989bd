"""`authz whatif --index ... --interactive`: a warm session that answers a proposal again each time its
file is saved, keeping the index, the current ACL set, its engine and the baseline in memory, so that
each answer costs what the change touches (whatif/incremental.py), not the start of a process.

:func:`open_session` checks and loads what an :class:`InteractiveRequest` names once;
:meth:`WhatIfSession.answer` answers the proposal as its file is; :func:`watch` yields an answer (or
the one-line error of a proposal that does not load) for the file as it is and after each change,
until `stop()` says so.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Optional

from kafka_authz_cli.errors import AuthzError, OptionError
from kafka_authz_cli.services.acl_sources import acl_set_from, load_source
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.whatif import Proposal, note_untimed
from kafka_authz_cli.whatif import Baseline, Replayed, answer_from_index, open_checked, quarantined

if TYPE_CHECKING:
    from kafka_authz_cli.acl import StandardAuthorizer

#: How often the proposal file is looked at, and how long it must stay unchanged before it is read
#: (an editor may write a file in several steps).
POLL_SECONDS = 0.1
SETTLE_SECONDS = 0.05


@dataclass(frozen=True)
class InteractiveRequest:
    """`authz whatif --index ... --interactive`: the `proposal` answered from `indexes` (hours from
    `since`, up to `until`, as :func:`kafka_authz_cli.whatif.hour_bound` gives them) each time its
    file is saved, incrementally against its current set."""

    proposal: Proposal
    indexes: tuple[Path, ...] = ()
    since: Optional[str] = None
    until: Optional[str] = None


@dataclass
class Answered:
    """One answer of a session: the result and its own time (the answer, not the wait), or the error of
    a proposal that could not be read (the session goes on)."""

    seconds: float
    result: Optional[Replayed] = None
    error: Optional[str] = None

    def document(self, number: int, at: str) -> dict:
        """The answer as one JSON line of `--interactive --format json`: the report, and which answer this
        is, when (`at`, the caller's clock), how long it took and how it was answered."""
        from kafka_authz_cli.whatif import report_dict

        assert self.result is not None  # an answer, not an error
        return dict(report_dict(self.result.report, self.result.stats), answer={
            "number": number, "at": at, "seconds": round(self.seconds, 3), "how": self.result.note})


class WhatIfSession:
    """The indexes of a request, opened and checked, its current set's engine, and the baseline of the
    last answer."""

    def __init__(self, request: InteractiveRequest, indexes, stats, quarantine, current: StandardAuthorizer):
        from kafka_authz_cli import __version__
        from kafka_authz_cli.services.whatif import baseline_cache_dir

        self.request, self.indexes, self.stats, self.quarantine = request, indexes, stats, quarantine
        #: the current set and the broker settings every proposal is decided with
        self.current = current
        self.cache_dir, self.version = baseline_cache_dir(), __version__
        self.baseline: Optional[Baseline] = None

    @property
    def proposed(self) -> Path:
        return self.request.proposal.proposed

    def answer(self) -> Replayed:
        """The proposal as its file is now."""
        from kafka_authz_cli.acl import StandardAuthorizer

        r, p = self.request, self.request.proposal
        proposed_acls = load_source(p.proposed, p.acls_format, quiet=True, options=p.acls_options).bindings
        done = answer_from_index(
            self.indexes, r.since, r.until, StandardAuthorizer(proposed_acls, self.current.settings),
            self.current, cache_dir=self.cache_dir, version=self.version, baseline=self.baseline)
        self.baseline = done.baseline or self.baseline
        note_untimed(done.report, done.untimed)
        return Replayed(self.stats, self.quarantine, done.report, done.note)


def open_session(request: InteractiveRequest) -> WhatIfSession:
    """Everything an answer needs besides the proposal, loaded and checked once."""
    from kafka_authz_cli.acl import StandardAuthorizer

    p = request.proposal
    if not request.indexes:
        raise OptionError("--interactive answers from an index: give --index (build one with "
                          "`authz whatif index`)", "--interactive")
    if p.current is None:
        raise OptionError("--interactive needs --current: its answers are incremental against the current set",
                          "--interactive")
    settings = broker_settings(p.super_users, p.allow_everyone, p.broker_config)
    opened, stats = open_checked(list(request.indexes))
    quarantine = quarantined(opened)
    current_authz = StandardAuthorizer(acl_set_from(p.current, p.acls_format, p.command_config, p.timeout,
                                                    p.acls_options).bindings, settings)
    return WhatIfSession(request, opened, stats, quarantine, current_authz)


def watch(session: WhatIfSession, stop: Callable[[], bool] = lambda: False,
          sleep: Callable[[float], None] = time.sleep) -> Iterator[Answered]:
    """Answers for the session's proposal as its file is, then after each change of its content (size
    or modification time), until `stop()` is true. A proposal that does not load gives its error; the
    next save is answered again."""
    proposed = session.proposed
    seen = None
    while not stop():
        stamp = _stamp(proposed)
        if stamp is None or stamp == seen:
            sleep(POLL_SECONDS)
            continue
        sleep(SETTLE_SECONDS)
        if _stamp(proposed) != stamp:
            continue  # still being written
        seen = stamp
        t0 = time.perf_counter()
        try:
            result = session.answer()
        except AuthzError as exc:
            yield Answered(time.perf_counter() - t0, error=str(exc))
            continue
        yield Answered(time.perf_counter() - t0, result=result)


def _stamp(path: Path) -> Optional[tuple[int, int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None  # an editor replacing the file: it comes back
    return (st.st_mtime_ns, st.st_size, st.st_ino)
