"""Decisions from a checked rules file: as the real proxy makes them, and as the docs describe them.

The proxy keeps, for deny rules and for allow rules separately, a sorted map from principal keys
(class name, kind any < equals < prefix, operand) to grants, each grant a sorted map from resource
keys to operation sets plus a list of regexes. Exact and "any" keys are looked up directly; a
prefix is found with ``floorEntry`` and used only if it is a prefix of the name, *whatever its
class*. That floor is where the real code departs from the documented first-match meaning:
overlapping prefixes shadow each other, and a prefix key of another principal class can leak.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any, Mapping

import re2

from kafka_authz_cli.rules.semantic_check import _RE2_OPTIONS, CheckedRule, CheckedRules, compile_regex

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


def _java_order(text: str) -> str:
    """A str that sorts as Java's ``String.compareTo`` sorts ``text`` (by UTF-16 code units).

    Only characters above U+FFFF sort differently (Java sees their surrogates, below U+E000):
    spell those as their two surrogates; every other string is its own key.
    """
    if text.isascii() or max(text) <= "\uffff":
        return text
    out = []
    for c in text:
        o = ord(c)
        if o > 0xFFFF:
            o -= 0x10000
            out.append(chr(0xD800 + (o >> 10)) + chr(0xDC00 + (o & 0x3FF)))
        else:
            out.append(c)
    return "".join(out)


def _key(cls: str, kind: str, operand: str) -> tuple:
    return (_java_order(cls), _KIND_RANK[kind], _java_order(operand))


class _RawKeys(dict):
    """(class, kind, operand) as written, for a principal key; exact-name keys are derived when asked
    (their operand only ever serves to say that they are not prefixes)."""

    def __init__(self):
        super().__init__()
        self.classes: dict[str, str] = {}

    def __missing__(self, key: tuple) -> tuple[str, str, str]:
        return (self.classes.get(key[0], key[0]), "equals", key[2])


class _SortedKeys:
    """A TreeMap stand-in for the proxy's prefix lookups: ``floor`` of a prefix key.

    Keys sort by (class, kind any < equals < prefix, operand). For a prefix lookup in class C the
    floor is C's greatest prefix key at or below the name; failing that, any key of C (an equals or
    any key, which is never a prefix); failing that, the greatest key of the closest class below C,
    which may be another class's prefix key (the cross-type leak). So only prefix keys need sorting,
    and they are sorted on first use: a big file's hundreds of thousands of exact-name keys never are.
    """

    def __init__(self, entries: Mapping[tuple, object], raw: dict[tuple, tuple[str, str, str]]):
        self.entries = entries
        self.raw = raw
        self._built = False

    def _build(self) -> None:
        prefixes: dict[str, list[tuple]] = {}
        others: dict[str, tuple] = {}
        for key in self.entries:
            if key[1] == _KIND_RANK["prefix"]:
                prefixes.setdefault(key[0], []).append(key)
            else:
                others.setdefault(key[0], key)
        self._prefixes = {c: sorted(keys) for c, keys in prefixes.items()}
        self._operands = {c: [k[2] for k in keys] for c, keys in self._prefixes.items()}
        self._others = others
        self._classes = sorted(set(prefixes) | set(others))
        self._built = True

    def floor(self, key: tuple):
        if key[1] != _KIND_RANK["prefix"]:
            raise ValueError("only prefix lookups are floored")
        if not self._built:
            self._build()
        cls = key[0]
        operands = self._operands.get(cls)
        if operands:
            i = bisect_right(operands, key[2])
            if i:
                return self._prefixes[cls][i - 1]
        if cls in self._others:
            return self._others[cls]
        i = bisect_left(self._classes, cls)
        if i == 0:
            return None
        below = self._classes[i - 1]
        return self._prefixes[below][-1] if below in self._prefixes else self._others[below]


class _RegexList:
    """Regexes tried in order; with many of them, one RE2 set tells which fully match in one pass."""

    SET_FROM = 4
    __slots__ = ("items", "_set")

    def __init__(self):
        self.items: list[tuple[str, Any, object]] = []  # (pattern, compiled RE2 regex: untyped, payload)
        self._set = None

    def add(self, pattern: str, compiled, payload) -> None:
        self.items.append((pattern, compiled, payload))
        self._set = None

    def matching(self, name: str):
        """Payloads whose regex fully matches ``name``, in the order they were added."""
        items = self.items
        if len(items) >= self.SET_FROM and self._set is not False:
            if self._set is None:
                self._set = self._build()
            if self._set:
                for i in sorted(self._set.Match(name) or ()):
                    yield items[i][2]
                return
        for _pattern, compiled, payload in items:
            if compiled.fullmatch(name) is not None:
                yield payload

    def _build(self):
        regex_set = re2.Set.FullMatchSet(_RE2_OPTIONS)
        try:
            for i, (pattern, _compiled, _payload) in enumerate(self.items):
                if regex_set.Add(pattern) != i:
                    return False
            regex_set.Compile()
        except Exception:  # noqa: BLE001 - a set RE2 will not build: try the regexes one by one
            return False
        return regex_set


@dataclass
class _Grants:
    ops: dict[tuple, set] = field(default_factory=dict)
    raw: dict[tuple, tuple[str, str, str]] = field(default_factory=dict)
    rules: dict[tuple, list[CheckedRule]] = field(default_factory=dict)
    regexes: dict[str, _RegexList] = field(default_factory=dict)  # by resource class
    index: _SortedKeys = field(init=False)  # made once the grants are in (_Side.grants)


class _Side:
    """All deny rules, or all allow rules, as the proxy stores them.

    The principal map is built at once; each principal key's grant map (the proxy merges every
    rule's resource keys and operations into it) only when a lookup first reaches that key, so a
    large file costs what its lookups touch.
    """

    def __init__(self, rules: list[CheckedRule]):
        by_key: dict[tuple, list[CheckedRule]] = {}
        raw = _RawKeys()
        cls_key: dict[str, str] = {}
        get = by_key.get
        for rule in rules:
            pcls = rule.principal_class
            jcls = cls_key.get(pcls)
            if jcls is None:
                jcls = cls_key[pcls] = _java_order(pcls)
                raw.classes[jcls] = pcls
            m = rule.principal
            if m.kind == "equals":
                # The hot loop of big files: exact names, whose raw form is derived on demand.
                for v in m.values:
                    key = (jcls, 1, v if v.isascii() else _java_order(v))
                    found = get(key)
                    if found is None:
                        by_key[key] = [rule]
                    else:
                        found.append(rule)
                continue
            for pkind, poperand in _keys_of(m):
                pkey = (jcls, _KIND_RANK[pkind], _java_order(poperand))
                found = get(pkey)
                if found is None:
                    by_key[pkey] = found = []
                    raw[pkey] = (pcls, pkind, poperand)
                found.append(rule)
        self.rules_by_key = by_key
        self._grants: dict[tuple, _Grants] = {}
        self._op_pairs: dict[tuple, frozenset] = {}
        self.index = _SortedKeys(by_key, raw)

    def grants(self, pkey: tuple) -> _Grants:
        g = self._grants.get(pkey)
        if g is None:
            g = self._grants[pkey] = _Grants()
            pairs = self._op_pairs
            for rule in self.rules_by_key[pkey]:
                if rule.resource.kind == "regex":
                    if rule.resource.regex is not None:
                        g.regexes.setdefault(rule.resource_class, _RegexList()).add(
                            rule.resource.values[0], rule.resource.regex, rule)
                    continue
                # Operations are enum constants: the same name in another class is another value.
                ops_key = (rule.resource_class, rule.effective_operations)
                ops = pairs.get(ops_key)
                if ops is None:
                    ops = pairs[ops_key] = frozenset((rule.resource_class, op) for op in rule.effective_operations)
                rclass = rule.resource_class
                jclass = _java_order(rclass)
                for rkind, roperand in _keys_of(rule.resource):
                    rkey = (jclass, _KIND_RANK[rkind], _java_order(roperand))
                    if rkey in g.raw:
                        g.ops[rkey].update(ops)
                        g.rules[rkey].append(rule)
                    else:
                        g.raw[rkey] = (rclass, rkind, roperand)
                        g.ops[rkey] = set(ops)
                        g.rules[rkey] = [rule]
            g.index = _SortedKeys(g.ops, g.raw)
        return g

    def matching_rule(self, action: RulesAction) -> tuple[CheckedRule | None, list[str]]:
        """The rule that grants the operation (None if none) and the floor lookups that misled."""
        notes: list[str] = []
        wanted = (action.resource_class, action.operation)
        for principal in action.principals:
            for pkey in self._principal_keys(principal, notes):
                g = self.grants(pkey)
                hit = self._resource_hit(g, action, wanted, notes)
                if hit is not None:
                    return hit, notes
        return None, notes

    def floor_key(self, principal: Principal) -> tuple[str, str, str] | None:
        """(class, kind, operand) of the prefix key the proxy's lookup for ``principal`` lands on."""
        floor = self.index.floor(_key(principal.cls, "prefix", principal.name))
        return None if floor is None else self.index.raw[floor]

    def resource_floor_shadows(self, pcls: str, pkind: str, poperand: str, rclass: str, name: str) -> bool:
        """In the grant map of principal key (pcls, pkind, poperand), does the floor lookup for
        resource ``name`` land on a prefix key that does not match it?"""
        pkey = _key(pcls, pkind, poperand)
        if pkey not in self.rules_by_key:
            return False
        g = self.grants(pkey)
        floor = g.index.floor(_key(rclass, "prefix", name))
        if floor is None:
            return False
        _cls, kind, operand = g.index.raw[floor]
        return kind == "prefix" and not name.startswith(operand)

    def _principal_keys(self, principal: Principal, notes: list[str]) -> list[tuple]:
        found = []
        exact = _key(principal.cls, "equals", principal.name)
        if exact in self.rules_by_key:
            found.append(exact)
        anyk = _key(principal.cls, "any", "")
        if anyk in self.rules_by_key:
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
        regexes = g.regexes.get(action.resource_class)
        if regexes is not None:
            for rule in regexes.matching(name):
                if action.operation in rule.effective_operations:
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


class _DocumentedIndex:
    """The documented first-match meaning by hash lookups instead of a scan of every rule.

    Rules are filed under their principal keys (prefix keys found by the prefix lengths in use);
    a principal key's resource index is built the first time a lookup reaches it. Among the rules
    found, the earliest in rule order (denies first) wins; regex rules, which need a match each,
    are tried in that order and only while they could still beat the best rule found.
    """

    def __init__(self, rules: list[CheckedRule], verbatim_regex, sides: tuple["_Side", "_Side"]):
        self.verbatim_regex = verbatim_regex
        self._resources: dict[tuple, tuple] = {}
        ranked = sorted(enumerate(rules), key=lambda t: (t[1].effect != "deny", t[0]))
        self.rank: dict[int, int] = {id(rule): rank for rank, (_i, rule) in enumerate(ranked)}
        # The proxy's principal maps already file every rule under its keys, in file order, denies
        # in one and allows in the other: one after the other, they are in rank order. Keys are the
        # proxy's own (class and name in Java order); lists are shared, never changed.
        deny, allow = sides
        by_principal: dict[tuple, list[CheckedRule]] = dict(deny.rules_by_key)
        for key, found in allow.rules_by_key.items():
            have = by_principal.get(key)
            by_principal[key] = found if have is None else have + found
        lengths: dict[str, set[int]] = {}
        for side in sides:
            for key, (_cls, kind, operand) in dict.items(side.index.raw):
                if kind == "prefix":
                    lengths.setdefault(key[0], set()).add(len(operand))
        self.by_principal = by_principal
        self.principal_prefix_lengths = {c: sorted(v) for c, v in lengths.items()}

    @staticmethod
    def _keys(cls: str, matcher, lengths: dict[str, set[int]]) -> list[tuple]:
        if matcher.kind == "any":
            return [(cls, "any", "")]
        if matcher.kind == "equals":
            return [(cls, "equals", v) for v in matcher.values]
        if matcher.kind == "prefix":
            lengths.setdefault(cls, set()).add(len(matcher.values[0]))
            return [(cls, "prefix", matcher.values[0])]
        return [(cls, "regex", "")]

    def _resource_index(self, pkey: tuple):
        index = self._resources.get(pkey)
        if index is None:
            buckets: dict[tuple, list[CheckedRule]] = {}
            regexes: dict[str, _RegexList] = {}
            lengths: dict[str, set[int]] = {}
            for rule in self.by_principal[pkey]:
                for rkey in self._keys(rule.resource_class, rule.resource, lengths):
                    if rkey[1] == "regex":
                        regex = self.verbatim_regex(rule.resource.verbatim or "")
                        if regex is not None:
                            regexes.setdefault(rule.resource_class, _RegexList()).add(
                                rule.resource.verbatim or "", regex, (self.rank[id(rule)], rule))
                    else:
                        buckets.setdefault(rkey, []).append(rule)
            index = self._resources[pkey] = (buckets, regexes, {c: sorted(v) for c, v in lengths.items()})
        return index

    def first_match(self, action: RulesAction) -> CheckedRule | None:
        best, best_rank = None, None
        op, rclass, name = action.operation, action.resource_class, action.resource_name
        rank = self.rank
        pending_regexes = []
        for principal in action.principals:
            jcls, pname = _java_order(principal.cls), principal.name
            pkeys = [(jcls, 1, _java_order(pname)), (jcls, 0, "")]
            pkeys += [(jcls, 2, _java_order(pname[:n])) for n in self.principal_prefix_lengths.get(jcls, ())
                      if n <= len(pname)]
            for pkey in pkeys:
                if pkey not in self.by_principal:
                    continue
                buckets, regexes, lengths = self._resource_index(pkey)
                rkeys = [(rclass, "equals", name), (rclass, "any", "")]
                rkeys += [(rclass, "prefix", name[:n]) for n in lengths.get(rclass, ()) if n <= len(name)]
                for rkey in rkeys:
                    for rule in buckets.get(rkey, ()):
                        r = rank[id(rule)]
                        if (best_rank is None or r < best_rank) and op in rule.effective_operations:
                            best, best_rank = rule, r
                if rclass in regexes:
                    pending_regexes.append(regexes[rclass])
        for regexes in pending_regexes:
            for r, rule in regexes.matching(name):  # in rank order
                if best_rank is not None and r >= best_rank:
                    break
                if op in rule.effective_operations:
                    best, best_rank = rule, r
                    break
        return best


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
        self._documented_index: _DocumentedIndex | None = None

    def decide(self, action: RulesAction,
               documented: tuple[str, CheckedRule | None] | None = None) -> RulesDecision:
        """The proxy's decision and the documented one (pass ``documented`` if already known)."""
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
        documented_decision, doc_rule = documented or self.documented(action)
        quirk = None
        if documented_decision != decision:
            quirk = next((n for n in notes), None) or self._regex_quirk(action)
        return RulesDecision(decision, rule, documented_decision, doc_rule, quirk)

    def documented(self, action: RulesAction) -> tuple[str, CheckedRule | None]:
        """First matching rule wins (all denies come first); regexes read as written."""
        if not action.principals:
            return "DENIED", None
        if self._documented_index is None:
            self._documented_index = _DocumentedIndex(self.checked.rules, self._verbatim_regex,
                                                      (self.deny, self.allow))
        rule = self._documented_index.first_match(action)
        if rule is None:
            return "DENIED", None
        return ("DENIED" if rule.effect == "deny" else "ALLOWED"), rule

    def documented_by_scan(self, action: RulesAction) -> tuple[str, CheckedRule | None]:
        """The same, by trying every rule in order (the reference the index is tested against)."""
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
