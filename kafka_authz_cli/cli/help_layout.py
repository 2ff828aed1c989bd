"""How authz lays out help: click's plain layout (no rich panels), as Typer hands it over.

Help never truncates a flag or a value with `…`, wraps at spaces only (a name such as
`--allow-everyone-if-no-acl-found` or `ssl.principal.mapping.rules` is never broken mid-token), has
no escape codes when piped, and shows metavars such as `PATH`, `TEXT`, `INTEGER` or `[json|csv]`
instead of Python type names. The man page (cli/manpage.py) is made of the same rows.
"""

from __future__ import annotations

import textwrap
from datetime import datetime
from enum import Enum
from typing import Any, Optional, get_args, get_origin

import typer


def wrap(text: str, width: int, initial_indent: str = "", subsequent_indent: str = "",
         preserve_paragraphs: bool = False) -> str:
    """click's wrap_text, but never breaking a word or a hyphenated name: a token longer than the
    line stays whole (the line runs long) rather than being split or truncated."""
    wrapper = textwrap.TextWrapper(width=max(width, 10), initial_indent=initial_indent,
                                   subsequent_indent=subsequent_indent, replace_whitespace=False,
                                   break_long_words=False, break_on_hyphens=False)
    text = text.expandtabs()
    if not preserve_paragraphs:
        return wrapper.fill(text)
    paragraphs: list[tuple[int, bool, list[str]]] = []
    buf: list[str] = []
    indent: Optional[int] = None

    def flush() -> None:
        if buf:
            raw = buf[0].strip() == "\b"
            paragraphs.append((indent or 0, raw, buf[1:] if raw else list(buf)))
            buf.clear()

    for line in text.splitlines():
        if not line.strip():
            flush()
            indent = None
            continue
        if indent is None:
            indent = len(line) - len(line.lstrip())
        buf.append(line if buf and buf[0].strip() == "\b" else line.strip())
    flush()
    out = []
    for extra, raw, lines in paragraphs:
        pad = " " * extra
        if raw:
            out.append("\n".join(initial_indent + pad + ln for ln in lines))
        else:
            w = textwrap.TextWrapper(width=max(width, 10), initial_indent=initial_indent + pad,
                                     subsequent_indent=subsequent_indent + pad, replace_whitespace=False,
                                     break_long_words=False, break_on_hyphens=False)
            out.append(w.fill(" ".join(lines)))
    return "\n\n".join(out)


#: click's HelpFormatter, as Typer vendors it (privately: known to the type checker only as Any)
_ClickHelpFormatter: Any = typer.Context.formatter_class


class HelpFormatter(_ClickHelpFormatter):
    """click's formatter with `wrap` instead of click's word-breaking wrapper."""

    def write_usage(self, prog: str, args: str = "", prefix: Optional[str] = None) -> None:
        prefix = "Usage: " if prefix is None else prefix
        head = f"{prefix:>{self.current_indent}}{prog} "
        if len(head) <= self.width // 2:
            self.write(wrap(args, self.width, head, " " * len(head)) + "\n")
        else:
            self.write(head.rstrip() + "\n")
            indent = " " * (max(self.current_indent, len(prefix)) + 4)
            self.write(wrap(args, self.width, indent, indent) + "\n")

    def write_text(self, text: str) -> None:
        indent = " " * self.current_indent
        self.write(wrap(text, self.width, indent, indent, preserve_paragraphs=True) + "\n")

    def write_dl(self, rows, col_max: int = 30, col_spacing: int = 2) -> None:
        rows = list(rows)
        first_col = min(max((len(r[0]) for r in rows), default=0), col_max) + col_spacing
        for first, second in rows:
            self.write(f"{'':>{self.current_indent}}{first}")
            if not second:
                self.write("\n")
                continue
            if len(first) <= first_col - col_spacing:
                self.write(" " * (first_col - len(first)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            text_width = max(self.width - first_col - self.current_indent, 20)
            lines = wrap(second, text_width, preserve_paragraphs=True).splitlines() or [""]
            self.write(lines[0] + "\n")
            for line in lines[1:]:
                self.write(f"{'':>{first_col + self.current_indent}}{line}\n" if line else "\n")


class AuthzContext(typer.Context):
    formatter_class = HelpFormatter


_TYPE_METAVARS = {str: "TEXT", int: "INTEGER", float: "FLOAT", bool: "BOOLEAN", datetime: "DATETIME"}


def _choice_str(value: Any) -> str:
    return str(value.value) if isinstance(value, Enum) else str(value)


def _annotation_metavar(annotation: Any, param: Any) -> str:
    desc = getattr(param, "type_descriptor", None)
    origin = get_origin(annotation)
    if origin is list:
        return _annotation_metavar(get_args(annotation)[0], param)
    if origin is tuple:
        return " ".join(_annotation_metavar(a, param) for a in get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "[" + "|".join(_choice_str(c) for c in annotation) + "]"
    if desc is not None and desc.is_path:
        info = desc.parameter_info
        if getattr(info, "dir_okay", True) is False:
            return "FILE"
        if getattr(info, "file_okay", True) is False:
            return "DIR"
        return "PATH"
    if annotation in _TYPE_METAVARS:
        return _TYPE_METAVARS[annotation]
    name = getattr(annotation, "__name__", None)
    return name.upper() if name else "VALUE"


def default_metavar(param: Any) -> Optional[str]:
    """The metavar click would show (TEXT, PATH, INTEGER, [a|b]), computed from Typer's type
    descriptor instead of its `<str>`-style Python type names; None for flags."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    if param.param_type_name == "argument":
        return (param.name or "VALUE").upper()
    desc = getattr(param, "type_descriptor", None)
    if desc is None:  # a plain click parameter
        return getattr(getattr(param, "type", None), "name", "VALUE").upper()
    if desc.is_choice:
        return "[" + "|".join(dict.fromkeys(_choice_str(c) for c in desc.choices or ())) + "]"
    return _annotation_metavar(desc.annotation, param)


def join_opts(opts: list[str]) -> str:
    return ", ".join(sorted(opts, key=lambda o: (len(o) - len(o.lstrip("-/")), o)))


def param_row(param: Any, ctx: Any) -> Optional[tuple[str, str]]:
    """One help row: the full flag names and metavar, and the help with its default/required."""
    if getattr(param, "hidden", False):
        return None
    record = param.get_help_record(ctx)
    if record is None:
        return None
    help_text = record[1] or ""
    metavar = param.metavar if param.metavar is not None else default_metavar(param)
    if param.param_type_name == "argument":
        suffix = "..." if param.nargs != 1 else ""
        return f"{metavar}{suffix}", help_text
    names = join_opts(list(param.opts))
    if getattr(param, "secondary_opts", None):
        names += " / " + join_opts(list(param.secondary_opts))
    if metavar:
        names += f" {metavar}"
    return names, help_text


def format_params(command: Any, ctx: Any, formatter: Any) -> None:
    """The Arguments and Options sections of a command's help."""
    args: list[tuple[str, str]] = []
    opts: list[tuple[str, str]] = []
    for param in command.get_params(ctx):
        row = param_row(param, ctx)
        if row is not None:
            (args if param.param_type_name == "argument" else opts).append(row)
    if args:
        with formatter.section("Arguments"):
            formatter.write_dl(args)
    if opts:
        with formatter.section("Options"):
            formatter.write_dl(opts)


def usage_pieces(command: Any, ctx: Any) -> list[str]:
    """click's usage line: `[OPTIONS]`, then each argument as NAME (required), [NAME] (optional),
    with `...` when it takes several (Typer 0.29 writes a required one as `{NAME}`)."""
    pieces = [command.options_metavar] if command.options_metavar else []
    for param in command.get_params(ctx):
        if param.param_type_name != "argument":
            continue
        name = param.metavar or default_metavar(param)
        assert name is not None  # an argument's metavar is its name at least
        name = name if param.required else f"[{name}]"
        pieces.append(name + ("..." if param.nargs != 1 else ""))
    return pieces


def first_sentence(command: Any) -> str:
    """A command's one-line help, whole (click would cut it at 45 characters with `...`)."""
    if command.short_help:
        return command.short_help
    return command.get_short_help_str(limit=10_000)
