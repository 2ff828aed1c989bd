"""Whatever the rule text or the name, the result is a value or Kafka's exception: never a crash."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli._java.lang import JavaException
from kafka_authz_cli._java.regex import JavaRegexUnsupported, compile_java
from kafka_authz_cli.principal.mapping import KerberosShortNamer, MappingRulesError, SslPrincipalMapper

_regex_alphabet = st.sampled_from(list("ab.*+?|()[]{}^$\\-,&0123456789dwsbpPQEkxuc<>=!:/iLU ") + ["\\p{L}", "(?i)",
                                                                                                "\\Q", "(?<n>"])
regexish = st.lists(_regex_alphabet, max_size=14).map("".join)


@settings(max_examples=1000, deadline=None)
@given(regexish, st.text(alphabet="ab1,=\n ", max_size=6))
def test_compile_java_raises_only_java_errors(pattern, text):
    try:
        p = compile_java(pattern)
    except (JavaException, JavaRegexUnsupported):
        return
    p.matches(text)
    try:
        p.replace_all(text, "$0x")
    except JavaException:
        pass


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.just("DEFAULT"), regexish.map(lambda r: f"RULE:{r}/$1/"),
                          regexish.map(lambda r: f"RULE:{r}/x/L"), regexish), max_size=3).map(", ".join),
       st.text(alphabet="CN=ab,O\\ ", max_size=10))
def test_ssl_mapper_never_crashes(rules, dn):
    try:
        mapper = SslPrincipalMapper.from_rules(rules)
    except MappingRulesError:
        return
    m = mapper.map(dn)
    assert m.ok == (m.name is not None)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.just("DEFAULT"), st.builds(lambda n, f, r: f"RULE:[{n}:{f}]({r})s/{r}/$1/g",
                                                          st.sampled_from(["1", "2", "", "x"]),
                                                          st.sampled_from(["$1", "$0", "$", "$1@$0", "$9"]), regexish)),
                max_size=3),
       st.sampled_from(["a@B", "a/b@B", "a", "a@b@c", "/@", ""]))
def test_kerberos_never_crashes(rules, name):
    try:
        namer = KerberosShortNamer.from_rules("B", rules)
    except MappingRulesError:
        return
    m = namer.map(name)
    assert m.ok == (m.name is not None)
    assert re.fullmatch(r".*", str(namer), re.S)
