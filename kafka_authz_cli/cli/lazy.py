"""Lazy subcommands: the root group knows each command before importing its module.

`authz --help`, `authz --version` and a command's own run must not pay for importing every other
command (and PySpark, kafka-python, pyarrow, cryptography, ...). The root group knows each command's
name, module and one-line help without importing anything; a command's module is imported only when
that command is resolved (run, asked for `--help`, completed or walked by a test).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any, Callable

import typer
from typer.core import TyperCommand

from kafka_authz_cli.cli.commands import AuthzGroup, polish, polish_params, use_authz_classes
from kafka_authz_cli.cli.help_layout import first_sentence


@dataclass(frozen=True)
class LazyCommand:
    """A subcommand known by name before its module is imported."""

    name: str
    module: str
    short_help: str
    hidden: bool = False


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
        use_authz_classes(app)
        for info in app.registered_commands:
            assert info.callback is not None  # a command registers its function
            if (info.name or get_command_name(info.callback.__name__)) == name:
                return get_command_from_info(info, pretty_exceptions_short=app.pretty_exceptions_short,
                                             rich_markup_mode=app.rich_markup_mode)
        for group in app.registered_groups:
            if group.name == name:
                return get_group_from_info(group,
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
