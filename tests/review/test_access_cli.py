"""`authz access`: the command's modes, formats and errors."""

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl import BrokerSettings, StandardAuthorizer
from kafka_authz_cli.acl.decision import Request
from kafka_authz_cli.acl.model import SUPPORTED_OPERATIONS, ResourceType
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.review.access import AccessReview, covered
from kafka_authz_cli.review.access_scope import principal_access
from tests.fake_admin import FakeAdmin, install

ACLS = [
    ("TOPIC", "orders", "LITERAL", "User:alice", "*", "READ", "ALLOW"),
    ("TOPIC", "orders-", "PREFIXED", "User:*", "*", "WRITE", "ALLOW"),
    ("TOPIC", "orders", "PREFIXED", "User:*", "*", "DESCRIBE", "ALLOW"),
    ("TOPIC", "orders", "PREFIXED", "User:mallory", "*", "ALL", "DENY"),
    ("TOPIC", "orders", "LITERAL", "User:*", "10.0.0.9", "READ", "DENY"),
    ("GROUP", "app-", "PREFIXED", "User:alice", "*", "READ", "ALLOW"),
]
KEYS = ("resource_type", "resource_name", "pattern_type", "principal", "host", "operation", "permission")


@pytest.fixture
def acl_file(tmp_path):
    path = tmp_path / "acls.json"
    path.write_text(json.dumps({"version": 1, "acls": [dict(zip(KEYS, a)) for a in ACLS]}))
    return path


def _run(*args):
    result = CliRunner().invoke(app, ["access", *map(str, args)])
    return result


def _doc(*args):
    result = _run(*args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_one_topic_json_has_the_shared_shape_with_reasons_origins_and_excepts(acl_file):
    doc = _doc(acl_file, "--topic", "orders", "--super-users", "User:admin")
    assert doc["version"] == 1 and doc["resources"] == 1
    assert doc["query"] == {"resource_type": "TOPIC", "resource_name": "orders", "pattern": "literal", "principal": None,
                            "settings": {"super_users": ["User:admin"], "allow_everyone_if_no_acl_found": False}}
    read = [e for e in doc["access"] if e["operation"] == "READ"]
    alice = next(e for e in read if e["principal"] == "User:alice")
    assert alice["except"] == [{"principal": "User:alice", "host": "10.0.0.9"}]
    assert alice["via"]["reason"] == "acl" and alice["via"]["origin"].endswith("acls.json:1")
    assert alice["via"]["acl"]["operation"] == "READ"
    admin = next(e for e in read if e["principal"] == "User:admin")
    assert admin["via"] == {"reason": "super_user", "acl": None, "origin": None}
    describe = [e for e in doc["access"] if e["operation"] == "DESCRIBE"]
    everyone = next(e for e in describe if e["principal"] == "User:*")
    assert everyone["via"]["reason"] == "wildcard_principal"
    assert everyone["except"] == [{"principal": "User:mallory", "host": "*"}]
    assert any(e["principal"] == "User:alice" and e["implied"] for e in describe)
    assert set(doc["access"][0]) == {"resource_type", "resource_name", "principal", "host", "operation", "implied",
                                     "via", "except"}


def test_default_allow_is_the_reason_where_no_acl_covers_the_resource(acl_file):
    doc = _doc(acl_file, "--topic", "payments", "--allow-everyone-if-no-acl-found")
    assert {(e["principal"], e["host"], e["via"]["reason"]) for e in doc["access"]} == {("User:*", "*", "default_allow")}
    assert len(doc["access"]) == len(SUPPORTED_OPERATIONS[ResourceType.TOPIC])
    assert _doc(acl_file, "--topic", "payments")["access"] == []


def test_prefix_reports_each_class_of_names_under_it(acl_file):
    doc = _doc(acl_file, "--resource-prefix", "orders-")
    labels = {e["resource_name"] for e in doc["access"]}
    # `orders-` itself and the longer names answer alike: said once (they were two entries lists)
    assert labels == {"every topic starting with `orders-`"}
    assert all(e["via"]["reason"] == "wildcard_principal" for e in doc["access"])
    assert doc["query"]["pattern"] == "prefix" and doc["query"]["resource_name"] == "orders-"


def test_names_file_typed_and_plain_lines(acl_file, tmp_path):
    names = tmp_path / "names.txt"
    names.write_text("# reviewed weekly\ntopic orders\ngroup app-1\n")
    doc = _doc(acl_file, "--names", names)
    assert doc["resources"] == 2 and doc["query"]["pattern"] == "names"
    assert {("GROUP", "app-1", "prefixed")} <= {(e["resource_type"], e["resource_name"], e["via"]["reason"])
                                                for e in doc["access"]}
    plain = tmp_path / "plain.txt"
    plain.write_text("orders\nother\n")
    assert _doc(acl_file, "--names", plain, "--resource-type", "topic")["resources"] == 2
    bad = _run(acl_file, "--names", plain)
    assert bad.exit_code == 2 and "plain.txt:1:1:" in bad.output and "Traceback" not in bad.output


def test_names_from_a_live_cluster(acl_file, monkeypatch):
    install(monkeypatch, FakeAdmin(topics=["orders", "orders-eu"], groups=["app-1"]))
    doc = _doc(acl_file, "--bootstrap-server", "x:9092")
    assert doc["resources"] == 3
    assert {e["resource_name"] for e in doc["access"]} == {"orders", "orders-eu", "app-1"}
    assert _doc(acl_file, "--bootstrap-server", "x:9092", "--resource-type", "group")["resources"] == 1


def test_principal_alone_lists_everything_it_may_do(acl_file):
    doc = _doc(acl_file, "--principal", "User:bob")
    assert {e["principal"] for e in doc["access"]} == {"User:bob"}
    # classes answering alike are said once: `orders-` and the longer names under it are one scope
    assert {(e["resource_name"], e["operation"]) for e in doc["access"]} >= {
        ("every topic starting with `orders-`", "WRITE"),
        ("every topic starting with `orders` except names starting with `orders-`", "DESCRIBE")}
    assert _doc(acl_file, "--principal", "User:mallory")["access"] == []  # the DENY ALL on every orders*


def test_principal_answer_is_exact_for_names_of_every_class(acl_file):
    from kafka_authz_cli.services.acl_sources import load_source

    bindings = load_source(acl_file).bindings
    engine = StandardAuthorizer(bindings, BrokerSettings(super_users="User:admin"))
    review = AccessReview(engine)
    from kafka_authz_cli.acl.compare import NameSpace

    for principal in ("User:alice", "User:mallory", "User:bob", "User:admin"):
        answer = principal_access(review, principal, [ResourceType.TOPIC, ResourceType.GROUP])
        for rtype in (ResourceType.TOPIC, ResourceType.GROUP):
            space = NameSpace({b.resource_name for b in bindings if b.resource_type is rtype})
            for name in ("orders", "orders-", "orders-eu", "ordersX", "app-", "app-1", "zzz"):
                rep = next((r for r in answer if r.resource_type is rtype
                            and space.classify(r.name) == space.classify(name)), None)
                for op in SUPPORTED_OPERATIONS[rtype]:
                    for host in ("10.0.0.9", "10.0.0.1"):
                        allowed = engine.authorize(Request(principal, host, op, rtype, name)).outcome.name == "ALLOWED"
                        assert allowed == (rep is not None and covered(rep.grants, principal, host, op)), \
                            (principal, rtype, name, op, host)


def test_formats_and_errors(acl_file, tmp_path):
    csv_out = _run(acl_file, "--topic", "orders", "--format", "csv")
    assert csv_out.exit_code == 0 and csv_out.stdout.splitlines()[0].startswith("resource_type,resource_name,principal")
    md = _run(acl_file, "--topic", "orders", "--format", "markdown")
    assert md.exit_code == 0 and "| resource | principal |" in md.stdout and "DESCRIBE*" in md.stdout
    table = _run(acl_file, "--topic", "orders")
    assert table.exit_code == 0 and "User:alice" in table.stdout
    out = tmp_path / "r.md"
    assert _run(acl_file, "--topic", "orders", "-f", "markdown", "-o", out).exit_code == 0 and out.read_text()
    both = _run(acl_file, "--topic", "orders", "--group", "g")
    assert both.exit_code == 2 and "give one of" in both.output
    assert _run(acl_file).exit_code == 2


def test_html_goes_through_the_report_module_or_says_it_is_missing(acl_file, tmp_path):
    out = tmp_path / "r.html"
    result = _run(acl_file, "--topic", "orders", "--format", "html", "-o", out)
    try:
        import kafka_authz_cli.review.access_html  # noqa: F401
    except ModuleNotFoundError:
        assert result.exit_code == 2 and "access_html" in result.output
    else:
        assert result.exit_code == 0 and out.read_text().lstrip().lower().startswith("<!doctype")



def test_json_text_is_the_document(acl_file):
    from kafka_authz_cli.services.access import AccessOptions, run_access

    for options in (AccessOptions(acl_file, topic="orders", super_users="User:admin"),
                    AccessOptions(acl_file, resource_prefix="ord"), AccessOptions(acl_file, topic="none")):
        report = run_access(options)
        assert json.loads(report.json_text()) == report.document()


def test_the_adapter_lists_topics_and_group_ids_as_kafka_python_returns_them():
    from kafka_authz_cli.cluster.kafka_adapter import KafkaAclAdmin

    class Client:
        def list_topics(self):
            return ["b", "a"]

        def list_groups(self):
            return [{"group_id": "g2", "protocol_type": "consumer"}, ("g1", "consumer")]

    admin = KafkaAclAdmin.__new__(KafkaAclAdmin)
    admin._admin, admin.round_trips, admin.principal = Client(), 0, "User:x"
    assert admin.list_topics() == ["a", "b"]
    assert admin.list_groups() == ["g1", "g2"]
    assert admin.round_trips == 2


def test_the_json_is_the_same_whatever_the_hash_seed():
    """Sets of principals are walked in one order: the same ACLs give the same bytes on every run."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    outs = set()
    for seed in ("1", "2", "3"):
        run = subprocess.run([sys.executable, "-m", "kafka_authz_cli", "access", "examples/whatif/proposed.json",
                              "--resource-prefix", "orders", "--format", "json"], cwd=root, capture_output=True,
                             text=True, env={**os.environ, "PYTHONHASHSEED": seed}, check=True)
        outs.add(run.stdout)
    assert len(outs) == 1
