"""`authz principal tls|kerberos`: which principal a connection becomes, exactly as the broker maps it."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import TableFormat, console, emit_rows, write_json
from kafka_authz_cli.cli.options import BrokerConfig, Listener, SuperUsers, TableFormatOption
from kafka_authz_cli.codes import SEVERITIES
from kafka_authz_cli.principal import CODES
from kafka_authz_cli.services.principal import NameMappings, map_kerberos_names, map_tls_names

principal_app = typer.Typer(help="Which principal a TLS certificate or Kerberos name becomes, as the broker maps it.",
                            no_args_is_help=True)
app.add_typer(principal_app, name="principal",
              short_help="Which principal a TLS DN or Kerberos name becomes (ssl.principal.mapping.rules, auth_to_local).")


class Severity(str, Enum):
    info = "info"
    warning = "warning"
    error = "error"


# -- commands ---------------------------------------------------------------------------------------

FORMAT_HELP = "table for people; json (one object per name), jsonl or csv for scripts."
CHECK_HELP = ("--check also lints the rule set against the names: names no rule maps or that make a rule "
              "throw (errors), names that collapse onto one principal, rules that never fire or can never "
              "fire, DNs not written as the broker renders them (warnings), super users, full-DN principals "
              f"and literal back references (info). Codes: {', '.join(CODES)}.")


def _emit(result: NameMappings, fmt: TableFormat) -> None:
    if fmt is TableFormat.table:
        _print_table(result)
    elif result.report is not None and fmt is TableFormat.json:
        write_json(result.document(), None)
    else:
        emit_rows(result.rows(), fmt)


def _print_table(result: NameMappings) -> None:
    from rich.markup import escape
    from rich.table import Table
    kind, resolved, rows = result.kind, result.resolved, result.rows()
    console.print(f"[dim]{escape(str(resolved.mapper))}  from {escape(resolved.source)}[/]", soft_wrap=True)
    table = Table(header_style="bold", show_lines=False)
    table.add_column("#", no_wrap=True)
    table.add_column("DN" if kind == "tls" else "Kerberos name", overflow="fold")
    table.add_column("principal", overflow="fold")
    table.add_column("rule", overflow="fold")
    for i, row in enumerate(rows, 1):
        shown = escape(row["input"]) + (f"\n[dim](given: {escape(row['given'])})[/]" if row.get("given") and
                                        row["given"] != row["input"] else "")
        if row["ok"]:
            rule = "" if row["rule_number"] is None else f"{row['rule_number']}: {escape(row['rule'])}"
            if row["rule_number"] is None and kind == "kerberos":
                rule = "[dim]no realm: used as is[/]"
            table.add_row(str(i), shown, f"[green]{escape(row['principal'])}[/]", rule)
        else:
            err = row["error"]
            where = "" if row["rule_number"] is None else f"rule {row['rule_number']}: {escape(row['rule'])}\n"
            table.add_row(str(i), shown, "[red]connection fails[/]",
                          f"{where}[red]{escape(err['class'].rsplit('.', 1)[-1])}: {escape(err['message'])}[/]")
    console.print(table)
    if result.report is not None:
        _print_findings(result.report)


def _print_findings(report) -> None:
    from rich.markup import escape
    style = {"error": "red", "warning": "yellow", "info": "cyan"}
    fires = ", ".join(f"{i + 1}: {report.fires.get(i, 0)}" for i in range(len(report.rules)))
    console.print(f"names per rule: {fires or '(no rules)'}")
    for f in report.findings:
        console.print(f"[{style[f.severity]}]{f.severity}[/] {f.code} {escape(f.message)} [dim]\\[{f.name}][/]",
                      soft_wrap=True)
    counts = {s: sum(1 for f in report.findings if f.severity == s) for s in SEVERITIES}
    console.print(f"{len(report.results)} name(s): {counts['error']} error(s), {counts['warning']} warning(s), "
                  f"{counts['info']} info")


@principal_app.command("tls", help=f"""Map X.500 names as ssl.principal.mapping.rules does on the broker.

The rules come from --rules (the property value as Kafka's docs write it, 'RULE:...,RULE:...,DEFAULT';
repeatable: repeated values are joined at commas, so each may be one rule), else from --broker-config
(listener.name.<listener>.ssl.principal.mapping.rules first when --listener is given), else Kafka's
default (DEFAULT). Names: DN arguments, --names FILE (one
DN per line) and --cert FILE (PEM or DER certificates: their subject exactly as the broker renders it,
X500Principal.getName()). The broker maps that RFC 2253 string, not what `openssl x509 -subject` prints:
--normalize maps the rendering of each DN argument instead of the text as given.

Kafka's rule syntax and quirks are reproduced exactly: RULE:pattern/replacement/[LU], DEFAULT, Java regex
semantics, a rule fires only when its pattern matches the whole DN but then replaces *every* match
(String.replaceAll), $n back references beyond the group count become literal (and a second one may throw).

{CHECK_HELP}

{FORMAT_HELP}

Exit codes: 0 every name mapped (with --check: no finding at or above --fail-level); 1 a name the broker
would refuse (no rule applies, a rule throws), or findings; 2 usage or input error, or a rule set the
broker refuses (Kafka's message).""", short_help="Map X.500 DNs as ssl.principal.mapping.rules does.")
def tls(
    dns: Optional[list[str]] = typer.Argument(None, help="Distinguished names.", show_default=False),
    rules: Optional[list[str]] = typer.Option(None, "--rules", help="ssl.principal.mapping.rules, e.g. "
                                              "'RULE:^CN=(.*?),OU=ops.*$/$1/L,DEFAULT'; repeatable (one rule "
                                              "each)."),
    broker_config: BrokerConfig = None,
    listener: Listener = None,
    names: Optional[list[Path]] = typer.Option(None, "--names", help="File of DNs, one per line ('-' = stdin)."),
    certs: Optional[list[Path]] = typer.Option(None, "--cert", help="PEM/DER certificate(s): map their subjects."),
    normalize: bool = typer.Option(False, "--normalize", help="Map each DN as the broker would render it "
                                   "(X500Principal round trip)."),
    check: bool = typer.Option(False, "--check", help="Lint the rule set against the names."),
    fail_level: Severity = typer.Option(Severity.warning, "--fail-level", help="With --check: lowest severity "
                                        "that fails the run."),
    super_users: SuperUsers = None,
    fmt: TableFormatOption = TableFormat.table,
) -> None:
    result = map_tls_names(dns, rules, broker_config, listener, names, certs, normalize, check, super_users)
    _emit(result, fmt)
    if result.failed(fail_level.value):
        raise typer.Exit(1)


@principal_app.command("kerberos", help=f"""Map Kerberos principals as sasl.kerberos.principal.to.local.rules does.

Rules: --rules (repeatable, one rule each; a value that is the whole property as Kafka's docs write it,
'RULE:...,RULE:...,DEFAULT', is split at its commas as Kafka's ConfigDef splits the LIST, and one that is
neither a rule nor such a list is refused saying so), --rules-config (the one-string config value,
split the same way), else --broker-config (listener.name.<listener>. first), else Kafka's default
[DEFAULT]. A rule with a comma inside (a{1,3}) works as one --rules but cannot be written in the
property: authz warns. --realm is the broker's default realm (what DEFAULT maps).

Exactly as KerberosShortNamer: RULE:[n:format](regex)s/pattern/replacement/g with /L or /U, $0 the realm,
$1.. the components; DEFAULT maps service@DEFAULTREALM and service/host@DEFAULTREALM to `service`; a name
without a realm is used as is (no rule applies); a result containing '/' or '@' is refused.

{CHECK_HELP}

{FORMAT_HELP}

Exit codes: 0 every name mapped (with --check: no finding at or above --fail-level); 1 a name the broker
would refuse, or findings; 2 usage or input error, or a rule set the broker refuses (Kafka's message).""",
                         short_help="Map Kerberos principals as sasl.kerberos.principal.to.local.rules does.")
def kerberos(
    principals: Optional[list[str]] = typer.Argument(None, help="Kerberos principals (user@REALM, "
                                                    "service/host@REALM).", show_default=False),
    rules: Optional[list[str]] = typer.Option(None, "--rules", help="One rule (or the whole comma-separated "
                                              "property value); repeat for a list."),
    rules_config: Optional[str] = typer.Option(None, "--rules-config", help="The comma-separated config value."),
    realm: Optional[str] = typer.Option(None, "--realm", help="The broker's default Kerberos realm."),
    broker_config: BrokerConfig = None,
    listener: Listener = None,
    names: Optional[list[Path]] = typer.Option(None, "--names", help="File of principals, one per line "
                                               "('-' = stdin)."),
    check: bool = typer.Option(False, "--check", help="Lint the rule set against the names."),
    fail_level: Severity = typer.Option(Severity.warning, "--fail-level", help="With --check: lowest severity that "
                                        "fails the run."),
    super_users: SuperUsers = None,
    fmt: TableFormatOption = TableFormat.table,
) -> None:
    result = map_kerberos_names(principals, rules, rules_config, realm, broker_config, listener, names, check,
                                super_users)
    _emit(result, fmt)
    if result.failed(fail_level.value):
        raise typer.Exit(1)


# -- the mapping step of `authz simulate` ------------------------------------------------------------


def print_mapping_step(info: dict) -> None:
    from rich.markup import escape
    what = "TLS DN" if info["kind"] == "tls" else "Kerberos name"
    if info["ok"]:
        rule = ("no realm: used as is" if info["rule_number"] is None
                else f"rule {info['rule_number']} `{info['rule']}`")
        console.print(f"{what} [bold]{escape(info['input'])}[/] -> [green]{escape(info['principal'])}[/] "
                      f"({escape(rule)} of {info['config']} from {escape(info['rules_source'])})", soft_wrap=True)
    else:
        err = info["error"]
        console.print(f"{what} [bold]{escape(info['input'])}[/] -> [red]no principal[/]: "
                      f"{escape(err['class'].rsplit('.', 1)[-1])}: {escape(err['message'])} "
                      f"({info['config']} from {escape(info['rules_source'])})", soft_wrap=True)
        console.print(f"The broker fails authentication ({escape(info['broker'])}): no request from this "
                      "connection reaches the authorizer.", soft_wrap=True)
