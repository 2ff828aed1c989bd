"""The live-cluster commands against a fake admin (fault injection); conversions against kafka-python's
own classes; `--command-config` read as the Java client reads it. Everything here is also proven
against a real broker in tests/live/."""

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.acl.filter import AclFilter
from kafka_authz_cli.acl.formats import load_acls
from kafka_authz_cli.acl.model import AclBinding
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cluster import DEFAULT_MAX_DELETES, Declined, DriftError
from kafka_authz_cli.cluster.kafka_adapter import ClusterError, client_config, from_kafka_acl, plan_sync, to_kafka_acl
from kafka_authz_cli.errors import AuthzError, InputError
from tests.fake_admin import FakeAdmin, install

EXAMPLE = Path(__file__).parents[2] / "examples" / "acls" / "cluster.json"
runner = CliRunner()


def acl(name, principal="User:x", op="READ", perm="ALLOW", rtype="TOPIC", pattern="LITERAL"):
    return AclBinding.of(rtype, name, pattern, principal, "*", op, perm)


def write_set(path, bindings):
    path.write_text(json.dumps({"version": 1, "acls": [b.as_dict() for b in bindings]}))
    return path


@pytest.fixture
def fake(monkeypatch):
    return install(monkeypatch, FakeAdmin([acl("legacy", "User:old")]))


def cli(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_every_binding_survives_kafka_python_objects():
    for b in load_acls(EXAMPLE):
        assert from_kafka_acl(to_kafka_acl(b)) == b


def test_apply_of_an_acl_set_adds_and_never_deletes_without_allow_delete(fake):
    res = cli("cluster", "apply", str(EXAMPLE), "--bootstrap-server", "localhost:9092", "--yes")
    assert res.exit_code == 0, res.output
    assert set(fake.acls) == set(load_acls(EXAMPLE)) | {acl("legacy", "User:old")}
    assert fake.deleted == [] and "1 kept" in res.output


def test_apply_with_allow_delete_makes_the_cluster_equal_to_the_file(fake):
    res = cli("cluster", "apply", str(EXAMPLE), "--bootstrap-server", "x:1", "--allow-delete", "--yes",
              "--max-deletes", "1")
    assert res.exit_code == 0, res.output
    assert sorted(map(str, fake.acls)) == sorted(map(str, load_acls(EXAMPLE)))
    assert [b.resource_name for b in fake.deleted] == ["legacy"]


@pytest.mark.parametrize("content", ["", '{"version":1,"acls":[]}'])
def test_empty_desired_set_never_deletes_without_allow_delete(fake, tmp_path, content):
    # issue 10: a 0-byte file or an empty set with --yes used to delete every ACL on the cluster.
    f = tmp_path / "empty.json"
    f.write_text(content)
    res = cli("cluster", "apply", str(f), "--bootstrap-server", "x:1", "--yes")
    assert res.exit_code == 0, res.output
    assert fake.deleted == [] and fake.acls == [acl("legacy", "User:old")]


def test_deleting_more_than_half_needs_max_deletes_or_typed_number(monkeypatch, tmp_path):
    admin = install(monkeypatch, FakeAdmin([acl(f"t{i}") for i in range(4)]))
    keep_one = write_set(tmp_path / "one.json", [acl("t0")])
    args = ["cluster", "apply", str(keep_one), "--bootstrap-server", "x:1", "--allow-delete", "--yes"]
    res = cli(*args, input="")  # stdin at EOF: a decline, exit 4, nothing deleted
    assert res.exit_code == 4 and "declined" in res.output and admin.deleted == []
    res = cli(*args, input="2\n")  # the wrong number
    assert res.exit_code == 4 and admin.deleted == []
    res = cli(*args, "--max-deletes", "2")
    assert res.exit_code == 2 and "more than --max-deletes 2" in res.output and admin.deleted == []
    res = cli(*args, input="3\n")
    assert res.exit_code == 0, res.output
    assert admin.acls == [acl("t0")]


def test_more_than_n_deletes_need_max_deletes(monkeypatch, tmp_path):
    admin = install(monkeypatch, FakeAdmin([acl(f"t{i}") for i in range(DEFAULT_MAX_DELETES * 3)]))
    keep = write_set(tmp_path / "keep.json", admin.acls[:DEFAULT_MAX_DELETES * 2 - 1])
    n = DEFAULT_MAX_DELETES + 1
    res = cli("cluster", "apply", str(keep), "--bootstrap-server", "x:1", "--allow-delete", "--yes")
    assert res.exit_code == 4 and admin.deleted == []
    res = cli("cluster", "apply", str(keep), "--bootstrap-server", "x:1", "--allow-delete", "--yes",
              "--max-deletes", str(n))
    assert res.exit_code == 0 and len(admin.deleted) == n


def test_declining_the_prompt_exits_4_with_a_message(fake):
    res = cli("cluster", "apply", str(EXAMPLE), "--bootstrap-server", "x:1", input="n\n")
    assert res.exit_code == 4 and "declined: nothing was changed" in res.output
    assert fake.created == []
    res = cli("cluster", "apply", str(EXAMPLE), "--bootstrap-server", "x:1", input="")
    assert res.exit_code == 4 and fake.created == []


def test_dry_run_changes_nothing(fake):
    res = cli("cluster", "apply", str(EXAMPLE), "--bootstrap-server", "x:1", "--dry-run")
    assert res.exit_code == 0 and "10 to create, 0 to delete" in res.output
    assert fake.created == [] and fake.deleted == []


def test_apply_refuses_acls_the_broker_would_reject(fake, tmp_path):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps({"version": 1, "acls": [{"resource_type": "GROUP", "resource_name": "g",
                                                      "pattern_type": "LITERAL", "principal": "User:a", "host": "*",
                                                      "operation": "WRITE", "permission": "ALLOW"}]}))
    res = cli("cluster", "apply", str(f), "--bootstrap-server", "x:1", "--yes")
    assert res.exit_code == 2 and "nothing was planned" in res.output
    assert fake.created == []


def test_pull_writes_kafka_acls_text_and_filters_like_kafka_acls(fake, tmp_path):
    out = tmp_path / "acls.txt"
    res = cli("cluster", "pull", "--bootstrap-server", "x:1", "--to", "kafka-acls", "-o", str(out))
    assert res.exit_code == 0
    assert load_acls(out) == fake.acls
    fake.acls += [acl("*", "User:y"), acl("leg", "User:y", pattern="PREFIXED")]
    res = cli("cluster", "pull", "--bootstrap-server", "x:1", "--topic", "legacy")
    assert res.exit_code == 0 and [b["resource_name"] for b in json.loads(res.stdout)["acls"]] == ["legacy"]
    res = cli("cluster", "pull", "--bootstrap-server", "x:1", "--topic", "legacy", "--resource-pattern-type", "match")
    assert sorted(b["resource_name"] for b in json.loads(res.stdout)["acls"]) == ["*", "leg", "legacy"]
    res = cli("cluster", "pull", "--bootstrap-server", "x:1", "--principal", "User:y")
    assert sorted(b["resource_name"] for b in json.loads(res.stdout)["acls"]) == ["*", "leg"]
    res = cli("cluster", "pull", "--bootstrap-server", "x:1", "--resource-pattern-type", "nonsense")
    assert res.exit_code == 2


def test_plan_scope_leaves_unmanaged_acls_alone(fake, tmp_path):
    fake.acls = [acl("orders", "User:alice"), acl("orders-x", "User:bob"), acl("payments", "User:alice")]
    desired = write_set(tmp_path / "d.json", [acl("orders-new", "User:alice")])
    plan_path = tmp_path / "plan.json"
    res = cli("cluster", "plan", str(desired), "--bootstrap-server", "x:1", "--scope", "principal=User:alice",
              "--scope", "topic-prefix=orders", "--allow-delete", "-o", str(plan_path))
    assert res.exit_code == 0, res.output
    plan = json.loads(plan_path.read_text())
    assert [b["resource_name"] for b in plan["creates"]] == ["orders-new"]
    assert [b["resource_name"] for b in plan["deletes"]] == ["orders"]
    assert sorted(b["resource_name"] for b in plan["unmanaged"]) == ["orders-x", "payments"]
    assert "2 unmanaged" in res.output
    outside = write_set(tmp_path / "o.json", [acl("payments-2", "User:alice")])
    res = cli("cluster", "plan", str(outside), "--bootstrap-server", "x:1", "--scope", "topic-prefix=orders")
    assert res.exit_code == 2 and "outside the scope" in res.output


def test_scope_file_errors_name_the_line(fake, tmp_path):
    f = tmp_path / "scope.txt"
    f.write_text("# team a\nprincipal=User:alice\n\nflavour=vanilla\n")
    res = cli("cluster", "plan", str(EXAMPLE), "--bootstrap-server", "x:1", "--scope-file", str(f))
    assert res.exit_code == 2 and f"{f}:4: scope 'flavour=vanilla'" in res.output


def test_plan_detailed_exitcode_and_effect(fake, tmp_path):
    desired = write_set(tmp_path / "d.json", [acl("legacy", "User:old"), acl("orders", "User:alice", "WRITE")])
    res = cli("cluster", "plan", str(desired), "--bootstrap-server", "x:1", "--detailed-exitcode", "-f", "json")
    assert res.exit_code == 2
    doc = json.loads(res.stdout)
    assert doc["effect"]["verdict"] == "more permissive"
    assert any("User:alice can now WRITE" in f["description"] for f in doc["effect"]["findings"])
    same = write_set(tmp_path / "s.json", [acl("legacy", "User:old")])
    assert cli("cluster", "plan", str(same), "--bootstrap-server", "x:1", "--detailed-exitcode").exit_code == 0
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert cli("cluster", "plan", str(broken), "--bootstrap-server", "x:1", "--detailed-exitcode").exit_code == 1


def _plan(tmp_path, desired, *extra):
    path = tmp_path / "plan.json"
    res = cli("cluster", "plan", str(desired), "--bootstrap-server", "x:1", "-o", str(path), *extra)
    assert res.exit_code == 0, res.output
    return path


def test_apply_refuses_drift_and_shows_it(fake, tmp_path):
    path = _plan(tmp_path, EXAMPLE)
    fake.acls.append(acl("sneaky", "User:mallory"))
    res = cli("cluster", "apply", str(path), "--yes")
    assert res.exit_code == 3 and "changed since the plan (1 added, 0 removed)" in res.output
    assert "User:mallory" in res.output and fake.created == []


def test_apply_rerun_is_a_no_op_and_a_partial_apply_resumes(monkeypatch, tmp_path):
    admin = install(monkeypatch, FakeAdmin([acl("legacy", "User:old")], die_after=2))
    path = _plan(tmp_path, EXAMPLE)
    res = cli("cluster", "apply", str(path), "--yes", "--batch-size", "3")
    assert res.exit_code == 1, res.output
    # 2 DENYs, then ALLOWs in batches of 3: the third request never gets an answer
    assert "applied 5 of 10" in res.output and "3 unknown" in res.output and "2 not attempted" in res.output
    admin.die_after = None
    res = cli("cluster", "apply", str(path), "--yes", "--batch-size", "3")
    assert res.exit_code == 0 and "resuming: 5 of 10" in res.output
    assert set(admin.acls) == set(load_acls(EXAMPLE)) | {acl("legacy", "User:old")}
    res = cli("cluster", "apply", str(path), "--yes")
    assert res.exit_code == 0 and "already applied" in res.output


def test_a_refused_deny_stops_before_any_allow_is_added(monkeypatch, tmp_path):
    deny = acl("orders", "User:bob", "READ", "DENY")
    allow = acl("orders", "User:*", "READ", "ALLOW")
    admin = install(monkeypatch, FakeAdmin([], refuse={deny}))
    path = _plan(tmp_path, write_set(tmp_path / "d.json", [allow, deny]))
    res = cli("cluster", "apply", str(path), "--yes")
    assert res.exit_code == 1
    assert admin.acls == [] and "failed (add DENY)" in res.output and "not attempted (add ALLOW)" in res.output


def test_an_edited_plan_is_refused(fake, tmp_path):
    path = _plan(tmp_path, EXAMPLE)
    doc = json.loads(path.read_text())
    doc["observed"] = []
    path.write_text(json.dumps(doc))
    res = cli("cluster", "apply", str(path), "--yes")
    assert res.exit_code == 2 and "fingerprint" in res.output


def test_plan_sync():
    a, b = acl("a"), acl("b")
    assert plan_sync([a], [b]) == ([b], [a])


def test_acl_filter_matches_like_kafka():
    lit, star, pre = acl("orders-1"), acl("*"), acl("orders-", pattern="PREFIXED")
    match = AclFilter.__new__(AclFilter)
    from kafka_authz_cli.acl.model import PatternType, ResourceType

    match = AclFilter(ResourceType.TOPIC, "orders-1", PatternType.MATCH)
    assert [b for b in (lit, star, pre, acl("orders-2")) if match.matches(b)] == [lit, star, pre]
    assert [b for b in (lit, star, pre) if AclFilter(ResourceType.TOPIC, "orders-1", PatternType.LITERAL).matches(b)] == [lit]
    assert AclFilter(ResourceType.ANY, "*", PatternType.ANY).matches(star)


# -- --command-config, read as the Java client reads it -------------------------------------------

JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required "


def test_client_config_from_java_properties():
    cfg = client_config({"security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
                         "sasl.jaas.config": JAAS + 'username="alice" password="s3cr=t";',
                         "ssl.truststore.location": "/etc/ca.pem"})
    assert cfg == {"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512", "sasl_plain_username": "alice",
                   "sasl_plain_password": "s3cr=t", "ssl_cafile": "/etc/ca.pem",
                   "bootstrap_timeout_ms": 10000, "request_timeout_ms": 10000}
    with pytest.raises(InputError, match="PEM"):
        client_config({"ssl.truststore.location": "/etc/truststore.jks"})


def test_jaas_values_are_unescaped_as_java_does():
    # issue 10: \" and \\ were kept verbatim, so the line authz's own `-f jaas` writes did not log in.
    cfg = client_config({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
                         "sasl.jaas.config": JAAS + r'username="al\"ice" password="a\\b\"c";'})
    assert cfg["sasl_plain_username"] == 'al"ice' and cfg["sasl_plain_password"] == 'a\\b"c'


def test_jaas_written_by_create_user_reads_back(tmp_path):
    pw = tmp_path / "pw"
    pw.write_text('p"a\\ss wo;rd\n')
    pw.chmod(0o600)
    res = runner.invoke(app, ["scram", "create-user", "--user", "bob", "--password-file", str(pw), "-f", "jaas"])
    assert res.exit_code == 0, res.output
    from kafka_authz_cli._java.properties import parse_properties

    props = parse_properties(res.stdout)
    props["security.protocol"] = "SASL_PLAINTEXT"
    assert client_config(props)["sasl_plain_password"] == 'p"a\\ss wo;rd'


def test_jaas_line_without_final_semicolon_is_refused():
    with pytest.raises(InputError, match="JAAS config entry not terminated by semi-colon"):
        client_config({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                       "sasl.jaas.config": JAAS + 'username="a" password="b"'})


@pytest.mark.parametrize("mechanism", ["GSSAPI", "OAUTHBEARER", None])
def test_gssapi_and_oauthbearer_are_not_supported(mechanism):
    props = {"security.protocol": "SASL_SSL", "sasl.jaas.config": JAAS + 'username="a" password="b";'}
    if mechanism:
        props["sasl.mechanism"] = mechanism
    with pytest.raises(InputError, match="mechanism not supported by authz") as exc:
        client_config(props)
    assert (mechanism or "GSSAPI") in str(exc.value)


def test_keystore_hint_names_the_keystore():
    with pytest.raises(InputError) as exc:
        client_config({"security.protocol": "SSL", "ssl.keystore.location": "/etc/client.p12"})
    assert "ssl.keystore.type=PEM" in str(exc.value) and "the keystore /etc/client.p12" in str(exc.value)


def test_request_timeout_ms_abc_is_one_line(tmp_path):
    cfg = tmp_path / "c.properties"
    cfg.write_text("request.timeout.ms=abc\n")
    res = runner.invoke(app, ["cluster", "pull", "--bootstrap-server", "127.0.0.1:1", "--command-config", str(cfg)])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"authz: error: {cfg}: request.timeout.ms: expected a whole number of milliseconds, got 'abc'"]


def test_unreachable_broker_fails_within_timeout_with_one_message():
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    res = runner.invoke(app, ["cluster", "pull", "--bootstrap-server", f"127.0.0.1:{port}", "--timeout", "1.5"])
    elapsed = time.monotonic() - t0
    assert res.exit_code == 2 and elapsed < 5
    lines = res.output.strip().splitlines()
    assert lines == [f"authz: error: cannot reach a Kafka broker at 127.0.0.1:{port} within 1.5 s "
                     "(connection refused)"]


def test_exception_names_are_not_doubled():
    from kafka.errors import RequestTimedOutError

    from kafka_authz_cli.cluster.kafka_adapter import _message

    assert _message(RequestTimedOutError("Request timed out after 9994 ms")) == \
        "RequestTimedOutError: Request timed out after 9994 ms"


def test_timeout_must_be_positive():
    res = runner.invoke(app, ["cluster", "pull", "--bootstrap-server", "x:1", "--timeout", "0"])
    assert res.exit_code == 2 and "--timeout must be positive" in res.output


def test_authz_error_hierarchy():
    assert issubclass(ClusterError, AuthzError)
    assert Declined.exit_code == 4 and DriftError.exit_code == 3


def test_jaas_file_with_non_ascii_password_is_ascii_and_reads_back(tmp_path):
    pw = tmp_path / "pw"
    pw.write_text("pässwörd 😀\n")
    pw.chmod(0o600)
    res = runner.invoke(app, ["scram", "create-user", "--user", "bob", "--password-file", str(pw), "-f", "jaas"])
    assert res.exit_code == 0 and res.stdout.isascii()  # java.util.Properties reads ISO-8859-1
    from kafka_authz_cli._java.properties import parse_properties

    props = parse_properties(res.stdout)
    props["security.protocol"] = "SASL_PLAINTEXT"
    assert client_config(props)["sasl_plain_password"] == "pässwörd 😀"


@pytest.mark.parametrize("content", ["", "\ufeff\n  \n", "KafkaPrincipal,ResourceType,PatternType,ResourceName,"
                                     "Operation,PermissionType,Host\n"])
@pytest.mark.parametrize("command", ["plan", "apply"])
def test_an_empty_desired_file_is_said_loudly(fake, tmp_path, content, command):
    # issue 20: an empty file (or only comments) as the desired state means "no ACLs": say so before applying.
    f = tmp_path / "empty.acl"
    f.write_text(content, encoding="utf-8")
    extra = ["--yes", "--dry-run"] if command == "apply" else []
    res = cli("cluster", command, str(f), "--bootstrap-server", "x:1", "--allow-delete", *extra)
    assert "THE DESIRED ACL SET IS EMPTY: this plan deletes all 1 ACL(s) in scope" in " ".join(res.output.split())
    assert fake.deleted == []
    assert "no ACLs" in res.output
