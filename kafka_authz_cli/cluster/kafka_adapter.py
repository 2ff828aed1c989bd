"""Live clusters through kafka-python: the only module that imports ``kafka``.

Kept small on purpose: conversions between authz's model and kafka-python's admin objects, the
client settings taken from a Java ``--command-config`` file, and a thin wrapper over the admin
calls that turns kafka-python's failures into one-line :class:`AuthzError` messages (an
unreachable broker, a refused login, a missing ACL on the CLUSTER resource). Everything above it
works on plain :class:`AclBinding` lists.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Protocol

from kafka_authz_cli._java import JaasError, client_login, java_trim
from kafka_authz_cli.acl import (
    MATCH_ALL,
    AclBinding,
    AclFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourceType,
)
from kafka_authz_cli.errors import AuthzError, InputError

DEFAULT_TIMEOUT = 10.0
SUPPORTED_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")


class AclAdmin(Protocol):
    """What authz needs from a cluster; tests supply a fake."""

    def list_acls(self, filters: list[AclFilter] | None = None) -> list[AclBinding]: ...

    def list_topics(self) -> list[str]: ...

    def list_groups(self) -> list[str]: ...

    def create_acls(self, bindings: list[AclBinding]) -> list[tuple[AclBinding, str]]: ...

    def delete_acls(self, bindings: list[AclBinding]) -> list[tuple[AclBinding, str]]: ...


class ScramAdmin(Protocol):
    def describe_scram_users(self, users: list[str] | None = None) -> dict[str, list[tuple[str, int]]]: ...

    def alter_scram(self, upserts: list[tuple], deletes: list[tuple[str, str]]) -> dict[str, str | None]: ...


class ClusterError(AuthzError):
    """The cluster refused or could not be reached; one line, exit 2."""


# -- conversions ------------------------------------------------------------------------------

def _kafka_code(enum_cls, member, what: str):
    try:
        return enum_cls(member.code)
    except ValueError:
        raise ClusterError(f"kafka-python cannot send {what} {member.name}") from None


def to_kafka_acl(binding: AclBinding):
    from kafka.admin import ACL, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePattern
    from kafka.admin import ResourceType as KResourceType

    pattern = ResourcePattern(KResourceType(binding.resource_type.code), binding.resource_name,
                              ACLResourcePatternType(binding.pattern_type.code))
    return ACL(binding.principal, binding.host, _kafka_code(ACLOperation, binding.operation, "operation"),
               ACLPermissionType(binding.permission.code), pattern)


def _code(member) -> int:
    return int(getattr(member, "value", member))


def from_kafka_acl(acl) -> AclBinding:
    pattern = acl.resource_pattern
    return AclBinding(ResourceType(_code(pattern.resource_type)), pattern.resource_name,
                      PatternType(_code(pattern.pattern_type)), acl.principal, acl.host,
                      AclOperation(_code(acl.operation)), AclPermissionType(_code(acl.permission_type)))


def to_kafka_filter(f: AclFilter):
    from kafka.admin import ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePatternFilter
    from kafka.admin import ResourceType as KResourceType

    return ACLFilter(f.principal, f.host, _kafka_code(ACLOperation, f.operation, "operation"),
                     ACLPermissionType(f.permission.code),
                     ResourcePatternFilter(KResourceType(f.resource_type.code), f.resource_name,
                                           ACLResourcePatternType(f.pattern_type.code)))


# -- client settings --------------------------------------------------------------------------

_INT_SETTINGS = {
    "request.timeout.ms": "request_timeout_ms",
    "retry.backoff.ms": "retry_backoff_ms",
    "reconnect.backoff.ms": "reconnect_backoff_ms",
    "reconnect.backoff.max.ms": "reconnect_backoff_max_ms",
    "connections.max.idle.ms": "connections_max_idle_ms",
    "metadata.max.age.ms": "metadata_max_age_ms",
}


def _int(props: dict[str, str], key: str, path: str) -> int:
    raw = java_trim(props[key])
    try:
        value = int(raw)
    except ValueError:
        raise InputError(f"{key}: expected a whole number of milliseconds, got {props[key]!r}", path) from None
    if value < 0:
        raise InputError(f"{key}: must not be negative, got {value}", path)
    return value


def client_config(props: dict[str, str], path: str = "<command-config>", timeout: float = DEFAULT_TIMEOUT) -> dict:
    """kafka-python settings from a Java client ``--command-config`` properties map.

    Read as the Java client reads them: ``security.protocol`` (PLAINTEXT by default),
    ``sasl.mechanism`` (GSSAPI by default, which authz cannot do), ``sasl.jaas.config`` parsed by
    Kafka's own JAAS grammar. JKS/PKCS12 stores have no kafka-python equivalent: PEM files are
    required (say so rather than connect insecurely). The password is taken, never echoed.
    ``timeout`` (seconds) bounds the bootstrap and every request unless ``request.timeout.ms`` says
    otherwise.
    """
    config: dict = {"bootstrap_timeout_ms": int(timeout * 1000), "request_timeout_ms": int(timeout * 1000)}
    protocol = java_trim(props.get("security.protocol", "PLAINTEXT")).upper()
    if protocol not in PROTOCOLS:
        raise InputError(f"security.protocol: {props['security.protocol']!r} is not one of {', '.join(PROTOCOLS)}",
                         path)
    config["security_protocol"] = protocol
    for key, name in _INT_SETTINGS.items():
        if key in props:
            config[name] = _int(props, key, path)
    if "client.id" in props:
        config["client_id"] = props["client.id"]
    if "ssl.endpoint.identification.algorithm" in props:
        config["ssl_check_hostname"] = java_trim(props["ssl.endpoint.identification.algorithm"]).lower() == "https"
    if protocol.startswith("SASL_"):
        config.update(_sasl_settings(props, path))
    config.update(_ssl_files(props, path))
    return config


def _sasl_settings(props: dict[str, str], path: str) -> dict:
    """The mechanism and the login (user name and password) of ``sasl.jaas.config``."""
    given = props.get("sasl.mechanism")
    mechanism = java_trim(given or "GSSAPI").upper()
    if mechanism not in SUPPORTED_MECHANISMS:
        default = "" if given else " (no sasl.mechanism: Kafka's default is GSSAPI)"
        raise InputError(f"sasl.mechanism {mechanism}{default}: mechanism not supported by authz "
                         f"(it speaks {', '.join(SUPPORTED_MECHANISMS)})", path)
    jaas = props.get("sasl.jaas.config")
    if jaas is None:
        raise InputError(f"{mechanism} needs sasl.jaas.config with username=\"...\" and password=\"...\"", path)
    try:
        entry = client_login(jaas)
    except JaasError as exc:
        raise InputError(f"sasl.jaas.config: {exc}", path) from None
    missing = [k for k in ("username", "password") if k not in entry.options]
    if missing:
        raise InputError(f"sasl.jaas.config: {entry.login_module} has no {' or '.join(missing)} option "
                         f"({mechanism} needs username=\"...\" and password=\"...\")", path)
    return {"sasl_mechanism": mechanism, "sasl_plain_username": entry.options["username"],
            "sasl_plain_password": entry.options["password"]}


def _ssl_files(props: dict[str, str], path: str) -> dict:
    """PEM trust and key stores (kafka-python reads no JKS or PKCS12), and the key's password."""
    config: dict[str, str | None] = {}
    for store in ("truststore", "keystore"):
        key = f"ssl.{store}.location"
        if key not in props:
            continue
        value = props[key]
        stype = java_trim(props.get(f"ssl.{store}.type", "")).upper()
        if stype not in ("", "PEM") or (stype != "PEM" and not value.endswith((".pem", ".crt", ".key"))):
            raise InputError(f"{key}: kafka-python needs PEM files (ssl.{store}.type=PEM); convert the {store} "
                             f"{value} with keytool/openssl", path)
        config["ssl_cafile" if store == "truststore" else "ssl_certfile"] = value
    if "ssl.key.location" in props:
        config["ssl_keyfile"] = props["ssl.key.location"]
    if "ssl.key.password" in props or "ssl.keystore.password" in props:
        config["ssl_password"] = props.get("ssl.key.password") or props.get("ssl.keystore.password")
    return config


def login_name(config: dict) -> str:
    user = config.get("sasl_plain_username")
    return f"{user} ({config.get('sasl_mechanism')})" if user else "ANONYMOUS"


# -- errors -----------------------------------------------------------------------------------

class _Recorder(logging.Handler):
    """Keeps the exceptions kafka-python logs while it retries (a refused login is only logged:
    the bootstrap then ends in a plain timeout). Also keeps its log lines off the terminal."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.errors: list[BaseException] = []
        #: The broker answered ApiVersions (it is reachable and speaks Kafka).
        self.reached = False

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < logging.WARNING:
            if record.name == "kafka.net.connection" and "Broker version identified" in str(record.msg):
                self.reached = True
            return
        args = record.args if isinstance(record.args, tuple) else (record.args,)
        for arg in args:
            if isinstance(arg, BaseException):
                self.errors.append(arg)
        if record.exc_info and record.exc_info[1] is not None:
            self.errors.append(record.exc_info[1])
        del self.errors[:-200]  # only the latest matter (a bootstrap's retries)


_RECORDER = _Recorder()
logging.getLogger("kafka").addHandler(_RECORDER)


_UNREACHABLE = (("ECONNREFUSED", "connection refused"), ("Connection refused", "connection refused"),
                ("EHOSTUNREACH", "host unreachable"), ("ENETUNREACH", "network unreachable"),
                ("gaierror", "host name not resolved"), ("Name or service not known", "host name not resolved"),
                ("DNS lookup failed", "host name not resolved"), ("ETIMEDOUT", "connection timed out"))


def _why_unreachable(errors: list[BaseException]) -> str:
    for exc in reversed(errors):
        text = f"{type(exc).__name__} {exc}"
        for needle, why in _UNREACHABLE:
            if needle in text:
                return why
    for exc in reversed(errors):
        if type(exc).__name__ in ("UnsupportedSaslMechanismError", "IncompatibleBrokerVersion"):
            return _message(exc)
    return "no answer"


def _message(exc: BaseException) -> str:
    """An exception's text with its class name once (kafka-python's str() often repeats it)."""
    import re

    name = type(exc).__name__ if isinstance(exc, BaseException) else getattr(exc, "__name__", str(exc))
    text = str(exc).strip() if isinstance(exc, BaseException) else ""
    text = re.sub(r"^\[Error -?\d+\]\s*", "", text)
    while text.startswith(name):
        text = text[len(name):].lstrip(": ")
    return f"{name}: {text}" if text else name


def connect_error(bootstrap: str, config: dict, errors: list[BaseException], exc: BaseException,
                  timeout_s: float, reached: bool = False) -> ClusterError:
    """One line for a failed bootstrap: refused login, unreachable broker, or the error itself.

    kafka-python retries a refused login until its bootstrap timeout and then reports only the
    timeout. A broker refuses an unknown user with an error, but a wrong password for a known user
    by closing the connection at the last SCRAM step: a broker that answered (ApiVersions) and then
    dropped every SASL login is a failed authentication too."""
    from kafka import errors as kerrors

    unsupported = [e for e in errors if isinstance(e, kerrors.UnsupportedSaslMechanismError)]
    if unsupported:
        return ClusterError(f"{bootstrap}: {_message(unsupported[-1])}")
    auth = [e for e in errors if isinstance(e, kerrors.SaslAuthenticationFailedError)]
    dropped = reached and config.get("sasl_mechanism") and any(
        isinstance(e, kerrors.KafkaConnectionError) for e in errors)
    if auth or dropped or isinstance(exc, kerrors.SaslAuthenticationFailedError):
        return ClusterError(f"authentication failed for {login_name(config)} at {bootstrap}: check the user name "
                            "and password in --command-config")
    timeouts = tuple(getattr(kerrors, n) for n in ("KafkaTimeoutError", "NoBrokersAvailable") if hasattr(kerrors, n))
    if isinstance(exc, timeouts):
        return ClusterError(f"cannot reach a Kafka broker at {bootstrap} within {timeout_s:g} s "
                            f"({_why_unreachable(errors)})")
    return ClusterError(f"cannot connect to {bootstrap}: {_message(exc)}")


def _describe_configs_denied(principal: str) -> ClusterError:
    return ClusterError(f"{principal} is not allowed to DESCRIBE_CONFIGS on the cluster: DescribeConfigs of a "
                        "broker needs DESCRIBE_CONFIGS on the CLUSTER resource (an ACL for kafka-cluster, or "
                        "super.users)")


def _authorization_error(exc: BaseException, action: str, principal: str) -> ClusterError | None:
    name = type(exc).__name__ if isinstance(exc, BaseException) else getattr(exc, "__name__", str(exc))
    if name == "ClusterAuthorizationFailedError" and action == "DescribeConfigs":
        return _describe_configs_denied(principal)
    if name == "ClusterAuthorizationFailedError":
        op = "ALTER" if action in ("CreateAcls", "DeleteAcls", "AlterUserScramCredentials") else "DESCRIBE"
        return ClusterError(f"{principal} is not allowed to {op} the cluster: {action} needs {op} on the CLUSTER "
                            "resource (an ACL for kafka-cluster, or super.users)")
    if name == "SecurityDisabledError":
        return ClusterError(f"{action}: the broker has no authorizer configured (authorizer.class.name is empty), "
                            "so it keeps no ACLs")
    return None


# -- the admin client -------------------------------------------------------------------------

@dataclass
class KafkaAclAdmin:
    """The real cluster, through kafka-python's admin client."""

    bootstrap_servers: str
    config: dict
    timeout: float = DEFAULT_TIMEOUT
    #: Requests sent to the broker (for the benchmark and progress reports).
    round_trips: int = field(default=0, init=False)
    #: How long connecting took (set by `connect`).
    connect_seconds: float = field(default=0.0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        from kafka import KafkaAdminClient
        from kafka.errors import KafkaError

        _RECORDER.errors.clear()
        _RECORDER.reached = False
        conn_log = logging.getLogger("kafka.net.connection")
        level = conn_log.level
        conn_log.setLevel(logging.INFO)  # to see whether the broker answered at all
        try:
            self._admin = KafkaAdminClient(bootstrap_servers=self.bootstrap_servers, **self.config)
        except (KafkaError, OSError, ValueError) as exc:
            raise connect_error(self.bootstrap_servers, self.config, list(_RECORDER.errors), exc,
                                self.timeout, _RECORDER.reached) from None
        finally:
            conn_log.setLevel(level)
            _RECORDER.errors.clear()
        self.principal = f"User:{self.config['sasl_plain_username']}" if self.config.get("sasl_plain_username") \
            else "User:ANONYMOUS"

    def close(self) -> None:
        try:
            self._admin.close()
        except Exception:  # noqa: BLE001 - closing must not mask the real outcome
            pass

    def _call(self, action: str, fn, *args):
        from kafka.errors import KafkaError

        self.round_trips += 1
        try:
            return fn(*args)
        except KafkaError as exc:
            err = _authorization_error(exc, action, self.principal)
            if err is not None:
                raise err from None
            raise ClusterError(f"{action} failed: {_message(exc)}") from None

    def list_acls(self, filters: list[AclFilter] | None = None) -> list[AclBinding]:
        out: dict[AclBinding, None] = {}
        for f in filters or [MATCH_ALL]:
            acls, _error = self._call("DescribeAcls", self._admin.describe_acls, to_kafka_filter(f))
            for acl in acls:
                out[from_kafka_acl(acl)] = None
        return list(out)

    def list_topics(self) -> list[str]:
        """Every topic name of the cluster (Metadata): only those the login may DESCRIBE, as the broker
        filters them (review as an admin to see all)."""
        return sorted(self._call("Metadata", self._admin.list_topics))

    def list_groups(self) -> list[str]:
        """Every group id the cluster knows (ListGroups, every broker): only those the login may DESCRIBE."""
        found = self._call("ListGroups", self._admin.list_groups)
        return sorted({g["group_id"] if isinstance(g, dict) else g[0] for g in found})

    def create_acls(self, bindings: list[AclBinding]) -> list[tuple[AclBinding, str]]:
        """CreateAcls in one request; the bindings the broker refused, with its error."""
        if not bindings:
            return []
        kacls = [to_kafka_acl(b) for b in bindings]
        result = self._call("CreateAcls", self._admin.create_acls, kacls)
        succeeded = {id(a) for a in result.get("succeeded", [])}
        refused = [b for b, k in zip(bindings, kacls) if id(k) not in succeeded]
        errors = result.get("failed", [])
        failed = [(b, self._error_text(e, "CreateAcls")) for b, e in zip(refused, errors)]
        failed += [(b, "refused (no error returned)") for b in refused[len(errors):]]
        return failed

    def delete_acls(self, bindings: list[AclBinding]) -> list[tuple[AclBinding, str]]:
        """DeleteAcls with one exact filter per binding, in one request."""
        if not bindings:
            return []
        filters = [to_kafka_filter(AclFilter.exact(b)) for b in bindings]
        results = self._call("DeleteAcls", self._admin.delete_acls, filters)
        failed = []
        for (_filter, _deleted, error), binding in zip(results, bindings):
            if getattr(error, "errno", 0):
                failed.append((binding, self._error_text(error, "DeleteAcls")))
        return failed

    def _error_text(self, error, action: str) -> str:
        err = _authorization_error(error, action, self.principal)
        if err is not None:
            return str(err)
        return getattr(error, "__name__", None) or _message(error)

    # -- SCRAM users ------------------------------------------------------------------------

    def describe_scram_users(self, users: list[str] | None = None) -> dict[str, list[tuple[str, int]]]:
        # An empty list asks for every user, as the Java admin client does; a null list makes a
        # Kafka 4.1 broker throw (NullPointerException, no answer) when the caller lacks DESCRIBE.
        result = self._call("DescribeUserScramCredentials", self._admin.describe_user_scram_credentials,
                            list(users) if users else [])
        out: dict[str, list[tuple[str, int]]] = {}
        for user, info in result.items():
            if info.get("error"):
                if users is not None and any(w in str(info["error"]).lower() for w in ("not found", "not exist")):
                    out[user] = []
                    continue
                raise ClusterError(f"DescribeUserScramCredentials for {user!r}: {info['error']}")
            out[user] = [(ci["mechanism"].name.replace("_", "-"), ci["iterations"])
                         for ci in info.get("credential_infos", [])]
        return out

    def alter_scram(self, upserts: list[tuple[str, str, bytes, int, bytes | None]],
                    deletes: list[tuple[str, str]]) -> dict[str, str | None]:
        """AlterUserScramCredentials in one request: user -> error message (None: done).

        ``upserts``: (user, mechanism, password, iterations, salt or None for a random one); the
        client salts and hashes, only the salted password is sent."""
        from kafka.admin import UserScramCredentialDeletion, UserScramCredentialUpsertion

        alterations = [UserScramCredentialUpsertion(u, m, p, iterations=i, salt=s) for u, m, p, i, s in upserts]
        alterations += [UserScramCredentialDeletion(u, m) for u, m in deletes]
        # kafka-python's alter_user_scram_credentials() drops the error code when the broker sends
        # no message (as it does for CLUSTER_AUTHORIZATION_FAILED): send the same request, keep both.
        from kafka.errors import for_code
        from kafka.protocol.admin import AlterUserScramCredentialsRequest

        request = AlterUserScramCredentialsRequest(
            deletions=[(a.user, int(a.mechanism)) for a in alterations if isinstance(a, UserScramCredentialDeletion)],
            upsertions=[(a.user, int(a.mechanism), a.iterations, a.salt, a.salted_password)
                        for a in alterations if isinstance(a, UserScramCredentialUpsertion)])
        manager = self._admin._manager
        response = self._call("AlterUserScramCredentials", manager.run, manager.send, request)
        result: dict[str, str | None] = {}
        for r in response.results:
            if not r.error_code:
                result[r.user] = None
                continue
            name = for_code(r.error_code).__name__
            if name == "ClusterAuthorizationFailedError":
                raise ClusterError(f"{self.principal} is not allowed to ALTER the cluster: AlterUserScramCredentials "
                                   "needs ALTER on the CLUSTER resource (an ACL for kafka-cluster, or super.users)")
            result[r.user] = f"{name}: {r.error_message}" if r.error_message else name
        return result


    # -- broker configs ---------------------------------------------------------------------

    def brokers(self) -> list[tuple[int, str, int]]:
        """The brokers of the metadata the client bootstrapped with: (node id, host, port)."""
        return sorted((b.node_id, b.host, b.port) for b in self._admin._manager.cluster.brokers())

    def describe_broker_configs(self, broker_id: int) -> list:
        """DescribeConfigs of one broker (every key, with synonyms), sent to that broker, as
        :class:`~kafka_authz_cli.config.described_configs.DescribedConfig` entries.

        kafka-python's ``describe_configs()`` drops the per-resource error code (a refused request
        looks like a broker without configs): send the same request and check it."""
        from kafka.protocol.admin import DescribeConfigsRequest

        request = DescribeConfigsRequest(resources=[(BROKER_RESOURCE, str(broker_id), None)], include_synonyms=True)
        manager = self._admin._manager
        response = self._call("DescribeConfigs", manager.run, manager.send, request, broker_id)
        return broker_config_entries(response, broker_id, self.principal)


def pick_broker(bootstrap: str, brokers: list[tuple[int, str, int]], wanted: int | None) -> tuple[int, str]:
    """The broker whose configs to describe, and how it was chosen: ``wanted``, else the broker at the
    bootstrap address (the first of the list that is one), else the cluster's only broker."""
    ids = [b[0] for b in brokers]
    listed = ", ".join(map(str, ids)) or "none"
    if wanted is not None:
        if wanted not in ids:
            raise ClusterError(f"no broker {wanted} in the cluster at {bootstrap} (its brokers: {listed})")
        return wanted, f"broker {wanted} (--broker-id)"
    for entry in bootstrap.split(","):
        host, _, port = entry.strip().rpartition(":")
        for node, bhost, bport in brokers:
            if bhost.lower() == host.strip("[]").lower() and str(bport) == port:
                return node, f"broker {node}: the one at the bootstrap address {entry.strip()}"
    if len(brokers) == 1:
        return ids[0], f"broker {ids[0]}: the cluster's only broker"
    if not brokers:
        raise ClusterError(f"the cluster at {bootstrap} listed no broker in its metadata")
    raise ClusterError(f"the cluster at {bootstrap} has brokers {listed} and none is at the bootstrap address: "
                       "give --broker-id")


#: ``ConfigResource.Type.BROKER`` on the wire.
BROKER_RESOURCE = 4


def broker_config_entries(response, broker_id: int, principal: str) -> list:
    """The entries of a DescribeConfigs response for ``broker_id``, or the broker's error as one line."""
    from kafka.errors import for_code

    from kafka_authz_cli.config import DescribedConfig, DescribedSynonym, source_name

    results = [r for r in response.results if r.resource_name == str(broker_id)]
    if len(results) != 1:
        raise ClusterError(f"DescribeConfigs: the broker answered for {[r.resource_name for r in response.results]}"
                           f", not for broker {broker_id}")
    [result] = results
    if result.error_code:
        error = for_code(result.error_code)
        if error.__name__ == "ClusterAuthorizationFailedError":
            raise _describe_configs_denied(principal)
        detail = f": {result.error_message}" if result.error_message else ""
        raise ClusterError(f"DescribeConfigs of broker {broker_id} failed: {error.__name__}{detail}")
    return [DescribedConfig(c.name, c.value, source_name(c.config_source), bool(c.is_sensitive), bool(c.read_only),
                            tuple(DescribedSynonym(s.name, s.value, source_name(s.source)) for s in c.synonyms or ()))
            for c in result.configs]


def connect(bootstrap: str, config: dict, timeout: float = DEFAULT_TIMEOUT) -> KafkaAclAdmin:
    t0 = time.monotonic()
    admin = KafkaAclAdmin(bootstrap, config, timeout)
    admin.connect_seconds = time.monotonic() - t0
    return admin


def plan_sync(current: Iterable[AclBinding], desired: Iterable[AclBinding]) -> tuple[list[AclBinding], list[AclBinding]]:
    """What to create and what to delete so that the cluster holds exactly ``desired``."""
    have = dict.fromkeys(current)
    want = dict.fromkeys(desired)
    return [b for b in want if b not in have], [b for b in have if b not in want]


def open_admin(bootstrap: str, command_config=None, timeout: float = DEFAULT_TIMEOUT) -> KafkaAclAdmin:
    """Connect as the Java tools do: ``--bootstrap-server`` and a ``--command-config`` file."""
    from kafka_authz_cli._java import parse_properties
    from kafka_authz_cli.formats import read_text

    if timeout <= 0:
        raise InputError(f"--timeout must be positive, got {timeout:g}")
    props = {}
    if command_config is not None:
        props = parse_properties(read_text(command_config), str(command_config))
    return connect(bootstrap, client_config(props, str(command_config or "<command-config>"), timeout), timeout)


# -- consuming a topic (whatif --logs-topic) ---------------------------------------------------

@dataclass
class TopicRead:
    """How a bounded read of a topic ended (for the caller's warnings)."""

    records: int = 0
    #: Records the end offsets taken at the start promised but the read did not reach (idle timeout).
    missing: int = 0
    partitions: int = 0
    reason: str = ""


def consume_topic(bootstrap: str, topic: str, config: dict, *, max_events: int | None, until_end: bool,
                  idle_timeout: float, read: TopicRead) -> Iterable[tuple[str, bytes | None]]:
    """The records of `topic` from the beginning of every partition, as (``topic:partition:offset``,
    value): up to the end offsets taken at the start (`until_end`), at most `max_events`, and never
    waiting more than `idle_timeout` seconds for a record. No consumer group: nothing is committed."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.errors import KafkaError

    _RECORDER.errors.clear()
    settings = dict(config)
    try:
        consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                                 auto_offset_reset="earliest", consumer_timeout_ms=int(idle_timeout * 1000),
                                 **settings)
    except (KafkaError, OSError, ValueError) as exc:
        raise connect_error(bootstrap, config, list(_RECORDER.errors), exc, idle_timeout) from None
    try:
        ids = consumer.partitions_for_topic(topic)
        if not ids:
            raise ClusterError(f"topic {topic!r} does not exist on {bootstrap} (or the login may not describe it)")
        parts = [TopicPartition(topic, p) for p in sorted(ids)]
        read.partitions = len(parts)
        consumer.assign(parts)
        consumer.seek_to_beginning(*parts)
        ends = consumer.end_offsets(parts) if until_end else {}
        # Kafka: a partition is done when the consumer's position reaches its end offset at the start.
        left = {tp: end for tp, end in ends.items() if end > consumer.position(tp)}
        if until_end and not left:
            read.reason = "the topic is empty"
            return
        for msg in consumer:
            yield f"{msg.topic}:{msg.partition}:{msg.offset}", msg.value
            read.records += 1
            if max_events is not None and read.records >= max_events:
                read.reason = f"--max-events {max_events} reached"
                return
            tp = TopicPartition(msg.topic, msg.partition)
            if tp in left and msg.offset + 1 >= left[tp]:
                del left[tp]
                if not left:
                    read.reason = "end offsets reached"
                    return
        read.missing = sum(end - consumer.position(tp) for tp, end in left.items())
        read.reason = f"no record for {idle_timeout:g}s"
    except KafkaError as exc:
        raise _topic_error(exc, config, topic) from None
    finally:
        consumer.close()


def _topic_error(exc, config: dict, topic: str) -> ClusterError:
    if type(exc).__name__ == "TopicAuthorizationFailedError":
        return ClusterError(f"{login_name(config)} is not allowed to READ topic {topic} (reading audit events "
                            "needs DESCRIBE and READ on it)")
    return ClusterError(f"reading topic {topic} failed: {_message(exc)}")


def topic_records(bootstrap: str, topic: str, command_config=None, timeout: float = DEFAULT_TIMEOUT, *,
                  max_events: int | None = None, until_end: bool = True,
                  read: TopicRead | None = None) -> Iterable[tuple[str, bytes | None]]:
    """:func:`consume_topic`, connecting as the Java tools do (``--bootstrap-server``, ``--command-config``)."""
    config = _tool_config(command_config, timeout)
    return consume_topic(bootstrap, topic, config, max_events=max_events, until_end=until_end, idle_timeout=timeout,
                         read=read if read is not None else TopicRead())


def _tool_config(command_config, timeout: float) -> dict:
    from kafka_authz_cli._java import parse_properties
    from kafka_authz_cli.formats import read_text

    if timeout <= 0:
        raise InputError(f"--timeout must be positive, got {timeout:g}")
    props = {}
    if command_config is not None:
        props = parse_properties(read_text(command_config), str(command_config))
    return client_config(props, str(command_config or "<command-config>"), timeout)


def follow_records(bootstrap: str, topic: str, command_config=None, timeout: float = DEFAULT_TIMEOUT, *,
                   from_start: bool = False, poll_seconds: float = 0.5,
                   stop=lambda: False) -> Iterator[list[tuple[str, bytes | None]]]:
    """The records of `topic` as they arrive (shadow mode), unbounded: batches of (``topic:partition:offset``,
    value), an empty one when a poll of `poll_seconds` found none, until `stop()`. From the end of every
    partition (the end when it starts), or its beginning; no consumer group, nothing committed."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.errors import KafkaError

    config = _tool_config(command_config, timeout)
    _RECORDER.errors.clear()
    try:
        consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False, **config)
    except (KafkaError, OSError, ValueError) as exc:
        raise connect_error(bootstrap, config, list(_RECORDER.errors), exc, timeout) from None
    try:
        ids = consumer.partitions_for_topic(topic)
        if not ids:
            raise ClusterError(f"topic {topic!r} does not exist on {bootstrap} (or the login may not describe it)")
        parts = [TopicPartition(topic, p) for p in sorted(ids)]
        consumer.assign(parts)
        (consumer.seek_to_beginning if from_start else consumer.seek_to_end)(*parts)
        for tp in parts:  # the end is taken now, not at the first poll: what is produced from here on is read
            consumer.position(tp)
        while not stop():
            got = consumer.poll(timeout_ms=int(poll_seconds * 1000))
            yield [(f"{m.topic}:{m.partition}:{m.offset}", m.value) for tp in sorted(got) for m in got[tp]]
    except KafkaError as exc:
        raise _topic_error(exc, config, topic) from None
    finally:
        consumer.close()
