"""ACL sources beyond the plain ACL formats: rules-language files compiled to bindings."""

from __future__ import annotations

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.acl.formats import AclSet


def compile_rules_text(text: str, path: str) -> AclSet:
    try:
        from kafka_authz_cli.rules import compile as rules_compile  # the rules-language package
    except ImportError:
        raise InputError("this looks like a rules-language file, which this build of authz cannot compile yet",
                         path, 1, 1) from None
    bindings = rules_compile.compile_rules_text(text, path)
    return AclSet(list(bindings), [path] * len(bindings), path, "rules")


CLUSTER_PREFIX = "cluster:"


def is_cluster_source(spec) -> bool:
    return str(spec).startswith(CLUSTER_PREFIX)


def cluster_acl_set(spec, command_config=None, timeout: float | None = None) -> AclSet | None:
    """``cluster:HOST:PORT[,HOST:PORT...]``: the live cluster's ACLs (DescribeAcls), as an ACL set.

    ``None`` when ``spec`` is not a cluster source (the caller reads it as a file). The one place
    `diff`, `whatif` and anything else that takes an ACL set turn a live side into bindings.
    """
    if not is_cluster_source(spec):
        return None
    bootstrap = str(spec)[len(CLUSTER_PREFIX):]
    if not bootstrap:
        raise InputError(f"{spec!r}: expected cluster:HOST:PORT (the bootstrap servers)")
    from kafka_authz_cli.cluster.kafka_adapter import DEFAULT_TIMEOUT, open_admin

    admin = open_admin(bootstrap, command_config, timeout or DEFAULT_TIMEOUT)
    try:
        bindings = admin.list_acls()
    finally:
        admin.close()
    origin = f"{CLUSTER_PREFIX}{bootstrap}"
    return AclSet(bindings, [origin] * len(bindings), origin, "cluster")
