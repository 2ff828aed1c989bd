"""The proxy's build walk: resolve types, check names and regexes, expand operations.

Errors are collected in document order with the proxy's messages and positions; an unknown
operation (or a resource type that is not an enum) aborts the walk with an exception that
replaces everything collected, as in the real code.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Iterable

import re2

from kafka_authz_cli.rules.ast import NamePredicate, Pos, Rule, RulesFile
from kafka_authz_cli.rules.lexer import unquote
from kafka_authz_cli.rules.types import PRINCIPAL_INTERFACE, RESOURCE_TYPE_INTERFACE, TypeRegistry

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


@dataclass(frozen=True)
class SemanticProblem:
    pos: Pos
    message: str

    def __str__(self) -> str:
        return f"{self.pos}: {self.message}"


class RulesSemanticError(Exception):
    def __init__(self, problems: list[SemanticProblem]):
        self.problems = problems
        shown = problems[:100]
        more = " (showing first 100)" if len(problems) > 100 else ""
        super().__init__(f"Found {len(problems)} errors{more}\n" + "\n".join(map(str, shown)))


class RulesBuildException(Exception):
    """An exception escaped the proxy's walk (phase "exception")."""

    def __init__(self, java_class: str, message: str, pos: Pos):
        self.java_class = java_class
        self.pos = pos
        super().__init__(message)


# Value objects, not frozen: a frozen dataclass's __init__ costs 3x more, and a big rules file
# makes hundreds of thousands of these. Nothing mutates them after check_rules.
@dataclass(slots=True, unsafe_hash=True)
class NameMatcher:
    """A compiled name predicate."""

    kind: str  # any | equals | prefix | regex
    values: tuple[str, ...] = ()  # equals: the names; prefix: (prefix,); regex: (pattern,)
    regex: Any = field(default=None, compare=False, hash=False)  # compiled RE2 (untyped), or None
    #: The regex as written between the slashes (what the documented meaning reads).
    verbatim: str | None = None

    def matches(self, name: str) -> bool:
        if self.kind == "any":
            return True
        if self.kind == "equals":
            return name in self.values
        if self.kind == "prefix":
            return name.startswith(self.values[0])
        return self.regex.fullmatch(name) is not None


@dataclass(slots=True)
class CheckedRule:
    rule: Rule
    effect: str
    principal_class: str
    principal: NameMatcher
    resource_class: str
    resource: NameMatcher
    #: The rule's operations as written (expanded from '*'), and with one level of implies().
    operations: frozenset[str]
    effective_operations: frozenset[str]
    principal_is_interface: bool = False


@dataclass
class CheckedRules:
    file: RulesFile
    rules: list[CheckedRule]
    registry: TypeRegistry


@functools.lru_cache(maxsize=65536)
def compile_regex(pattern: str):
    """RE2, as RE2J compiles it; the same pattern in many rules is compiled once (the compiled
    regex is immutable, so sharing it is safe; an invalid one raises again each time)."""
    return re2.compile(pattern, _RE2_OPTIONS)


_RE2J_WORDING = [
    ("no argument for repetition operator: ", "missing argument to repetition operator: "),
    ("bad repetition operator: ", "invalid nested repetition operator: "),
    ("invalid repetition size: ", "invalid repeat count: "),
    ("missing ): ", "missing closing ): "),
    ("missing ]: ", "missing closing ]: "),
]


def re2j_message(error: Exception) -> str:
    """RE2's error in RE2J's words (the proxy uses RE2J): argument in backticks."""
    text = error.args[0] if error.args else str(error)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    for cpp, java in _RE2J_WORDING:
        if text.startswith(cpp):
            text = java + text[len(cpp):]
            break
    head, sep, arg = text.partition(": ")
    return f"{head}: `{arg}`" if sep else text


def scan_like(raw: str) -> tuple[str, bool, int]:
    """The proxy's reading of ``like "..."``: (text, has wildcard, misplaced '*' count)."""
    if "\\" not in raw:  # nothing escaped: every '*' is a wildcard
        stars = raw.count("*")
        return raw.replace("*", ""), stars > 0, stars - (1 if raw.endswith("*") else 0)
    out = []
    wildcard = False
    misplaced = 0
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == "\\" and i + 1 < n:
            out.append(raw[i + 1])
            i += 2
            continue
        if c == "*":
            wildcard = True
            if i != n - 1:
                misplaced += 1
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out), wildcard, misplaced


def _matcher(pred: NamePredicate, problems: list[SemanticProblem], on_principal: bool,
             types_resolved: bool) -> NameMatcher:
    if pred.kind == "any":
        return NameMatcher("any")
    if pred.kind == "equals":
        return NameMatcher("equals", (unquote(pred.raw[0]),))
    if pred.kind == "in":
        raw: Iterable[str] = pred.raw
        if "\\" in "".join(raw):
            raw = map(unquote, raw)
        return NameMatcher("equals", tuple(dict.fromkeys(raw)))
    if pred.kind == "like":
        text, wildcard, misplaced = scan_like(pred.raw[0])
        for _ in range(misplaced):
            problems.append(SemanticProblem(pred.pos, "Wildcard '*' only supported as last character in 'like'."))
        if not wildcard:
            return NameMatcher("equals", (text,))
        return NameMatcher("any") if text == "" else NameMatcher("prefix", (text,))
    # matching
    if not types_resolved:
        problems.append(SemanticProblem(pred.keyword_pos or pred.pos, "'matching' operation not supported on principals"))
    pattern = unquote(pred.raw[0])
    try:
        regex = compile_regex(pattern)
    except Exception as exc:  # re2.error
        problems.append(SemanticProblem(pred.pos, "Regex provided for 'matching' operation is not valid: error parsing "
                                                  f"regexp: {re2j_message(exc)}."))
        regex = None
    return NameMatcher("regex", (pattern,), regex, pred.raw[0])


def check_rules(rules_file: RulesFile, registry: TypeRegistry | None = None) -> CheckedRules:
    registry = registry or TypeRegistry()
    problems: list[SemanticProblem] = []
    local: dict[str, str] = dict(registry.default_imports)
    explicit: set[str] = set()
    for imp in rules_file.imports:
        for item in imp.items:
            name = item.local_name
            fqcn = f"{imp.package_name}.{item.class_name.text}"
            if name.text in explicit:
                problems.append(SemanticProblem(name.pos, f"Local name '{name.text}' is already being used for class "
                                                          f"{local[name.text]}."))
                continue
            explicit.add(name.text)
            local[name.text] = fqcn  # an import may shadow the implicit User
    checked: list[CheckedRule] = []
    resolved: dict[tuple[str, str], tuple[str, bool, bool]] = {}
    expanded: dict[tuple, tuple[frozenset, frozenset]] = {}
    resolved_get = resolved.get
    for rule in rules_file.rules:
        # The cache lookups are inlined: this loop runs once per rule of files with 100,000s of rules.
        hit = resolved_get(("Principal", rule.principal_type.text))
        pclass, p_ok, p_interface = hit if hit is not None else _resolve_cached(
            resolved, rule.principal_type, "Principal", local, registry, problems)
        hit = resolved_get(("ResourceType", rule.resource_type.text))
        rclass, r_ok, _ = hit if hit is not None else _resolve_cached(
            resolved, rule.resource_type, "ResourceType", local, registry, problems)
        ops: frozenset[str] = frozenset()
        effective: frozenset[str] = frozenset()
        if p_ok and r_ok:
            if rclass == RESOURCE_TYPE_INTERFACE or rclass not in registry.resources:
                raise RulesBuildException("java.lang.ClassCastException", f"interface {rclass}", rule.resource_type.pos)
            names = None if rule.operations is None else tuple([op.text for op in rule.operations])
            cached = expanded.get((rclass, names))
            if cached is None:
                resource = registry.resources[rclass]
                if rule.operations is None:
                    ops = frozenset(resource.operations)
                else:
                    for op in rule.operations:
                        if op.text not in resource.operations:
                            raise RulesBuildException("java.lang.IllegalArgumentException",
                                                      f"No enum constant {rclass}.{op.text}", op.pos)
                    ops = frozenset(op.text for op in rule.operations)
                effective = ops.union(*(resource.implies.get(op, ()) for op in ops))
                expanded[(rclass, names)] = (ops, effective)
            else:
                ops, effective = cached
        principal = _matcher(rule.principal, problems, True, p_ok and r_ok)
        resource_matcher = _matcher(rule.resource, problems, False, p_ok and r_ok)
        if p_ok and r_ok:
            checked.append(CheckedRule(rule, rule.effect, pclass, principal, rclass, resource_matcher, ops, effective,
                                       p_interface))
    if problems:
        raise RulesSemanticError(problems)
    return CheckedRules(rules_file, checked, registry)


def _resolve_cached(cache: dict, name, desc: str, local: dict[str, str], registry: TypeRegistry,
                    problems: list[SemanticProblem]) -> tuple[str, bool, bool]:
    # Only successful resolutions are cached: every failing use is an error of its own, at its token.
    key = (desc, name.text)
    hit = cache.get(key)
    if hit is not None:
        return hit
    result = _resolve(name.text, name.pos, desc, local, registry, problems)
    if result[1]:
        cache[key] = result
    return result


def _resolve(name: str, pos: Pos, desc: str, local: dict[str, str], registry: TypeRegistry,
             problems: list[SemanticProblem]) -> tuple[str, bool, bool]:
    fqcn = local.get(name)
    if fqcn is None:
        problems.append(SemanticProblem(pos, f"{desc} class with name '{name}' has not been imported."))
        return "", False, False
    kind = registry.kind(fqcn)
    if kind is None:
        problems.append(SemanticProblem(pos, f"{desc} class '{fqcn}' was not found."))
        return fqcn, False, False
    wanted = ("principal", "principal-interface") if desc == "Principal" else ("resource", "resource-interface")
    if kind not in wanted:
        interface = PRINCIPAL_INTERFACE if desc == "Principal" else RESOURCE_TYPE_INTERFACE
        problems.append(SemanticProblem(pos, f"{desc} class '{name}' is not a subclass of interface {interface}."))
        return fqcn, False, False
    return fqcn, True, kind == "principal-interface"
