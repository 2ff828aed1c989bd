"""`authz compact`: fewer ACLs deciding every request alike, with what went and why, proved by the exact diff."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    AclFormat,
    WriteFormat,
    acls_options,
    cell,
    check_can_write,
    option_value,
    rows_not_shown,
    write_json,
    write_output,
)
from kafka_authz_cli.cli.options import (
    AllowEveryone,
    BrokerConfig,
    CommandConfig,
    ReportFormat,
    ReportFormatOption,
    SuperUsers,
    Timeout,
)
from kafka_authz_cli.services.compact import CompactResult, compact_acl_set, compact_document

#: Removals shown in the table (the json report lists every one).
SHOWN_REMOVALS = 20


COMPACT_HELP = """Write an ACL set with fewer ACLs that decides every request exactly as the input does, and
say what went and why:

- duplicates (Kafka stores each ACL once);
- shadowed ACLs: an ALLOW whose every request another ALLOW (same principal or User:*, same host or *,
  a pattern reaching every name it reaches, an operation matching each of its operations: READ, WRITE,
  DELETE and ALTER also allow DESCRIBE, ALTER_CONFIGS allows DESCRIBE_CONFIGS) already allows, or a DENY
  denies; a DENY that another DENY of the same operation (or ALL) already denies (DENYs imply nothing);
- ACLs that match nothing: a super user's (no ACL is looked at for it), or a host no client's address is
  written as (a name, a range, ::1).

Kafka's traps are kept: with allow.everyone.if.no.acl.found=true an ACL for anyone switches the no-ACL
default off on its resources, so one that matches nothing stays unless a kept ACL reaches every name it
reaches; the LITERAL `*` does not reach names starting with `*`; a literal name is not a prefix. ACLs Kafka
would refuse, names starting below `*` and every ACL of a resource type holding a principal without ':'
are left alone.

Literal ALLOWs are merged into a PREFIXED one only with --names FILE (one name a line: a topic,
group:NAME or transactional-id:NAME), and only where every known name (listed, or named by a LITERAL ACL)
starting with the prefix is granted alike: over those names nothing changes; every other name starting
with the prefix is granted too, and the report says so for each merge. Over the whole request space a
prefix always grants names no literal did, so nothing is merged without --names.

Proof: the exact decision diff (as `authz diff` computes it) of input and output is computed before
anything is written; it must be equivalent (with --names: it may only list names outside them under a
merged prefix), or compact fails with exit 3 and writes nothing. Its cost grows with the request classes
the removed ACLs touch (about a minute per 10,000 ACLs removed on one core); --no-proof skips it, warned.

The compacted set goes to -o (default stdout) in the --to format; the report (--format table or json; the
json lists every removal) goes to --report, else to stdout when -o names a file, else to stderr.
--max-acls N: exit 1 when the result still holds more than N ACLs (Confluent Cloud documents a limit of
1,000 ACLs per Basic or Standard cluster and 10,000 per Dedicated cluster).

Exit codes: 0 done; 1 more ACLs left than --max-acls; 2 usage or input error; 3 internal error (the
compacted set would decide differently; nothing written)."""


@app.command("compact", short_help="Fewer ACLs deciding provably alike: duplicates, shadowed ACLs, literals merged into prefixes.", help=COMPACT_HELP)
def compact_cmd(
    acls: Path = typer.Argument(..., help="The ACL set (any format authz reads, or cluster:HOST:PORT)."),
    to: WriteFormat = typer.Option(WriteFormat("json"), "--to", help="Format of the compacted set."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the compacted set to a file "
                                       "(default stdout)."),
    fmt: ReportFormatOption = ReportFormat.table,
    report: Optional[Path] = typer.Option(None, "--report", help="Write the report to a file."),
    names: Optional[Path] = typer.Option(None, "--names", help="Known names (one a line: a topic, group:NAME, "
                                         "transactional-id:NAME): merge literal ALLOWs into prefixes over them."),
    max_acls: Optional[int] = typer.Option(None, "--max-acls", min=0, help="Exit 1 when more ACLs than this are "
                                           "left (Confluent Cloud: 1,000 Basic/Standard, 10,000 Dedicated)."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Format of the ACL set "
                                                    "(default: detected by content)."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    super_users: SuperUsers = None,
    allow_everyone: AllowEveryone = None,
    broker_config: BrokerConfig = None,
    command_config: CommandConfig = None,
    timeout: Timeout = 10.0,
    no_proof: bool = typer.Option(False, "--no-proof", help="Skip the proof by the exact decision diff (its cost "
                                  "grows with the removals: about a minute per 10,000 ACLs removed); warned."),
) -> None:
    for path in (out, report):
        if path is not None and str(path) != "-":
            check_can_write(path)
    result = compact_acl_set(acls, to.value, option_value(acls_format), super_users, allow_everyone, broker_config,
                             names, max_acls, acls_options=acls_options(option), command_config=command_config,
                             timeout=timeout, check=not no_proof)
    write_output(result.text, out)
    to_stdout = report is None and out is not None and str(out) != "-"
    if fmt is ReportFormat.json:
        # to --report, else stdout when the set went to a file, else standard error
        write_json(compact_document(result), report, stderr=report is None and not to_stdout)
    else:
        _print_to(result, report, to_stdout)
    if result.over_limit:
        raise typer.Exit(1)


def _print_to(result: CompactResult, report: Optional[Path], to_stdout: bool) -> None:
    from kafka_authz_cli.cli.common import console, err_console

    if report is None:
        _print(result, console if to_stdout else err_console)
        return
    import io

    from kafka_authz_cli.cli.output import AuthzConsole

    buf = io.StringIO()
    _print(result, AuthzConsole(file=buf, width=120, color_system=None, highlight=False, soft_wrap=False))
    write_output(buf.getvalue(), report)


def _proof_line(result: CompactResult) -> str:
    proof = result.proof
    if proof is None:
        return "proof: not checked (--no-proof)"
    if proof.verdict == "equivalent":
        return (f"proof: the exact decision diff of input and output is empty ({proof.classes_examined:,} request "
                "class(es) examined): every request is decided alike")
    names = sorted({f.names() for f in proof.merged})
    more = f" and {len(names) - 5:,} more" if len(names) > 5 else ""
    return (f"proof: over the --names given every request is decided alike; the diff lists {len(proof.findings):,} "
            f"change(s), all on names outside them under a merged prefix: " + "; ".join(names[:5]) + more)


def _print(result: CompactResult, console) -> None:
    from rich.table import Table

    c = result.compaction
    saved = c.before - c.after
    share = f" ({saved / c.before:.0%})" if c.before else ""
    console.print(f"[bold]{c.before:,}[/] ACL(s) before, [bold]{c.after:,}[/] after: {saved:,} fewer{share}")
    counts = Table(header_style="bold", title="removed")
    counts.add_column("why")
    counts.add_column("ACLs", justify="right")
    for reason, n in c.counts().items():
        if n:
            counts.add_row(reason.replace("_", " "), f"{n:,}")
    if c.merges:
        counts.add_row("merged prefixes added", f"+{len(c.merges):,}")
    if counts.row_count:
        console.print(counts)
    if c.removals:
        table = Table(header_style="bold", show_lines=False)
        table.add_column("removed ACL", overflow="fold", ratio=2)
        table.add_column("why", overflow="fold", ratio=3)
        for r in c.removals[:SHOWN_REMOVALS]:
            b = r.binding
            table.add_row(cell(f"{b.permission.name} {b.operation.name} {b.resource_type.name}:{b.pattern_type.name}:"
                               f"{b.resource_name} {b.principal} {b.host}"), cell(r.describe()))
        console.print(table)
        more = rows_not_shown(len(c.removals), SHOWN_REMOVALS, "--format json")
        if more:
            console.print(more, markup=False, highlight=False)
    for m in c.merges[:SHOWN_REMOVALS]:
        console.print("widened: " + cell(m.widening(result.settings.allow_everyone_if_no_acl_found)), highlight=False)
    if len(c.merges) > SHOWN_REMOVALS:
        console.print(f"... and {len(c.merges) - SHOWN_REMOVALS:,} more merge(s) (--format json lists each)")
    for why, n in c.untouched.items():
        console.print(f"left alone: {n:,} ACL(s): {why}", markup=False, highlight=False)
    console.print(_proof_line(result), markup=False, highlight=False)
    if result.over_limit:
        console.print(f"[red]still {c.after:,} ACL(s), above --max-acls {result.max_acls:,}[/]")
