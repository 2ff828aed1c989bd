"""Rendering of `authz app check` and `authz app acls` as tables and lines: the verdict in a sentence, the calls,
the proof (their JSON documents and wording: ``services/apps.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

from kafka_authz_cli.cli.common import console
from kafka_authz_cli.services.apps import AppAcls, AppCheck, acl_words, check_sentence, kafka_acls_command

if TYPE_CHECKING:
    from kafka_authz_cli.services.simulate import ApiCall


def print_check(result: AppCheck) -> None:
    v = result.verdict
    status = "[green]WORKS[/]" if v.works else "[red]DOES NOT WORK[/]"
    console.print(f"{escape(result.options.kind)} as {escape(result.identity.principal)} "
                  f"({escape(result.identity.source)}) from {escape(result.options.host)}, Kafka {result.version}: "
                  f"{status}", soft_wrap=True)
    console.print(escape(check_sentence(result)), soft_wrap=True)
    repair = result.repair
    if repair is not None and repair.added:
        console.print("add:" if repair.blocked is None else "these would be needed too:", soft_wrap=True)
        for acl in repair.added:
            console.print(f"  {escape(acl_words(acl))}\n    {escape(kafka_acls_command(acl))}", soft_wrap=True)
    if repair is not None and repair.blocked is not None:
        console.print(f"[red]no ALLOW ACL makes it work:[/] {escape(repair.blocked)}", soft_wrap=True)
        for deny in repair.denies:
            console.print(f"  remove or narrow: {escape(acl_words(deny))}", soft_wrap=True)
    _print_calls(result)
    for note in v.notes:
        console.print(f"[dim]note: {escape(note)}[/]", soft_wrap=True)
    for warning in v.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)


def _print_calls(result: AppCheck) -> None:
    from rich.table import Table

    table = Table(header_style="bold", title="the requests it sends, as the broker checks them", title_justify="left")
    for col in ("call", "request", "check", "decision", "deciding rule"):
        table.add_column(col, overflow="fold")
    for step, call in result.verdict.calls:
        label = step.name + (f" ({step.phase})" if step.phase else "")
        outcome = call.first_error() or ("filtered: " + ", ".join(call.filtered) if call.filtered else "ok")
        request = f"{call.request.describe()}\n[dim]{escape(call.handler)}: {escape(outcome)}[/]"
        if not call.checks:
            table.add_row(escape(label), request, "-", "-", "-")
        for i, check in enumerate(call.checks):
            decision = "[green]ALLOWED[/]" if check.allowed else f"[red]DENIED[/] ({escape(check.on_deny.value)})"
            rule = acl_words(check.acl) if check.acl is not None else check.rule
            table.add_row(escape(label) if i == 0 else "", request if i == 0 else "",
                          escape(f"{check.operation.name} {check.resource()}"), decision, escape(rule))
    console.print(table)


def print_proof(result: AppAcls, out) -> None:
    kind = result.options.kind
    if result.blocked is not None:
        out.print(f"[red]no ACL set makes this {escape(kind)} work:[/] {escape(result.blocked)}", soft_wrap=True)
        return
    out.print(f"proof: with these {len(result.acls)} ACL(s) this {escape(kind)} works "
              f"({'yes' if result.with_all.works else '[red]NO[/]'}); without each, it fails:", soft_wrap=True)
    for p in result.proofs:
        w = p.without
        how = (f"{w.exception} at {w.step}()" + (f" ({w.phase})" if w.phase else "") if w.exception
               else f"silently at {w.step}(): {w.silent}" if not w.works else "[red]it still works[/]")
        out.print(f"  without {escape(acl_words(p.acl))}: {escape(how)}", soft_wrap=True)
    for note in result.workflow.notes:
        out.print(f"[dim]note: {escape(note)}[/]", soft_wrap=True)


def print_api_call(result: ApiCall, fmt) -> int:
    """`authz simulate --api`: the request's checks and the answer; exit 1 when the client gets an error."""
    from kafka_authz_cli.cli.common import TableFormat, emit_rows, json_cell, write_json

    call = result.call
    if fmt is TableFormat.json:
        write_json(result.document(), None)
    elif fmt is not TableFormat.table:
        emit_rows([{"api": call.request.api, "handler": call.handler, **c.as_dict(), "acl": json_cell(c.as_dict()["acl"]),
                    "request_error": call.first_error()} for c in call.checks], fmt)
    else:
        _print_api_table(call)
    return 0 if call.ok else 1


def _print_api_table(call) -> None:
    from rich.table import Table

    console.print(f"{escape(call.request.describe())}, as {escape(call.handler)} checks it:", soft_wrap=True)
    table = Table(header_style="bold", show_lines=True)
    for col in ("#", "check", "decision", "if denied", "why / deciding rule"):
        table.add_column(col, overflow="fold")
    for i, check in enumerate(call.checks, 1):
        decision = "[green]ALLOWED[/]" if check.allowed else "[red]DENIED[/]"
        if_denied = check.on_deny.value + (f": {check.error}" if check.error else "")
        rule = acl_words(check.acl) if check.acl is not None else check.rule
        table.add_row(str(i), escape(f"{check.operation.name} {check.resource()}"), decision, escape(if_denied),
                      escape(f"{check.why}\n{rule}: {check.explanation}"))
    if call.checks:
        console.print(table)
    if call.error:
        console.print(f"answer: [red]{call.error}[/] for the whole request", soft_wrap=True)
    for name, error in call.resource_errors.items():
        console.print(f"answer: [red]{error}[/] for {escape(name)}", soft_wrap=True)
    if call.filtered:
        console.print(f"answer: left out silently: {escape(', '.join(call.filtered))}", soft_wrap=True)
    if call.ok and not call.filtered:
        console.print("answer: [green]no error[/]", soft_wrap=True)
    for note in call.notes:
        console.print(f"[dim]note: {escape(note)}[/]", soft_wrap=True)
