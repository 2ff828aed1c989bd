"""TLS and Kerberos mapping beyond the recorded samples: Kafka's quirks, and a naive
re-implementation the exact one must agree with wherever Java and Python regexes coincide."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.principal.mapping import (
    KerberosName,
    KerberosShortNamer,
    MappingRulesError,
    SslPrincipalMapper,
    escape_literal_back_references,
    split_kerberos_rules_config,
    split_ssl_rules,
)


def tls(rules, dn):
    return SslPrincipalMapper.from_rules(rules).map(dn)


# -- TLS ----------------------------------------------------------------------------------------------

def test_dollar_twelve_is_group_one_then_a_literal_two():
    assert tls("RULE:^CN=(.*?),.*$/$12/", "CN=a,O=b").name == "a2"


def test_one_out_of_range_reference_becomes_literal():
    assert tls("RULE:^CN=([^,]*),.*$/$1@$4/", "CN=a,O=b").name == "a@$4"


def test_second_out_of_range_reference_is_escaped_one_character_early_and_throws():
    # escapeLiteralBackReferences scans the original string while inserting into a copy.
    assert escape_literal_back_references("$1-$4-$5", 1) == "$1-\\$4\\-$5"
    m = tls("RULE:^CN=([^,]*),.*$/$1-$4-$5/", "CN=a,O=b")
    assert not m.ok and m.error.java_class == "java.lang.IndexOutOfBoundsException"
    assert m.error.message == "No group 5" and m.rule_index == 0


def test_reference_without_any_group_throws():
    m = tls("RULE:^CN=.*$/$1/", "CN=a")
    assert m.error.message == "No group 1"


def test_whole_match_reference_is_kept():
    assert tls("RULE:^CN=(.*?),.*$/$0/", "CN=a,O=b").name == "CN=a,O=b"


def test_replace_all_replaces_every_match_not_only_the_whole_dn():
    # The rule fires because the pattern matches the whole DN; then String.replaceAll runs the find loop.
    assert tls("RULE:.*/X/", "CN=a").name == "XX"
    assert tls("RULE:(\\w)*/[$1]/", "abc").name == "[c][]"


def test_escaped_dollar_and_trailing_dollar():
    assert tls("RULE:^CN=(.*)$/\\$1/", "CN=a").name == "$1"
    m = tls("RULE:^CN=(.*)$/x$/", "CN=a")
    assert m.error.message == "Illegal group reference: group index is missing"


def test_lower_and_upper_use_full_unicode_case_mapping():
    assert tls("RULE:^CN=(.*)$/$1/U", "CN=straße").name == "STRASSE"
    assert tls("RULE:^CN=(.*)$/$1/L", "CN=ÉLAN").name == "élan"


def test_escaped_comma_dn():
    assert tls("RULE:^CN=((\\\\, *|\\w)+)(,.*|$)/$1/,DEFAULT", "CN=Tkac\\, Adam,OU=ITZ").name == "Tkac\\, Adam"


def test_trailing_text_after_flag_is_refused_with_kafkas_message():
    with pytest.raises(MappingRulesError) as info:
        SslPrincipalMapper.from_rules("RULE:^(.*)$/$1/Lxyz")
    assert info.value.java.message == "Invalid rule: `RULE:^(.*)$/$1/Lxyz`, unmatched substring: `xyz`"


def test_invalid_regex_is_a_pattern_syntax_exception():
    with pytest.raises(MappingRulesError) as info:
        SslPrincipalMapper.from_rules("RULE:^CN=(.*$/$1/")
    assert info.value.java.java_class == "java.util.regex.PatternSyntaxException"
    assert info.value.java.message.startswith("Unclosed group near index")


def test_unset_rules_are_default_and_empty_rules_map_nothing():
    assert tls(None, "CN=a,O=b").name == "CN=a,O=b"
    assert not tls("", "CN=a").ok
    # The find loop also meets an empty rule at the very end (dropped later, like every empty rule).
    assert split_ssl_rules(" , RULE:a/b/ ,, DEFAULT ") == ["", "RULE:a/b/", "", "DEFAULT", ""]


# -- Kerberos -------------------------------------------------------------------------------------------

def krb(rules, name, realm="EXAMPLE.COM"):
    return KerberosShortNamer.from_rules(realm, rules).map(name)


def test_name_without_realm_is_used_as_is_even_with_a_slash():
    assert krb([], "alice").name == "alice"
    assert krb(["DEFAULT"], "alice/host").name == "alice/host"


def test_default_maps_only_the_default_realm():
    assert krb(None, "alice/admin@EXAMPLE.COM").name == "alice"
    m = krb(None, "alice@OTHER.ORG")
    assert m.error.java_class == "org.apache.kafka.common.security.kerberos.NoMatchingRule"
    assert m.error.message == "No rules apply to alice@OTHER.ORG, rules [DEFAULT]"


def test_malformed_name():
    m = krb(None, "a@b@c")
    assert m.error.java_class == "java.lang.IllegalArgumentException"
    assert m.error.message == "Malformed Kerberos name: a@b@c"


def test_non_simple_result_is_refused():
    m = krb(["RULE:[2:$1@$0]"], "svc/host@EXAMPLE.COM")
    assert m.error.message == "Non-simple name svc@EXAMPLE.COM after auth_to_local rule RULE:[2:$1@$0]"


def test_parameter_out_of_range():
    m = krb(["RULE:[1:$3]"], "alice@EXAMPLE.COM")
    assert m.error.java_class.endswith("BadFormatString")
    assert m.error.message == "index 3 from $3 is outside of the valid range 0 to 1"


def test_replace_first_versus_all():
    assert krb(["RULE:[1:$1]s/a/b/"], "banana@X").name == "bbnana"
    assert krb(["RULE:[1:$1]s/a/b/g"], "banana@X").name == "bbnbnb"


def test_component_count_printed_as_parsed_int():
    assert str(KerberosShortNamer.from_rules("R", ["RULE:[01:$1]"])) == \
        "KerberosShortNamer(principalToLocalRules = [RULE:[1:$1]])"


def test_rules_config_split_keeps_empty_entries():
    assert split_kerberos_rules_config(" RULE:[1:$1] , DEFAULT, ") == ["RULE:[1:$1]", "DEFAULT", ""]
    assert split_kerberos_rules_config("   ") == []
    with pytest.raises(MappingRulesError) as info:
        KerberosShortNamer.from_rules("R", split_kerberos_rules_config("DEFAULT,"))
    assert info.value.java.message == "Invalid rule: "


# -- naive re-implementations ----------------------------------------------------------------------------

_atom = st.sampled_from(["a", "b", "C", "=", ".", "[ab]", "[^,]", "\\w", "\\d"])
_quant = st.sampled_from(["", "", "*", "+", "?", "{1,2}"])


@st.composite
def tls_patterns(draw):
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 3)) == 0:
            parts.append("(" + draw(_atom) + draw(_quant) + ")" + draw(st.sampled_from(["", "?", "+"])))
        else:
            parts.append(draw(_atom) + draw(_quant))
    return "".join(parts)


def naive_tls(pattern, replacement, flag, dn):
    """What the rule means to a reader: full match, then substitute; Python's re."""
    rx = re.compile(pattern, re.ASCII)
    if not rx.fullmatch(dn):
        return None
    out = rx.sub(lambda m: re.sub(r"\$(\d)", lambda g: m.group(int(g.group(1))) or "", replacement), dn)
    return out.lower() if flag == "L" else out.upper() if flag == "U" else out


@settings(max_examples=300, deadline=None)
@given(tls_patterns(), st.text(alphabet="abC=,1", max_size=8), st.sampled_from(["", "L", "U"]),
       st.sampled_from(["x", "$0", "<$1>", "$1$1"]))
def test_tls_mapping_agrees_with_naive_reading(pattern, dn, flag, replacement):
    rx = re.compile(pattern, re.ASCII)
    if "$1" in replacement and rx.groups < 1:
        replacement = replacement.replace("$1", "$0")
    mapper = SslPrincipalMapper.from_rules(f"RULE:{pattern}/{replacement}/{flag}")
    got = mapper.map(dn)
    expected = naive_tls(pattern, replacement, flag, dn)
    assert got.name == expected if expected is not None else not got.ok


def naive_kerberos(rules, realm, principal):
    m = re.fullmatch(r"([^/@]*)(/([^/@]*))?@([^/@]*)", principal)
    if m is None:
        return principal if "@" not in principal else "ERROR"
    service, host, name_realm = m.group(1), m.group(3), m.group(4)
    comps = [service] + ([host] if host is not None else [])
    for kind, arg in rules:
        if kind == "DEFAULT":
            if name_realm == realm:
                return service
            continue
        n, fmt, lower = arg
        if len(comps) != n:
            continue
        params = [name_realm] + comps
        result = re.sub(r"\$(\d)", lambda g: params[int(g.group(1))], fmt)
        if "/" in result or "@" in result:
            return "ERROR"
        return result.lower() if lower else result
    return "ERROR"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.just(("DEFAULT", None)),
                          st.tuples(st.just("RULE"), st.tuples(st.integers(1, 2),
                                                               st.sampled_from(["$1", "$1.$2", "$1_$0", "x$2"]),
                                                               st.booleans()))), max_size=4),
       st.sampled_from(["alice@EX.COM", "Bob/host@EX.COM", "carol@OTHER", "dave", "svc/h1@OTHER", "x@y@z"]))
def test_kerberos_agrees_with_naive_reading(rules, principal):
    texts = []
    for kind, arg in rules:
        if kind == "DEFAULT":
            texts.append("DEFAULT")
        else:
            n, fmt, lower = arg
            if n == 1 and "$2" in fmt:
                fmt = fmt.replace("$2", "$1")
            texts.append(f"RULE:[{n}:{fmt}]" + ("/L" if lower else ""))
    fixed = [(k, a if k == "DEFAULT" else (a[0], t[t.index(":", 5) + 1:t.index("]")], a[2]))
             for (k, a), t in zip(rules, texts)]
    got = KerberosShortNamer.from_rules("EX.COM", texts).map(principal)
    expected = naive_kerberos(fixed, "EX.COM", principal)
    assert (got.name if got.ok else "ERROR") == expected


def test_kerberos_name_round_trip():
    for text in ["a@B", "a/b@C", "a", "a/b", "@R", "/h@R"]:
        assert str(KerberosName.parse(text)) == text
