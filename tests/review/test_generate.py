"""authz generate: least privilege from real audit-log lines (the bundled whatif logs) and from
hand-made traffic: prefixes and their widening, implied operations, hosts, DENYs, super users, the
proof and the diff against the current set, from the command line."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import AclBinding, BrokerSettings
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.review.generate import GenerateOptions, least_privilege, parse_known_names, prove
from kafka_authz_cli.whatif import Aggregate
from tests.fake_admin import FakeAdmin, install
from tests.whatif.logs_strategy import SUFFIX

EXAMPLES = Path(__file__).parents[2] / "examples" / "whatif"
LOGS = str(EXAMPLES / "logs")
CURRENT = str(EXAMPLES / "current.json")
runner = CliRunner()


def traffic(*requests):
    """Aggregates as whatif folds them: (principal, host, op, type, name, allowed?) each seen once."""
    out = {}
    for principal, host, op, rtype, name, allowed in requests:
        out[(principal, host, op, rtype, name)] = Aggregate(count=1, visible=1, allowed=int(allowed),
                                                            denied=int(not allowed))
    return out


def acl(rtype, name, pattern, principal, op, host="*", permission="ALLOW"):
    return AclBinding.of(rtype, name, pattern, principal, host, op, permission)


def holds(aggs, bindings):
    report = prove(aggs, bindings, BrokerSettings())
    return not report.newly_denied and not report.newly_allowed


def line(principal, op, rtype, name, allowed=True, host="10.0.0.1", hour=10):
    word = "Allowed" if allowed else "Denied"
    return (f"[2026-11-20 {hour:02d}:00:00,000] {'DEBUG' if allowed else 'INFO'} Principal = {principal} is {word} "
            f"operation = {op} from host = {host} on resource = {rtype}:LITERAL:{name} for request = Fetch with "
            f"resourceRefCount = 1 based on rule {'SuperUser' if allowed else 'DefaultDeny'}{SUFFIX}\n")


ORDERS = [("User:app", "10.0.0.1", "READ", "TOPIC", f"orders-eu-{i}", True) for i in range(1, 41)]


# ----------------------------------------------------------------------------------------------
# The set


def test_the_bundled_logs_give_one_acl_per_allowed_access_and_the_describe_is_implied():
    result = runner.invoke(app, ["generate", "--logs", LOGS, "-f", "json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    got = {(a["principal"], a["operation"], a["resource_type"], a["resource_name"], a["pattern_type"], a["host"])
           for a in body["acls"]}
    assert got == {
        ("User:analytics", "READ", "GROUP", "analytics-daily", "LITERAL", "*"),
        ("User:analytics", "READ", "TOPIC", "orders-audit", "LITERAL", "*"),
        ("User:analytics", "READ", "TOPIC", "orders-eu", "LITERAL", "*"),
        ("User:old-batch", "READ", "TOPIC", "legacy-feed", "LITERAL", "*"),
        ("User:orders-svc", "IDEMPOTENT_WRITE", "CLUSTER", "kafka-cluster", "LITERAL", "*"),
        ("User:orders-svc", "WRITE", "TOPIC", "orders-eu", "LITERAL", "*"),
        ("User:payments-svc", "WRITE", "TOPIC", "payments", "LITERAL", "*"),  # two hosts, one ACL
    }
    # old-batch's DESCRIBE of legacy-feed is allowed by its READ: no ACL of its own
    assert body["implied"] == [{"principal": "User:old-batch", "host": "10.5.0.3", "operation": "DESCRIBE",
                                "resource_type": "TOPIC", "resource_name": "legacy-feed"}]
    # old-batch's denied WRITE and bob's denied READ stay denied
    assert body["proof"] == {"holds": True, "replayed_requests": 11, "decisions": 126, "newly_denied": [],
                             "newly_allowed": [], "warnings": []}
    assert body["max_widening"] == "none" and body["prefixes"] == []
    assert body["lines"]["files"] == 4 and body["lines"]["decisions"] == 126


def test_forty_numbered_topics_become_one_prefix_with_any():
    g = least_privilege(traffic(*ORDERS), GenerateOptions("any"))
    assert g.bindings == [acl("TOPIC", "orders-eu-", "PREFIXED", "User:app", "READ")]
    (p,) = g.prefixes
    assert p.prefix == "orders-eu-" and len(p.observed) == 40 and p.newly_covered is None


def test_with_none_every_name_stays_literal():
    g = least_privilege(traffic(*ORDERS), GenerateOptions("none"))
    assert len(g.bindings) == 40 and {b.pattern_type.name for b in g.bindings} == {"LITERAL"}
    assert g.prefixes == []


def test_a_denied_name_under_the_prefix_stops_it():
    denied = ("User:app", "10.0.0.1", "READ", "TOPIC", "orders-eu-secret", False)
    aggs = traffic(*ORDERS, denied)
    g = least_privilege(aggs, GenerateOptions("any"))
    assert all(b.pattern_type.name == "LITERAL" for b in g.bindings) and len(g.bindings) == 40
    assert holds(aggs, g.bindings)


def test_a_denied_describe_under_the_prefix_stops_a_read_prefix_too():
    # READ orders-eu- would imply DESCRIBE orders-eu-x, which the window shows denied
    aggs = traffic(*ORDERS, ("User:app", "10.0.0.1", "DESCRIBE", "TOPIC", "orders-eu-x", False))
    g = least_privilege(aggs, GenerateOptions("any"))
    assert not g.prefixes and holds(aggs, g.bindings)


def test_another_principals_denials_do_not_stop_a_prefix():
    aggs = traffic(*ORDERS, ("User:bob", "10.0.0.1", "READ", "TOPIC", "orders-eu-secret", False))
    g = least_privilege(aggs, GenerateOptions("any"))
    assert [p.prefix for p in g.prefixes] == ["orders-eu-"] and holds(aggs, g.bindings)


def test_names_widening_takes_a_prefix_only_where_it_reaches_no_other_known_name():
    known = parse_known_names("\n".join(f"orders-eu-{i}" for i in range(1, 41)) + "\norders-us-1\n", "names.txt")
    g = least_privilege(traffic(*ORDERS), GenerateOptions("names", known))
    assert [(p.prefix, p.newly_covered) for p in g.prefixes] == [("orders-eu-", [])]  # orders- would reach orders-us-1
    known = parse_known_names("\n".join(f"orders-eu-{i}" for i in range(1, 42)), "names.txt")
    g = least_privilege(traffic(*ORDERS), GenerateOptions("names", known))
    assert g.prefixes == [] and len(g.bindings) == 40  # orders-eu-41 exists and was not used


def test_any_reports_the_known_names_a_prefix_newly_covers():
    known = parse_known_names("orders-eu-41\norders-eu-1\ngroup:orders-eu-g\n", "names.txt")
    g = least_privilege(traffic(*ORDERS), GenerateOptions("any", known))
    (p,) = g.prefixes
    assert p.prefix == "orders-eu-" and p.newly_covered == ["orders-eu-41"]  # the group is another type


def test_names_widening_keeps_literal_the_types_without_known_names():
    aggs = traffic(*[("User:app", "10.0.0.9", "READ", "GROUP", f"etl-{i}", True) for i in range(3)])
    g = least_privilege(aggs, GenerateOptions("names", parse_known_names("orders\n", "n")))
    assert len(g.bindings) == 3 and g.literal_only_types == ["GROUP"]


def test_min_names():
    aggs = traffic(*ORDERS[:3])
    assert len(least_privilege(aggs, GenerateOptions("any", min_names=3)).prefixes) == 1
    assert len(least_privilege(aggs, GenerateOptions("any", min_names=4)).prefixes) == 0


def test_a_prefix_ends_at_a_separator():
    aggs = traffic(("User:a", "10.0.0.9", "WRITE", "TOPIC", "topic1", True), ("User:a", "10.0.0.9", "WRITE", "TOPIC", "topic2", True),
                   ("User:a", "10.0.0.9", "WRITE", "TRANSACTIONAL_ID", "tx.a.1", True),
                   ("User:a", "10.0.0.9", "WRITE", "TRANSACTIONAL_ID", "tx.a.2", True))
    g = least_privilege(aggs, GenerateOptions("any"))
    assert [(p.resource_type, p.prefix) for p in g.prefixes] == [("TRANSACTIONAL_ID", "tx.a.")]
    assert acl("TOPIC", "topic1", "LITERAL", "User:a", "WRITE") in g.bindings


def test_describe_configs_is_implied_by_alter_configs_and_describe_by_write():
    aggs = traffic(("User:a", "10.0.0.9", "ALTER_CONFIGS", "TOPIC", "t", True),
                   ("User:a", "10.0.0.9", "DESCRIBE_CONFIGS", "TOPIC", "t", True),
                   ("User:a", "10.0.0.9", "WRITE", "TOPIC", "t", True), ("User:a", "10.0.0.9", "DESCRIBE", "TOPIC", "t", True),
                   ("User:a", "10.0.0.9", "DESCRIBE", "TOPIC", "u", True))
    g = least_privilege(aggs, GenerateOptions())
    assert sorted((b.operation.name, b.resource_name) for b in g.bindings) == [
        ("ALTER_CONFIGS", "t"), ("DESCRIBE", "u"), ("WRITE", "t")]
    assert len(g.implied) == 2 and holds(aggs, g.bindings)


def test_a_request_denied_from_another_host_keeps_the_hosts():
    aggs = traffic(("User:a", "10.0.0.1", "READ", "TOPIC", "t", True),
                   ("User:a", "10.0.0.2", "READ", "TOPIC", "t", False),
                   ("User:a", "10.0.0.2", "READ", "TOPIC", "u", True))
    g = least_privilege(aggs, GenerateOptions())
    assert set(g.bindings) == {acl("TOPIC", "t", "LITERAL", "User:a", "READ", host="10.0.0.1"),
                               acl("TOPIC", "u", "LITERAL", "User:a", "READ")}
    assert g.host_kept == [("User:a", "10.0.0.1", "READ", "TOPIC", "t")] and holds(aggs, g.bindings)


def test_keep_hosts():
    aggs = traffic(("User:a", "10.0.0.1", "READ", "TOPIC", "t", True), ("User:a", "10.0.0.2", "READ", "TOPIC", "t", True))
    g = least_privilege(aggs, GenerateOptions(keep_hosts=True))
    assert {b.host for b in g.bindings} == {"10.0.0.1", "10.0.0.2"}


def test_a_denied_describe_next_to_an_allowed_read_gets_a_deny():
    aggs = traffic(("User:a", "10.0.0.9", "READ", "TOPIC", "t", True), ("User:a", "10.0.0.9", "DESCRIBE", "TOPIC", "t", False))
    g = least_privilege(aggs, GenerateOptions())
    assert g.denies == [acl("TOPIC", "t", "LITERAL", "User:a", "DESCRIBE", host="10.0.0.9", permission="DENY")]
    assert holds(aggs, g.bindings)


def test_super_users_and_unknown_operations_get_no_acl():
    aggs = traffic(("User:admin", "10.0.0.9", "ALTER", "CLUSTER", "kafka-cluster", True),
                   ("User:a", "10.0.0.9", "READS", "TOPIC", "t", True))
    g = least_privilege(aggs, GenerateOptions(super_users="User:admin"))
    assert g.bindings == [] and g.super_users_skipped == ["User:admin"] and len(g.unexpressible) == 1


def test_a_mixed_request_is_treated_as_allowed():
    aggs = {("User:a", "10.0.0.9", "READ", "TOPIC", "t"): Aggregate(count=2, visible=2, allowed=1, denied=1)}
    g = least_privilege(aggs, GenerateOptions())
    assert g.mixed_requests == 1 and len(g.bindings) == 1


def test_names_file_errors_name_the_line():
    with pytest.raises(InputError, match=r"names.txt:2: 'bogus' is no resource type"):
        parse_known_names("orders\nbogus:x\n", "names.txt")
    assert parse_known_names("# c\n\nTransactional_Id: tx-1\n", "n") == {
        __import__("kafka_authz_cli.acl", fromlist=["ResourceType"]).ResourceType.TRANSACTIONAL_ID: {"tx-1"}}


# ----------------------------------------------------------------------------------------------
# The command


def test_acls_go_to_stdout_in_the_asked_format_and_the_report_to_stderr():
    result = runner.invoke(app, ["generate", "--logs", LOGS, "--to", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("KafkaPrincipal,") and "User:orders-svc" in result.stdout
    assert "proof holds" in result.stderr and "proof" not in result.stdout
    assert "read 130 line(s) in 4 file(s): 126 decision, 1 other, 3 quarantined" in result.stderr


def test_output_file_and_a_strimzi_set(tmp_path):
    out = tmp_path / "users.yaml"
    result = runner.invoke(app, ["generate", "--logs", LOGS, "--to", "strimzi", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "kind: KafkaUser" in out.read_text() and "proof holds" in result.stdout


def test_current_lists_what_is_taken_away():
    result = runner.invoke(app, ["generate", "--logs", LOGS, "--current", CURRENT, "-f", "json"])
    assert result.exit_code == 0, result.output
    cur = json.loads(result.stdout)["current"]
    text = "\n".join(f["description"] for f in cur["removed"])
    assert "User:payments-svc can no longer" in text and "READ" in text  # ALL -> WRITE
    assert "every topic starting with `orders-`" in text  # analytics' prefix -> two literal names
    assert cur["added"] == [] and cur["verdict"] == "less permissive"


def test_principal_keeps_one_principal_and_compares_with_its_acls_only():
    result = runner.invoke(app, ["generate", "--logs", LOGS, "--principal", "User:payments-svc", "--current", CURRENT,
                                 "-f", "json"])
    body = json.loads(result.stdout)
    assert {a["principal"] for a in body["acls"]} == {"User:payments-svc"}
    assert body["current"]["acls"] == 1
    assert {f["principal"] for f in body["current"]["removed"]} == {"User:payments-svc"}


def test_since_and_until_pick_hours_of_logs_and_of_an_index(tmp_path):
    log = tmp_path / "a.log"
    log.write_text(line("User:a", "READ", "Topic", "early", hour=9) + line("User:a", "READ", "Topic", "late", hour=11))
    names = []
    for source in (["--logs", str(log)], ["--index", str(tmp_path / "ix")]):
        if source[0] == "--index":
            assert runner.invoke(app, ["whatif", "index", "--logs", str(log), "-o", str(tmp_path / "ix")]).exit_code == 0
        result = runner.invoke(app, ["generate", *source, "--since", "2026-11-20T10", "-f", "json"])
        assert result.exit_code == 0, result.output
        names.append([a["resource_name"] for a in json.loads(result.stdout)["acls"]])
    assert names == [["late"], ["late"]]


def test_a_proof_that_fails_exits_1(tmp_path):
    # allow.everyone.if.no.acl.found: the denied READ of a topic without ACLs becomes allowed
    log = tmp_path / "a.log"
    log.write_text(line("User:a", "READ", "Topic", "t") + line("User:b", "READ", "Topic", "u", allowed=False))
    assert runner.invoke(app, ["generate", "--logs", str(log)]).exit_code == 0
    result = runner.invoke(app, ["generate", "--logs", str(log), "--allow-everyone-if-no-acl-found"])
    assert result.exit_code == 1
    assert "proof FAILS" in result.stderr and "newly allowed: User:b READ TOPIC u from 10.0.0.1" in result.stderr


def test_usage_errors():
    assert runner.invoke(app, ["generate", "--to", "json"]).exit_code == 2
    res = runner.invoke(app, ["generate", "--logs", LOGS, "--max-widening", "names"])
    assert res.exit_code == 2 and "--names FILE or --bootstrap-server" in res.output


def test_names_from_a_file_on_the_command_line(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("".join(line("User:app", "WRITE", "Topic", f"orders-eu-{i}") for i in range(1, 6)))
    names = tmp_path / "names.txt"
    names.write_text("".join(f"orders-eu-{i}\n" for i in range(1, 6)) + "payments\n")
    result = runner.invoke(app, ["generate", "--logs", str(log), "--names", str(names), "-f", "json"])
    body = json.loads(result.stdout)
    assert body["max_widening"] == "names"
    assert [(a["resource_name"], a["pattern_type"]) for a in body["acls"]] == [("orders-eu-", "PREFIXED")]
    assert body["prefixes"][0]["newly_covered"] == []


def test_known_names_from_a_live_cluster(tmp_path, monkeypatch):
    admin = install(monkeypatch, FakeAdmin(topics=[f"orders-eu-{i}" for i in range(1, 6)] + ["orders-us-1"],
                                           groups=["billing-eu"]))
    log = tmp_path / "a.log"
    log.write_text("".join(line("User:app", "WRITE", "Topic", f"orders-eu-{i}") for i in range(1, 6)))
    result = runner.invoke(app, ["generate", "--logs", str(log), "--bootstrap-server", "x:9092", "-f", "json"])
    body = json.loads(result.stdout)
    assert body["max_widening"] == "names" and admin.closed
    assert [(a["resource_name"], a["pattern_type"]) for a in body["acls"]] == [("orders-eu-", "PREFIXED")]


def test_the_cluster_adapter_lists_topic_and_group_names():
    from types import SimpleNamespace

    from kafka_authz_cli.cluster.kafka_adapter import KafkaAclAdmin

    admin = object.__new__(KafkaAclAdmin)  # no connection: the kafka-python client is stubbed
    admin.round_trips, admin.principal = 0, "User:x"
    admin._admin = SimpleNamespace(list_topics=lambda: ["b", "a"],
                                   list_groups=lambda: [{"group_id": "g2", "protocol_type": "consumer"},
                                                        {"group_id": "g1", "protocol_type": ""}])
    assert admin.list_topics() == ["a", "b"] and admin.list_groups() == ["g1", "g2"]
    assert admin.round_trips == 2


def test_info_only_logs_give_nothing_and_say_why(tmp_path):
    log = tmp_path / "a.log"
    log.write_text(line("User:b", "READ", "Topic", "u", allowed=False))
    result = runner.invoke(app, ["generate", "--logs", str(log), "-f", "json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["acls"] == []
    assert "warning: no ALLOWED decision was logged: there is nothing to generate from" in result.stderr
    assert "--current" not in result.stderr


def test_the_table_states_each_prefix_and_what_it_newly_covers(tmp_path):
    log = tmp_path / "a.log"
    log.write_text("".join(line("User:app", "READ", "Topic", f"orders-eu-{i}") for i in range(1, 4)))
    names = tmp_path / "names.txt"
    names.write_text("orders-eu-1\norders-eu-2\norders-eu-3\norders-eu-41\n")
    result = runner.invoke(app, ["generate", "--logs", str(log), "--names", str(names), "--max-widening", "any",
                                 "-o", str(tmp_path / "out.json")], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "orders-eu-*" in result.stdout and "3: orders-eu-1, orders-eu-2, orders-eu-3" in result.stdout
    assert "1 known: orders-eu-41" in result.stdout and "proof holds" in result.stdout
    assert json.loads((tmp_path / "out.json").read_text())["acls"][0]["pattern_type"] == "PREFIXED"


def test_stdin_and_keep_hosts_from_the_command_line():
    text = line("User:a", "READ", "Topic", "t", host="10.0.0.1") + line("User:a", "READ", "Topic", "t", host="10.0.0.2")
    plain = runner.invoke(app, ["generate", "--logs", "-", "-f", "json"], input=text.encode())
    kept = runner.invoke(app, ["generate", "--logs", "-", "--keep-hosts", "-f", "json"], input=text.encode())
    assert [a["host"] for a in json.loads(plain.stdout)["acls"]] == ["*"]
    assert sorted(a["host"] for a in json.loads(kept.stdout)["acls"]) == ["10.0.0.1", "10.0.0.2"]


def test_an_unknown_principal_is_warned():
    result = runner.invoke(app, ["generate", "--logs", LOGS, "--principal", "User:nobody", "-f", "json"])
    assert json.loads(result.stdout)["acls"] == []
    assert "--principal User:nobody: no request of it in the window" in result.stderr
