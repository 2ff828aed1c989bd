"""The indexes that keep lint linear, each against the plain scan it replaces."""

from __future__ import annotations

from bisect import bisect_right

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.rules import lint as lint_module
from kafka_authz_cli.rules.evaluate import (
    _KIND_RANK,
    Principal,
    ProxyAuthorizer,
    RulesAction,
    _java_order,
    _RegexList,
    _SortedKeys,
)
from kafka_authz_cli.rules.lint import _covers
from kafka_authz_cli.rules.parser import parse_rules
from kafka_authz_cli.rules.semantic_check import check_rules, compile_regex, scan_like
from kafka_authz_cli.rules.types import TypeRegistry

REGISTRY = TypeRegistry().load({
    "principal_types": [{"short": "ServiceAccount",
                         "class": "io.kroxylicious.authorizer.provider.acl.allow.ServiceAccount"}],
    "resource_types": [],
})
HEADER = ("from io.kroxylicious.filter.authorization import TopicResource as Topic, GroupResource as Group;\n"
          "from io.kroxylicious.authorizer.provider.acl.allow import ServiceAccount;\n")
CLASSES = {"User": "io.kroxylicious.proxy.authentication.User",
           "ServiceAccount": "io.kroxylicious.authorizer.provider.acl.allow.ServiceAccount"}
RCLASSES = {"Topic": "io.kroxylicious.filter.authorization.TopicResource",
            "Group": "io.kroxylicious.filter.authorization.GroupResource"}
NAMES = st.lists(st.sampled_from(["a", "b", "ab", "-", "é", "😀"]), min_size=0, max_size=4).map("".join)


# -- the proxy's floor lookups -------------------------------------------------------------------------

@st.composite
def key_sets(draw):
    keys = {}
    for _ in range(draw(st.integers(0, 12))):
        cls = draw(st.sampled_from(["A", "B", "C", "Bz"]))
        kind = draw(st.sampled_from(["any", "equals", "prefix"]))
        operand = "" if kind == "any" else draw(NAMES)
        keys[(_java_order(cls), _KIND_RANK[kind], _java_order(operand))] = (cls, kind, operand)
    return keys


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(key_sets(), st.sampled_from(["A", "B", "C", "Bz", "0", "D"]), NAMES)
def test_floor_of_a_prefix_lookup_is_the_treemap_floor(keys, cls, name):
    index = _SortedKeys(dict.fromkeys(keys), keys)
    wanted = (_java_order(cls), _KIND_RANK["prefix"], _java_order(name))
    ordered = sorted(keys)
    i = bisect_right(ordered, wanted)
    expected = ordered[i - 1] if i else None
    got = index.floor(wanted)
    if expected is None or expected[1] == _KIND_RANK["prefix"]:
        assert got == expected
    else:  # any non-prefix key of the same class will do: callers only ask whether it is a prefix
        assert got is not None and got[0] == expected[0] and got[1] != _KIND_RANK["prefix"]


def test_java_order_sorts_like_utf16_code_units():
    words = ["a", "\uffff", "😀", "\ue000", "z", "😀a", "\ud7ff"]
    assert sorted(words, key=_java_order) == sorted(words, key=lambda w: w.encode("utf-16-be", "surrogatepass"))


# -- documented meaning: index against scan ------------------------------------------------------------

@st.composite
def rules_and_actions(draw):
    def matcher(allow_regex):
        options = [st.just("*"), NAMES.map(lambda n: f'= "{n}"'), NAMES.map(lambda n: f'like "{n}*"'),
                   st.lists(NAMES, min_size=1, max_size=3).map(lambda ns: "in {" + ", ".join(f'"{n}"' for n in ns) + "}")]
        if allow_regex:
            options.append(st.sampled_from(["matching /a.*/", "matching /[ab]+/", "matching /.*😀/"]))
        return draw(st.one_of(*options))

    lines = []
    for effect in ("deny", "allow"):
        for _ in range(draw(st.integers(0, 6))):
            ptype = draw(st.sampled_from(list(CLASSES)))
            rtype = draw(st.sampled_from(list(RCLASSES)))
            ops = draw(st.sampled_from(["READ", "DESCRIBE", "{READ, DELETE}", "*"]))
            lines.append(f"{effect} {ptype} with name {matcher(False)} to {ops} {rtype} with name {matcher(True)};")
    text = HEADER + "\n".join(lines) + "\notherwise deny;\n"
    actions = [RulesAction(tuple(Principal(CLASSES[draw(st.sampled_from(list(CLASSES)))], draw(NAMES))
                                 for _ in range(draw(st.integers(0, 2)))),
                           RCLASSES[draw(st.sampled_from(list(RCLASSES)))],
                           draw(st.sampled_from(["READ", "DESCRIBE", "DELETE"])), draw(NAMES))
               for _ in range(8)]
    return text, actions


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_and_actions())
def test_documented_index_finds_the_rule_the_scan_finds(case):
    text, actions = case
    authorizer = ProxyAuthorizer(check_rules(parse_rules(text), REGISTRY))
    for action in actions:
        assert authorizer.documented(action) == authorizer.documented_by_scan(action)


# -- AZ108 against every (allow, deny) pair ----------------------------------------------------------

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_and_actions())
def test_shadowed_finds_exactly_the_pairs_a_full_comparison_finds(case):
    text, _actions = case
    rules = check_rules(parse_rules(text), REGISTRY).rules
    found = []
    lint_module._shadowed(rules, "f", found.append)
    expected = []
    for a in rules:
        if a.effect != "allow":
            continue
        covering = [d for d in rules if d.effect == "deny" and d.principal_class == a.principal_class
                    and d.resource_class == a.resource_class and a.effective_operations <= d.effective_operations
                    and _covers(d.principal, a.principal) and _covers(d.resource, a.resource)]
        if covering:
            expected.append((a.rule.pos.line, min(covering, key=lambda d: d.rule.pos.offset).rule.pos.line))
    assert [(f.line, int(f.message.rsplit(" ", 1)[1])) for f in found] == expected


# -- small pieces -------------------------------------------------------------------------------------

def _scan_like_by_characters(raw: str) -> tuple[str, bool, int]:
    out, wildcard, misplaced, i = [], False, 0, 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            out.append(raw[i + 1])
            i += 2
            continue
        if c == "*":
            wildcard = True
            misplaced += i != len(raw) - 1
        else:
            out.append(c)
        i += 1
    return "".join(out), wildcard, misplaced


@given(st.text(alphabet="ab*\\", max_size=8))
def test_like_scan_fast_path_agrees_with_the_character_scan(raw):
    assert scan_like(raw) == _scan_like_by_characters(raw)


@settings(max_examples=200)
@given(st.lists(st.sampled_from(["a+", "b.*", "[ab]", "a|b", ".*", "ab", "é", "x{2}"]), min_size=0, max_size=9),
       st.text(alphabet="abéx", max_size=4))
def test_regex_set_gives_the_matches_one_by_one_matching_gives(patterns, name):
    group = _RegexList()
    for i, p in enumerate(patterns):
        group.add(p, compile_regex(p), i)
    expected = [i for i, p in enumerate(patterns) if compile_regex(p).fullmatch(name) is not None]
    assert list(group.matching(name)) == expected
