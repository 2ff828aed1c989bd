"""JulieOps' settings that change the ACLs it creates, read from ``--option KEY=VALUE``.

Each key is JulieOps' own configuration key (``Constants``; defaults from ``reference.conf`` of 4.4.1),
so a team passes the values of its ``topology-builder.properties``. Only the keys the default ACL
provider's code reads while building bindings are here (each described among the format's reading
options, ``acl/registry.py``); the rest of JulieOps' configuration does not change which ACLs it creates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from kafka_authz_cli.errors import OptionError

SIMPLE_ACLS = "com.purbon.kafka.topology.roles.SimpleAclsProvider"
CCLOUD_ACLS = ("com.purbon.kafka.topology.roles.CCloudAclsProvider",
               "com.purbon.kafka.topology.roles.HybridCCloudAclsProvider")
RBAC = "com.purbon.kafka.topology.roles.RBACProvider"

_TRUE = {"true", "yes", "on"}  # HOCON's getBoolean
_FALSE = {"false", "no", "off"}


@dataclass(frozen=True)
class Config:
    separator: str = "."
    topic_format: str = "default"
    project_format: str = "default"
    optimized: bool = False
    connector_create: bool = True
    dlq_generate: bool = False
    dlq_label: str = "dlq"
    dlq_format: str = "default"
    dlq_allow: tuple = ()
    dlq_deny: tuple = ()
    monitoring_topic: str = "_confluent-monitoring"
    command_topic: str = "_confluent-command"
    metrics_topic: str = "_confluent-metrics"
    roles: str | None = None
    topic_prefixes: tuple = ()
    group_prefixes: tuple = ()
    principal_prefixes: tuple = ()
    multiple_contexts: bool = False
    provider: str = SIMPLE_ACLS


def _bool(options: Mapping[str, str], key: str, default: bool) -> bool:
    if key not in options:
        return default
    value = options[key].strip().lower()
    if value not in _TRUE | _FALSE:
        raise OptionError(f"{key}={options[key]}: expected true or false", "--option")
    return value in _TRUE


def _list(options: Mapping[str, str], key: str) -> tuple:
    items = tuple(s.strip() for s in options.get(key, "").split(",") if s.strip())
    if key.endswith("managed.prefixes") and key in options and "" in [s.strip() for s in options[key].split(",")]:
        # Configuration.validateManagedPrefixes: an empty prefix is refused
        raise OptionError(f"{key}: contains an empty prefix (JulieOps refuses this configuration)", "--option")
    return items


def _patterns(options: Mapping[str, str], key: str) -> tuple:
    out = []
    for item in _list(options, key):
        try:
            out.append(re.compile(item))
        except re.error as exc:
            raise OptionError(f"{key}: {item!r} is not a regular expression ({exc})", "--option") from None
    return tuple(out)


def config(options: Mapping[str, str] | None) -> Config:
    """The settings of ``options``, checked as ``Configuration.validateWith`` checks them."""
    o = dict(options or {})
    topic_format = o.get("topology.topic.prefix.format", "default")
    project_format = o.get("topology.project.prefix.format", "default")
    if (topic_format == "default") != (project_format == "default"):
        raise OptionError("topology.topic.prefix.format and topology.project.prefix.format need to be defined "
                          "together (JulieOps' Configuration.validateGeneralConfiguration)", "--option")
    if not topic_format.startswith(project_format):
        raise OptionError("topology.topic.prefix.format should start with topology.project.prefix.format "
                          "(JulieOps' Configuration.validateGeneralConfiguration)", "--option")
    provider = o.get("topology.builder.access.control.class", SIMPLE_ACLS)
    if provider == RBAC:
        raise OptionError(f"{provider} creates Confluent RBAC role bindings, not Kafka ACLs: nothing to read",
                          "--option")
    if provider not in (SIMPLE_ACLS, *CCLOUD_ACLS):  # AccessControlProviderFactory.get: an exact switch
        raise OptionError(f"{provider}: unknown access control provider (JulieOps' AccessControlProviderFactory "
                          "refuses it)", "--option")
    return Config(
        separator=o.get("topology.topic.prefix.separator", "."), topic_format=topic_format,
        project_format=project_format, optimized=_bool(o, "topology.acls.optimized", False),
        connector_create=_bool(o, "topology.connector.allow.topic.create", True),
        dlq_generate=_bool(o, "topology.dlq.topics.generate", False),
        dlq_label=o.get("topology.topic.dlq.label", "dlq"),
        dlq_format=o.get("topology.topic.dlq.prefix.format", "default"),
        dlq_allow=_patterns(o, "topology.dlq.topics.allow.list"),
        dlq_deny=_patterns(o, "topology.dlq.topics.deny.list"),
        monitoring_topic=o.get("confluent.monitoring.topic", "_confluent-monitoring"),
        command_topic=o.get("confluent.command.topic", "_confluent-command"),
        metrics_topic=o.get("confluent.metrics.topic", "_confluent-metrics"),
        roles=o.get("julie.roles"),
        topic_prefixes=_list(o, "topology.topic.managed.prefixes"),
        group_prefixes=_list(o, "topology.group.managed.prefixes"),
        principal_prefixes=_list(o, "topology.service.accounts.managed.prefixes"),
        multiple_contexts=_bool(o, "julie.multiple.context.per.dir.enabled", False),
        provider=provider)


_VAR = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def render(template: str, context: Mapping[str, object]) -> str:
    """``JinjaUtils.serialise`` (Jinjava) for the templates JulieOps' docs use: ``{{ name }}``
    substitutions, an unknown name rendering empty. Other Jinja (filters, tags) is refused, not guessed."""
    rest = _VAR.sub("", template)
    if "{{" in rest or "{%" in rest or "{#" in rest:
        raise ValueError(f"{template!r}: only {{{{ name }}}} substitutions are read here (Jinja filters and tags "
                         "are not)")
    return _VAR.sub(lambda m: _text(context.get(m.group(1))), template)


def _text(value: object) -> str:
    return "" if value is None else str(value)
