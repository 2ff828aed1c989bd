"""Lazy subcommands and pipe-safe help for the `authz` Typer app.

`authz --help`, `authz --version` and a command's own run must not pay for importing every other
command (and PySpark, kafka-python, pyarrow, cryptography, ...). The root group knows each command's
name, module and one-line help without importing anything; a command's module is imported only when
that command is resolved (run, asked for `--help`, completed or walked by a test).

Help is click's plain layout (no rich panels): it never truncates a flag or a value with `…`, wraps at
spaces only (a name such as `--allow-everyone-if-no-acl-found` or `ssl.principal.mapping.rules` is
never broken mid-token), has no escape codes when piped, and shows metavars such as `PATH`, `TEXT`,
`INTEGER` or `[json|csv]` instead of Python type names.

A usage error is one line, as every other error (`authz: error: Invalid value for --x: ... (see authz
cmd --help)`), not click's usage line, hint, blank line and `Error:` line: a CI log or a `2>file` gets
one line per error that a grep finds whole.
"""

from __future__ import annotations

import importlib
import textwrap
from dataclasses import dataclass
from datetime import datetime
from difflib import get_close_matches
from enum import Enum
from typing import Any, Callable, Optional, get_args, get_origin

import typer
from typer.core import TyperCommand, TyperGroup

from kafka_authz_cli.errors import OptionError


@dataclass(frozen=True)
class LazyCommand:
    """A subcommand known by name before its module is imported."""

    name: str
    module: str
    short_help: str
    hidden: bool = False


# ---------------------------------------------------------------------------------------------
# Help layout


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


class HelpFormatter(typer.Context.formatter_class):  # click's HelpFormatter, as Typer vendors it
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


# ---------------------------------------------------------------------------------------------
# Metavars and option rows

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


class _DeferredRuntimeParam:
    """Typer's runtime coercion for one parameter, built when a value first needs it.

    Typer builds a pydantic TypeAdapter for every parameter it processes, set or not (its
    ``get_runtime_param()``), so merely having options (the completion options of the root group,
    say) imports pydantic. An unset parameter (None) coerces to what Typer's RuntimeParam.coerce
    returns for None without building anything; every other value goes through the runtime param
    Typer's own ``get_runtime_param`` builds, unchanged."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._real = None

    def _get(self) -> Any:
        if self._real is None:
            self._real = self._build()
        return self._real

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if (param.multiple or param.nargs == -1) else None
        return self._get().coerce(value, param=param, ctx=ctx)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)


def _defer_coercion(param: Any) -> Any:
    """Typer's parameters build their coercion through ``get_runtime_param()``: answer it with a
    deferred one (once per parameter; a Typer without that method simply builds it itself)."""
    build = getattr(param, "get_runtime_param", None)
    if build is not None and not getattr(param, "_authz_deferred", False):
        deferred = _DeferredRuntimeParam(build)
        param.get_runtime_param = lambda: deferred
        param._authz_deferred = True
    return param


def polish_params(command: Any) -> None:
    """Metavars for value-taking parameters; coercion built on first use."""
    for param in command.params:
        if param.metavar is None:
            metavar = default_metavar(param)
            if metavar is not None:
                param.metavar = metavar
        _defer_coercion(param)


def polish(command: Any) -> Any:
    """polish_params() over a command tree (once)."""
    if getattr(command, "_authz_polished", False):
        return command
    polish_params(command)
    command._authz_polished = True
    for sub in getattr(command, "commands", {}).values():
        polish(sub)
    return command


def _join_opts(opts: list[str]) -> str:
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
    names = _join_opts(list(param.opts))
    if getattr(param, "secondary_opts", None):
        names += " / " + _join_opts(list(param.secondary_opts))
    if metavar:
        names += f" {metavar}"
    return names, help_text


def format_params(command: Any, ctx: Any, formatter: Any) -> None:
    polish(command)
    args, opts = [], []
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
        name = name if param.required else f"[{name}]"
        pieces.append(name + ("..." if param.nargs != 1 else ""))
    return pieces


def first_sentence(command: Any) -> str:
    """A command's one-line help, whole (click would cut it at 45 characters with `...`)."""
    if command.short_help:
        return command.short_help
    return command.get_short_help_str(limit=10_000)


def _as_bad_parameter(ctx, exc: OptionError) -> typer.BadParameter:
    return typer.BadParameter(exc.reason, ctx=ctx, param_hint=exc.param_hint)


#: An error line longer than this is cut in the middle (a parser quoting a 10 MB token must not
#: print 10 MB): the location at its start and the reason at its end stay.
MAX_ERROR_CHARS = 1000


def one_line(message: str) -> str:
    """An error message as one line of reasonable length."""
    message = message.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
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


def _said_in_one_line(exc: typer.TyperException) -> typer.TyperException:
    """``exc`` (one of the click errors Typer vendors, all TyperExceptions) shown by Typer's main, which
    calls its ``show``, as :func:`usage_error_line`. A request for help raised as an error
    (``no_args_is_help``: click's NoArgsIsHelpError, not public in Typer) is shown as click shows it."""
    if hasattr(exc, "show") and type(exc).__name__ != "NoArgsIsHelpError":
        exc.show = lambda file=None: typer.echo(usage_error_line(exc), file=file, err=file is None)
    return exc


class _OneLineErrors:
    """A command whose click errors, its own or its subcommands', are shown in one line."""

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except typer.TyperException as exc:
            raise _said_in_one_line(exc)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except OptionError as exc:  # a service found options that cannot work: said as click says it
            raise _said_in_one_line(_as_bad_parameter(ctx, exc)) from None
        except typer.TyperException as exc:
            raise _said_in_one_line(exc)


class AuthzCommand(_OneLineErrors, TyperCommand):
    context_class = AuthzContext

    def collect_usage_pieces(self, ctx) -> list[str]:
        polish(self)
        return usage_pieces(self, ctx)

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        return _defer_coercion(option) if option is not None else None

    def format_options(self, ctx, formatter) -> None:
        format_params(self, ctx, formatter)


class AuthzGroup(_OneLineErrors, TyperGroup):
    """(An OptionError from the group's own callback, `authz whatif` runs in it, is said as click says a
    bad parameter, as for a command.)"""

    context_class = AuthzContext

    def collect_usage_pieces(self, ctx) -> list[str]:
        polish(self)
        return usage_pieces(self, ctx) + [self.subcommand_metavar]

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        return _defer_coercion(option) if option is not None else None

    def format_options(self, ctx, formatter) -> None:
        format_params(self, ctx, formatter)
        self.format_commands(ctx, formatter)

    def format_commands(self, ctx, formatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, first_sentence(cmd)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def get_command(self, ctx, cmd_name):
        cmd = super().get_command(ctx, cmd_name)
        return polish(cmd) if cmd is not None else None


class DefaultCommandGroup(AuthzGroup):
    """A group whose first token, when it names none of its subcommands, goes to ``default_command``:
    ``authz access ACLS --topic t`` is ``authz access show ACLS --topic t``, while ``authz access
    unused ...`` is the subcommand of that name."""

    default_command: str = ""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


def _use_authz_classes(typer_app: typer.Typer) -> None:
    """Make the commands and groups Typer builds from this app use AuthzCommand / AuthzGroup (the
    same as passing cls= to every @command and Typer(), which the command modules need not do)."""
    for info in typer_app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = AuthzCommand
    for group in typer_app.registered_groups:
        sub = group.typer_instance
        if sub is None:
            continue
        cls = sub.info.cls.value if isinstance(sub.info.cls, typer.models.DefaultPlaceholder) else sub.info.cls
        if cls in (None, TyperGroup):
            sub.info.cls = AuthzGroup
        _use_authz_classes(sub)


class LazyTyperGroup(AuthzGroup):
    """The root group: commands listed from `lazy_commands`, each module imported on first use.

    Subclasses set `lazy_commands` (name -> LazyCommand) and `typer_app` (a callable returning the
    Typer app the modules register their commands on, e.g. with `@app.command("simulate")`)."""

    lazy_commands: dict[str, LazyCommand] = {}
    typer_app: Callable[[], typer.Typer]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Typer builds the commands whose modules are already imported (a test or a tool imported
        # them first) with its own classes: build those again on first use, as every other.
        for name in list(self.commands):
            if name in self.lazy_commands:
                del self.commands[name]

    def parse_args(self, ctx, args):
        polish_params(self)  # the root's own options (--version, completion)
        return super().parse_args(ctx, args)

    def list_commands(self, ctx) -> list[str]:
        names = list(self.lazy_commands)
        return names + [n for n in self.commands if n not in self.lazy_commands]

    #: While completing: commands not loaded yet stand in as stubs (their name and one-line help),
    #: so offering command names imports no command module.
    _completing = False

    def get_command(self, ctx, cmd_name):
        cmd = self.commands.get(cmd_name)
        if cmd is None and cmd_name in self.lazy_commands:
            if self._completing:
                spec = self.lazy_commands[cmd_name]
                return TyperCommand(spec.name, short_help=spec.short_help, hidden=spec.hidden)
            cmd = self._load(cmd_name)
            self.commands[cmd_name] = cmd
        return polish(cmd) if cmd is not None else None

    def _load(self, name: str):
        from typer.main import (
            get_command_from_info,
            get_command_name,
            get_group_from_info,
        )

        spec = self.lazy_commands[name]
        importlib.import_module(spec.module)
        app = type(self).typer_app()
        _use_authz_classes(app)
        for info in app.registered_commands:
            if (info.name or get_command_name(info.callback.__name__)) == name:
                return get_command_from_info(info, pretty_exceptions_short=app.pretty_exceptions_short,
                                             rich_markup_mode=app.rich_markup_mode)
        for info in app.registered_groups:
            if info.name == name:
                return get_group_from_info(info,
                                           pretty_exceptions_short=app.pretty_exceptions_short,
                                           suggest_commands=app.suggest_commands,
                                           rich_markup_mode=app.rich_markup_mode)
        raise RuntimeError(f"{spec.module} did not register the command {name!r}")

    def format_commands(self, ctx, formatter) -> None:
        rows = [(c.name, c.short_help) for c in self.lazy_commands.values() if not c.hidden]
        rows += [(n, first_sentence(c)) for n, c in self.commands.items()
                 if n not in self.lazy_commands and not c.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def shell_complete(self, ctx, incomplete: str) -> list:
        """click's completion of a group (command names with their one-line help, then the group's
        own options), over stubs of the commands instead of their imported modules."""
        self._completing = True
        try:
            return super().shell_complete(ctx, incomplete)
        finally:
            self._completing = False

    def resolve_command(self, ctx, args):
        """click's resolution, suggesting close names among every command (Typer's own suggestion
        sees only the commands already imported)."""
        if args and not ctx.resilient_parsing and not args[0].startswith("-") and \
                self.get_command(ctx, args[0]) is None:
            matches = get_close_matches(args[0], self.list_commands(ctx))
            if matches:
                ctx.fail(f"No such command {args[0]!r}. Did you mean {', '.join(repr(m) for m in matches)}?")
        return super().resolve_command(ctx, args)
