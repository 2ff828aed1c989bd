"""Decisions from a checked rules file: as the real proxy makes them, and as the docs describe them.

The proxy keeps, for deny rules and for allow rules separately, a sorted map from principal keys
(class name, kind any < equals < prefix, operand) to grants, each grant a sorted map from resource
keys to operation sets plus a list of regexes. Exact and "any" keys are looked up directly; a
prefix is found with ``floorEntry`` and used only if it is a prefix of the name, *whatever its
class*. That floor is where the real code departs from the documented first-match meaning:
overlapping prefixes shadow each other, and a prefix key of another principal class can leak.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from kafka_authz_cli.model import utf16_key
from kafka_authz_cli.rules.check import CheckedRule, CheckedRules, compile_regex

_KIND_RANK = {"any": 0, "equals": 1, "prefix": 2}


@dataclass(frozen=True)
class Principal:
    cls: str
    name: str


@dataclass(frozen=True)
class RulesAction:
    principals: tuple[Principal, ...]
    resource_class: str
    operation: str
    resource_name: str


def _key(cls: str, kind: str, operand: str) -> tuple:
    return (utf16_key(cls), _KIND_RANK[kind], utf16_key(operand))


class _SortedKeys:
    """A TreeMap stand-in: keys sorted once, ``floor`` by bisection."""

    def __init__(self, entries: dict[tuple, object], raw: dict[tuple, tuple[str, str, str]]):
        self.keys = sorted(entries)
        self.entries = entries
        self.raw = raw

    def floor(self, key: tuple):
        i = bisect_right(self.keys, key)
        return self.keys[i - 1] if i else None


@dataclass
class _Grants:
    ops: dict[tuple, set] = field(default_factory=dict)
    raw: dict[tuple, tuple[str, str, str]] = field(default_factory=dict)
    rules: dict[tuple, list[CheckedRule]] = field(default_factory=dict)
    regexes: list[tuple[str, object, frozenset, CheckedRule]] = field(default_factory=list)
    index: _SortedKeys | None = None


class _Side:
    """All deny rules, or all allow rules, as the proxy stores them."""

    def __init__(self, rules: list[CheckedRule]):
        grants: dict[tuple, _Grants] = {}
        raw: dict[tuple, tuple[str, str, str]] = {}
        for rule in rules:
            for pkind, poperand in _keys_of(rule.principal):
                pkey = _key(rule.principal_class, pkind, poperand)
                raw[pkey] = (rule.principal_class, pkind, poperand)
                g = grants.setdefault(pkey, _Grants())
                if rule.resource.kind == "regex":
                    g.regexes.append((rule.resource_class, rule.resource.regex, rule.effective_operations, rule))
                    continue
                for rkind, roperand in _keys_of(rule.resource):
                    rkey = _key(rule.resource_class, rkind, roperand)
                    g.raw[rkey] = (rule.resource_class, rkind, roperand)
                    # Operations are enum constants: the same name in another class is another value.
                    g.ops.setdefault(rkey, set()).update((rule.resource_class, op) for op in rule.effective_operations)
                    g.rules.setdefault(rkey, []).append(rule)
        for g in grants.values():
            g.index = _SortedKeys(g.ops, g.raw)
        self.grants = grants
        self.index = _SortedKeys(grants, raw)

    def matching_rule(self, action: RulesAction) -> tuple[CheckedRule | None, list[str]]:
        """The rule that grants the operation (None if none) and the floor lookups that misled."""
        notes: list[str] = []
        wanted = (action.resource_class, action.operation)
        for principal in action.principals:
            for pkey in self._principal_keys(principal, notes):
                g = self.grants[pkey]
                hit = self._resource_hit(g, action, wanted, notes)
                if hit is not None:
                    return hit, notes
        return None, notes

    def _principal_keys(self, principal: Principal, notes: list[str]) -> list[tuple]:
        found = []
        exact = _key(principal.cls, "equals", principal.name)
        if exact in self.grants:
            found.append(exact)
        anyk = _key(principal.cls, "any", "")
        if anyk in self.grants:
            found.append(anyk)
        floor = self.index.floor(_key(principal.cls, "prefix", principal.name))
        if floor is not None:
            cls, kind, operand = self.index.raw[floor]
            if kind == "prefix" and principal.name.startswith(operand):
                found.append(floor)
                if cls != principal.cls:
                    notes.append(f"cross-type: the {cls.rsplit('.', 1)[-1]} prefix '{operand}*' is applied to "
                                 f"{principal.cls.rsplit('.', 1)[-1]} '{principal.name}'")
            elif kind == "prefix":
                notes.append(f"prefix-floor: principal '{principal.name}' is looked up at the closest prefix key "
                             f"'{operand}*', which does not match, so shorter prefixes are never tried")
        return found

    def _resource_hit(self, g: _Grants, action: RulesAction, wanted, notes: list[str]) -> CheckedRule | None:
        name = action.resource_name
        for rkey in (_key(action.resource_class, "equals", name), _key(action.resource_class, "any", "")):
            if wanted in g.ops.get(rkey, ()):
                return next(r for r in g.rules[rkey] if action.operation in r.effective_operations)
        floor = g.index.floor(_key(action.resource_class, "prefix", name))
        if floor is not None:
            cls, kind, operand = g.index.raw[floor]
            if kind == "prefix" and name.startswith(operand):
                if wanted in g.ops[floor]:
                    return next(r for r in g.rules[floor] if action.operation in r.effective_operations)
            elif kind == "prefix" and cls == action.resource_class:
                notes.append(f"prefix-floor: '{name}' is looked up at the closest prefix key '{operand}*', which "
                             "does not match, so shorter prefixes are never tried")
        for cls, regex, ops, rule in g.regexes:
            if cls == action.resource_class and action.operation in ops and regex is not None \
                    and regex.fullmatch(name) is not None:
                return rule
        return None


def _keys_of(matcher) -> list[tuple[str, str]]:
    if matcher.kind == "any":
        return [("any", "")]
    if matcher.kind == "equals":
        return [("equals", v) for v in matcher.values]
    if matcher.kind == "prefix":
        return [("prefix", matcher.values[0])]
    raise ValueError(matcher.kind)


@dataclass(frozen=True)
class RulesDecision:
    decision: str  # ALLOWED | DENIED
    rule: CheckedRule | None
    documented_decision: str
    documented_rule: CheckedRule | None
    quirk: str | None

    @property
    def rule_text(self) -> str:
        return _describe(self.rule) if self.rule else "otherwise deny"


def _describe(rule: CheckedRule) -> str:
    r = rule.rule
    return f"{r.effect} rule at line {r.pos.line}"


class ProxyAuthorizer:
    """Decides as the real Kroxylicious proxy decides, and as its documentation says it should."""

    def __init__(self, checked: CheckedRules):
        self.checked = checked
        self.deny = _Side([r for r in checked.rules if r.effect == "deny"])
        self.allow = _Side([r for r in checked.rules if r.effect == "allow"])
        self._verbatim: dict[str, object] = {}

    def decide(self, action: RulesAction) -> RulesDecision:
        notes: list[str] = []
        if not action.principals:
            decision, rule = "DENIED", None
        else:
            rule, n1 = self.deny.matching_rule(action)
            notes += n1
            if rule is not None:
                decision = "DENIED"
            else:
                rule, n2 = self.allow.matching_rule(action)
                notes += n2
                decision = "ALLOWED" if rule is not None else "DENIED"
        documented, doc_rule = self.documented(action)
        quirk = None
        if documented != decision:
            quirk = next((n for n in notes), None) or self._regex_quirk(action)
        return RulesDecision(decision, rule, documented, doc_rule, quirk)

    def documented(self, action: RulesAction) -> tuple[str, CheckedRule | None]:
        """First matching rule wins (all denies come first); regexes read as written."""
        if not action.principals:
            return "DENIED", None
        for effect in ("deny", "allow"):
            for rule in self.checked.rules:
                if rule.effect == effect and self._matches_documented(rule, action):
                    return ("DENIED" if effect == "deny" else "ALLOWED"), rule
        return "DENIED", None

    def _matches_documented(self, rule: CheckedRule, action: RulesAction) -> bool:
        if rule.resource_class != action.resource_class or action.operation not in rule.effective_operations:
            return False
        if not any(p.cls == rule.principal_class and rule.principal.matches(p.name) for p in action.principals):
            return False
        if rule.resource.kind == "regex":
            regex = self._verbatim_regex(rule.resource.verbatim or "")
            return regex is not None and regex.fullmatch(action.resource_name) is not None
        return rule.resource.matches(action.resource_name)

    def _verbatim_regex(self, pattern: str):
        if pattern not in self._verbatim:
            try:
                self._verbatim[pattern] = compile_regex(pattern)
            except Exception:
                self._verbatim[pattern] = None
        return self._verbatim[pattern]

    def _regex_quirk(self, action: RulesAction) -> str:
        return ("regex-backslash-unquote: the proxy strips one backslash before every character of a "
                "`matching /.../` regex, so the regex it runs differs from the one written")
