"""Lint findings for people and machines: text, JSON, SARIF 2.1.0, GitHub annotations, JUnit XML.

Columns: text, JSON and JUnit give the proxy's own ``line:col``, the column 0-based as ANTLR's
``charPositionInLine`` (Kroxylicious: ``AclAuthorizerService.ParseErrorListener`` formats
``"%d:%d: %s"`` from it), so a finding and the proxy's error name the same place. SARIF's
``startColumn`` and GitHub's ``col`` are 1-based by their own specs (SARIF 2.1.0's region,
GitHub's workflow commands): there, and only there, the column is the proxy's plus one.

``codes`` is the registry the findings' codes are described by (SARIF's rules): lint's own unless
another is given.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from kafka_authz_cli import __version__
from kafka_authz_cli.codes import SEVERITIES, FindingCode
from kafka_authz_cli.rules.codes import CODES

_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def text_line(path: str, f) -> str:
    """``path:line:col: severity code message``, the column the proxy's (0-based)."""
    return f"{path}:{f.line}:{f.col}: {f.severity} {f.code} {f.message}"


def to_json(results, codes: Mapping[str, FindingCode] = CODES) -> str:
    # "column" is the proxy's (0-based); a SARIF consumer wanting 1-based has --format sarif.
    return json.dumps([{"path": r.path, "findings": [
        {"code": f.code, "name": f.name, "severity": f.severity, "line": f.line, "column": f.col,
         "message": f.message} for f in r.findings]} for r in results], indent=2, ensure_ascii=False)


def to_sarif(results, codes: Mapping[str, FindingCode] = CODES) -> str:
    used = sorted({f.code for r in results for f in r.findings})
    rules = [{"id": c, "name": codes[c].name, "shortDescription": {"text": codes[c].summary},
              "fullDescription": {"text": codes[c].explanation},
              "defaultConfiguration": {"level": _SARIF_LEVEL[codes[c].severity]}} for c in used]
    index = {c: i for i, c in enumerate(used)}
    sarif_results = [{
        "ruleId": f.code, "ruleIndex": index[f.code], "level": _SARIF_LEVEL[f.severity],
        "message": {"text": f.message},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": r.path},
                                            "region": {"startLine": f.line, "startColumn": f.col + 1}}}],  # SARIF: 1-based
    } for r in results for f in r.findings]
    doc = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
           "runs": [{"tool": {"driver": {"name": "authz lint", "version": __version__,
                                         "informationUri": "https://kafka.apache.org/documentation/#security_authz",
                                         "rules": rules}},
                     "columnKind": "unicodeCodePoints",  # as the proxy counts (ANTLR's CodePointCharStream)
                     "results": sarif_results}]}
    return json.dumps(doc, indent=2, ensure_ascii=False)


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def to_github(results, codes: Mapping[str, FindingCode] = CODES) -> str:
    level = {"error": "error", "warning": "warning", "info": "notice"}
    lines = [f"::{level[f.severity]} file={_gh_escape(r.path, True)},line={f.line},col={f.col + 1},"
             f"title={_gh_escape(f.code + ' ' + f.name, True)}::{_gh_escape(f.message)}"
             for r in results for f in r.findings]
    return "\n".join(lines) + ("\n" if lines else "")


#: Characters XML 1.0 cannot hold even escaped (a control character quoted from a rules file).
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _x(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def to_junit(results, codes: Mapping[str, FindingCode] = CODES, fail_level: str = "error") -> str:
    """One testcase per file; findings at or above ``fail_level`` are failures (as the exit code
    counts them), the others go to the testcase's system-out."""
    # saxutils imports urllib.request and with it the network stack: only when JUnit is asked for.
    from xml.sax.saxutils import escape, quoteattr

    threshold = SEVERITIES.index(fail_level)

    def fails(f) -> bool:
        return SEVERITIES.index(f.severity) >= threshold

    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    failures = sum(1 for r in results if any(fails(f) for f in r.findings))
    out.append(f'<testsuite name="authz lint" tests="{len(results)}" failures="{failures}">')
    for r in results:
        out.append(f'  <testcase classname="authz.lint" name={quoteattr(_x(r.path))}>')
        for f in r.findings:
            if fails(f):
                text = text_line(r.path, f)
                out.append(f'    <failure type={quoteattr(f.code)} message={quoteattr(_x(f.message))}>'
                           f'{escape(_x(text))}</failure>')
        others = [f for f in r.findings if not fails(f)]
        if others:
            body = "\n".join(text_line(r.path, f) for f in others)
            out.append(f"    <system-out>{escape(_x(body))}</system-out>")
        out.append("  </testcase>")
    out.append("</testsuite>")
    return "\n".join(out) + "\n"
