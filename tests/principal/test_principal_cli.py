"""`authz principal tls|kerberos` and the mapping step of `authz simulate`, as a user runs them."""

import json
from pathlib import Path

from tests.cli_runner import run

ACLS = Path(__file__).parents[2] / "examples" / "acls" / "cluster.json"


RULES = "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, RULE:^CN=([^,]*),O=Partner$/partner-$1/, DEFAULT"


def test_tls_json_has_one_object_per_name_with_name_or_kafka_error():
    res = run("principal", "tls", "--rules", "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L", "--format", "json",
              "CN=Duke,OU=ServiceUsers,O=Org", "O=Org")
    assert res.exit_code == 1
    rows = json.loads(res.stdout)
    assert rows[0]["principal"] == "User:duke" and rows[0]["rule_number"] == 1
    assert rows[1]["ok"] is False
    assert rows[1]["error"] == {"class": "org.apache.kafka.common.security.ssl.SslPrincipalMapper$NoMatchingRule",
                                "message": "No rules apply to O=Org, rules [RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L]"}
    assert rows[1]["broker"] == "Failed to map name for 'O=Org' based on SSL principal mapping rules."


def test_tls_invalid_rules_exit_2_with_kafkas_message():
    res = run("principal", "tls", "--rules", "DEFAULT/L", "CN=a")
    assert res.exit_code == 2
    assert "authz: error: --rules: ssl.principal.mapping.rules: Invalid rule: `DEFAULT/L`, unmatched substring: `/L`" \
        in res.output
    assert "Traceback" not in res.output


def test_tls_rules_from_broker_config_listener_prefix_first(tmp_path):
    props = tmp_path / "server.properties"
    props.write_text("ssl.principal.mapping.rules=DEFAULT\n"
                     "listener.name.external.ssl.principal.mapping.rules=RULE:^CN=([^,]*),.*$/$1/U\n")
    res = run("principal", "tls", "--broker-config", props, "--listener", "EXTERNAL", "-f", "json", "CN=ann,O=x")
    assert json.loads(res.stdout)[0]["principal"] == "User:ANN"
    res = run("principal", "tls", "--broker-config", props, "-f", "json", "CN=ann,O=x")
    assert json.loads(res.stdout)[0]["principal"] == "User:CN=ann,O=x"
    bad = tmp_path / "bad.properties"
    bad.write_text("# x\nssl.principal.mapping.rules=RULE:^CN=(.*/$1/\n")
    res = run("principal", "tls", "--broker-config", bad, "CN=a")
    assert res.exit_code == 2 and f"{bad}:2: ssl.principal.mapping.rules: java.util.regex.PatternSyntaxException: " \
        "Unclosed group" in res.output


def test_tls_names_file_and_normalize(tmp_path):
    names = tmp_path / "dns.txt"
    names.write_text("# clients\nCN=Duke, OU=ServiceUsers, O=Org\n\nCN=acme,O=Partner\n")
    res = run("principal", "tls", "--rules", RULES, "--names", names, "--normalize", "-f", "json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [r["principal"] for r in rows] == ["User:duke", "User:partner-acme"]
    assert rows[0]["given"] == "CN=Duke, OU=ServiceUsers, O=Org" and rows[0]["input"] == "CN=Duke,OU=ServiceUsers,O=Org"
    assert rows[0]["origin"] == f"{names}:2"
    # Without --normalize the text as given is mapped: the spaces defeat the first rule.
    res = run("principal", "tls", "--rules", RULES, "--names", names, "-f", "json")
    assert json.loads(res.stdout)[0]["principal"] == "User:CN=Duke, OU=ServiceUsers, O=Org"


def test_tls_check_reports_collisions_dead_rules_and_form(tmp_path):
    res = run("principal", "tls", "--check", "-f", "json", "--super-users", "User:admin",
              "--rules", "RULE:^CN=([^,]*),.*$/$1/L, DEFAULT, RULE:^O=(.*)$/$1/",
              "CN=Alice,O=a", "CN=alice,O=b", "CN=admin,O=ops", "CN=x, O=y", "O=solo")
    assert res.exit_code == 1
    report = json.loads(res.stdout)
    codes = {f["code"] for f in report["findings"]}
    assert {"PM003", "PM005", "PM006", "PM008", "PM009"} <= codes
    collapse = next(f for f in report["findings"] if f["code"] == "PM003")
    assert collapse["subjects"] == ["CN=Alice,O=a", "CN=alice,O=b"]
    assert report["rule_fires"] == {"1": 4, "2": 1}
    ok = run("principal", "tls", "--check", "--fail-level", "error", "--rules", "RULE:^CN=([^,]*),.*$/$1/",
             "CN=a,O=x", "CN=b,O=x")
    assert ok.exit_code == 0, ok.output


def test_kerberos_repeated_rules_and_rules_config():
    res = run("principal", "kerberos", "--realm", "EXAMPLE.COM", "--rules", "RULE:[2:$1@$0](.*@EXAMPLE.COM)s/@.*//",
              "--rules", "DEFAULT", "-f", "json", "kafka/broker1@EXAMPLE.COM", "alice@EXAMPLE.COM", "bob@OTHER")
    assert res.exit_code == 1
    rows = json.loads(res.stdout)
    assert [r["principal"] for r in rows] == ["User:kafka", "User:alice", None]
    assert rows[2]["error"]["class"] == "org.apache.kafka.common.security.kerberos.NoMatchingRule"
    res = run("principal", "kerberos", "--realm", "EXAMPLE.COM", "--rules-config",
              "RULE:[2:$1@$0](.*@EXAMPLE.COM)s/@.*//, DEFAULT", "-f", "json", "kafka/broker1@EXAMPLE.COM")
    assert res.exit_code == 0 and json.loads(res.stdout)[0]["name"] == "kafka"


def test_kerberos_invalid_rule_and_no_realm_warning():
    res = run("principal", "kerberos", "--rules", "RULE:[1:$1]/l", "a@B")
    assert res.exit_code == 2 and "Invalid rule: `RULE:[1:$1]/l`, unmatched substring: `l`" in res.output
    res = run("principal", "kerberos", "alice@EXAMPLE.COM")
    assert res.exit_code == 1 and "no --realm" in res.output


def test_simulate_with_tls_dn_shows_the_mapping_step():
    res = run("simulate", ACLS, "--tls-dn", "CN=analytics,OU=ServiceUsers,O=Acme", "--ssl-mapping-rules",
              "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/", "--operation", "Read", "--topic", "orders-audit",
              "--host", "10.2.0.7", "--format", "json")
    assert res.exit_code == 0, res.output
    [row] = json.loads(res.stdout)
    assert row["principal"] == "User:analytics" and row["decision"] == "DENIED"
    assert row["mapping"]["kind"] == "tls" and row["mapping"]["rule_number"] == 1
    table = run("simulate", ACLS, "--tls-dn", "CN=analytics,OU=ServiceUsers,O=Acme", "--ssl-mapping-rules",
                "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/", "--operation", "Read", "--topic", "orders-audit")
    assert "-> User:analytics" in table.stdout


def test_simulate_mapping_from_broker_config_and_failure(tmp_path):
    props = tmp_path / "server.properties"
    props.write_text("sasl.kerberos.principal.to.local.rules=RULE:[2:$1](analytics)s/^/svc-/, DEFAULT\n")
    res = run("simulate", ACLS, "--kerberos-principal", "analytics/h1@EXAMPLE.COM", "--kerberos-realm",
              "EXAMPLE.COM", "--broker-config", props, "--operation", "Read", "--topic", "orders", "-f", "json")
    assert json.loads(res.stdout)[0]["principal"] == "User:svc-analytics", res.output
    fail = run("simulate", ACLS, "--kerberos-principal", "x/h@OTHER", "--kerberos-realm", "EXAMPLE.COM",
               "--operation", "Read", "--topic", "orders")
    assert fail.exit_code == 1 and "The broker fails authentication" in fail.stdout
    both = run("simulate", ACLS, "--tls-dn", "CN=a", "--principal", "User:a", "--operation", "Read", "--topic", "t")
    assert both.exit_code == 2


def test_possessive_rules_map_as_java_does():
    # CPython 3.11's own possessive repeat raised SystemError on these; the answers are Java 17's
    # (SslPrincipalMapper / KerberosShortNamer on the same input give the same names).
    res = run("principal", "tls", "--rules", "RULE:^CN=(((ba*a*)|.)*+)$/$1/", "CN=b11", "-f", "json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)[0]["principal"] == "User:b11"
    bad = "((a*)+aa*|a*)*+((a)|a)*."
    for args, name in ((["principal", "tls", "--rules", f"RULE:^{bad}$/x/,DEFAULT", "a1"], "x"),
                       (["principal", "kerberos", "--realm", "R", "--rules", f"RULE:[1:$1]s/{bad}/b/", "a1@R"], "b")):
        res = run(*args, "-f", "json")
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)[0]["principal"] == f"User:{name}"


def test_captures_java_keeps_from_abandoned_attempts_are_one_line_not_a_wrong_name():
    # Java maps CN=ac to "a": group 1 keeps what the abandoned first alternative captured.
    res = run("principal", "tls", "--rules", "RULE:^(?:(?>CN=(a))b|CN=a)c$/$1/", "CN=ac")
    assert res.exit_code == 2, res.output
    assert "cannot reproduce Java's captures inside a possessive quantifier or atomic group" in res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1
