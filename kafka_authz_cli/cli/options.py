"""The options several commands take, declared once: one name, one type, one help text.

Each is an ``Annotated`` alias; a command takes it as ``super_users: SuperUsers = None`` (the default
stays at the parameter: Typer takes it from there). An option whose meaning changes from command to
command (--output, --topic, --principal, ...) is declared by each command; the options of the ACL
formats (--acls-format, --option, --to and the writers' options) are declared in cli/common.py.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from kafka_authz_cli.cli.common import TableFormat

# -- the broker's settings --------------------------------------------------------------------------

SuperUsers = Annotated[Optional[str], typer.Option("--super-users", help='super.users, e.g. "User:a;User:b".')]
AllowEveryone = Annotated[Optional[bool], typer.Option(
    "--allow-everyone-if-no-acl-found/--deny-if-no-acl-found", show_default=False,
    help="allow.everyone.if.no.acl.found (default false, or from --broker-config).")]
BrokerConfig = Annotated[Optional[Path], typer.Option(
    "--broker-config", help="A broker's server.properties: the broker settings the command uses (super.users, "
                            "allow.everyone.if.no.acl.found, principal mapping rules, topic config defaults) are "
                            "read from it.")]
Listener = Annotated[Optional[str], typer.Option(
    "--listener", help="The listener whose listener.name.<listener>. keys apply.")]
ClientHost = Annotated[str, typer.Option("--host", help="The client's IP address, as the broker sees it.")]

# -- connecting to a cluster ------------------------------------------------------------------------

BootstrapServer = Annotated[str, typer.Option("--bootstrap-server", help="host:port[,host:port...]")]
#: The default of an option that must be given (``bootstrap_server: BootstrapServer = REQUIRED`` where
#: a parameter before it has a default): Typer's ``...``, to the type checker a value of any type.
REQUIRED: Any = ...
CommandConfig = Annotated[Optional[Path], typer.Option(
    "--command-config", help="Client properties, as Kafka's tools take them with --command-config: "
                             "security.protocol, sasl.mechanism, sasl.jaas.config, PEM ssl.truststore.location.")]
Timeout = Annotated[float, typer.Option(
    "--timeout", help="Seconds to wait for the broker (connection and each request).")]

# -- audit logs -------------------------------------------------------------------------------------

Logs = Annotated[Optional[list[str]], typer.Option(
    "--logs", help="Log files, directories or globs (repeatable); - reads stdin.")]
Index = Annotated[Optional[list[Path]], typer.Option(
    "--index", help="An index written by `authz whatif index` instead of --logs (repeatable: indexes merge).")]

# -- rules files ------------------------------------------------------------------------------------

RuleTypes = Annotated[Optional[Path], typer.Option(
    "--types", help="Extra principal/resource classes of the rules (JSON).")]

# -- a password, never from the command line --------------------------------------------------------

PasswordStdin = Annotated[bool, typer.Option("--password-stdin", help="Read the password from stdin's first line.")]
PasswordFile = Annotated[Optional[Path], typer.Option(
    "--password-file", help="Read the password from a file's first line.")]
#: The password itself on the command line, hidden: only with --password-argv-i-understand (cli/secrets.py)
PasswordArgv = Annotated[Optional[str], typer.Option("--password", hidden=True)]
PasswordArgvOk = Annotated[bool, typer.Option("--password-argv-i-understand", hidden=True)]

# -- output formats: one alias per set of choices ---------------------------------------------------


class TextFormat(str, Enum):
    text = "text"
    json = "json"


class ReportFormat(str, Enum):
    table = "table"
    json = "json"


class ListFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


TableFormatOption = Annotated[TableFormat, typer.Option("--format", "-f", help="Output format.")]
TextFormatOption = Annotated[TextFormat, typer.Option("--format", "-f", help="Output format.")]
ListFormatOption = Annotated[ListFormat, typer.Option("--format", "-f", help="Output format.")]
ReportFormatOption = Annotated[ReportFormat, typer.Option("--format", "-f", help="Format of the report.")]
