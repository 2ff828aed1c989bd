"""Rendering of `authz app check` and `authz app acls`: the verdict in a sentence, the calls, the proof."""

from __future__ import annotations

from rich.markup import escape

from kafka_authz_cli.acl import AclBinding, PatternType, ResourceType
from kafka_authz_cli.cli.common import console
from kafka_authz_cli.services.apps import AppAcls, AppCheck

_RESOURCE_FLAGS = {ResourceType.TOPIC: "--topic", ResourceType.GROUP: "--group",
                   ResourceType.TRANSACTIONAL_ID: "--transactional-id", ResourceType.CLUSTER: "--cluster",
                   ResourceType.DELEGATION_TOKEN: "--delegation-token", ResourceType.USER: "--user-principal"}


def acl_dict(acl: AclBinding) -> dict:
    return {"resource_type": acl.resource_type.name, "resource_name": acl.resource_name,
            "pattern_type": acl.pattern_type.name, "principal": acl.principal, "host": acl.host,
            "operation": acl.operation.name, "permission": acl.permission.name}


def acl_words(acl: AclBinding) -> str:
    if acl.resource_type is ResourceType.CLUSTER:
        what = "the CLUSTER"
    elif acl.pattern_type is PatternType.PREFIXED:
        what = f"{acl.resource_type.name} names starting with {acl.resource_name}"
    else:
        what = f"{acl.resource_type.name} {acl.resource_name}"
    host = "" if acl.host == "*" else f" from {acl.host}"
    return f"{acl.permission.name} {acl.operation.name} on {what} for {acl.principal}{host}"


def kafka_acls_command(acl: AclBinding) -> str:
    """The `kafka-acls --add` command line that creates ``acl``."""
    side = "allow" if acl.permission.name == "ALLOW" else "deny"
    parts = ["kafka-acls --bootstrap-server BROKER --add", f"--{side}-principal {_quote(acl.principal)}"]
    if acl.host != "*":
        parts.append(f"--{side}-host {acl.host}")
    parts.append(f"--operation {acl.operation.pascal}")
    flag = _RESOURCE_FLAGS[acl.resource_type]
    parts.append(flag if acl.resource_type is ResourceType.CLUSTER else f"{flag} {_quote(acl.resource_name)}")
    if acl.pattern_type is PatternType.PREFIXED:
        parts.append("--resource-pattern-type prefixed")
    return " ".join(parts)


def _quote(text: str) -> str:
    return text if text and all(c.isalnum() or c in "-_.:=" for c in text) else "'" + text.replace("'", "'\\''") + "'"


#: What the application cannot do when a request fails, by request type ({t}: the topic, {g}: the group,
#: {x}: the transactional id).
_ACTIONS = {
    "Metadata": "read the metadata of topic {t}", "Produce": "write to topic {t}", "Fetch": "read topic {t}",
    "ListOffsets": "look up the offsets of topic {t}", "InitProducerId": "get a producer id",
    "FindCoordinator": "find the coordinator of {k}", "JoinGroup": "join group {g}", "SyncGroup": "join group {g}",
    "Heartbeat": "stay in group {g}", "ConsumerGroupHeartbeat": "join group {g}", "ShareGroupHeartbeat": "join share group {g}",
    "OffsetFetch": "read the committed offsets of group {g}", "OffsetCommit": "commit offsets in group {g}",
    "ShareFetch": "fetch from topic {t} in share group {g}", "ShareAcknowledge": "acknowledge records in share group {g}",
    "AddPartitionsToTxn": "add topic {t} to its transaction", "AddOffsetsToTxn": "add offsets to its transaction",
    "TxnOffsetCommit": "commit offsets of group {g} in its transaction", "EndTxn": "commit its transaction",
    "CreateTopics": "create topic {t}", "DeleteTopics": "delete topic {t}", "DescribeConfigs": "read the configs of {c}",
    "IncrementalAlterConfigs": "change the configs of {c}", "DeleteRecords": "delete records of topic {t}",
    "ListGroups": "see group {g} in the group list", "DescribeGroups": "describe group {g}",
    "ConsumerGroupDescribe": "describe group {g}", "DescribeTopicPartitions": "describe topic {t}",
}


def _action(call, check) -> str:
    q = call.request
    name = check.resource_name if check is not None and check.resource_name is not None else None
    topic = name if check is not None and check.resource_type is ResourceType.TOPIC and name else ", ".join(q.topics)
    group = name if check is not None and check.resource_type is ResourceType.GROUP and name else (
        q.group or ", ".join(q.groups) or ", ".join(call.filtered))
    key = f"transactional id {q.transactional_id}" if q.key_type == "TRANSACTION" else f"group {q.group}"
    configs = ", ".join(f"{k.lower()} {n}" for k, n in q.config_resources)
    template = _ACTIONS.get(q.api, q.api + " ({t})")
    return template.format(t=topic, g=group, x=q.transactional_id, k=key, c=configs)


def sentence(result: AppCheck) -> str:
    """The verdict as a developer reads it: what it cannot do, which permission, what it throws, the fix."""
    v, kind = result.verdict, result.options.kind
    if v.works:
        return f"this {kind} works: every request it makes is authorized"
    if v.failing_check is None and v.exception is not None and result.workflow.config_error is not None:
        return f"this {kind} never starts: {v.exception} in {v.step}: {result.workflow.config_error}"
    where = f"{v.step}()" + (f" ({v.phase})" if v.phase else "")
    throws = (f"{where} throws {v.exception}" + (f" (wrapped in {v.surfaced_as})" if v.surfaced_as else "")
              if v.exception else f"nothing throws: {v.silent}")
    check, call = v.failing_check or _filtered(v), v.failing_call
    if call is None or check is None:
        return f"this {kind} does not work: {throws}"
    if check.acl is not None and check.acl.permission.name == "DENY":
        state = f"is denied by {acl_words(check.acl)}"
    elif check.resource_name is None:
        state = ("is missing, and so is IDEMPOTENT_WRITE on the CLUSTER (an idempotent producer needs one of them, "
                 "KIP-679)")
    else:
        state = "is missing"
    text = f"this {kind} cannot {_action(call, check)}: {check.operation.name} on {check.resource()} {state}; {throws}"
    repair = result.repair
    if repair is not None and repair.blocked is None and repair.added:
        text += "; add " + "; ".join(acl_words(a) for a in repair.added)
    return text


def _filtered(v):
    call = v.failing_call
    if call is None:
        return None
    return next((c for c in reversed(call.checks) if not c.allowed and c.resource_name in call.filtered), None)


def check_json(result: AppCheck) -> dict:
    v = result.verdict
    repair = result.repair
    return {
        "kind": result.options.kind, "principal": result.identity.principal,
        "principal_source": result.identity.source, "host": result.options.host,
        "kafka_version": str(result.version), "works": v.works, "exception": v.exception,
        "surfaced_as": v.surfaced_as, "step": v.step, "phase": v.phase, "silent": v.silent,
        "message": sentence(result),
        "calls": [{"step": step.name, "phase": step.phase or None, **call.as_dict()} for step, call in v.calls],
        "missing": [acl_dict(a) for a in repair.added] if repair is not None else [],
        "missing_kafka_acls": [kafka_acls_command(a) for a in repair.added] if repair is not None else [],
        "blocked": repair.blocked if repair is not None else None,
        "denies": [acl_dict(a) for a in repair.denies] if repair is not None else [],
        "notes": v.notes, "warnings": v.warnings,
    }


def call_rows(result: AppCheck) -> list[dict]:
    rows = []
    for step, call in result.verdict.calls:
        for check in call.checks or (None,):
            rows.append({"step": step.name, "phase": step.phase, "api": call.request.api,
                         "request": call.request.describe(), "handler": call.handler,
                         "operation": check.operation.name if check else None,
                         "resource": check.resource() if check else None,
                         "decision": ("ALLOWED" if check.allowed else "DENIED") if check else None,
                         "on_deny": check.on_deny.value if check else None, "rule": check.rule if check else None,
                         "error": call.first_error()})
    return rows


def print_check(result: AppCheck) -> None:
    v = result.verdict
    status = "[green]WORKS[/]" if v.works else "[red]DOES NOT WORK[/]"
    console.print(f"{escape(result.options.kind)} as {escape(result.identity.principal)} "
                  f"({escape(result.identity.source)}) from {escape(result.options.host)}, Kafka {result.version}: "
                  f"{status}", soft_wrap=True)
    console.print(escape(sentence(result)), soft_wrap=True)
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


def proof_rows(result: AppAcls) -> list[dict]:
    return [{"acl": acl_dict(p.acl), "without_it": {"works": p.without.works, "exception": p.without.exception,
                                                     "step": p.without.step, "phase": p.without.phase,
                                                     "silent": p.without.silent}}
            for p in result.proofs]


def acls_json(result: AppAcls, to: str, text: str) -> dict:
    return {"kind": result.options.kind, "principal": result.identity.principal,
            "principal_source": result.identity.source, "kafka_version": str(result.version),
            "acls": [acl_dict(a) for a in result.acls], "format": to, "text": text,
            "works_with_them": result.with_all.works, "blocked": result.blocked, "proof": proof_rows(result),
            "notes": result.workflow.notes}


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


def print_api_call(call, mapping, fmt) -> int:
    """`authz simulate --api`: the request's checks and the answer; exit 1 when the client gets an error."""
    from kafka_authz_cli.cli.common import TableFormat, emit_rows, json_cell, write_json

    if fmt is TableFormat.json:
        write_json({**call.as_dict(), "mapping": mapping}, None)
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
