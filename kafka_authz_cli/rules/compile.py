"""Rules files to Kafka ACL bindings and back, deciding exactly alike.

The compiled set, under Kafka's StandardAuthorizer with no super users and
allow.everyone.if.no.acl.found=false, decides every request as the rules' documented meaning
does (deny rules first, then allow rules, otherwise deny). Where Kafka and the rules language
differ, the compiler emits what is needed or refuses:

* deny rules cover implied operations (`deny READ` also denies DESCRIBE); Kafka's DENY does not,
  so the implied operations are emitted as explicit DENY bindings;
* Kafka's ALLOW ALTER / ALTER_CONFIGS on the cluster imply DESCRIBE / DESCRIBE_CONFIGS, the
  proxy's Cluster resource does not: a DENY is added for principals that are not granted them;
* `with name *` becomes LITERAL `*` and, except for topics (whose legal names never start with
  `*`), PREFIXED `*` too, because Kafka's LITERAL `*` skips names that start with `*`;
* regex resource names and principal prefixes have no Kafka equivalent: they are errors unless
  the names to expand them against are given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kafka_authz_cli.acl import (
    CLUSTER_NAME,
    IMPLIES_DESCRIBE,
    IMPLIES_DESCRIBE_CONFIGS,
    AclBinding,
    AclOperation,
    AclPermissionType,
    KafkaPrincipal,
    PatternType,
    ResourceType,
)
from kafka_authz_cli.rules.ast import Pos
from kafka_authz_cli.rules.semantic_check import CheckedRule, CheckedRules
from kafka_authz_cli.rules.types import USER_CLASS, TypeRegistry

LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY

#: Kafka's own implication for ALLOW ACLs, on every resource type.
_KAFKA_IMPLIES = {"READ": "DESCRIBE", "WRITE": "DESCRIBE", "DELETE": "DESCRIBE", "ALTER": "DESCRIBE",
                  "ALTER_CONFIGS": "DESCRIBE_CONFIGS"}


@dataclass(frozen=True)
class CompileProblem:
    pos: Pos | None
    message: str

    def __str__(self) -> str:
        return f"{self.pos}: {self.message}" if self.pos else self.message


class CompileError(Exception):
    def __init__(self, problems: list[CompileProblem]):
        self.problems = problems
        super().__init__("; ".join(map(str, problems)))


@dataclass
class ExpansionNames:
    """Existing names to expand regexes and principal prefixes against (``--expand-against``)."""

    resources: dict[ResourceType, list[str]] = field(default_factory=dict)
    principals: dict[str, list[str]] = field(default_factory=dict)  # Kafka principal type -> names

    @classmethod
    def parse(cls, text: str) -> "ExpansionNames":
        """Lines like ``topic orders-eu``, ``group g1``, ``user alice`` (or ``User:alice``)."""
        names = cls()
        for lineno, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            kind, _, value = line.partition(" ")
            value = value.strip()
            if ":" in kind and not value:
                p = KafkaPrincipal.parse(kind)
                if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", p.principal_type):
                    raise ValueError(f"line {lineno}: {kind[:60]!r} is not a principal (TYPE:NAME) nor "
                                     "'<topic|group|transactional-id|user> NAME'")
                names.principals.setdefault(p.principal_type, []).append(p.name)
                continue
            if not value:
                raise ValueError(f"line {lineno}: expected '<topic|group|transactional-id|user> NAME' "
                                 f"(no name after {kind[:60]!r})")
            if kind.lower() == "user":
                names.principals.setdefault("User", []).append(value)
                continue
            try:
                rtype = ResourceType.parse(kind)
            except ValueError:
                raise ValueError(f"line {lineno}: expected '<topic|group|transactional-id|user> NAME'") from None
            names.resources.setdefault(rtype, []).append(value)
        return names


def _kafka_principal_type(rule: CheckedRule, registry: TypeRegistry) -> str:
    return registry.principals[rule.principal_class].kafka_type


def compile_checked(checked: CheckedRules, expand: ExpansionNames | None = None) -> list[AclBinding]:
    return list(compile_checked_lines(checked, expand))


def compile_checked_lines(checked: CheckedRules, expand: ExpansionNames | None = None) -> dict[AclBinding, int | None]:
    """Each binding with the line of the first rule that makes it (None: the DENY that Kafka's cluster
    implication needs, made by no one rule), in the order :func:`compile_checked` gives them."""
    registry = checked.registry
    problems: list[CompileProblem] = []
    classes = {r.principal_class for r in checked.rules}
    out: dict[AclBinding, int | None] = {}
    allow_grants: list[tuple[list[str], ResourceType, list[tuple[str, PatternType]], frozenset[str]]] = []
    for rule in checked.rules:
        resource_class = registry.resources.get(rule.resource_class)
        rtype = resource_class.kafka_type if resource_class else None
        if rtype is None:
            problems.append(CompileProblem(rule.rule.resource_type.pos,
                                           f"{rule.rule.resource_type.text} has no Kafka resource type"))
            continue
        proxy_only = sorted(op for op in rule.effective_operations if op not in AclOperation.__members__)
        operations = rule.effective_operations - set(proxy_only)
        if proxy_only and rule.rule.operations is not None:
            problems.append(CompileProblem(rule.rule.operations_pos,
                                           f"operation(s) {', '.join(proxy_only)} do not exist in Kafka"))
            continue
        principals = _principals(rule, registry, classes, expand, problems)
        resources = _resources(rule, rtype, expand, problems)
        if principals is None or resources is None:
            continue
        permission = DENY if rule.effect == "deny" else ALLOW
        for principal in principals:
            for name, pattern in resources:
                for op in sorted(operations):
                    out.setdefault(AclBinding(rtype, name, pattern, principal, "*", AclOperation[op], permission),
                                   rule.rule.pos.line)
        if rule.effect == "allow":
            allow_grants.append((principals, rtype, resources, operations))
    if problems:
        raise CompileError(problems)
    _cluster_implication(allow_grants, out, problems)
    if problems:
        raise CompileError(problems)
    return out


def _principals(rule: CheckedRule, registry: TypeRegistry, classes: set[str], expand: ExpansionNames | None,
                problems: list[CompileProblem]) -> list[str] | None:
    if rule.principal_is_interface:
        return []  # matches nobody (and the interface has no Kafka principal type to look up)
    ptype = _kafka_principal_type(rule, registry)
    m = rule.principal
    pos = rule.rule.principal.pos
    if m.kind == "equals":
        return [f"{ptype}:{v}" for v in m.values]
    if m.kind == "any":
        if rule.principal_class == USER_CLASS and classes == {USER_CLASS}:
            return ["User:*"]
        if expand and ptype in expand.principals:
            return [f"{ptype}:{n}" for n in expand.principals[ptype]]
        why = ("Kafka's User:* also matches the other principal types this file uses"
               if rule.principal_class == USER_CLASS else f"Kafka has no wildcard for {ptype} principals")
        problems.append(CompileProblem(pos, f"`{rule.rule.principal_type.text} with name *` cannot be expressed: {why} "
                                            "(give --expand-against with the principal names)"))
        return None
    if m.kind == "prefix":
        if expand and ptype in expand.principals:
            return [f"{ptype}:{n}" for n in expand.principals[ptype] if n.startswith(m.values[0])]
        problems.append(CompileProblem(pos, f"principal prefix \"{m.values[0]}*\" has no Kafka ACL equivalent "
                                            "(give --expand-against with the principal names)"))
        return None
    problems.append(CompileProblem(pos, "unsupported principal predicate"))
    return None


def _resources(rule: CheckedRule, rtype: ResourceType, expand: ExpansionNames | None,
               problems: list[CompileProblem]) -> list[tuple[str, PatternType]] | None:
    m = rule.resource
    pos = rule.rule.resource.pos
    if rtype is ResourceType.CLUSTER:
        if m.kind == "any" or (m.kind == "equals" and set(m.values) == {CLUSTER_NAME}) or \
                (m.kind == "prefix" and CLUSTER_NAME.startswith(m.values[0])) or \
                (m.kind == "regex" and m.regex is not None and m.regex.fullmatch(CLUSTER_NAME)):
            return [(CLUSTER_NAME, LITERAL)]
        if m.kind == "equals" and CLUSTER_NAME in m.values:
            return [(CLUSTER_NAME, LITERAL)]
        return []  # names no Kafka cluster has: grants nothing
    if m.kind == "any":
        out = [("*", LITERAL)]
        if rtype is not ResourceType.TOPIC:
            out.append(("*", PREFIXED))  # Kafka's LITERAL '*' skips names starting with '*'
        return out
    if m.kind == "prefix":
        return [(m.values[0], PREFIXED)]
    if m.kind == "equals":
        if "*" in m.values:
            problems.append(CompileProblem(pos, "the literal name \"*\" cannot be expressed: Kafka reads LITERAL '*' "
                                                "as the wildcard"))
            return None
        return [(v, LITERAL) for v in m.values]
    if m.kind == "regex":
        if expand and rtype in expand.resources:
            return [(n, LITERAL) for n in expand.resources[rtype] if m.regex is not None and m.regex.fullmatch(n)]
        problems.append(CompileProblem(pos, f"regex /{m.values[0]}/ has no Kafka ACL equivalent (give --expand-against "
                                            f"with the {rtype.name.lower()} names)"))
        return None
    problems.append(CompileProblem(pos, "unsupported resource predicate"))
    return None


def _cluster_implication(allow_grants, out: dict[AclBinding, int | None], problems: list[CompileProblem]) -> None:
    """Kafka's ALLOW ALTER (ALTER_CONFIGS) on the cluster also allows DESCRIBE (DESCRIBE_CONFIGS);
    the proxy's Cluster does not. Deny the extra operation where no rule grants it."""
    granted: dict[str, set[str]] = {}
    for principals, rtype, resources, ops in allow_grants:
        if rtype is ResourceType.CLUSTER and resources:
            for p in principals:
                granted.setdefault(p, set()).update(ops)
    everyone = granted.get("User:*", set())
    for principal, ops in granted.items():
        for op in sorted(ops):
            extra = _KAFKA_IMPLIES.get(op)
            if extra is None or extra in ops or extra in everyone:
                continue
            if principal == "User:*":
                if any(extra in o for p, o in granted.items()):
                    problems.append(CompileProblem(None, f"Kafka's ALLOW {op} on the cluster implies {extra} for "
                                                         f"everyone, which the rules grant only to some principals"))
                    return
            out.setdefault(AclBinding(ResourceType.CLUSTER, CLUSTER_NAME, LITERAL, principal, "*", AclOperation[extra],
                                      DENY), None)


# -- decompile ---------------------------------------------------------------------------------------

_CLASS_OF = {ResourceType.TOPIC: "TopicResource", ResourceType.GROUP: "GroupResource",
             ResourceType.CLUSTER: "ClusterResource", ResourceType.TRANSACTIONAL_ID: "TransactionalIdResource"}
_SHORT = {ResourceType.TOPIC: "Topic", ResourceType.GROUP: "Group", ResourceType.CLUSTER: "Cluster",
          ResourceType.TRANSACTIONAL_ID: "TransactionalId"}


@dataclass(frozen=True)
class DecompileProblem:
    binding: AclBinding
    reason: str


class DecompileError(Exception):
    def __init__(self, problems: list[DecompileProblem]):
        self.problems = problems
        super().__init__(f"{len(problems)} binding(s) cannot be written as rules")


def _quote(name: str) -> str:
    # The proxy strips one backslash before any character: escape backslashes and quotes.
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _quote_like(prefix: str) -> str:
    return '"' + prefix.replace("\\", "\\\\").replace('"', '\\"').replace("*", "\\*") + '*"'


def decompile(bindings: list[AclBinding]) -> str:
    """A readable rules file deciding as ``bindings`` do (under Kafka with no super users and the
    no-ACL default off); bindings it cannot hold raise :class:`DecompileError` listing them all."""
    problems: list[DecompileProblem] = []
    unique = list(dict.fromkeys(bindings))
    by_key = {(b.resource_type, b.resource_name, b.pattern_type, b.principal, b.operation, b.permission) for b in unique}
    grants: dict[tuple, set[str]] = {}
    allows: dict[tuple, list[AclBinding]] = {}
    for b in unique:
        if b.permission is AclPermissionType.ALLOW:
            allows.setdefault((b.resource_type, b.principal), []).append(b)
    for b in unique:
        why = _unwritable(b, allows, by_key)
        if why is not None:
            problems.append(DecompileProblem(b, why))
            continue
        resource = _resource_predicate(b, by_key)
        if resource is None:
            continue
        pname = b.principal.partition(":")[2]
        principal = ("any", "") if pname == "*" else ("equals", pname)
        ops = {"*"} if b.operation is AclOperation.ALL else {b.operation.name}
        grants.setdefault((b.permission.name.lower(), b.resource_type, principal, resource), set()).update(ops)
    if problems:
        raise DecompileError(problems)
    return _render(grants, unique)


def _unwritable(b: AclBinding, allows: dict[tuple, list[AclBinding]], by_key: set) -> str | None:
    """Why the rules language cannot hold binding ``b``, or None."""
    if b.host != "*":
        return f"host {b.host}: the rules language has no hosts"
    if b.resource_type not in _SHORT:
        return f"{b.resource_type.name} resources do not exist in the rules language"
    if ":" not in b.principal:
        return "principal without ':'"
    ptype = b.principal.partition(":")[0]
    if ptype != "User":
        return f"principal type {ptype}: only User principals are built in"
    if b.permission is AclPermissionType.DENY and (leak := _deny_implication_leak(b, allows, by_key)):
        return leak
    if b.pattern_type is LITERAL and b.resource_name == "*" and \
            b.resource_type not in (ResourceType.CLUSTER, ResourceType.TOPIC) and \
            (b.resource_type, "*", PREFIXED, b.principal, b.operation, b.permission) not in by_key:
        return ("LITERAL '*' skips names starting with '*' in Kafka; the rules' `*` does not (add the PREFIXED "
                "'*' twin to make them equal)")
    return None


def _resource_predicate(b: AclBinding, by_key: set) -> tuple[str, str] | None:
    """The rules' resource predicate for binding ``b`` as (kind, value), or None when ``b`` adds
    nothing a rule must say."""
    if b.resource_type is ResourceType.CLUSTER:
        return ("any", "") if b.resource_name == CLUSTER_NAME else None  # no request ever names another cluster
    if b.pattern_type is LITERAL and b.resource_name == "*":
        return ("any", "")
    if b.pattern_type is PREFIXED and b.resource_name == "*" and \
            (b.resource_type, "*", LITERAL, b.principal, b.operation, b.permission) in by_key:
        return None  # folded into the LITERAL '*' twin
    if b.pattern_type is PREFIXED:
        return ("prefix", b.resource_name) if b.resource_name else ("any", "")
    return ("equals", b.resource_name)


_BUILTIN_TYPES = TypeRegistry()


def _deny_implication_leak(deny: AclBinding, allows: dict[tuple, list[AclBinding]], by_key: set) -> str | None:
    """Why a DENY cannot become a rules-language deny, or None.

    The proxy applies implies() to deny rules too (deny READ also denies DESCRIBE); Kafka's DENY
    does not. The two agree only if the implied operations are denied anyway: explicitly, for the
    same principal and pattern, or because nothing in the set can allow them to whom the DENY covers.
    ``allows``: ALLOW bindings by (resource type, principal).
    """
    resource = _BUILTIN_TYPES.resource_for_kafka(deny.resource_type)
    if resource is None:
        return None
    for name in resource.implies.get(deny.operation.name, ()):
        op = AclOperation[name]
        if any((deny.resource_type, deny.resource_name, deny.pattern_type, deny.principal, o,
                AclPermissionType.DENY) in by_key for o in (op, AclOperation.ALL)):
            continue
        granting = IMPLIES_DESCRIBE if op is AclOperation.DESCRIBE else \
            IMPLIES_DESCRIBE_CONFIGS if op is AclOperation.DESCRIBE_CONFIGS else frozenset({op})
        granting = granting | {AclOperation.ALL}
        if deny.principal == "User:*":
            candidates = [b for (t, _p), bs in allows.items() if t is deny.resource_type for b in bs]
        else:
            candidates = allows.get((deny.resource_type, deny.principal), []) + \
                allows.get((deny.resource_type, "User:*"), [])
        allow = next((b for b in candidates if b.operation in granting), None)
        if allow is not None:
            return (f"the rules language's deny {deny.operation.name} also denies {op.name} (implied), which "
                    f"Kafka's DENY does not, and this set allows {op.name} through {allow.operation.name} for "
                    f"{allow.principal} on {allow.pattern_type.name} '{allow.resource_name}' (add a DENY "
                    f"{op.name} binding if that is meant)")
    return None


def _render(grants: dict, bindings: list[AclBinding]) -> str:
    lines = ["// Generated by `authz decompile`: decides as the ACL set it was made from.",
             "from io.kroxylicious.filter.authorization import " + ", ".join(
                 f"{_CLASS_OF[t]} as {_SHORT[t]}" for t in _SHORT) + ";"]
    # Merge principals sharing (effect, resource, ops), then resources sharing (effect, principals, ops).
    merged: dict[tuple, set] = {}
    for (effect, rtype, principal, resource), ops in grants.items():
        merged.setdefault((effect, rtype, resource, tuple(sorted(ops))), set()).add(principal)
    rows: list[tuple] = []
    for (effect, rtype, resource, ops), principals in merged.items():
        exact = sorted(p[1] for p in principals if p[0] == "equals")
        if any(p[0] == "any" for p in principals):
            rows.append((effect, "*", rtype, resource, ops))
        if exact:
            rows.append((effect, exact, rtype, resource, ops))
    by_res: dict[tuple, list] = {}
    for effect, who, rtype, resource, ops in rows:
        pkey = who if isinstance(who, str) else tuple(who)
        if resource[0] == "equals":
            by_res.setdefault((effect, pkey, rtype, ops, "equals"), []).append(resource[1])
        else:
            by_res.setdefault((effect, pkey, rtype, ops, resource[0], resource[1]), []).append(None)
    body = []
    for key, names in by_res.items():
        effect, pkey, rtype, ops = key[:4]
        if pkey == "*":
            ppred = "*"
        elif len(pkey) == 1:
            ppred = f"= {_quote(pkey[0])}"
        else:
            ppred = "in {" + ", ".join(_quote(p) for p in pkey) + "}"
        opsx = "*" if "*" in ops else (ops[0] if len(ops) == 1 else "{" + ", ".join(ops) + "}")
        if key[4] == "equals":
            names = sorted(set(names))
            rpred = f"= {_quote(names[0])}" if len(names) == 1 else "in {" + ", ".join(_quote(n) for n in names) + "}"
        elif key[4] == "any":
            rpred = "*"
        else:
            rpred = f"like {_quote_like(key[5])}"
        body.append((0 if effect == "deny" else 1, f"{effect} User with name {ppred} to {opsx} {_SHORT[rtype]} "
                                                   f"with name {rpred};"))
    body.sort(key=lambda t: t[0])
    lines += [text for _, text in body]
    lines.append("otherwise deny;")
    return "\n".join(lines) + "\n"


def load_checked(text: str, path: str, registry: TypeRegistry | None = None):
    """Parse and check a rules file; a file the proxy would not load is an :class:`InputError`
    at its file:line:col, the column the proxy's own (0-based, as ANTLR counts and as ``authz lint``
    reports it), so one rules file gets one position in every command."""
    from kafka_authz_cli.errors import InputError
    from kafka_authz_cli.rules.parser import RulesSyntaxError, parse_rules
    from kafka_authz_cli.rules.semantic_check import RulesBuildException, RulesSemanticError, check_rules

    try:
        return check_rules(parse_rules(text, path), registry)
    except RulesSyntaxError as exc:
        p = exc.problems[0]
        raise InputError(f"syntax error: {p.message} (the proxy would not load this file)", path, p.line,
                         p.col) from None
    except RulesSemanticError as exc:
        problem = exc.problems[0]
        raise InputError(f"{problem.message} (the proxy would not load this file)", path, problem.pos.line,
                         problem.pos.col) from None
    except RulesBuildException as exc:
        raise InputError(f"{exc.java_class}: {exc}", path, exc.pos.line, exc.pos.col) from None


def compile_rules_text(text: str, path: str, registry: TypeRegistry | None = None,
                       expand: ExpansionNames | None = None) -> list[AclBinding]:
    """Parse, check and compile; errors become :class:`InputError` with file:line:col."""
    return list(compile_rules_lines(text, path, registry, expand))


def read_rules_acl_set(text: str, path: str):
    """A rules file as an ACL set (the ``rules`` format of ``acl.registry``): its bindings, each with the
    ``file:line`` of the rule it comes from. A file that is clearly something else is refused saying
    what it looks like."""
    from kafka_authz_cli.acl import ACL_SET_EXPECTED, ACL_SET_READS, AclSet, empty_warning
    from kafka_authz_cli.errors import InputError
    from kafka_authz_cli.formats import what_is, wrong_kind

    try:
        lines = compile_rules_lines(text, path)
    except InputError:
        kind = what_is(text)
        if kind is not None and kind.key != "rules":
            raise wrong_kind(text, path, ACL_SET_EXPECTED, ACL_SET_READS) from None
        raise
    bindings = list(lines)
    origins = [path if line is None else f"{path}:{line}" for line in lines.values()]
    acl_set = AclSet(bindings, origins, path, "rules")
    if not bindings:
        acl_set.warnings.append(empty_warning(path, "the rules file has no rules"))
    return acl_set


def compile_rules_lines(text: str, path: str, registry: TypeRegistry | None = None,
                        expand: ExpansionNames | None = None) -> dict[AclBinding, int | None]:
    """:func:`compile_rules_text` with the line of the rule each binding comes from."""
    from kafka_authz_cli.errors import InputError

    checked = load_checked(text, path, registry)
    try:
        return compile_checked_lines(checked, expand)
    except CompileError as exc:
        p = exc.problems[0]
        more = f" (and {len(exc.problems) - 1} more)" if len(exc.problems) > 1 else ""
        if p.pos:
            raise InputError(f"cannot compile to Kafka ACLs: {p.message}{more}", path, p.pos.line, p.pos.col) from None
        raise InputError(f"cannot compile to Kafka ACLs: {p.message}{more}", path) from None
