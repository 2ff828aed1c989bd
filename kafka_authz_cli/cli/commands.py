"""The click command and group classes every authz command and group is built with.

They give each command authz's help layout (cli/help_layout.py), metavars computed from Typer's type
descriptors, coercion built on first use (cli/deferred_coercion.py) and one-line usage errors
(cli/usage_errors.py). The command modules need not name them: use_authz_classes() puts them on what
each module registers.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from kafka_authz_cli.cli.deferred_coercion import defer_coercion
from kafka_authz_cli.cli.help_layout import AuthzContext, default_metavar, first_sentence, format_params, usage_pieces
from kafka_authz_cli.cli.usage_errors import OneLineErrors


def polish_params(command: Any) -> None:
    """Metavars for value-taking parameters; coercion built on first use."""
    for param in command.params:
        if param.metavar is None:
            metavar = default_metavar(param)
            if metavar is not None:
                param.metavar = metavar
        defer_coercion(param)


def polish(command: Any) -> Any:
    """polish_params() over a command tree (once)."""
    if getattr(command, "_authz_polished", False):
        return command
    polish_params(command)
    command._authz_polished = True
    for sub in getattr(command, "commands", {}).values():
        polish(sub)
    return command


class _AuthzLayout:
    """What a command and a group share: the tree polished before its usage or options are laid out,
    and the help option coerced on first use."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        polish(self)
        return usage_pieces(self, ctx)

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)  # type: ignore[misc]  # the click class it is mixed into
        return defer_coercion(option) if option is not None else None

    def format_options(self, ctx, formatter) -> None:
        polish(self)
        format_params(self, ctx, formatter)


class AuthzCommand(OneLineErrors, _AuthzLayout, TyperCommand):
    context_class = AuthzContext


class AuthzGroup(OneLineErrors, _AuthzLayout, TyperGroup):
    """(An OptionError from the group's own callback, `authz whatif` runs in it, is said as click says a
    bad parameter, as for a command.)"""

    context_class = AuthzContext

    def collect_usage_pieces(self, ctx) -> list[str]:
        return super().collect_usage_pieces(ctx) + [self.subcommand_metavar]

    def format_options(self, ctx, formatter) -> None:
        super().format_options(ctx, formatter)
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


def use_authz_classes(typer_app: typer.Typer) -> None:
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
        use_authz_classes(sub)
