"""The live-cluster admin adapter (``KafkaAclAdmin``, cluster/kafka_adapter.py) in memory: the commands run
against it without a broker. tests/live holds the same commands to a real one."""

from __future__ import annotations

from kafka_authz_cli.acl import MATCH_ALL, AclBinding, AclFilter
from kafka_authz_cli.cluster.kafka_adapter import ClusterError
from kafka_authz_cli.services import live as services_live

#: what the adapter reports for a binding the broker refused (the error's class name)
REFUSED = "InvalidRequestError"


class FakeAdmin:
    """A cluster's ACLs, topic and group names, brokers and broker configs, answered as the adapter answers
    them over Kafka's admin API.

    ``list_acls``: DescribeAcls once per filter (every ACL without one), each binding once. ``create_acls`` and
    ``delete_acls``: one CreateAcls or DeleteAcls request (DeleteAcls with an exact filter per binding) that
    answers with the bindings the broker refused; creating an ACL the cluster holds, or deleting one it does
    not, changes nothing and is no error. ``list_topics``, ``list_groups`` and ``brokers`` come sorted, as
    the adapter sorts them.

    Faults: the bindings in ``refuse`` are refused (create or delete); after ``die_after`` CreateAcls or
    DeleteAcls requests the connection is lost (the next one raises: its answer never comes);
    ``config_error`` is raised by DescribeConfigs.
    """

    def __init__(self, acls=(), *, topics=(), groups=(), brokers=((1, "localhost", 9092),), configs=(),
                 refuse=(), die_after: int | None = None, config_error: Exception | None = None):
        self.acls: list[AclBinding] = list(acls)
        self.topics, self.groups = list(topics), list(groups)
        self.broker_list, self.configs = list(brokers), list(configs)
        self.refuse = set(refuse)
        self.die_after = die_after
        self.config_error = config_error
        #: what the requests changed or asked, for the tests to check
        self.created: list[AclBinding] = []
        self.deleted: list[AclBinding] = []
        self.described_brokers: list[int] = []
        self.closed = False
        self._changes_answered = 0

    def _answer(self, action: str) -> None:
        if self.die_after is not None and self._changes_answered >= self.die_after:
            raise ClusterError(f"{action} failed: KafkaConnectionError: connection lost")
        self._changes_answered += 1

    def list_acls(self, filters: list[AclFilter] | None = None) -> list[AclBinding]:
        found: dict[AclBinding, None] = {}
        for f in filters or [MATCH_ALL]:
            found.update(dict.fromkeys(a for a in self.acls if f.matches(a)))
        return list(found)

    def create_acls(self, bindings: list[AclBinding]) -> list[tuple[AclBinding, str]]:
        self._answer("CreateAcls")
        for b in bindings:
            if b not in self.refuse and b not in self.acls:
                self.acls.append(b)
                self.created.append(b)
        return [(b, REFUSED) for b in bindings if b in self.refuse]

    def delete_acls(self, bindings: list[AclBinding]) -> list[tuple[AclBinding, str]]:
        self._answer("DeleteAcls")
        gone = [b for b in dict.fromkeys(bindings) if b not in self.refuse and b in self.acls]
        self.acls = [a for a in self.acls if a not in gone]
        self.deleted += gone
        return [(b, REFUSED) for b in bindings if b in self.refuse]

    def list_topics(self) -> list[str]:
        return sorted(self.topics)

    def list_groups(self) -> list[str]:
        return sorted(set(self.groups))

    def brokers(self) -> list[tuple[int, str, int]]:
        return sorted(self.broker_list)

    def describe_broker_configs(self, broker_id: int) -> list:
        self.described_brokers.append(broker_id)
        if self.config_error is not None:
            raise self.config_error
        return self.configs

    def close(self) -> None:
        self.closed = True


def install(monkeypatch, admin: FakeAdmin) -> FakeAdmin:
    """Every command that opens a cluster's admin client gets ``admin`` instead, for the test's duration."""
    monkeypatch.setattr(services_live, "ADMIN_FACTORY", lambda bootstrap, command_config: admin)
    return admin
