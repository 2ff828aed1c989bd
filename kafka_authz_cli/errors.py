"""Errors that reach the user as one line (never a traceback)."""

from __future__ import annotations


class AuthzError(Exception):
    """Base of every error the CLI reports as a single line and exit code 2."""

    exit_code = 2


class InputError(AuthzError):
    """Bad input data, with a location when there is one: ``file:line:col: reason``."""

    def __init__(self, reason: str, path: str | None = None, line: int | None = None, col: int | None = None):
        self.reason = reason
        self.path = path
        self.line = line
        self.col = col
        super().__init__(self.render())

    def render(self) -> str:
        loc = ""
        if self.path is not None:
            loc = str(self.path)
            if self.line is not None:
                loc += f":{self.line}"
                if self.col is not None:
                    loc += f":{self.col}"
            loc += ": "
        return loc + self.reason


class OptionError(AuthzError):
    """Options that cannot work together (or a value an option cannot take), found below the CLI.

    The CLI reports it exactly as it reports a bad parameter of its own: the usage line, then
    ``Invalid value for '<param_hint>': <reason>``, exit 2."""

    def __init__(self, reason: str, param_hint: str | None = None):
        self.reason = reason
        self.param_hint = param_hint
        super().__init__(reason)
