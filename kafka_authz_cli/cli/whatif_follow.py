"""`authz whatif --follow` / `--follow-topic` (shadow mode): the options of the `whatif` callback that
concern it, the stop on Ctrl-C and SIGTERM, and the output (a line per change, a status line on a
terminal, or JSON lines)."""

from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager

import typer

from kafka_authz_cli.cli.common import console, err_console, json_line, warn
from kafka_authz_cli.cli.whatif_params import WhatIfParams
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.services.whatif_follow import Followed, FollowHooks, change_record, follow
from kafka_authz_cli.whatif import ShadowChange, short_rule

FOLLOW_HELP = """--follow LOGFILE is shadow mode: the live authorizer log is followed as `tail -F` follows it (from its end,
or --from-start; across rotations by rename and copytruncate; a file that does not exist yet is waited for), and each
logged request whose decision the proposal would change is printed as it is logged (each distinct request once,
--every for every decision), with a status line on a terminal; --format jsonl prints one JSON object per change and a
summary object at the end. --follow-topic TOPIC does the same for Confluent audit-log events on a topic (from its end,
or --from-start; no consumer group, nothing committed). Ctrl-C or SIGTERM stops with the summary (exit 0, or 1 with
--fail-on newly-denied when some client-visible decision was newly denied, 3 when no decision followed could have
been: none at all or, without --current, none ALLOWED; --allow-unverified passes that); --max-seconds S and --max-changes N stop
by themselves. Quarantined lines are counted and appended to --quarantine FILE. --follow DIR --spark runs it on Spark
Structured Streaming (--master as for a replay): DIR is where the brokers' rolled logs land, and each file new in it
is judged whole as it appears, with the same output (files already there only with --from-start)."""


#: The options of a replay that shadow mode refuses (one live source, its own output), by parameter name.
_REPLAY_ONLY = {"logs": "--logs", "index": "--index", "logs_topic": "--logs-topic",
                "max_events": "--max-events", "until_end": "--until-end", "since": "--since", "until": "--until",
                "out": "--out (use --quarantine FILE)", "report_html": "--report", "full": "--full",
                "interactive": "--interactive"}
#: The options of shadow mode, refused without --follow/--follow-topic.
_SHADOW_ONLY = {"from_start": "--from-start", "every": "--every", "max_seconds": "--max-seconds",
                "max_changes": "--max-changes", "quarantine": "--quarantine"}


def refuse_shadow_options(params: WhatIfParams, jsonl: bool) -> None:
    """A replay (not shadow mode) given an option of shadow mode: one line, exit 2."""
    for name, flag in [*_SHADOW_ONLY.items(), ("", "--format jsonl")]:
        if (jsonl if not name else params.given(name)):
            raise InputError(f"{flag} goes with --follow/--follow-topic (shadow mode)")


@contextmanager
def _stop_on_signals():
    """Flags set by SIGINT and SIGTERM (the follow stops at its next check and prints its summary)."""
    stopped: list[str] = []
    handler = lambda *_: stopped.append("signal")  # noqa: E731
    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stopped
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def shadow(params: WhatIfParams, *, jsonl: bool, fail: bool) -> None:
    """Run shadow mode with the `whatif` callback's parameters and render it; exits 1 when `fail` and a
    client-visible decision was newly denied."""
    for name, flag in _REPLAY_ONLY.items():
        if getattr(params, name):
            raise InputError(f"{flag} does not go with --follow/--follow-topic (shadow mode follows one live source)")
    if params.fmt.value == "json":
        raise InputError("--format json does not go with --follow/--follow-topic: use --format jsonl")
    if params.follow is not None and params.follow_topic is not None:
        raise InputError("give either --follow LOGFILE or --follow-topic TOPIC")
    if params.follow_topic is not None and not params.bootstrap_server:
        raise InputError("--follow-topic needs --bootstrap-server")
    request = params.follow_request()
    status = _StatusLine() if not jsonl and err_console.is_terminal else None
    with _stop_on_signals() as stopped, (status or _nothing()):
        printer = status.printer() if status is not None else console.print
        show = _print_json if jsonl else lambda c: _print_change(c, printer)
        done = follow(request, FollowHooks(lambda c: _until_closed(show, c, stopped), status, lambda: bool(stopped)))
    if "closed" in stopped:
        pass  # whoever read the changes is gone (`... | head`): nobody to tell the summary to
    elif jsonl:
        _echo(json_line(done.as_dict()))
    else:
        _print_summary(done, request.quarantine_file)
    if fail and done.summary.visible_newly_denied:
        raise typer.Exit(1)
    if fail:
        fail_closed(done.summary.unverified, params.allow_unverified)


#: --fail-on newly-denied when the input could not show a request newly denied: the gate fails closed.
EXIT_UNVERIFIED = 3


def fail_closed(unverified: str | None, allow_unverified: bool) -> None:
    """The gate on an answer the input could not verify: exit 3 with one line saying why, unless allowed."""
    if unverified is None or allow_unverified:
        return
    typer.echo(f"authz: --fail-on newly-denied fails closed: not verified: {unverified} (--allow-unverified "
               "accepts that)", err=True)
    raise typer.Exit(EXIT_UNVERIFIED)


@contextmanager
def _nothing():
    yield


def _until_closed(show, change: ShadowChange, stopped: list[str]) -> None:
    """`show(change)`, and stop following once stdout is closed (a pipe to `head` that has read its fill)."""
    if "closed" in stopped:
        return
    try:
        show(change)
    except (BrokenPipeError, SystemExit):  # rich says a broken pipe with SystemExit(1) (Console.on_broken_pipe)
        stopped.append("closed")
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python flushes stdout at exit


def _echo(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()  # a pipe sees each change as it happens


def _print_json(change: ShadowChange) -> None:
    _echo(json_line(change_record(change)))


def _print_change(change: ShadowChange, printer) -> None:
    """`TIME - newly denied  PRINCIPAL from HOST OPERATION TYPE:NAME  BEFORE -> AFTER  by CAUSE`."""
    from rich.markup import escape

    style, sign = ("red", "-") if change.kind == "newly_denied" else ("green", "+")
    now = short_rule(change.after_rule)
    notes = [f"logged {change.logged}"] if change.logged != change.before else []
    notes += [] if now in change.cause else [f"now {now}"]
    notes += [] if change.client_visible else ["TRACE: filtering, not seen by the client"]
    printer(f"[dim]{escape(change.time or '-')}[/] [{style}]{sign} {change.kind.replace('_', ' ')}[/]  "
                  f"{escape(change.principal)} from {escape(change.host)} {change.operation} "
                  f"{change.resource_type}:{escape(change.resource_name)}  {change.before} -> {change.after}  "
                  f"by {escape(change.cause)}" + (f" [dim]({escape('; '.join(notes))})[/]" if notes else ""),
                  soft_wrap=True)
    sys.stdout.flush()


def _counts(f: Followed) -> str:
    s, st = f.summary, f.stats
    return (f"{st.lines:,} lines, {s.decisions:,} decisions, {s.distinct_requests:,} distinct requests; newly denied "
            f"{s.newly_denied:,} ({s.newly_denied_requests:,} requests), newly allowed {s.newly_allowed:,} "
            f"({s.newly_allowed_requests:,} requests); {st.quarantined_lines:,} quarantined")


class _StatusLine:
    """A transient status line on stderr (a terminal), below the change lines."""

    def __init__(self):
        from rich.live import Live

        self.live = Live("starting", console=err_console.real(), transient=True, redirect_stdout=False,
                         auto_refresh=False)

    def printer(self):
        """How a change is printed: above the status line when stdout is the same terminal (else the two
        would overwrite each other), else to stdout (a pipe or a file gets the changes only)."""
        return self.live.console.print if console.is_terminal else console.print

    def __call__(self, f: Followed) -> None:
        self.live.update(f"following {f.source}: {_counts(f)}; {f.seconds:,.0f} s (Ctrl-C stops)", refresh=True)

    def __enter__(self):
        self.live.__enter__()
        return self

    def __exit__(self, *exc):
        return self.live.__exit__(*exc)


def _print_summary(f: Followed, quarantine) -> None:
    console.print(f"stopped ({f.stopped}) after {f.seconds:,.1f} s following {f.source}: {_counts(f)}"
                  + (f" (see {quarantine})" if quarantine and f.stats.quarantined_lines else "")
                  + (f"; {f.rotations} rotation(s)" if f.rotations else "")
                  + (f", {f.truncations} truncation(s)" if f.truncations else ""), markup=False, soft_wrap=True)
    if f.summary.unverified:
        console.print(f"not verified: {f.summary.unverified}", markup=False, soft_wrap=True)
    for q in f.quarantine[:5]:
        warn(f"quarantined {q.source}: {q.reason}")
    for w in f.stats.warnings:
        warn(w)
