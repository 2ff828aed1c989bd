"""--rules written as Kafka's docs write the property: the one-string form, for Kerberos and TLS alike.

sasl.kerberos.principal.to.local.rules is a LIST (ConfigDef splits ``\\s*,\\s*``; KerberosShortNamer
parses each item); ssl.principal.mapping.rules is one STRING that SslPrincipalMapper splits itself."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_authz_cli.principal import (
    KerberosShortNamer,
    MappingRulesError,
    kerberos_rules_value_form,
    split_kerberos_rules_config,
)
from tests.cli_runner import run

DOCS = "RULE:[1:$1@$0](.*@MYDOMAIN.COM)s/@.*//,RULE:[2:$1@$0](.*@MYDOMAIN.COM)s/@.*//,DEFAULT"


def test_the_docs_one_string_value_as_one_rules_is_the_property():
    # Kafka's security.html writes the property this way; it was called broker-fatal before.
    res = run("principal", "kerberos", "--realm", "MYDOMAIN.COM", "--rules", DOCS, "-f", "json",
              "alice@MYDOMAIN.COM", "kafka/b1@MYDOMAIN.COM", "bob@OTHER.COM")
    rows = json.loads(res.stdout)
    assert [r["principal"] for r in rows] == ["User:alice", "User:kafka", None]
    assert [r["rule_number"] for r in rows[:2]] == [1, 2]
    same = run("principal", "kerberos", "--realm", "MYDOMAIN.COM", "--rules-config", DOCS, "-f", "json",
               "alice@MYDOMAIN.COM", "kafka/b1@MYDOMAIN.COM", "bob@OTHER.COM")
    assert json.loads(same.stdout) == rows
    table = run("principal", "kerberos", "--realm", "MYDOMAIN.COM", "--rules", DOCS, "alice@MYDOMAIN.COM")
    assert table.exit_code == 0 and "one-string property form" in table.output


def test_a_value_that_is_neither_one_rule_nor_a_list_of_rules_says_what_it_is():
    res = run("principal", "kerberos", "--realm", "R", "--rules", "RULE:[1:$1](a{1,3})s/x/y/,DEFAULT", "a@R")
    assert res.exit_code == 2
    text = " ".join(res.output.split())
    assert ("this is the one-string property form; use --rules-config VALUE or pass each rule as its own --rules"
            in text)
    assert "Invalid rule: `RULE:[1:$1](a{1`, unmatched substring: `(a{1`" in text  # what the broker says
    assert "Traceback" not in res.output


def test_a_rule_with_a_comma_inside_works_alone_and_warns_the_property_cannot_hold_it():
    res = run("principal", "kerberos", "--realm", "R", "--rules", "RULE:[1:$1](a{1,3})s/a/b/", "-f", "json", "aa@R")
    assert res.exit_code == 0
    assert json.loads(res.stdout)[0]["principal"] == "User:ba"  # no g: replaceFirst
    assert "cannot hold it" in " ".join(res.stderr.split())


def test_tls_rules_repeat_like_kerberos_and_join_to_the_property():
    one = run("principal", "tls", "--rules", "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L,DEFAULT", "-f", "json",
              "CN=Duke,OU=ServiceUsers,O=Org", "CN=x")
    two = run("principal", "tls", "--rules", "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L", "--rules", "DEFAULT",
              "-f", "json", "CN=Duke,OU=ServiceUsers,O=Org", "CN=x")
    assert one.exit_code == two.exit_code == 0
    assert json.loads(one.stdout) == json.loads(two.stdout)
    assert [r["principal"] for r in json.loads(one.stdout)] == ["User:duke", "User:CN=x"]


@pytest.mark.parametrize("value,form", [
    ("DEFAULT", "rule"),
    (DOCS, "property"),
    ("RULE:[1:$1], DEFAULT", "property"),           # ConfigDef drops the spaces around the comma
    ("RULE:[1:$1](a{1,3})s/x/y/", "comma-rule"),
    ("RULE:[1:$1],DEFAULT,", "neither"),            # the trailing empty item: Invalid rule
    ("RULE:bad,DEFAULT", "neither"),
])
def test_value_forms(value, form):
    assert kerberos_rules_value_form(value)[0] == form


_piece = st.sampled_from(["RULE:", "[", "]", "1", "2", ":", "$1", "$0", "@", "(", ")", ".*", "s/", "/", "g",
                          "L", "U", ",", ", ", "DEFAULT", "a", "{1,3}"])


def _grammar_accepts(rules):
    try:
        KerberosShortNamer.from_rules("R", rules)
    except MappingRulesError as exc:
        return not str(exc).startswith("Invalid rule")  # a regex error is past the grammar
    return True


@given(st.lists(_piece, max_size=14).map("".join))
def test_the_two_readings_are_never_both_valid(value):
    # kerberos_rules_value_form relies on it: a comma inside a valid rule leaves its first
    # comma-split item with an unclosed part, so a value is one rule or a list, never both.
    items = split_kerberos_rules_config(value)
    assert not ("," in value and _grammar_accepts([value]) and _grammar_accepts(items))
    form, _ = kerberos_rules_value_form(value)
    assert form == ("rule" if "," not in value else "comma-rule" if _grammar_accepts([value])
                    else "property" if _grammar_accepts(items) else "neither")
