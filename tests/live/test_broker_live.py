"""The broker itself: how it was started, and every resource and pattern type through it."""

import json
import re

import pytest

from kafka_authz_cli.acl.formats import load_acls
from kafka_authz_cli.acl.model import CLUSTER_NAME, AclBinding, ResourceType, operations_for

pytestmark = pytest.mark.live


def test_broker_started_quickly_in_little_memory_as_configured(kafka):
    assert kafka.alive()
    assert kafka.start_seconds <= 30, f"broker start took {kafka.start_seconds:.1f} s"
    cmd = open(f"/proc/{kafka.process.pid}/cmdline", "rb").read().split(b"\0")
    heap = [c for c in cmd if c.startswith(b"-Xmx")]
    assert heap and int(re.match(rb"-Xmx(\d+)m", heap[0]).group(1)) <= 512
    assert kafka.version.startswith("4.")
    props = (kafka.workdir / "server.properties").read_text()
    for line in ("process.roles=broker,controller", "allow.everyone.if.no.acl.found=false",
                 "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                 "sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512"):
        assert line in props
    assert kafka.bootstrap.startswith("127.0.0.1:")


def test_audit_log_is_its_own_file_at_debug(kafka):
    text = kafka.audit_log.read_text()
    assert " DEBUG Principal = User:controller is Allowed operation = CLUSTER_ACTION" in text
    assert all(line.endswith("(kafka.authorizer.logger)") for line in text.splitlines() if line)
    assert "kafka.authorizer.logger" not in kafka.server_log.read_text()


def every_kind_of_binding():
    out = []
    for rtype in ResourceType.concrete():
        patterns = ["LITERAL"] if rtype is ResourceType.CLUSTER else ["LITERAL", "PREFIXED"]
        name = {ResourceType.CLUSTER: CLUSTER_NAME, ResourceType.USER: "User:bob"}.get(rtype, f"{rtype.name.lower()}-x")
        for pattern in patterns:
            for i, op in enumerate(("ALL", *[o.name for o in operations_for(rtype)])):
                if op == "TWO_PHASE_COMMIT":
                    continue  # kafka-python 3.0 has no code for it
                out.append(AclBinding.of(rtype.name, name, pattern, "User:alice" if i % 2 else "User:*",
                                         "*" if i % 3 else "10.1.2.3", op, "DENY" if i % 4 == 1 else "ALLOW"))
    out.append(AclBinding.of("TOPIC", "*", "LITERAL", "User:wild", "*", "READ", "ALLOW"))
    out.append(AclBinding.of("GROUP", "weird name,=]ü", "LITERAL", "User:weird,=]ü", "*", "READ", "ALLOW"))
    return out


def test_every_resource_and_pattern_type_round_trips(authz, clean, settled, tmp_path):
    desired = every_kind_of_binding()
    f = tmp_path / "all.json"
    f.write_text(json.dumps({"version": 1, "acls": [b.as_dict() for b in desired]}))
    res = authz("cluster", "apply", f, *authz.live, "--yes")
    assert res.exit_code == 0, res.output
    assert settled(desired) == set(desired)
    for fmt in ("json", "kafka-acls", "csv"):
        out = tmp_path / f"pulled.{fmt}"
        res = authz("cluster", "pull", *authz.live, "--to", fmt, "-o", out)
        assert res.exit_code == 0, res.output
        assert set(load_acls(out)) == set(desired), fmt


@pytest.mark.parametrize("args", [
    ["--topic", "topic-x"],
    ["--topic", "topic-x", "--resource-pattern-type", "prefixed"],
    ["--topic", "topic-x-and-more", "--resource-pattern-type", "match"],
    ["--topic", "anything", "--resource-pattern-type", "match"],
    ["--group", "group-x", "--resource-pattern-type", "any"],
    ["--cluster"],
    ["--transactional-id", "transactional_id-x", "--delegation-token", "delegation_token-x"],
    ["--user-principal", "User:bob"],
    ["--principal", "User:alice"],
    ["--principal", "User:alice", "--topic", "topic-x-1", "--resource-pattern-type", "match"],
    ["--resource-pattern-type", "prefixed"],
])
def test_pull_filters_agree_with_kafkas_filter_semantics(authz, kadmin, read_acls, settled, tmp_path, args):
    """The broker's DescribeAcls answer to each filter equals authz's port of Kafka's filter matching."""
    from kafka_authz_cli.acl.filter import kafka_acls_filters
    from kafka_authz_cli.acl.model import PatternType

    desired = set(every_kind_of_binding())
    if read_acls() != desired:
        from kafka_authz_cli.cluster.kafka_adapter import to_kafka_acl

        kadmin.create_acls([to_kafka_acl(b) for b in desired - read_acls()])
        assert settled(desired) == desired
    res = authz("cluster", "pull", *authz.live, *args)
    assert res.exit_code == 0, res.output
    got = {AclBinding.of(**{k: v for k, v in d.items()}) for d in json.loads(res.stdout)["acls"]}
    opts = {"topics": [], "groups": [], "transactional_ids": [], "delegation_tokens": [], "user_principals": [],
            "cluster": False, "pattern_type": None, "principals": []}
    names = {"--topic": "topics", "--group": "groups", "--transactional-id": "transactional_ids",
             "--delegation-token": "delegation_tokens", "--user-principal": "user_principals", "--principal": "principals"}
    it = iter(args)
    for a in it:
        if a == "--cluster":
            opts["cluster"] = True
        elif a == "--resource-pattern-type":
            opts["pattern_type"] = PatternType.parse_filter(next(it))
        else:
            opts[names[a]].append(next(it))
    filters = kafka_acls_filters(**opts)
    expected = {b for b in read_acls() if any(f.matches(b) for f in filters)}
    assert got == expected and got
