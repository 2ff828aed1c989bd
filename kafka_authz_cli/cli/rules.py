"""`authz lint`, `authz compile`, `authz decompile`: the Kroxylicious rules language."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.app import app, keep_until_exit
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    LOSSY_OPTION,
    MAX_TABLE_ROWS,
    STRIMZI_API_VERSION_OPTION,
    STRIMZI_AUTHENTICATION_OPTION,
    STRIMZI_CLUSTER_OPTION,
    TERRAFORM_CONFLUENT_CLUSTER_OPTION,
    TERRAFORM_PROVIDER_OPTION,
    AclFormat,
    StrimziApiVersion,
    StrimziAuthentication,
    TerraformProvider,
    WriteFormat,
    acls_options,
    cell,
    console,
    err_console,
    option_value,
    write_options,
    write_output,
)
from kafka_authz_cli.cli.options import RuleTypes
from kafka_authz_cli.codes import SEVERITIES
from kafka_authz_cli.errors import AuthzError
from kafka_authz_cli.rules import CODES
from kafka_authz_cli.services import rules as service


class LintFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"
    junit = "junit"


class Severity(str, Enum):
    """--fail-level's choices: the severities of codes.py, least severe first."""

    info, warning, error = SEVERITIES


@app.command("lint", short_help="Will the Kroxylicious proxy load these rules files, and do they say what they mean?", help=f"""Check rules files: will the Kroxylicious proxy load them, and will they decide what
they say? Errors are exactly the files the proxy refuses, at the line it reports; warnings and info
cover rules ignored after `otherwise deny;`, backslashes the proxy strips, overlapping `like`
prefixes and cross-type principal prefixes where the proxy decides differently from the docs (with
an example), deny rules that also deny implied operations, duplicates, shadowed rules, and what
Kafka ACLs cannot express.

Files are told apart by content, not name (Kroxylicious's docs call the file acl-rules.txt):
directories are walked and every file whose first statement is a rules statement is linted, the
others are skipped (--verbose lists them and why). A YAML is read for the rules it holds or names:
a proxy configuration's Authorization filter (its aclFile is followed; a relative one as the proxy
opens it, from its working directory), a ConfigMap or Secret holding a rules file, a
KafkaProtocolFilter's ${{configmap:NAME:KEY}} (found among the files given); findings point at the
YAML's own lines. A file given by name is always linted.

The ecosystem's ACL files are linted too (Strimzi KafkaUsers, KSM YAML, kafka-gitops state files,
JulieOps topologies, Jikkou resources; told by content): each is read as its tool applies it, and
every construct the tool applies differently from how it reads is a finding with a stable EA code
(a JulieOps consumer without a group reads every group: EA401; KSM's Produce creates any topic:
EA201; a Strimzi literal `orders-*` is no wildcard: EA102); a file the tool would refuse is EA001.
--option KEY=VALUE gives those formats their reading options (each format takes the keys it knows).

A team's apps file (a YAML `apps:` list of `authz app check` settings, for `authz access --apps`; told
by content) is linted for what keeps an application from running whatever the ACLs: AP001 the file
cannot be read (an unknown key, at its line), AP002 an unknown kind, AP003 a kind lacking what it needs,
AP004 a configuration the client refuses, AP005 no principal.

Positions are the proxy's own `line:col` (the column 0-based, as the proxy's error says) in text,
json and junit; sarif and github count columns from 1, as their specs demand.

Codes: {', '.join(CODES)}; the ecosystem formats' EA codes are listed in the manual (ECOSYSTEM FORMATS) and
in `authz convert --help`;
`authz lint --explain CODE` tells more.

Exit codes: 0 no finding at or above --fail-level; 1 findings at or above it; 2 usage or input error.""")
def lint(
    paths: Optional[list[Path]] = typer.Argument(None, help="Rules files or directories."),
    fmt: LintFormat = typer.Option(LintFormat.text, "--format", "-f", help="Report format (sarif for code scanning, "
                                   "github for workflow annotations)."),
    fail_level: Severity = typer.Option(Severity.error, "--fail-level", help="Lowest severity that fails the run."),
    types: RuleTypes = None,
    explain_code: Optional[str] = typer.Option(None, "--explain", help="Explain a finding code and exit."),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the report to a file."),
    by_content: bool = typer.Option(False, "--by-content", help="Pick the files given by name as a directory's "
                                    "are: lint those holding rules, skip the rest (the pre-commit hook)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List the files skipped (and why) and the "
                                 "aclFiles followed, on standard error."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
) -> None:
    if explain_code:
        typer.echo(service.explain_code(explain_code), nl=False)
        return
    if not paths:
        raise typer.BadParameter("give rules files or directories to lint", param_hint="PATHS")
    run = service.lint_paths(paths, types, by_content, acls_options(option))
    keep_until_exit(run)  # big files: let the process exit free them
    if verbose:
        for s in run.skipped:
            err_console.print(f"skipped {s.path}: {s.reason}", markup=False, highlight=False, soft_wrap=True)
        for line in run.followed:
            err_console.print(f"followed {line}", markup=False, highlight=False, soft_wrap=True)
    if fmt is LintFormat.text:
        _print_text(run, out)
    else:
        from kafka_authz_cli.rules import report as finding_formats

        codes = service.finding_codes()
        text = (finding_formats.to_junit(run.results, codes, fail_level=fail_level.value) if fmt is LintFormat.junit
                else {"json": finding_formats.to_json, "sarif": finding_formats.to_sarif,
                      "github": finding_formats.to_github}[fmt.value](run.results, codes))
        write_output(text.rstrip("\n") + "\n", out)
    if run.fails(fail_level.value):
        raise typer.Exit(1)


def _print_text(run: service.LintRun, out: Optional[Path]) -> None:
    results = run.results
    lines = [f"{r.path}:{f.line}:{f.col}: {f.severity} {f.code} {f.message} [{f.name}]"
             for r in results for f in r.findings]
    counts = run.counts()
    summary = (f"{len(results)} file(s): {counts['error']} error(s), {counts['warning']} warning(s), "
               f"{counts['info']} info")
    if run.skipped:
        summary += f"; {len(run.skipped)} file(s) skipped, not rules by content (--verbose lists them)"
    if out is not None:
        write_output("\n".join(lines + [summary]) + "\n", out)
        return
    if not sys.stdout.isatty() or not console.is_terminal:
        # Plain text for pipes and CI logs (and no per-line rendering cost on big files).
        typer.echo("\n".join(lines + [summary]))
        return
    from rich.markup import escape

    style = {"error": "red", "warning": "yellow", "info": "cyan"}
    for r in results:
        for f in r.findings:
            console.print(f"{escape(r.path)}:{f.line}:{f.col}: [{style[f.severity]}]{f.severity}[/] {f.code} "
                          f"{escape(f.message)} [dim]\\[{f.name}][/]", highlight=False, soft_wrap=True)
    console.print(summary, highlight=False)


@app.command("compile", short_help="Compile a rules file to Kafka ACLs that decide exactly alike.", help="""Compile a rules file to Kafka ACL bindings that decide every request exactly as the
rules' documented meaning does (deny rules first, then allow rules, otherwise deny), under Kafka's
StandardAuthorizer with allow.everyone.if.no.acl.found=false. Deny rules' implied operations are
emitted explicitly (Kafka's DENY does not imply). Regex resources and principal prefixes have no
Kafka equivalent: they are errors unless --expand-against lists the existing names (lines like
`topic orders-eu`, `group g1`, `user alice`).

Exit codes: 0 compiled; 2 usage error, a file the proxy would not load, or a construct Kafka
cannot express (file:line:col: reason).""")
def compile_cmd(
    rules: Path = typer.Argument(..., help="Rules file."),
    to: WriteFormat = typer.Option(WriteFormat("json"), "--to", help="Output ACL format."),
    types: RuleTypes = None,
    expand_against: Optional[Path] = typer.Option(None, "--expand-against", help="Existing names to expand "
                                                                                   "regexes and prefixes against."),
    strimzi_authentication: Optional[StrimziAuthentication] = STRIMZI_AUTHENTICATION_OPTION,
    strimzi_cluster: Optional[str] = STRIMZI_CLUSTER_OPTION,
    strimzi_api_version: Optional[StrimziApiVersion] = STRIMZI_API_VERSION_OPTION,
    terraform_provider: Optional[TerraformProvider] = TERRAFORM_PROVIDER_OPTION,
    terraform_confluent_cluster: Optional[str] = TERRAFORM_CONFLUENT_CLUSTER_OPTION,
    lossy: bool = LOSSY_OPTION,
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write to a file instead of stdout."),
) -> None:
    from kafka_authz_cli.services.convert import write_acls

    bindings = service.compile_file(rules, types, expand_against)
    options = write_options(strimzi_authentication, strimzi_cluster, strimzi_api_version, terraform_provider,
                  terraform_confluent_cluster, lossy)
    write_output(write_acls(bindings, to.value, options), out)
    err_console.print(f"{len(bindings)} ACL binding(s)")


class DecompileTarget(str, Enum):
    rules = "rules"


@app.command("decompile", short_help="Write a rules file from an ACL set.", help="""Write a readable rules file from an ACL set, grouping bindings into compact rules;
compiling it back decides exactly as the ACLs do. Bindings the rules language cannot hold (a
specific host, a non-User principal type, a DELEGATION_TOKEN or USER resource) are listed as errors,
never dropped.

Exit codes: 0 written; 2 usage or input error, or bindings that cannot be written as rules.""")
def decompile_cmd(
    acls: Path = typer.Argument(..., help="ACL set in any format authz reads."),
    to: DecompileTarget = typer.Option(DecompileTarget.rules, "--to", help="Output format."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Override format detection."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write to a file instead of stdout."),
) -> None:
    decompiled = service.decompile_file(acls, option_value(acls_format), acls_options(option))
    if decompiled.text is None:
        _print_refused(decompiled.refused)
        raise AuthzError(f"{len(decompiled.refused)} binding(s) cannot be written as rules (listed above); "
                         "nothing written")
    write_output(decompiled.text, out)


def _print_refused(refused: list[service.RefusedBinding]) -> None:
    from rich.table import Table

    table = Table(title=f"{len(refused)} binding(s) the rules language cannot hold", header_style="bold")
    table.add_column("where")
    table.add_column("binding", overflow="fold")
    table.add_column("why", overflow="fold")
    for r in refused[:MAX_TABLE_ROWS]:
        table.add_row(cell(r.origin), cell(r.binding.standard_acl_str()), cell(r.reason))
    err_console.print(table)
    if len(refused) > MAX_TABLE_ROWS:
        err_console.print(f"{len(refused) - MAX_TABLE_ROWS:,} more binding(s) not shown (the table shows "
                          f"the first {MAX_TABLE_ROWS}); the run after fixing these lists the rest",
                          markup=False, highlight=False)
