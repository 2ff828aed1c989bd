"""Live clusters through kafka-python: the only module that imports ``kafka``.

Kept small on purpose: conversions between authz's model and kafka-python's admin objects, the
client settings taken from a Java ``--command-config`` file, and a thin wrapper over the admin
calls. Everything above it works on plain :class:`AclBinding` lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Protocol

from kafka_authz_cli.errors import AuthzError, InputError
from kafka_authz_cli.model import AclBinding, AclOperation, AclPermissionType, PatternType, ResourceType


class AclAdmin(Protocol):
    """What authz needs from a cluster; tests supply a fake."""

    def list_acls(self) -> list[AclBinding]: ...

    def create_acls(self, bindings: list[AclBinding]) -> list[tuple[AclBinding, str]]: ...

    def delete_acls(self, bindings: list[AclBinding]) -> list[tuple[AclBinding, str]]: ...

    def describe_scram_users(self) -> dict[str, list[tuple[str, int]]]: ...

    def upsert_scram(self, user: str, mechanism: str, password: bytes, iterations: int) -> str | None: ...


# -- conversions ------------------------------------------------------------------------------

def to_kafka_acl(binding: AclBinding):
    from kafka.admin import ACL, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePattern
    from kafka.admin import ResourceType as KResourceType

    pattern = ResourcePattern(KResourceType(binding.resource_type.code), binding.resource_name,
                              ACLResourcePatternType(binding.pattern_type.code))
    return ACL(binding.principal, binding.host, ACLOperation(binding.operation.code),
               ACLPermissionType(binding.permission.code), pattern)


def _code(member) -> int:
    return int(getattr(member, "value", member))


def from_kafka_acl(acl) -> AclBinding:
    pattern = acl.resource_pattern
    return AclBinding(ResourceType(_code(pattern.resource_type)), pattern.resource_name,
                      PatternType(_code(pattern.pattern_type)), acl.principal, acl.host,
                      AclOperation(_code(acl.operation)), AclPermissionType(_code(acl.permission_type)))


def _exact_filter(binding: AclBinding):
    from kafka.admin import ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePatternFilter
    from kafka.admin import ResourceType as KResourceType

    return ACLFilter(binding.principal, binding.host, ACLOperation(binding.operation.code),
                     ACLPermissionType(binding.permission.code),
                     ResourcePatternFilter(KResourceType(binding.resource_type.code), binding.resource_name,
                                           ACLResourcePatternType(binding.pattern_type.code)))


# -- client settings --------------------------------------------------------------------------

_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')
_DIRECT = {
    "security.protocol": "security_protocol",
    "sasl.mechanism": "sasl_mechanism",
    "ssl.endpoint.identification.algorithm": None,
    "client.id": "client_id",
    "request.timeout.ms": "request_timeout_ms",
}


def client_config(props: dict[str, str], path: str = "<command-config>") -> dict:
    """kafka-python settings from a Java client ``--command-config`` properties map.

    JKS/PKCS12 keystores have no kafka-python equivalent: PEM files are required (say so rather
    than connect insecurely). The JAAS line's password is taken, never echoed.
    """
    config: dict = {}
    for key, value in props.items():
        if key in _DIRECT:
            if _DIRECT[key]:
                config[_DIRECT[key]] = int(value) if key.endswith(".ms") else value
            elif key == "ssl.endpoint.identification.algorithm":
                config["ssl_check_hostname"] = value.strip().lower() == "https"
        elif key == "sasl.jaas.config":
            options = dict(_JAAS_OPTION.findall(value))
            if "username" not in options or "password" not in options:
                raise InputError("sasl.jaas.config needs username=\"...\" and password=\"...\" options", path)
            config["sasl_plain_username"] = options["username"]
            config["sasl_plain_password"] = options["password"]
        elif key in ("ssl.truststore.location", "ssl.keystore.location"):
            if not value.endswith((".pem", ".crt")) and props.get(key.replace("location", "type"), "").upper() != "PEM":
                raise InputError(f"{key}: kafka-python needs PEM files (ssl.truststore.type=PEM); convert {value} "
                                 "with keytool/openssl", path)
            config["ssl_cafile" if "truststore" in key else "ssl_certfile"] = value
        elif key == "ssl.key.location":
            config["ssl_keyfile"] = value
    return config


@dataclass
class KafkaAclAdmin:
    """The real cluster, through kafka-python's admin client."""

    bootstrap_servers: str
    config: dict

    def __post_init__(self) -> None:
        try:
            from kafka import KafkaAdminClient
            from kafka.errors import KafkaError
        except ImportError as exc:  # pragma: no cover - dependency is declared
            raise AuthzError(f"kafka-python is not installed: {exc}") from None
        try:
            self._admin = KafkaAdminClient(bootstrap_servers=self.bootstrap_servers, **self.config)
        except KafkaError as exc:
            raise AuthzError(f"cannot connect to {self.bootstrap_servers}: {type(exc).__name__}: {exc}") from None

    def list_acls(self) -> list[AclBinding]:
        from kafka.admin import ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourcePatternFilter
        from kafka.admin import ResourceType as KResourceType

        everything = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                               ResourcePatternFilter(KResourceType.ANY, None, ACLResourcePatternType.ANY))
        acls, error = self._admin.describe_acls(everything)
        if getattr(error, "errno", 0):
            raise AuthzError(f"DescribeAcls failed: {error.__name__ if isinstance(error, type) else error}")
        return [from_kafka_acl(a) for a in acls]

    def create_acls(self, bindings: list[AclBinding]) -> list[tuple[AclBinding, str]]:
        if not bindings:
            return []
        result = self._admin.create_acls([to_kafka_acl(b) for b in bindings])
        failed = []
        for acl, error in result.get("failed", []):
            failed.append((from_kafka_acl(acl), str(error)))
        return failed

    def delete_acls(self, bindings: list[AclBinding]) -> list[tuple[AclBinding, str]]:
        if not bindings:
            return []
        failed = []
        for (_filter, _deleted, error), binding in zip(self._admin.delete_acls([_exact_filter(b) for b in bindings]),
                                                       bindings):
            if getattr(error, "errno", 0):
                failed.append((binding, str(error)))
        return failed

    def describe_scram_users(self) -> dict[str, list[tuple[str, int]]]:
        users = self._admin.describe_user_scram_credentials()
        out = {}
        for user, info in users.items():
            out[user] = [(ci["mechanism"].name.replace("_", "-"), ci["iterations"])
                         for ci in info.get("credential_infos", [])]
        return out

    def upsert_scram(self, user: str, mechanism: str, password: bytes, iterations: int) -> str | None:
        from kafka.admin import UserScramCredentialUpsertion

        result = self._admin.alter_user_scram_credentials(
            [UserScramCredentialUpsertion(user, mechanism, password, iterations=iterations)])
        return result.get(user)


def plan_sync(current: Iterable[AclBinding], desired: Iterable[AclBinding]) -> tuple[list[AclBinding], list[AclBinding]]:
    """What to create and what to delete so that the cluster holds exactly ``desired``."""
    have = dict.fromkeys(current)
    want = dict.fromkeys(desired)
    return [b for b in want if b not in have], [b for b in have if b not in want]
