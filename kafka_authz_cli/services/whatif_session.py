"""`authz whatif --index ... --interactive`: a warm session that answers a proposal again each time its
file is saved, keeping the index, the current ACL set, its engine and the baseline in memory, so that
each answer costs what the change touches (whatif/incremental.py), not the start of a process.

:func:`open_session` checks and loads everything once; :meth:`WhatIfSession.answer` answers one
proposal; :func:`watch` yields an answer (or the one-line error of a proposal that does not load) for
the file as it is and after each change, until `stop()` says so.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Mapping, Optional, Union

from kafka_authz_cli.errors import AuthzError, OptionError
from kafka_authz_cli.services.acl_sources import acl_set_from, load_source
from kafka_authz_cli.services.settings import broker_settings
from kafka_authz_cli.services.whatif import Replayed
from kafka_authz_cli.whatif import Baseline, answer_from_index, open_checked, quarantined

if TYPE_CHECKING:
    from kafka_authz_cli.acl import StandardAuthorizer

#: How often the proposal file is looked at, and how long it must stay unchanged before it is read
#: (an editor may write a file in several steps).
POLL_SECONDS = 0.1
SETTLE_SECONDS = 0.05


@dataclass
class Answered:
    """One answer of a session: the result and its own time (the answer, not the wait), or the error of
    a proposal that could not be read (the session goes on)."""

    seconds: float
    result: Optional[Replayed] = None
    error: Optional[str] = None


class WhatIfSession:
    def __init__(self, indexes, stats, quarantine, current: StandardAuthorizer, since, until, acls_format,
                 acls_options):
        from kafka_authz_cli import __version__
        from kafka_authz_cli.services.whatif import baseline_cache_dir

        self.indexes, self.stats, self.quarantine = indexes, stats, quarantine
        #: the current set and the broker settings every proposal is decided with
        self.current, self.since, self.until = current, since, until
        self.acls_format, self.acls_options = acls_format, acls_options
        self.cache_dir, self.version = baseline_cache_dir(), __version__
        self.baseline: Optional[Baseline] = None

    def answer(self, proposed: Path) -> Replayed:
        from kafka_authz_cli.acl import StandardAuthorizer

        proposed_acls = load_source(proposed, self.acls_format, quiet=True, options=self.acls_options).bindings
        done, baseline = answer_from_index(
            self.indexes, self.since, self.until, StandardAuthorizer(proposed_acls, self.current.settings),
            self.current, cache_dir=self.cache_dir, version=self.version, baseline=self.baseline)
        self.baseline = baseline or self.baseline
        if done.untimed:
            done.report.warnings.append(f"{done.untimed} logged decision(s) without a timestamp are left out by "
                                        "--since/--until")
        return Replayed(self.stats, self.quarantine, done.report, done.note)


def open_session(indexes: list[Path], current: Union[Path, str, None], *, since: Optional[str] = None,
                 until: Optional[str] = None, acls_format: Optional[str] = None, super_users: Optional[str] = None,
                 allow_everyone: Optional[bool] = None, broker_config: Optional[Path] = None,
                 command_config: Optional[Path] = None, timeout: float = 10.0,
                 acls_options: Optional[Mapping[str, str]] = None) -> WhatIfSession:
    """Everything a proposal's answer needs besides the proposal, loaded and checked once."""
    from kafka_authz_cli.acl import StandardAuthorizer

    if not indexes:
        raise OptionError("--interactive answers from an index: give --index (build one with "
                          "`authz whatif index`)", "--interactive")
    if current is None:
        raise OptionError("--interactive needs --current: its answers are incremental against the current set",
                          "--interactive")
    settings = broker_settings(super_users, allow_everyone, broker_config)
    opened, stats = open_checked(indexes)
    quarantine = quarantined(opened)
    current_authz = StandardAuthorizer(acl_set_from(current, acls_format, command_config, timeout,
                                                    acls_options).bindings, settings)
    return WhatIfSession(opened, stats, quarantine, current_authz, since, until, acls_format, acls_options)


def watch(session: WhatIfSession, proposed: Path, stop: Callable[[], bool] = lambda: False,
          sleep: Callable[[float], None] = time.sleep) -> Iterator[Answered]:
    """Answers for `proposed` as it is, then after each change of its content (size or modification
    time), until `stop()` is true. A proposal that does not load gives its error; the next save is
    answered again."""
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
            result = session.answer(proposed)
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
