"""Issue 21 live: the real broker's ACLs pulled as Terraform resources (both providers' shapes), then
`authz cluster plan` of that file against the same broker plans nothing."""

import json

import pytest

from kafka_authz_cli.acl.model import CLUSTER_NAME, AclBinding
from kafka_authz_cli.ecosystem.terraform.reader import read

pytestmark = pytest.mark.live


def acl(rtype, name, principal, op, perm="ALLOW", pattern="LITERAL", host="*"):
    return AclBinding.of(rtype, name, pattern, principal, host, op, perm)


ACLS = [acl("TOPIC", "orders", "User:CN=orders-app", "READ"), acl("TOPIC", "orders", "User:CN=orders-app", "DESCRIBE"),
        acl("GROUP", "orders-", "User:CN=orders-app", "READ", pattern="PREFIXED"),
        acl("TOPIC", "orders-secret", "User:billing", "READ", "DENY", host="10.1.2.3"),
        acl("TRANSACTIONAL_ID", "billing-tx", "User:billing", "WRITE"),
        acl("CLUSTER", CLUSTER_NAME, "User:billing", "IDEMPOTENT_WRITE"),
        acl("TOPIC", "*", "User:*", "DESCRIBE"),
        acl("DELEGATION_TOKEN", "tok", "User:billing", "DESCRIBE")]


@pytest.mark.parametrize("provider", [[], ["--terraform-provider", "confluent", "--terraform-confluent-cluster",
                                           "lkc-live"]], ids=["kafka_acl", "confluent_kafka_acl"])
def test_pull_to_terraform_then_plan_of_it_plans_nothing(authz, clean, read_acls, tmp_path, provider):
    clean.put(ACLS)
    pulled = tmp_path / "acls.tf"
    res = authz("cluster", "pull", *authz.live, "--to", "terraform", *provider, "-o", pulled)
    assert res.exit_code == 0, res.output
    text = pulled.read_text()
    assert text.count("import {") == len(ACLS) and sorted(map(str, read(text, str(pulled)).bindings)) == \
        sorted(map(str, ACLS))
    plan = tmp_path / "plan.json"
    res = authz("cluster", "plan", pulled, *authz.live, "--allow-delete", "-o", plan)
    assert res.exit_code == 0, res.output
    doc = json.loads(plan.read_text())
    assert doc["creates"] == [] and doc["deletes"] == [] and read_acls() == set(ACLS)
