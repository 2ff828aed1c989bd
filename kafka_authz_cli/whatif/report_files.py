"""whatif results on disk: JSON, Parquet, the quarantine, and a self-contained HTML report."""

from __future__ import annotations

import html
import json
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.whatif.auditlog import Quarantined, ReadStats
from kafka_authz_cli.whatif.parquet_index import to_datetime
from kafka_authz_cli.whatif.replay import Change, WhatIfReport


def report_dict(report: WhatIfReport, stats: ReadStats) -> dict:
    return {
        "lines": {"total": stats.lines, "decision_lines": stats.decision_lines, "decisions": stats.decisions,
                  "non_decision_lines": stats.non_decision_lines, "quarantined_lines": stats.quarantined_lines,
                  "files": stats.files, "formats": stats.by_format, "warnings": stats.warnings,
                  "skipped_files": stats.skipped_files},
        "distinct_requests": report.distinct_requests,
        "baseline": report.baseline,
        "unverified": report.unverified,
        "logged_allowed": report.logged_allowed_lines,
        "logged_denied": report.logged_denied_lines,
        "causes": [c.as_dict() for c in report.causes],
        "newly_denied": [asdict(c) for c in report.newly_denied],
        "newly_allowed": [asdict(c) for c in report.newly_allowed],
        "unused_acls": [a.as_dict() for a in report.unused_acls],
        "current_reproduces": None if report.reproduced is None else
        {"reproduced": report.reproduced, "comparable": report.comparable, "mismatches": report.mismatch_examples},
        "timeline": report.timeline,
        "warnings": report.warnings,
    }


def check_out_dir(out: Path) -> None:
    """Called before the work too, so that a long replay never ends in a refusal to write its result."""
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / "whatif.json").exists())):
        raise InputError("exists and is not an authz whatif output directory: choose another --out", str(out))


def write_out_dir(out: Path, report: WhatIfReport, stats: ReadStats, quarantine: list[Quarantined]) -> None:
    """Everything is written to a temporary sibling first and renamed into place at the end: a failure
    never leaves a directory that looks complete. An existing --out is replaced only if it is a whatif
    output (or empty)."""
    check_out_dir(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create its directory: {exc.strerror or exc}", str(out)) from None
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        _write_files(tmp, report, stats, quarantine)
        if out.exists():
            old = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _write_files(out: Path, report: WhatIfReport, stats: ReadStats, quarantine: list[Quarantined]) -> None:
    with open(out / "quarantine.jsonl", "w", encoding="utf-8") as fh:
        for q in quarantine:
            fh.write(q.json_line() + "\n")
    import pyarrow as pa
    import pyarrow.parquet as pq

    for name, changes in (("newly_denied", report.newly_denied), ("newly_allowed", report.newly_allowed)):
        rows = [asdict(c) for c in changes]
        columns = [f for f in Change.__dataclass_fields__]
        types = {c: pa.list_(pa.string()) if c == "hosts" else pa.int64() if c in ("count", "visible") else
                 pa.timestamp("us") if c in ("first_seen", "last_seen") else pa.string() for c in columns}
        data = {c: [to_datetime(r[c]) if c in ("first_seen", "last_seen") else r[c] for r in rows] for c in columns}
        pq.write_table(pa.table({c: pa.array(data[c], types[c]) for c in columns}), os.fspath(out / f"{name}.parquet"))
    (out / "whatif.json").write_text(json.dumps(report_dict(report, stats), indent=2, ensure_ascii=False) + "\n",
                                     encoding="utf-8")


def _svg_chart(timeline: dict[str, dict[str, int]]) -> str:
    if not timeline:
        return "<p>No timestamps in the affected lines.</p>"
    hours = list(timeline)
    peak = max(max(v.values()) for v in timeline.values()) or 1
    width, height, pad = max(320, 18 * len(hours) + 60), 200, 40
    bar = (width - pad - 10) / len(hours)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 60}" role="img" '
             f'aria-label="affected requests per hour">',
             f'<line x1="{pad}" y1="{height}" x2="{width - 10}" y2="{height}" stroke="#999"/>',
             f'<text x="4" y="14" font-size="11">{peak}</text>']
    for i, hour in enumerate(hours):
        x = pad + i * bar
        denied = timeline[hour]["newly_denied"] / peak * (height - 20)
        allowed = timeline[hour]["newly_allowed"] / peak * (height - 20)
        parts.append(f'<rect x="{x:.1f}" y="{height - denied:.1f}" width="{bar / 2 - 1:.1f}" height="{denied:.1f}" '
                     f'fill="#c0392b"><title>{html.escape(hour)}: {timeline[hour]["newly_denied"]} newly denied'
                     f'</title></rect>')
        parts.append(f'<rect x="{x + bar / 2:.1f}" y="{height - allowed:.1f}" width="{bar / 2 - 1:.1f}" '
                     f'height="{allowed:.1f}" fill="#27ae60"><title>{html.escape(hour)}: '
                     f'{timeline[hour]["newly_allowed"]} newly allowed</title></rect>')
        if len(hours) <= 24 or i % max(1, len(hours) // 12) == 0:
            parts.append(f'<text x="{x:.1f}" y="{height + 14}" font-size="9" transform="rotate(45 {x:.1f} '
                         f'{height + 14})">{html.escape(hour[5:])}h</text>')
    parts.append("</svg>")
    return "".join(parts)


def _rows(changes: list[Change], limit: int = 50) -> str:
    if not changes:
        return "<p>None.</p>"
    out = ["<table><tr><th>principal</th><th>operation</th><th>resource</th><th>lines</th><th>client-visible</th>"
           "<th>hosts</th><th>first seen</th><th>last seen</th><th>before</th><th>after</th></tr>"]
    for c in changes[:limit]:
        out.append("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in (
            c.principal, c.operation, f"{c.resource_type}:{c.resource_name}", c.count, c.visible,
            ", ".join(c.hosts[:5]) + (" …" if len(c.hosts) > 5 else ""), c.first_seen or "", c.last_seen or "",
            c.before_rule or "", c.after_rule or "")) + "</tr>")
    out.append("</table>")
    if len(changes) > limit:
        out.append(f"<p>… and {len(changes) - limit} more (see whatif.json).</p>")
    return "".join(out)


def _causes(causes: list, limit: int = 50) -> str:
    """The changes by cause: what to decide about, before the per-request detail."""
    if not causes:
        return "<p>None.</p>"
    out = ['<table><tr><th></th><th>cause</th><th>resources</th><th>hosts</th><th>requests</th>'
           '<th>client-visible</th><th>last seen</th></tr>']
    for c in causes[:limit]:
        mark = '<td style="color:#c0392b">denies</td>' if c.kind == "newly_denied" else \
            '<td style="color:#27ae60">allows</td>'
        shown = ", ".join(sorted(c.resources)[:5]) + (f" … ({len(c.resources)})" if len(c.resources) > 5 else "")
        out.append("<tr>" + mark + "".join(f"<td>{html.escape(str(v))}</td>" for v in (
            c.cause, shown, ", ".join(sorted(c.hosts)[:5]) + (" …" if len(c.hosts) > 5 else ""), c.count,
            c.visible, c.last_seen or "")) + "</tr>")
    out.append("</table>")
    if len(causes) > limit:
        out.append(f"<p>… and {len(causes) - limit} more (see whatif.json).</p>")
    return "".join(out)


def render_html(report: WhatIfReport, stats: ReadStats, title: str) -> str:
    warnings = "".join(f'<p class="warn">⚠ {html.escape(w)}</p>' for w in report.warnings)
    if report.unverified:
        warnings += f'<p class="warn">⚠ not verified: {html.escape(report.unverified)}</p>'
    reproduce = ""
    if report.reproduced is not None:
        reproduce = (f"<p>The current ACL set reproduces {report.reproduced} of {report.comparable} logged "
                     "decisions (distinct requests).</p>")
    doc = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}}table{{border-collapse:collapse;font-size:13px}}
td,th{{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}}th{{background:#f4f4f4}}
.warn{{background:#fff3cd;padding:.5em}}.num{{font-size:1.6em;font-weight:bold}}</style></head><body>
<h1>{html.escape(title)}</h1>{warnings}
<p><span class="num" style="color:#c0392b">{len(report.newly_denied)}</span> request kinds newly denied ·
<span class="num" style="color:#27ae60">{len(report.newly_allowed)}</span> newly allowed ·
{report.distinct_requests} distinct requests from {stats.decisions} logged decisions
({stats.lines} lines: {stats.decision_lines} decision, {stats.non_decision_lines} other,
{stats.quarantined_lines} quarantined; {html.escape(stats.files_read())}). Baseline: {report.baseline} decisions.</p>{reproduce}
<h2>By cause</h2>{_causes(report.causes)}
<h2>Affected requests per hour</h2>{_svg_chart(report.timeline)}
<h2>Newly denied</h2>{_rows(report.newly_denied)}
<h2>Newly allowed</h2>{_rows(report.newly_allowed)}
<h2>ACLs that decided no logged request ({len(report.unused_acls)})</h2>
<ul>{"".join(f"<li><code>{html.escape(a.standard_acl_str())}</code></li>" for a in report.unused_acls[:100])}</ul>
</body></html>
"""
    return doc
