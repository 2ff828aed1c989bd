"""`authz compact`: Kafka's traps kept, what went and why, the proof, the output and the exit codes."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli.acl import AclBinding, BrokerSettings, ResourceType, diff
from kafka_authz_cli.review import compact_acls
from kafka_authz_cli.services import compact as service
from tests.cli_runner import run

NONE = BrokerSettings()


def acl(name, principal="User:alice", op="READ", permission="ALLOW", pattern="LITERAL", host="*", rtype="TOPIC"):
    return AclBinding.of(rtype, name, pattern, principal, host, op, permission)


def kept(acls, super_users="", allow_everyone=False, names=None):
    settings = BrokerSettings(super_users=super_users, allow_everyone_if_no_acl_found=allow_everyone)
    result = compact_acls(acls, settings, names)
    if names is None:
        assert diff(acls, result.bindings, settings, settings).verdict == "equivalent"
    return result


def reasons(result):
    return {(r.binding.resource_name, r.binding.operation.name, r.binding.principal): r.reason for r in result.removals}


def test_duplicates_shadowed_and_implied_describe_go():
    acls = [acl("orders"), acl("orders"), acl("orders", op="DESCRIBE"), acl("ord", op="ALL", pattern="PREFIXED"),
            acl("payments", op="DESCRIBE_CONFIGS"), acl("payments", op="ALTER_CONFIGS")]
    result = kept(acls)
    assert result.before == 6 and result.after == 2
    assert result.counts()["duplicate"] == 1 and result.counts()["shadowed"] == 3
    assert reasons(result)[("payments", "DESCRIBE_CONFIGS", "User:alice")] == "shadowed"


def test_a_deny_implies_nothing_so_it_shadows_only_its_own_operation():
    # DENY READ does not deny DESCRIBE: the ALLOW READ still allows DESCRIBE and must stay.
    result = kept([acl("t", op="READ"), acl("t", op="READ", permission="DENY")])
    assert result.after == 2
    # An ALLOW WRITE under a DENY ALL of everyone matches nothing that is not denied.
    result = kept([acl("t", op="WRITE"), acl("t", principal="User:*", op="ALL", permission="DENY")])
    assert [r.reason for r in result.removals] == ["denied"]
    # A DENY READ is not shadowed by a DENY of another operation, even one that implies it for ALLOWs.
    assert kept([acl("t", op="DESCRIBE", permission="DENY"), acl("t", op="READ", permission="DENY")]).after == 2


def test_wildcards_shadow_only_what_they_reach():
    # User:* and host * cover one principal and one host; not the other way round.
    assert kept([acl("t", host="10.0.0.1"), acl("t", principal="User:*")]).after == 1
    assert kept([acl("t", principal="User:*"), acl("t", host="10.0.0.1", principal="User:*")]).after == 1
    assert kept([acl("t", principal="User:*", host="10.0.0.1"), acl("t")]).after == 2
    # LITERAL * reaches every name but those starting with '*' (Kafka skips it there).
    assert kept([acl("*"), acl("orders")]).after == 1
    assert kept([acl("*"), acl("*team", rtype="GROUP"), acl("*", rtype="GROUP")]).after == 3
    assert kept([acl("*"), acl("o", pattern="PREFIXED")]).after == 1
    assert kept([acl("*"), acl("*o", pattern="PREFIXED")]).after == 2
    # A literal name is not a prefix: LITERAL `ord` does not shadow `orders`; PREFIXED `*` is a prefix.
    assert kept([acl("ord"), acl("orders")]).after == 2
    assert kept([acl("*", pattern="PREFIXED"), acl("*x")]).after == 1


def test_moot_acls_go_unless_their_presence_switches_the_default_off():
    acls = [acl("t", principal="User:admin", op="WRITE"), acl("u", host="localhost")]
    result = kept(acls, super_users="User:admin")
    assert sorted(r.reason for r in result.removals) == ["super_user", "unmatchable_host"]
    # allow.everyone.if.no.acl.found=true: each is the only ACL on its topic, and ends the default there.
    assert kept(acls, super_users="User:admin", allow_everyone=True).after == 2
    # ... unless a kept ACL reaches every name it reaches.
    result = kept(acls + [acl("t", principal="User:bob"), acl("u", principal="User:bob", op="DELETE", permission="DENY")],
                  super_users="User:admin", allow_everyone=True)
    assert result.after == 2 and sorted(r.reason for r in result.removals) == ["super_user", "unmatchable_host"]
    # User:* is no wildcard in super.users: an ACL for User:* is never moot.
    assert kept([acl("t", principal="User:*")], super_users="User:*").after == 1


def test_acls_kafka_decides_oddly_are_left_alone():
    acls = [acl("(a", rtype="GROUP"), acl("(a", rtype="GROUP"), acl("(", rtype="GROUP", pattern="PREFIXED"),
            acl("t", principal="nocolon"), acl("t"), acl("t", op="DESCRIBE")]
    result = compact_acls(acls)
    assert [r.reason for r in result.removals] == ["duplicate"]  # even there, Kafka stores each ACL once
    assert result.after == 5
    assert result.untouched == {"a resource type with an ACL name starting below '*' (Kafka's wildcard re-scan "
                                "walks into it)": 2, "a resource type with an ACL whose principal has no ':'": 3}


def test_merging_needs_known_names_and_widens_only_outside_them():
    acls = [acl(f"orders-eu-{i}") for i in range(1, 5)] + [acl("orders-us-1", principal="User:bob")]
    assert kept(acls).after == 5  # no names: a prefix always grants names no literal did
    names = {ResourceType.TOPIC: {f"orders-eu-{i}" for i in range(1, 5)} | {"orders-us-1", "payments"}}
    result = kept(acls, names=names)
    assert result.after == 2 and len(result.merges) == 1
    [merge] = result.merges
    assert merge.prefixed == acl("orders-eu-", pattern="PREFIXED") and merge.known == 4
    assert "every topic starting with `orders-eu-` other than the 4 known name(s)" in merge.widening(False)
    # A known name under the prefix without a grant stops the merge there.
    names[ResourceType.TOPIC].add("orders-eu-secret")
    assert kept(acls, names=names).merges == []
    # So does a LITERAL ACL name of anyone (a name the ACLs know).
    assert kept(acls + [acl("orders-eu-x", principal="User:carol")], names={ResourceType.TOPIC: {"a"}}).merges == []


def test_the_proof_refuses_a_result_that_decides_differently(monkeypatch):
    from kafka_authz_cli.review.compact import Compaction

    def broken(bindings, *args):
        bindings = list(bindings)
        return Compaction(len(bindings), bindings[1:])

    monkeypatch.setattr(service, "compact_acls", broken)
    with pytest.raises(service.CompactionBroken, match="decides 2 request class"):
        service.prove([acl("t")], broken([acl("t")]), service.broker_settings(None, None, None))


def write(tmp_path, acls):
    path = tmp_path / "acls.json"
    path.write_text(json.dumps({"acls": [a.as_dict() for a in acls]}))
    return path


def test_cli_writes_the_set_and_the_json_report(tmp_path):
    src = write(tmp_path, [acl("t"), acl("t"), acl("t", op="DESCRIBE"), acl("u", principal="User:admin")])
    out = tmp_path / "out.json"
    res = run("compact", src, "-o", out, "--format", "json", "--super-users", "User:admin")
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["before"] == 4 and report["after"] == 1 and report["proof"]["verdict"] == "equivalent"
    assert report["by_reason"] == {"duplicate": 1, "shadowed": 1, "denied": 0, "super_user": 1,
                                   "unmatchable_host": 0, "merged": 0}
    assert [r["reason"] for r in report["removals"]] == ["duplicate", "shadowed", "super_user"]
    assert json.loads(out.read_text())["acls"] == [acl("t").as_dict()]


def test_cli_table_to_stderr_when_the_set_goes_to_stdout_and_other_formats(tmp_path):
    src = write(tmp_path, [acl("t"), acl("t", op="DESCRIBE")])
    res = run("compact", src, "--to", "kafka-acls")
    assert res.exit_code == 0, res.output
    assert "ResourcePattern(resourceType=TOPIC, name=t, patternType=LITERAL)" in res.stdout
    assert "2 ACL(s) before, 1 after" in res.stderr and "2 ACL(s) before" not in res.stdout
    assert "decision diff of input and output is empty" in res.stderr


def test_cli_max_acls_and_names(tmp_path):
    src = write(tmp_path, [acl("a-1"), acl("a-2"), acl("b")])
    names = tmp_path / "names.txt"
    names.write_text("a-1\na-2\nb\n# a comment\ngroup:a-3\n")
    res = run("compact", src, "--max-acls", "2", "-o", tmp_path / "o.json")
    assert res.exit_code == 1 and "above --max-acls 2" in res.stdout
    res = run("compact", src, "--max-acls", "2", "--names", names, "-o", tmp_path / "o.json", "--format", "json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["after"] == 2 and report["names"] == {"TOPIC": 3, "GROUP": 1}
    assert report["merges"][0]["prefixed"]["resource_name"] == "a-"
    assert report["proof"]["verdict"] == "more permissive"
    assert all("starting with `a-" in c or "topic `a-`" in c for c in report["proof"]["changes"])


def test_cli_bad_input_is_one_line(tmp_path):
    names = tmp_path / "names.txt"
    names.write_text("group:\n")
    res = run("compact", write(tmp_path, [acl("t")]), "--names", names)
    assert res.exit_code == 2 and "names.txt:1: no name after group:" in res.output


def test_cli_exit_3_and_nothing_written_when_the_proof_fails(tmp_path, monkeypatch):
    from kafka_authz_cli.review.compact import Compaction

    def broken(bindings, *args):
        bindings = list(bindings)
        return Compaction(len(bindings), bindings[1:])

    monkeypatch.setattr(service, "compact_acls", broken)
    out = tmp_path / "out.json"
    res = run("compact", write(tmp_path, [acl("t"), acl("u")]), "-o", out)
    assert res.exit_code == 3 and "internal error: the compacted set decides" in res.output
    assert not out.exists()


def test_cli_no_proof_is_warned_and_the_report_file(tmp_path):
    report = tmp_path / "report.json"
    res = run("compact", write(tmp_path, [acl("t"), acl("t")]), "--no-proof", "--format", "json", "--report", report)
    assert res.exit_code == 0, res.output
    assert "warning: --no-proof: the compacted set was not checked" in res.stderr
    assert json.loads(res.stdout)["acls"] == [acl("t").as_dict()]  # the set on stdout, the report in its file
    assert json.loads(report.read_text())["proof"] is None


def _final_covers_by_recursion(removals):
    """The reference: each removal's chain followed afresh, as the first version did."""
    from kafka_authz_cli.review.compact import Removal, RemovalReason

    SHADOWED, DENIED, MERGED = RemovalReason.SHADOWED, RemovalReason.DENIED, RemovalReason.MERGED
    gone = {r.binding: r for r in removals if r.reason in (SHADOWED, DENIED, MERGED)}

    def kept_cover(b):
        r = gone.get(b)
        if r is None:
            return [b]
        if r.reason == MERGED:
            return list(r.by)
        return [k for x in r.by for k in kept_cover(x)]

    return [Removal(r.binding, r.reason, tuple(dict.fromkeys(k for b in r.by for k in kept_cover(b))))
            if r.reason in (SHADOWED, DENIED) and any(b in gone for b in r.by) else r for r in removals]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["shadowed", "denied", "merged"]), st.lists(st.integers(0, 30), min_size=1,
                                                                                      max_size=3)), max_size=25))
def test_chains_of_covers_end_at_kept_acls_as_followed_one_by_one(steps):
    # Removals in order: the i-th ACL goes, covered by ACLs with higher numbers (kept at its moment,
    # maybe removed later): shared tails resolved once give what following each chain afresh gives.
    from kafka_authz_cli.review.compact import Removal, RemovalReason, _final_covers

    acl = [AclBinding.of("TOPIC", f"t{i}", "LITERAL", "User:a", "*", "READ", "ALLOW") for i in range(60)]
    removals = [Removal(acl[i], RemovalReason(reason), tuple(dict.fromkeys(acl[i + 1 + k] for k in by)))
                for i, (reason, by) in enumerate(steps)]
    assert _final_covers(removals) == _final_covers_by_recursion(removals)
