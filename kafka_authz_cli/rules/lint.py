"""`authz lint`: will the proxy load this rules file, and will it decide what its author thinks?

Every finding has a stable code (rules/codes.py: the registry, with an example of each). Errors mean the proxy refuses the file (exactly when it does);
warnings are rules that will not do what they say; info is what Kafka ACLs cannot express or what
deserves a second look.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Protocol

from kafka_authz_cli.acl import AclOperation
from kafka_authz_cli.formats.bulk import paused_gc
from kafka_authz_cli.rules.codes import (
    BACKSLASH_STRIPPED,
    BLOCK_COMMENT,
    BUILD_EXCEPTION,
    CODES,
    CROSS_TYPE_PREFIX,
    DENY_IMPLIES,
    DUPLICATE_RULE,
    IGNORED_AFTER_OTHERWISE,
    MATCHES_NOBODY,
    NOT_KAFKA_EXPRESSIBLE,
    PREFIX_FLOOR,
    SEMANTIC_ERROR,
    SHADOWED_RULE,
    SYNTAX_ERROR,
    UNKNOWN_TO_KAFKA,
)
from kafka_authz_cli.rules.evaluate import Principal, ProxyAuthorizer, RulesAction
from kafka_authz_cli.rules.parser import RulesSyntaxError, parse_rules
from kafka_authz_cli.rules.semantic_check import (
    CheckedRule,
    CheckedRules,
    RulesBuildException,
    RulesSemanticError,
    check_rules,
)
from kafka_authz_cli.rules.types import TypeRegistry


@dataclass(frozen=True)
class Finding:
    code: str  # a FindingCode's code: a plain string, cheap to pickle back from the forked floor pass
    path: str
    line: int
    col: int  # 0-based, as the proxy reports; shown 1-based by text formats
    message: str

    @property
    def severity(self) -> str:
        return CODES[self.code].severity

    @property
    def name(self) -> str:
        return CODES[self.code].name


class CodedFinding(Protocol):
    """What a lint result lists: a rules file's :class:`Finding`, or the coded finding of another
    reader (``ecosystem.SourceFinding``, the apps file's)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]  # each is a dataclass (dataclasses.replace applies)

    @property
    def code(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def col(self) -> int: ...
    @property
    def message(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def name(self) -> str: ...


@dataclass
class LintResult:
    path: str
    findings: list[CodedFinding] = field(default_factory=list)
    checked: CheckedRules | None = None


def lint_text(text: str, path: str, registry: TypeRegistry | None = None) -> LintResult:
    with paused_gc():
        return _lint_text(text, path, registry)


def _lint_text(text: str, path: str, registry: TypeRegistry | None) -> LintResult:
    registry = registry or TypeRegistry()
    result = LintResult(path)
    add = result.findings.append
    try:
        parsed = parse_rules(text, path)
    except RulesSyntaxError as exc:
        # Like the proxy's own message, the first 100 syntax errors; then how many more there are.
        for p in exc.problems[:_MAX_SYNTAX_ERRORS]:
            msg = _shortened(p.message)
            token = re.match(r"extraneous input '(/\*.*)'", msg, re.S)
            if token:
                msg += " (a /* */ comment without '/' inside lexes as a regex; use // comments)"
            add(Finding(SYNTAX_ERROR.code, path, p.line, p.col, msg))
        if len(exc.problems) > _MAX_SYNTAX_ERRORS:
            last = exc.problems[-1]
            add(Finding(SYNTAX_ERROR.code, path, last.line, last.col,
                        f"... and {len(exc.problems) - _MAX_SYNTAX_ERRORS:,} more syntax errors up to here "
                        f"(the proxy, too, lists the first {_MAX_SYNTAX_ERRORS})"))
        _block_comments(text, path, add, broken_only=True)
        return result
    from kafka_authz_cli.rules.forked import ForkedCall

    # The floor findings (the costliest pass) start now on the second core, from the parsed file:
    # the child checks it again itself rather than wait for this process to.
    floor = ForkedCall(lambda: _floor_findings_list(check_rules(parsed, registry), path, registry),
                       parallel=len(parsed.rules) >= _PARALLEL_FROM)
    try:
        checked = check_rules(parsed, registry)
    except RulesSemanticError as exc:
        floor.cancel()
        for problem in exc.problems:
            add(Finding(SEMANTIC_ERROR.code, path, problem.pos.line, problem.pos.col, problem.message))
        return result
    except RulesBuildException as exc:
        floor.cancel()
        add(Finding(BUILD_EXCEPTION.code, path, exc.pos.line, exc.pos.col, f"{exc.java_class}: {exc}"))
        return result
    except BaseException:
        floor.cancel()
        raise
    result.checked = checked
    _after_otherwise(parsed, path, add)
    _block_comments(text, path, add, broken_only=False, end=parsed.trailing_pos.offset if parsed.trailing_pos else None)
    _backslashes(parsed, path, add)
    _rules(checked, path, add, registry, floor)
    result.findings.sort(key=lambda f: (f.line, f.col, f.code))
    return result


_MAX_SYNTAX_ERRORS = 100


def _shortened(message: str, limit: int = 240) -> str:
    """ANTLR quotes the offending token whole: an unterminated string is the rest of the file."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]}' ... (the quoted text goes on for {len(message) - limit:,} more characters)"


def _after_otherwise(parsed, path, add) -> None:
    tail = parsed.trailing_text
    if tail.strip() and parsed.trailing_pos:
        statements = len(re.findall(r"\b(?:allow|deny)\b", tail))
        lead = len(tail) - len(tail.lstrip())
        before = parsed.source[:parsed.trailing_pos.offset + lead]
        line = before.count("\n") + 1
        col = len(before) - (before.rfind("\n") + 1)
        what = f"{statements} rule(s)" if statements else "text"
        add(Finding(IGNORED_AFTER_OTHERWISE.code, path, line, col, f"{what} after `otherwise deny;` will never be applied by the proxy"))


def _block_comments(text: str, path: str, add, broken_only: bool, end: int | None = None) -> None:
    if broken_only:
        return
    line, counted = 1, 0  # lines counted incrementally: one pass over the text, not one per comment
    for m in re.finditer(r"/\*.*?\*/", text[:end] if end else text, re.S):
        body = m.group()[2:-2]
        if "/" in body:
            line += text.count("\n", counted, m.start())
            counted = m.start()
            col = m.start() - (text.rfind("\n", 0, m.start()) + 1)
            add(Finding(BLOCK_COMMENT.code, path, line, col, "this block comment works only because it contains '/'; "
                                                 "without one it lexes as a regex: prefer // comments"))


def _backslashes(parsed, path, add) -> None:
    from kafka_authz_cli.rules.lexer import unquote

    if "\\" not in parsed.source:
        return  # nothing escaped anywhere: the common case, decided in one scan
    for rule in parsed.rules:
        for pred in (rule.principal, rule.resource):
            if pred.kind in ("equals", "in", "matching") and "\\" in "".join(pred.raw):
                for raw, pos in zip(pred.raw, pred.literal_pos):
                    if "\\" not in raw:
                        continue
                    benign = "\\\"/" if pred.kind == "matching" else "\\\""
                    stripped = [m.group(1) for m in re.finditer(r"\\(.)", raw) if m.group(1) not in benign]
                    if stripped:
                        what = "regex" if pred.kind == "matching" else "name"
                        escapes = ", ".join("\\" + c for c in dict.fromkeys(stripped))
                        add(Finding(BACKSLASH_STRIPPED.code, path, pos.line, pos.col,
                                    f"the proxy strips the backslash from {escapes}: this {what} is really "
                                    f"{unquote(raw)!r}"))


def _short(cls: str) -> str:
    return cls.rsplit(".", 1)[-1]


#: From this many rules on, the floor findings (the costliest pass) run on the second core.
_PARALLEL_FROM = 5_000


def _floor_findings_list(checked: CheckedRules, path: str, registry: TypeRegistry) -> list[Finding]:
    found: list[Finding] = []
    _floor_findings(checked.rules, checked, path, found.append, registry)
    return found


def _rules(checked: CheckedRules, path: str, add, registry: TypeRegistry, floor) -> None:
    """Every finding about checked rules; ``floor`` (a ForkedCall) yields the AZ104/AZ105 ones."""
    rules = checked.rules
    try:
        _per_rule_findings(rules, path, add, registry)
        _shadowed(rules, path, add)
    finally:
        for finding in floor.result():
            add(finding)


def _per_rule_findings(rules: list[CheckedRule], path: str, add, registry: TypeRegistry) -> None:
    seen: dict[tuple, CheckedRule] = {}
    proxy_only: dict[frozenset, list[str]] = {}
    for r in rules:
        pos = r.rule.pos
        key = (r.effect, r.principal_class, r.principal.kind, r.principal.values, r.resource_class, r.resource.kind,
               r.resource.values, r.operations)
        if key in seen:
            add(Finding(DUPLICATE_RULE.code, path, pos.line, pos.col, f"same as the rule at line {seen[key].rule.pos.line}"))
        else:
            seen[key] = r
        if r.principal_is_interface:
            add(Finding(MATCHES_NOBODY.code, path, r.rule.principal_type.pos.line, r.rule.principal_type.pos.col,
                        f"'{r.rule.principal_type.text}' is the Principal interface: no principal has exactly that class"))
        resource_class = registry.resources.get(r.resource_class)
        if r.effect == "deny":
            extra = sorted(r.effective_operations - r.operations)
            if extra:
                add(Finding(DENY_IMPLIES.code, path, r.rule.operations_pos.line, r.rule.operations_pos.col,
                            f"this deny rule also denies {', '.join(extra)} (implied); Kafka's DENY would not"))
        if r.resource.kind == "regex":
            p = r.rule.resource.pos
            add(Finding(NOT_KAFKA_EXPRESSIBLE.code, path, p.line, p.col, "regex resource names have no Kafka ACL equivalent"))
        if r.principal.kind == "prefix":
            p = r.rule.principal.pos
            add(Finding(NOT_KAFKA_EXPRESSIBLE.code, path, p.line, p.col, "principal name prefixes have no Kafka ACL equivalent"))
        if resource_class is not None and resource_class.kafka_type is None:
            p = r.rule.resource_type.pos
            add(Finding(UNKNOWN_TO_KAFKA.code, path, p.line, p.col, f"{_short(r.resource_class)} has no Kafka resource type"))
        elif resource_class is not None and r.rule.operations is not None:
            unknown = proxy_only.get(r.operations)
            if unknown is None:
                unknown = proxy_only[r.operations] = sorted(op for op in r.operations
                                                            if op not in AclOperation.__members__)
            if unknown:
                p = r.rule.operations_pos
                add(Finding(UNKNOWN_TO_KAFKA.code, path, p.line, p.col, f"operation(s) {', '.join(unknown)} do not exist in Kafka "
                                                           "(proxy-only)"))


def _covers(outer, inner) -> bool:
    """Does name matcher ``outer`` match every name ``inner`` matches (for simple kinds)?"""
    if outer.kind == "any":
        return True
    if inner.kind in ("any", "regex") or outer.kind == "regex":
        return False
    if outer.kind == "prefix":
        return all(v.startswith(outer.values[0]) for v in inner.values)
    return inner.kind == "equals" and set(inner.values) <= set(outer.values)


class _KeyIndex:
    """Items filed under name matchers, found again for a name matcher by what could cover it:
    `*`, its first name, and the stored prefixes of that name (tried by startswith when a class has
    few prefixes, by slicing at the stored lengths when it has many)."""

    __slots__ = ("any", "equals", "prefixes", "lengths")

    def __init__(self):
        self.any: dict[str, list] = {}
        self.equals: dict[tuple[str, str], list] = {}
        self.prefixes: dict[str, dict[str, list]] = {}
        self.lengths: dict[str, list[int]] = {}

    def add(self, cls: str, matcher, item) -> None:
        kind = matcher.kind
        if kind == "any":
            self.any.setdefault(cls, []).append(item)
        elif kind == "equals":
            for v in matcher.values:
                self.equals.setdefault((cls, v), []).append(item)
        elif kind == "prefix":
            p = matcher.values[0]
            by_prefix = self.prefixes.setdefault(cls, {})
            if p not in by_prefix:
                by_prefix[p] = []
                lengths = self.lengths.setdefault(cls, [])
                if len(p) not in lengths:
                    lengths.append(len(p))
            by_prefix[p].append(item)
        # a regex covers nothing we can prove

    def covering(self, cls: str, matcher) -> list:
        out = list(self.any.get(cls, ()))
        if matcher.kind in ("any", "regex"):
            return out
        first = matcher.values[0]
        if matcher.kind == "equals":
            out += self.equals.get((cls, first), ())
        by_prefix = self.prefixes.get(cls)
        if by_prefix:
            if len(by_prefix) <= 8:
                for p, items in by_prefix.items():
                    if first.startswith(p):
                        out += items
            else:
                size = len(first)
                for n in self.lengths[cls]:
                    if n <= size:
                        found = by_prefix.get(first[:n])
                        if found:
                            out += found
        return out


def _shadowed(rules: list[CheckedRule], path: str, add) -> None:
    """AZ108: an allow rule whose every grant a deny rule covers (the earliest such deny is named).

    Deny rules are indexed by principal key, and each principal key's denies by resource key, so an
    allow rule meets only the denies that could cover it: those keyed by `*`, by its own (first)
    name, or by a prefix of it.
    """
    by_principal = _KeyIndex()
    for d in rules:
        if d.effect == "deny":
            by_principal.add(d.principal_class, d.principal, d)
    # Each principal key's denies, re-filed by resource: the principal index then holds one
    # resource index per key.
    tables: list[dict[Any, list]] = [by_principal.any, by_principal.equals, *by_principal.prefixes.values()]
    for table in tables:
        for key, denies in table.items():
            index = _KeyIndex()
            for d in denies:
                index.add(d.resource_class, d.resource, d)
            table[key] = [index]
    for a in rules:
        if a.effect != "allow":
            continue
        best = None
        for index in by_principal.covering(a.principal_class, a.principal):
            for d in index.covering(a.resource_class, a.resource):
                if (best is None or d.rule.pos.offset < best.rule.pos.offset) \
                        and a.effective_operations <= d.effective_operations \
                        and _covers(d.principal, a.principal) and _covers(d.resource, a.resource):
                    best = d
        if best is not None:
            add(Finding(SHADOWED_RULE.code, path, a.rule.pos.line, a.rule.pos.col,
                        f"everything this rule allows is denied by the deny rule at line {best.rule.pos.line}"))


def _nested_pairs(prefixes) -> list[tuple[str, str]]:
    """(p, q) for each distinct prefix p and the closest longer prefix q that extends it (sorted, then
    bisected): the key the proxy's floor lookup lands on for names just after q."""
    keys = sorted(set(prefixes))
    out = []
    for i, p in enumerate(keys):
        j = i + 1
        if j < len(keys) and keys[j].startswith(p):
            out.append((p, keys[j]))
    return out


def _successor_names(prefix: str, narrower: str) -> list[str]:
    """Names that start with ``prefix`` and sort just after ``narrower`` without starting with it."""
    out = []
    for cut in range(len(prefix) + 1, len(narrower) + 1):
        head = narrower[:cut - 1]
        last = narrower[cut - 1]
        if ord(last) < 0xFFFF:
            out.append(head + chr(ord(last) + 1))
    out.append(narrower[:-1] + chr(ord(narrower[-1]) + 1) + "x" if narrower else prefix + "x")
    return [n for n in out if n.startswith(prefix)]


#: Rules under one prefix key tried before concluding that the key's floor shadow changes nothing.
_TRIES_PER_KEY = 8


class _Floor:
    """What the floor passes share: where findings go, which were reported, and the proxy's decisions
    (built on first need: most files never need them)."""

    def __init__(self, checked: CheckedRules, path: str, add):
        self.checked = checked
        self.path = path
        self.add = add
        self.reported: set[tuple] = set()

    @cached_property
    def authorizer(self) -> ProxyAuthorizer:
        return ProxyAuthorizer(self.checked)

    def side(self, effect: str):
        return self.authorizer.deny if effect == "deny" else self.authorizer.allow


def _floor_findings(rules: list[CheckedRule], checked: CheckedRules, path: str, add,
                    registry: TypeRegistry) -> None:
    """AZ104 and AZ105: where the proxy's floor lookups decide differently from the docs.

    The proxy keeps one principal map per effect and, per principal key, one resource map; a floor
    lookup can only be misled by a closer prefix key *in the same map*. So prefixes are paired within
    each map (not across the whole file), and each pair is judged by deciding a witness both ways.
    Each finding is reported once per key, on the first rule (by line) that shows it.
    """
    floor = _Floor(checked, path, add)
    by_line = sorted(rules, key=lambda r: r.rule.pos.offset)
    for effect in ("deny", "allow"):
        side_rules = [r for r in by_line if r.effect == effect]
        _resource_prefix_floors(floor, effect, side_rules)
        _principal_prefix_floors(floor, side_rules)
    _cross_type_leaks(floor, by_line, sorted(registry.principals))


def _resource_prefix_floors(floor: _Floor, effect: str, side_rules: list[CheckedRule]) -> None:
    """AZ104 for resource prefixes nested inside one principal key's grant map."""
    maps: dict[tuple, dict[str, list[CheckedRule]]] = {}
    for r in side_rules:
        if r.resource.kind != "prefix":
            continue
        for pkey in _principal_keys(r):
            maps.setdefault((pkey, r.resource_class), {}).setdefault(r.resource.values[0], []).append(r)
    for ((pcls, pkind, pvalue), rclass), by_prefix in maps.items():
        if len(by_prefix) < 2:
            continue
        principal = Principal(pcls, "someone" if pkind == "any" else pvalue)
        for p, q in _nested_pairs(by_prefix):
            broad, narrow = by_prefix[p][0], by_prefix[q][0]
            if (broad.rule.pos, "r") in floor.reported:
                continue
            side = floor.side(effect)
            # The witness: the first name after q that starts with p and whose floor lookup in this
            # map really lands on a prefix key that does not match it (so p is never tried).
            witness = next((n for n in _successor_names(p, q)
                            if side.resource_floor_shadows(pcls, pkind, pvalue, rclass, n)), None)
            if witness is not None:
                _judge_resource_floor(floor, effect, principal, rclass, witness, broad, narrow, q)


def _judge_resource_floor(floor: _Floor, effect: str, principal: Principal, rclass: str, witness: str,
                          broad: CheckedRule, narrow: CheckedRule, q: str) -> None:
    """AZ104 on ``broad`` if, for one of its operations, the proxy decides ``witness`` differently
    from the docs (its lookup stopping at ``narrow``'s closer prefix ``q``)."""
    authorizer = floor.authorizer
    for op in sorted(broad.effective_operations):
        action = RulesAction((principal,), rclass, op, witness)
        documented = None
        if effect == "deny":
            if not _allowed_by_proxy(authorizer, principal, rclass, op, witness):
                continue  # a shadowed deny changes nothing unless the proxy's allow side grants it
        else:
            documented = authorizer.documented(action)
            if documented[0] == "DENIED":
                continue  # the docs deny it anyway: the shadowed allow changes nothing here
        got = authorizer.decide(action, documented)
        if got.decision != got.documented_decision:
            floor.reported.add((broad.rule.pos, "r"))
            pos = broad.rule.resource.pos
            floor.add(Finding(PREFIX_FLOOR.code, floor.path, pos.line, pos.col,
                              f"{principal.name!r} {op} {_short(rclass)} {witness!r}: the docs say "
                              f"{got.documented_decision}, the proxy says {got.decision} (its lookup stops at "
                              f"the closer prefix \"{q}*\" of line {narrow.rule.pos.line})"))
            return


def _principal_prefix_floors(floor: _Floor, side_rules: list[CheckedRule]) -> None:
    """AZ104 for principal prefixes nested inside the side's principal map."""
    by_class: dict[str, dict[str, list[CheckedRule]]] = {}
    for r in side_rules:
        if r.principal.kind == "prefix":
            by_class.setdefault(r.principal_class, {}).setdefault(r.principal.values[0], []).append(r)
    for pcls, by_prefix in by_class.items():
        for p, q in _nested_pairs(by_prefix):
            _judge_principal_floor(floor, pcls, by_prefix, p, q)


def _judge_principal_floor(floor: _Floor, pcls: str, by_prefix: dict[str, list[CheckedRule]], p: str,
                           q: str) -> None:
    """AZ104 on the first of (the first few) rules under prefix ``p`` that a name after the closer
    prefix ``q`` never reaches although the docs say it applies."""
    other = by_prefix[q][0]
    for rule in by_prefix[p][:_TRIES_PER_KEY]:
        for name in _successor_names(p, q):
            if not _diverges(floor.authorizer, rule, Principal(pcls, name)):
                continue
            if (rule.rule.pos, "p") not in floor.reported:
                floor.reported.add((rule.rule.pos, "p"))
                pos = rule.rule.principal.pos
                shared = len(by_prefix[p])
                also = f" (nor do the other {shared - 1} rules with this prefix)" if shared > 1 else ""
                floor.add(Finding(PREFIX_FLOOR.code, floor.path, pos.line, pos.col,
                                  f"principal {_short(pcls)} {name!r} is looked up at the closer prefix "
                                  f"\"{q}*\" of line {other.rule.pos.line}: this rule never applies to it"
                                  f"{also}"))
            return


def _cross_type_leaks(floor: _Floor, by_line: list[CheckedRule], classes: list[str]) -> None:
    """AZ105: principal prefixes whose rules apply to principals of other classes too."""
    seen_prefix: set[tuple] = set()
    for rule in by_line:
        if rule.principal.kind != "prefix":
            continue
        p = rule.principal.values[0]
        # Leaks into other principal classes (checked once per distinct prefix key and side).
        if (rule.effect, rule.principal_class, p) in seen_prefix:
            continue
        seen_prefix.add((rule.effect, rule.principal_class, p))
        for cls in classes:
            if cls != rule.principal_class:
                _judge_leak(floor, rule, p, cls)


def _judge_leak(floor: _Floor, rule: CheckedRule, p: str, cls: str) -> None:
    victim = Principal(cls, p + "x")
    if floor.side(rule.effect).floor_key(victim) != (rule.principal_class, "prefix", p):
        return  # the victim's lookup never reaches this rule's key: nothing leaks from it
    if _diverges(floor.authorizer, rule, victim) and (rule.rule.pos, cls) not in floor.reported:
        floor.reported.add((rule.rule.pos, cls))
        pos = rule.rule.principal.pos
        floor.add(Finding(CROSS_TYPE_PREFIX.code, floor.path, pos.line, pos.col,
                          f"{rule.effect}s {_short(cls)} {victim.name!r} too: the proxy's prefix lookup does "
                          "not check the principal type"))


def _principal_keys(rule: CheckedRule) -> list[tuple[str, str, str]]:
    m = rule.principal
    if m.kind == "any":
        return [(rule.principal_class, "any", "")]
    if m.kind == "equals":
        return [(rule.principal_class, "equals", v) for v in m.values]
    return [(rule.principal_class, "prefix", m.values[0])]


def _allowed_by_proxy(authorizer: ProxyAuthorizer, principal: Principal, resource_class: str, op: str,
                      name: str) -> bool:
    """Does the proxy's allow side grant it? (A shadowed deny changes nothing unless it does.)"""
    rule, _notes = authorizer.allow.matching_rule(RulesAction((principal,), resource_class, op, name))
    return rule is not None


def _diverges(authorizer: ProxyAuthorizer, rule: CheckedRule, principal: Principal) -> bool:
    op = sorted(rule.effective_operations)[0] if rule.effective_operations else None
    if op is None:
        return False
    if rule.resource.kind == "regex":
        return False
    name = rule.resource.values[0] if rule.resource.kind in ("equals", "prefix") else "x"
    got = authorizer.decide(RulesAction((principal,), rule.resource_class, op, name))
    return got.decision != got.documented_decision
