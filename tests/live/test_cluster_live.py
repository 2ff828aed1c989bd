"""`authz cluster plan/apply`, `diff cluster:` and `whatif --current cluster:` against the real broker."""

import json
import socket
import time
from itertools import product

import pytest

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.classes import every_host as _hosts
from kafka_authz_cli.acl.classes import every_principal as _principals
from kafka_authz_cli.acl.compare import NameSpace
from kafka_authz_cli.acl.engine import Request, StandardAuthorizer
from kafka_authz_cli.acl.model import CLUSTER_NAME, SUPPORTED_OPERATIONS, AclBinding, ResourceType
from kafka_authz_cli.cluster.rollout import Plan, batches, intermediate_states
from kafka_authz_cli.services import cluster as cluster_service

pytestmark = pytest.mark.live


def acl(rtype, name, principal, op, perm="ALLOW", pattern="LITERAL", host="*"):
    return AclBinding.of(rtype, name, pattern, principal, host, op, perm)


def write_set(path, bindings):
    path.write_text(json.dumps({"version": 1, "acls": [b.as_dict() for b in bindings]}))
    return path


def make_user(authz, user, password, mechanism="SCRAM-SHA-512"):
    res = authz("scram", "create-user", "--user", user, "--mechanism", mechanism, "--password-stdin", *authz.live,
                input=password + "\n")
    assert res.exit_code == 0, res.output


def widened(old, new, states, super_users):
    """The first request some state grants that neither end does (None: no window was opened)."""
    cfg = BrokerSettings(super_users=super_users)
    ends = [StandardAuthorizer(old, cfg), StandardAuthorizer(new, cfg)]
    mids = [StandardAuthorizer(s, cfg) for s in states]
    everything = [b for s in (old, new, *states) for b in s]
    principals, hosts = _principals(everything, frozenset()), _hosts(everything)
    for rtype in ResourceType.concrete():
        names = [CLUSTER_NAME] if rtype is ResourceType.CLUSTER else [
            n for n, _ in NameSpace({b.resource_name for b in everything if b.resource_type is rtype}).representatives()]
        for name, p, h, op in product(names, principals, hosts, SUPPORTED_OPERATIONS[rtype]):
            r = Request(p, h, op, rtype, name)
            if not any(e.authorize(r).allowed for e in ends) and any(m.authorize(r).allowed for m in mids):
                return r
    return None


OLD = [acl("TOPIC", "orders", "User:alice", "READ"), acl("TOPIC", "orders", "User:alice", "WRITE"),
       acl("TOPIC", "orders-", "User:bob", "READ", pattern="PREFIXED"),
       acl("TOPIC", "orders-secret", "User:bob", "READ", "DENY"),
       acl("GROUP", "app-", "User:alice", "READ", pattern="PREFIXED"),
       acl("TOPIC", "payments", "User:pay", "ALL")]  # outside the scope used below
NEW = [acl("TOPIC", "orders", "User:alice", "READ"),
       acl("TOPIC", "orders", "User:bob", "READ"),
       acl("TOPIC", "orders-", "User:*", "DESCRIBE", pattern="PREFIXED"),
       acl("TOPIC", "orders-", "User:bob", "WRITE", "DENY", pattern="PREFIXED"),
       acl("TOPIC", "orders-eu", "User:bob", "READ"),
       acl("GROUP", "app-", "User:alice", "READ", pattern="PREFIXED")]


def test_plan_and_apply_in_batches_never_widen_access_on_the_broker(authz, clean, read_acls, settled, kafka, tmp_path,
                                                                   monkeypatch):
    clean.put(OLD)
    plan_path = tmp_path / "plan.json"
    scope = ["--scope", "topic-prefix=orders", "--scope", "group-prefix=app-"]
    res = authz("cluster", "plan", write_set(tmp_path / "new.json", NEW), *authz.live, *scope, "--allow-delete",
                "-o", plan_path, "--super-users", kafka.super_users, "--detailed-exitcode")
    assert res.exit_code == 2, res.output
    doc = json.loads(plan_path.read_text())
    assert doc["summary"] == {"create": 4, "delete": 3, "kept": 0, "unmanaged": 1, "observed": 6}
    assert [b["resource_name"] for b in doc["unmanaged"]] == ["payments"]
    assert [p["phase"] for p in doc["phases"]] == ["add DENY", "remove ALLOW", "add ALLOW", "remove DENY"]
    assert doc["effect"]["verdict"] == "both"
    plan = Plan.from_json(doc, str(plan_path))
    expected = intermediate_states(list(plan.observed), batches(plan.creates, plan.deletes, 1))

    seen = []
    monkeypatch.setattr(cluster_service, "ON_BATCH", lambda batch, failed: seen.append(settled(expected[len(seen)])))
    res = authz("cluster", "apply", plan_path, "--command-config", kafka.command_config(), "--batch-size", "1",
                "--yes", "--max-deletes", "3")
    assert res.exit_code == 0, res.output
    assert "applied 7 of 7" in res.output
    # The broker's own ACLs after every batch: exactly the planned intermediate states, none of which
    # grants a request that neither the old nor the new set grants.
    assert [set(s) for s in expected] == seen
    assert widened(OLD, NEW + [OLD[-1]], [list(s) for s in seen], kafka.super_users) is None
    assert settled(set(NEW) | {OLD[-1]}) == set(NEW) | {OLD[-1]}  # the unmanaged ACL is still there

    res = authz("cluster", "apply", plan_path, "--command-config", kafka.command_config(), "--yes")
    assert res.exit_code == 0 and "already applied" in res.output
    res = authz("cluster", "plan", tmp_path / "new.json", *authz.live, *scope, "--allow-delete", "--detailed-exitcode")
    assert res.exit_code == 0, res.output


def test_apply_refuses_when_the_cluster_changed_since_the_plan(authz, clean, read_acls, tmp_path):
    plan_path = tmp_path / "plan.json"
    res = authz("cluster", "plan", write_set(tmp_path / "new.json", NEW), *authz.live, "-o", plan_path)
    assert res.exit_code == 0, res.output
    sneaky = acl("TOPIC", "orders", "User:mallory", "ALL")
    clean.put([sneaky])
    res = authz("cluster", "apply", plan_path, *authz.live, "--yes")
    assert res.exit_code == 3, res.output
    assert "changed since the plan (1 added, 0 removed)" in res.output and "User:mallory" in res.output
    assert read_acls() == {sneaky}


def test_empty_desired_set_deletes_nothing_live(authz, clean, read_acls, tmp_path):
    clean.put(OLD)
    empty = tmp_path / "empty.json"
    empty.write_text("")
    res = authz("cluster", "apply", empty, *authz.live, "--yes")
    assert res.exit_code == 0 and read_acls() == set(OLD)
    res = authz("cluster", "apply", empty, *authz.live, "--yes", "--allow-delete", input="")
    assert res.exit_code == 4 and read_acls() == set(OLD)


def test_partial_failure_is_reported_exactly_and_a_fresh_plan_finishes(authz, clean, read_acls, settled, kafka,
                                                                       tmp_path):
    """ops may ALTER the cluster only through an ACL the plan removes: the batches after that one are
    refused by the broker, and the report says which were applied, refused and not attempted."""
    make_user(authz, "ops", "ops-secret")
    ops_alter = acl("CLUSTER", CLUSTER_NAME, "User:ops", "ALTER")
    ops_describe = acl("CLUSTER", CLUSTER_NAME, "User:ops", "DESCRIBE")
    old = [ops_alter, ops_describe, acl("TOPIC", "a", "User:alice", "READ")]
    new = [ops_describe, acl("TOPIC", "b", "User:bob", "READ"), acl("TOPIC", "a", "User:carol", "READ", "DENY")]
    clean.put(old)
    ops = kafka.command_config("ops", "ops-secret")
    live_ops = ["--bootstrap-server", kafka.bootstrap, "--command-config", ops]
    plan_path = tmp_path / "plan.json"
    assert authz("cluster", "plan", write_set(tmp_path / "new.json", new), *live_ops, "--allow-delete",
                 "-o", plan_path).exit_code == 0
    res = authz("cluster", "apply", plan_path, "--command-config", ops, "--batch-size", "1", "--yes",
                "--max-deletes", "2")
    assert res.exit_code == 1, res.output
    state, since = read_acls(), time.monotonic()
    while time.monotonic() - since < 1.0:  # until the broker has shown the same ACLs for a second
        now = read_acls()
        if now != state:
            state, since = now, time.monotonic()
        time.sleep(0.1)
    assert "failed (" in res.output and "User:ops is not allowed to ALTER the cluster" in res.output
    assert "incomplete" in res.output and "not attempted" in res.output
    applied = int(res.output.split("applied ")[1].split(" of")[0])
    assert applied == len(state ^ set(old))  # exactly what the report says was applied
    assert ops_alter not in state and acl("TOPIC", "b", "User:bob", "READ") not in state
    # Finish with the admin: re-running the same plan resumes it.
    res = authz("cluster", "apply", plan_path, "--command-config", kafka.command_config(), "--yes",
                "--max-deletes", "2")
    assert res.exit_code == 0 and "resuming" in res.output, res.output
    assert settled(new) == set(new)


def test_diff_and_whatif_take_a_live_side(authz, clean, kafka, tmp_path):
    clean.put(OLD)
    old = write_set(tmp_path / "old.json", OLD[:-1])
    res = authz("diff", old, f"cluster:{kafka.bootstrap}", "--command-config", kafka.command_config(), "-f", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert [b["resource_name"] for b in doc["bindings"]["added"]] == ["payments"] and not doc["bindings"]["removed"]
    assert doc["verdict"] == "more permissive"
    proposed = write_set(tmp_path / "new.json", NEW)
    res = authz("whatif", "--logs", kafka.audit_log, "--proposed", proposed, "--current", f"cluster:{kafka.bootstrap}",
                "--command-config", kafka.command_config(), "--super-users", kafka.super_users, "-f", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["current_reproduces"]["comparable"] > 0 and doc["lines"]["quarantined_lines"] == 0


def test_unreachable_broker_fails_within_timeout(authz):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    res = authz("cluster", "pull", "--bootstrap-server", f"127.0.0.1:{port}", "--timeout", "2")
    assert time.monotonic() - t0 < 6
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        f"authz: error: cannot reach a Kafka broker at 127.0.0.1:{port} within 2 s (connection refused)"]


def test_bad_credentials_one_line(authz, kafka):
    bad = kafka.command_config("admin", "not-the-password", "SCRAM-SHA-512", name="bad-admin.properties")
    res = authz("cluster", "pull", "--bootstrap-server", kafka.bootstrap, "--command-config", bad, "--timeout", "3")
    assert res.exit_code == 2
    [line] = res.output.strip().splitlines()
    assert line.startswith("authz: error: authentication failed for admin (SCRAM-SHA-512)")


def test_admin_without_alter_on_cluster_one_line(authz, clean, kafka, tmp_path):
    make_user(authz, "viewer", "viewer-secret", "SCRAM-SHA-256")
    clean.put([acl("CLUSTER", CLUSTER_NAME, "User:viewer", "DESCRIBE")])
    viewer = kafka.command_config("viewer", "viewer-secret", "SCRAM-SHA-256")
    res = authz("cluster", "apply", write_set(tmp_path / "d.json", NEW), "--bootstrap-server", kafka.bootstrap,
                "--command-config", viewer, "--yes")
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines()[-1] == (
        "authz: error: User:viewer is not allowed to ALTER the cluster: CreateAcls needs ALTER on the CLUSTER "
        "resource (an ACL for kafka-cluster, or super.users); nothing was changed")
    clear = kafka.command_config("viewer", "viewer-secret", "SCRAM-SHA-256")
    res = authz("cluster", "pull", "--bootstrap-server", kafka.bootstrap, "--command-config", clear)
    assert res.exit_code == 0
    res = authz("scram", "list", "--bootstrap-server", kafka.bootstrap, "--command-config", viewer)
    assert res.exit_code == 0 and "viewer" in res.output
    res = authz("scram", "create-user", "--user", "x", "--password-stdin", "--bootstrap-server", kafka.bootstrap,
                "--command-config", viewer, input="pw\n")
    assert res.exit_code == 2
    assert res.output.strip().splitlines()[-1].startswith(
        "authz: error: User:viewer is not allowed to ALTER the cluster: AlterUserScramCredentials needs ALTER")


def test_pull_to_strimzi_then_plan_of_it_plans_nothing(authz, clean, read_acls, tmp_path):
    """Issue 21: the cluster's ACLs as KafkaUsers, planned back against the same broker: no change."""
    users = [acl("TOPIC", "orders", "User:CN=orders-app", "READ"), acl("TOPIC", "orders", "User:CN=orders-app", "DESCRIBE"),
             acl("GROUP", "orders-", "User:CN=orders-app", "READ", pattern="PREFIXED"),
             acl("TOPIC", "orders-secret", "User:billing", "READ", "DENY", host="10.1.2.3"),
             acl("TRANSACTIONAL_ID", "billing-tx", "User:billing", "WRITE"),
             acl("CLUSTER", CLUSTER_NAME, "User:billing", "IDEMPOTENT_WRITE")]
    clean.put(users)
    pulled = tmp_path / "users.yaml"
    res = authz("cluster", "pull", *authz.live, "--to", "strimzi", "--strimzi-cluster", "live", "-o", pulled)
    assert res.exit_code == 0, res.output
    assert pulled.read_text().count("kind: KafkaUser") == 2
    plan = tmp_path / "plan.json"
    res = authz("cluster", "plan", pulled, *authz.live, "--allow-delete", "-o", plan)
    assert res.exit_code == 0, res.output
    doc = json.loads(plan.read_text())
    assert doc["creates"] == [] and doc["deletes"] == [] and read_acls() == set(users)
