"""Every rules file and decision recorded from the real Kroxylicious proxy must be reproduced."""

import json
from pathlib import Path

import pytest

from kafka_authz_cli.rules.evaluate import Principal, ProxyAuthorizer, RulesAction
from kafka_authz_cli.rules.parser import RulesSyntaxError, parse_rules
from kafka_authz_cli.rules.semantic_check import RulesBuildException, RulesSemanticError, check_rules
from kafka_authz_cli.rules.types import TypeRegistry

BASE = Path(__file__).parents[1] / "conformance" / "kroxylicious"
PARSE = [json.loads(line) for line in (BASE / "parse.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
DECISIONS = [json.loads(line) for line in (BASE / "decisions.jsonl").read_text(encoding="utf-8").splitlines()
             if line.strip()]
REGISTRY = TypeRegistry().load(json.loads((BASE / "types.json").read_text()))


def load(path):
    return check_rules(parse_rules((BASE / path).read_text(encoding="utf-8"), path), REGISTRY)


@pytest.mark.parametrize("case", PARSE, ids=[c["file"] for c in PARSE])
def test_file_loads_exactly_when_the_proxy_loads_it(case):
    text = (BASE / case["file"]).read_text(encoding="utf-8")
    if case["ok"]:
        load(case["file"])
        return
    phase = case["phase"]
    expected_error = {"syntax": RulesSyntaxError, "semantic": RulesSemanticError, "exception": RulesBuildException}[phase]
    with pytest.raises(expected_error) as info:
        check_rules(parse_rules(text, case["file"]), REGISTRY)
    if phase == "exception":
        assert str(info.value) == case["error"]
        return
    first = info.value.problems[0]
    fe = case["first_error"]
    line, col = (first.line, first.col) if phase == "syntax" else (first.pos.line, first.pos.col)
    assert (line, col) == (fe["line"], fe["col"])
    message = first.message if phase == "semantic" or first.message.endswith(".") else first.message + "."
    assert message == fe["message"]
    if phase == "semantic":
        assert str(info.value) + "\n" == case["error"]


def test_decisions_match_the_real_proxy():
    authorizers = {}
    mismatches = []
    for case in DECISIONS:
        path = case["rules_file"]
        if path not in authorizers:
            authorizers[path] = ProxyAuthorizer(load(path))
        a = case["action"]
        action = RulesAction(tuple(Principal(p["class"], p["name"]) for p in a["principals"]), a["resource_class"],
                             a["operation"], a["resource_name"])
        got = authorizers[path].decide(action)
        want = "ALLOWED" if case["expected"] == "ALLOW" else "DENIED"
        if got.decision != want:
            mismatches.append((case["id"], want, got.decision))
        if "diverges-from-documented-semantics" in case["tags"] and "re2-syntax" not in case["tags"]:
            documented = "ALLOWED" if case["documented_semantics_would_say"] == "ALLOW" else "DENIED"
            if got.documented_decision != documented or got.quirk is None:
                mismatches.append((case["id"], "documented", documented, got.documented_decision, got.quirk))
    assert mismatches == []
    assert len(DECISIONS) == 1586


@pytest.mark.parametrize("case", [c for c in PARSE if c["ok"]], ids=[c["file"] for c in PARSE if c["ok"]])
def test_every_file_the_proxy_loads_compiles_or_says_why_not(case):
    """Compiling to Kafka ACLs either gives bindings or a located CompileError, never a crash (the
    Principal interface used as a type matches nobody: no binding)."""
    from kafka_authz_cli.rules.compile import CompileError, compile_checked

    try:
        bindings = compile_checked(load(case["file"]))
    except CompileError as e:
        assert e.problems and all(p.pos is not None for p in e.problems)
        return
    if case["file"].endswith("hand-principal-interface-as-type.acl"):
        assert bindings == []
