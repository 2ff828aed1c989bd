"""The real Kafka broker, started once per test session (see kafka_broker.py).

Every test that uses it is marked ``live``; none is skipped: without Java or Maven the fixture
fails with one line saying what to install.
"""

import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.live import kafka_broker

#: A user created offline with `authz scram create-user -f kafka-storage` and bootstrapped by the
#: real `kafka-storage format` (proved to log in by tests/live/test_scram_live.py).
OFFLINE_USER = "carol"
OFFLINE_PASSWORD = "carol offline secret"
OFFLINE_SALT = "c2FsdC1mb3ItY2Fyb2wtb2ZmbGluZQ=="


def _offline_user_argument(tmp: Path) -> str:
    from kafka_authz_cli.cli.app import app

    pw = tmp / "carol.pw"
    pw.write_text(OFFLINE_PASSWORD + "\n")
    pw.chmod(stat.S_IRUSR | stat.S_IWUSR)
    res = CliRunner().invoke(app, ["scram", "create-user", "--user", OFFLINE_USER, "--mechanism", "SCRAM-SHA-256",
                                   "--salt", OFFLINE_SALT, "--iterations", "8192", "--password-file", str(pw),
                                   "-f", "kafka-storage"])
    assert res.exit_code == 0, res.output
    return res.stdout.strip()


@pytest.fixture(scope="session")
def kafka(tmp_path_factory):
    """The session's broker: bootstrap, admin command-config, audit log path, super users."""
    try:
        broker = kafka_broker.start(extra_scram=[_offline_user_argument(tmp_path_factory.mktemp("offline"))])
    except kafka_broker.BrokerError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield broker
    finally:
        broker.stop(keep=bool(os.environ.get("AUTHZ_KEEP_BROKER_DIR")))


@pytest.fixture
def admin_config(kafka) -> Path:
    return kafka.command_config()


@pytest.fixture(scope="session")
def kadmin(kafka):
    """kafka-python's own admin client as the admin super user: the independent reader of the broker."""
    from kafka import KafkaAdminClient

    client = KafkaAdminClient(**kafka.client_config(), request_timeout_ms=30000)
    yield client
    client.close()


def broker_acls(kadmin):
    """Every ACL on the broker, read with kafka-python directly (not through authz)."""
    from kafka.admin import ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePatternFilter
    from kafka.admin import ResourceType as KResourceType

    from kafka_authz_cli.cluster.kafka_adapter import from_kafka_acl

    acls, _ = kadmin.describe_acls(ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                             ResourcePatternFilter(KResourceType.ANY, None, ACLResourcePatternType.ANY)))
    return {from_kafka_acl(a) for a in acls}


def wait_for(kadmin, expected, timeout=15.0):
    """The broker's ACLs once they equal ``expected`` (a broker applies committed ACL records
    asynchronously, so DescribeAcls may lag a CreateAcls answer), or what it holds after ``timeout``."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        now = broker_acls(kadmin)
        if now == set(expected) or time.monotonic() > deadline:
            return now
        time.sleep(0.05)


def clear_acls(kadmin):
    from kafka.admin import ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePatternFilter
    from kafka.admin import ResourceType as KResourceType

    kadmin.delete_acls([ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                                  ResourcePatternFilter(KResourceType.ANY, None, ACLResourcePatternType.ANY))])
    assert wait_for(kadmin, set()) == set()


class CleanBroker:
    """kafka-python's admin client, plus ``put(bindings)``: create ACLs and wait until the broker shows them."""

    def __init__(self, kadmin):
        self.kadmin = kadmin

    def __getattr__(self, name):
        return getattr(self.kadmin, name)

    def put(self, bindings):
        from kafka_authz_cli.cluster.kafka_adapter import to_kafka_acl

        before = broker_acls(self.kadmin)
        result = self.kadmin.create_acls([to_kafka_acl(b) for b in bindings])
        assert not result["failed"], result
        assert wait_for(self.kadmin, before | set(bindings)) == before | set(bindings)


@pytest.fixture
def clean(kadmin):
    """A broker without any ACL at the start of the test."""
    clear_acls(kadmin)
    return CleanBroker(kadmin)


class Authz:
    """`authz ...` in-process (CliRunner) with the broker's address and admin login filled in."""

    def __init__(self, kafka):
        self.kafka = kafka
        self.runner = CliRunner()

    def __call__(self, *args, input=None):
        from kafka_authz_cli.cli.app import app

        return self.runner.invoke(app, [str(a) for a in args], input=input)

    @property
    def live(self) -> list[str]:
        return ["--bootstrap-server", self.kafka.bootstrap, "--command-config", str(self.kafka.command_config())]


@pytest.fixture
def authz(kafka):
    return Authz(kafka)


@pytest.fixture
def read_acls(kadmin):
    return lambda: broker_acls(kadmin)


@pytest.fixture
def offline_user():
    """(user, password, salt) of the user bootstrapped by `kafka-storage format` from authz's argument."""
    return OFFLINE_USER, OFFLINE_PASSWORD, OFFLINE_SALT


@pytest.fixture
def settled(kadmin):
    """``settled(expected)``: the broker's ACLs once they equal ``expected``, or after 15 s."""
    return lambda expected, timeout=15.0: wait_for(kadmin, expected, timeout)


@pytest.fixture
def eventually():
    """``eventually(check)``: retry a check that reads broker state updated asynchronously (10 s)."""
    import time

    def run(check, timeout=10.0):
        deadline = time.monotonic() + timeout
        while True:
            try:
                return check()
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    return run
