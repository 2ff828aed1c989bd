"""Secrets from the person running authz: a line of stdin, a file's first line, or a hidden prompt.

The one way authz reads a password, an encoder secret or an expected password. Never from the
command line unless the user insists (argv is visible to every user of the machine and lands in
shell history); never echoed, never quoted in an error message. `scram` commands read one password
(`read_password`), `config encode-password|decode-password` up to three secrets (`read_secret`,
stdin lines handed out in the order the secrets are asked for).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.common import warn
from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.formats import next_stdin_line, read_bytes

EMPTY_PASSWORD = "empty password: Kafka refuses it ('Empty key')"


class StdinLines:
    """Standard input, one line per secret: the first secret asked for gets the first line."""

    def next(self, label: str) -> Optional[str]:
        """The next line without its line ending, strictly UTF-8 (``label`` names the flag in an
        error); None when stdin has no line left."""
        return next_stdin_line(label)


def first_line_secret(path: Path) -> str:
    """The first line of a secret file, exactly (a byte-order mark is kept: it is part of the bytes),
    with a warning when others may read the file."""
    label = str(path)
    data = read_bytes(path, label)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x}); Kafka hashes the UTF-8 bytes of the "
                         "password", label, data.count(b"\n", 0, exc.start) + 1) from None
    if text.startswith("\ufeff"):
        warn(f"{label} starts with a byte-order mark, which is part of the password as read")
    if str(path) != "-":
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = 0
        if mode & 0o077:
            warn(f"{label} is readable by others (mode {oct(mode & 0o777)}); chmod 600 it")
    return text.split("\n", 1)[0].rstrip("\r")


def prompt_secret(prompt: str, confirm: bool, allow_empty: bool, no_terminal: str) -> str:
    """A hidden prompt (asked twice with ``confirm``); only on a terminal, unless AUTHZ_ALLOW_PIPE_PROMPT=1
    (``no_terminal`` says which options to use instead). Ctrl-C exits 130."""
    if not sys.stdin.isatty() and os.environ.get("AUTHZ_ALLOW_PIPE_PROMPT") != "1":
        raise AuthzError(no_terminal)
    try:
        return typer.prompt(prompt, hide_input=True, confirmation_prompt=confirm,
                            default="" if allow_empty else None, show_default=False)
    except typer.Abort:
        # Ctrl-C (or end of input) at the prompt: click turns it into Abort, which would exit 1.
        typer.echo("authz: interrupted", err=True)
        raise typer.Exit(130) from None


def read_password(password_stdin: bool, password_file: Optional[Path], password: Optional[str],
                  argv_ok: bool, confirm: bool = True, prompt: str = "Password") -> str:
    """A SCRAM password: --password-stdin, --password-file, a prompt, or (with
    --password-argv-i-understand) --password; never empty (Kafka's HMAC refuses an empty key)."""
    sources = sum([password_stdin, password_file is not None, password is not None])
    if sources > 1:
        raise typer.BadParameter("give one of --password-stdin, --password-file, --password", param_hint="password")
    if password is not None:
        if not argv_ok:
            raise typer.BadParameter("a password on the command line is visible to other users and kept in shell "
                                     "history; use the prompt, --password-stdin or --password-file (or add "
                                     "--password-argv-i-understand)", param_hint="--password")
        value = password
    elif password_stdin:
        value = StdinLines().next("--password-stdin") or ""
    elif password_file is not None:
        value = first_line_secret(password_file)
    else:
        value = prompt_secret(prompt, confirm, False, "no password source: stdin is not a terminal; use "
                                                      "--password-stdin or --password-file")
    if not value:
        # Kafka's HMAC refuses an empty key: the broker could never use this credential.
        if password_file is not None:
            raise InputError(EMPTY_PASSWORD, str(password_file), 1)
        raise AuthzError(EMPTY_PASSWORD)
    return value


def read_secret(stdin_flag: bool, file: Optional[Path], stdin: StdinLines, what: str, flag: str, prompt: str,
                confirm: bool, fallback: Optional[str] = None, allow_empty: bool = True) -> str:
    """One of `config`'s secrets (``what``: "encoder secret", "password" ...; ``flag``: its --*-stdin
    option): a line of ``stdin`` (shared by all the secrets of one command), a file's first line,
    ``fallback`` (the secret in --broker-config), or a prompt."""
    if stdin_flag and file is not None:
        raise typer.BadParameter(f"give one source for the {what}", param_hint=what)
    if stdin_flag:
        value = stdin.next(flag)
        if value is None:
            raise AuthzError(f"stdin has no line left for the {what}")
    elif file is not None:
        value = first_line_secret(file)
    elif fallback is not None:
        value = fallback
    else:
        value = prompt_secret(prompt, confirm, allow_empty, f"no source for the {what}: stdin is not a terminal; "
                                                            "use the --*-stdin or --*-file options")
    if not value and not allow_empty:
        raise AuthzError(f"empty {what}")
    return value
