"""Usage errors in one line, as every other error of authz.

`authz: error: Invalid value for --x: ... (see authz cmd --help)`, not click's usage line, hint,
blank line and `Error:` line: a CI log or a `2>file` gets one line per error that a grep finds whole.
An OptionError a service raises (options that cannot work together) is said the same way.
"""

from __future__ import annotations

import re
from typing import Any

import typer

from kafka_authz_cli.errors import OptionError


def as_bad_parameter(ctx, exc: OptionError) -> typer.BadParameter:
    return typer.BadParameter(exc.reason, ctx=ctx, param_hint=exc.param_hint)


#: An error line longer than this is cut in the middle (a parser quoting a 10 MB token must not
#: print 10 MB): the location at its start and the reason at its end stay.
MAX_ERROR_CHARS = 1000


_LINE_BREAK = re.compile(r"[ \t]*(?:\r\n|\n|\r)[ \t]*")


def one_line(message: str) -> str:
    """An error message as one line of reasonable length."""
    # A line break and the indentation around it (click lists choices as "\n\tjson,") are one space.
    message = _LINE_BREAK.sub(" ", message)
    if len(message) <= MAX_ERROR_CHARS:
        return message
    keep = MAX_ERROR_CHARS // 2
    return f"{message[:keep]}... [{len(message) - 2 * keep:,} characters cut] ...{message[-keep:]}"


def usage_error_line(exc: typer.TyperException) -> str:
    """A click error as authz says errors: one line, with where the command's help is."""
    ctx = getattr(exc, "ctx", None)
    hint = ""
    if ctx is not None and ctx.command.get_help_option(ctx) is not None:
        hint = f" (see {ctx.command_path} {max(ctx.command.get_help_option_names(ctx), key=len)})"
    return f"authz: error: {one_line(exc.format_message())}{hint}"


def said_in_one_line(exc: typer.TyperException) -> typer.TyperException:
    """``exc`` (one of the click errors Typer vendors, all TyperExceptions) shown by Typer's main, which
    calls its ``show``, as :func:`usage_error_line`. A request for help raised as an error
    (``no_args_is_help``: click's NoArgsIsHelpError, not public in Typer) is shown as click shows it."""
    if hasattr(exc, "show") and type(exc).__name__ != "NoArgsIsHelpError":
        exc.show = lambda file=None: typer.echo(usage_error_line(exc), file=file, err=file is None)
    return exc


#: What OneLineErrors is mixed into: click's Command (vendored privately by Typer), next in the MRO;
#: to the type checker, Any.
_MixedIntoCommand: Any = object


class OneLineErrors(_MixedIntoCommand):
    """A command whose click errors, its own or its subcommands', are shown in one line."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except typer.TyperException as exc:
            raise said_in_one_line(exc)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except OptionError as exc:  # a service found options that cannot work: said as click says it
            raise said_in_one_line(as_bad_parameter(ctx, exc)) from None
        except typer.TyperException as exc:
            raise said_in_one_line(exc)
