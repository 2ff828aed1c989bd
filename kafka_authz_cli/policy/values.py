"""Topic config values as Kafka reads them, and the special values that mean "unbounded", for KIP-201 bounds.

A value is read as its ``ConfigDef`` type reads it (the registry's topic ConfigDef of the Kafka version:
``String.trim`` then ``Integer.parseInt`` / ``Long.parseLong`` / ``Double.parseDouble``), and refused as
the controller refuses it (``INVALID_CONFIG`` with ``ConfigException``'s message: an unparsable number,
a value outside the ``Range`` validator, a ``cleanup.policy`` item that is neither ``compact`` nor
``delete``, a name ``LogConfig`` does not define).

Then the values whose meaning is not their number:

========================  ==========================  ===============================================
config                    value                       meaning (and where Kafka says so)
========================  ==========================  ===============================================
``retention.ms``          negative (``-1``)           no time limit: ``TopicConfig.RETENTION_MS_DOC``
                                                      "If set to -1, no time limit is applied";
                                                      ``UnifiedLog.deleteRetentionMsBreachedSegments``
                                                      ``if (retentionMs < 0) return 0``
``retention.bytes``       negative (``-1``, default)  no size limit: ``RETENTION_BYTES_DOC`` "By default
                                                      there is no size limit";
                                                      ``deleteRetentionSizeBreachedSegments``
                                                      ``if (retentionSize < 0 ...) return 0``
``local.retention.ms``,   ``-2`` (default)            ``retention.ms`` / ``retention.bytes`` is used:
``local.retention.bytes``                             ``LOCAL_LOG_RETENTION_MS_DOC``;
                                                      ``LogConfig.localRetentionMs()``
``local.retention.*``     ``-1``                      no local limit (``RemoteLogManager``: ``< 0``
                                                      skips); ``LogConfig.validateRemoteStorageRetention*``
                                                      allows it only when the total is unbounded too
any LONG config           ``Long.MAX_VALUE``          never: the default of ``flush.messages``,
                                                      ``flush.ms``, ``max.compaction.lag.ms``,
                                                      ``message.timestamp.before.max.ms`` (LogConfig)
``cleanup.policy``        empty list                  no cleanup: segments are retained indefinitely
                                                      (4.x ``CLEANUP_POLICY_DOC`` "An empty list means
                                                      infinite retention"; LogConfig's ``delete`` and
                                                      ``compact`` are both false), so the retention
                                                      configs are unbounded
========================  ==========================  ===============================================

An unbounded value is compared as infinite: it satisfies every ``min`` and violates every ``max``.
Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from kafka_authz_cli._java import ConfigException, check_range, java_number_string, kafka_list, parse_config_value
from kafka_authz_cli.config import KafkaConfigs

LONG_MAX = 2**63 - 1
NEGATIVE_IS_UNBOUNDED = {"retention.ms": "no time limit", "retention.bytes": "no size limit"}
INHERITS = {"local.retention.ms": "retention.ms", "local.retention.bytes": "retention.bytes"}
INHERIT, LOCAL_UNBOUNDED = -2, -1
#: What an empty cleanup.policy makes unbounded.
RETENTION_CONFIGS = frozenset({"retention.ms", "retention.bytes", "local.retention.ms", "local.retention.bytes"})
#: cleanup.policy's items: ``ValidList.in("compact", "delete")``, case-sensitive.
CLEANUP_POLICIES = ("compact", "delete")
_NUMERIC = ("INT", "SHORT", "LONG", "DOUBLE")


@dataclass(frozen=True)
class Effective:
    """A config's value as a number to compare: ``math.inf`` when Kafka treats it as unbounded."""

    number: int | float
    text: str
    meaning: str | None = None  # why the number is not the text's, e.g. "-1: no time limit"

    def show(self) -> str:
        return self.text.strip() + (f" ({self.meaning})" if self.meaning else "")


def invalid_config(configs: dict[str, str], kafka: KafkaConfigs) -> str | None:
    """The ``INVALID_CONFIG`` error the controller answers for these topic configs, or None
    (``LogConfig.validateNames``, then ``ConfigDef.parse`` with its validators)."""
    for name in configs:
        if name not in kafka.topic:
            return f"INVALID_CONFIG: Unknown topic config name: {name}"
    for name, text in configs.items():
        try:
            check_value(name, text, kafka)
        except ConfigException as exc:
            return f"INVALID_CONFIG: {exc.message}"
    return None


def check_value(name: str, text: str, kafka: KafkaConfigs):
    """The value as ``ConfigDef.parseType`` and the Range / cleanup.policy validators leave it."""
    d = kafka.topic.get(name)
    if d is None:
        return text
    if d.type == "LIST":
        items = kafka_list(text)
        if name == "cleanup.policy":
            for item in items:
                if item not in CLEANUP_POLICIES:
                    raise ConfigException(name, item, "String must be one of: " + ", ".join(CLEANUP_POLICIES))
        return items
    value = parse_config_value(name, text, d.type)
    if d.type in _NUMERIC:
        check_range(name, value, d.validator)
    return value


def effective(name: str, text: str, kafka: KafkaConfigs, lookup: Callable[[str], str | None],
              _depth: int = 0) -> Effective | None:
    """``text`` of config ``name`` as a number to compare (None: not a number Kafka reads, or not a
    numeric config). ``lookup(config)`` is the value another config of the topic will have (for ``-2``
    and an empty cleanup.policy)."""
    d = kafka.topic.get(name)
    kind = d.type if d is not None else None
    if kind not in _NUMERIC:
        return None
    try:
        number = parse_config_value(name, text, kind)
    except ConfigException:
        return None
    if isinstance(number, float) and math.isnan(number):
        return Effective(number, text, "NaN: compares with no bound")
    if name in RETENTION_CONFIGS and _no_cleanup(lookup):
        return Effective(math.inf, text, "cleanup.policy is empty: no cleanup, retained indefinitely")
    if name in NEGATIVE_IS_UNBOUNDED and number < 0:
        return Effective(math.inf, text, f"{number}: {NEGATIVE_IS_UNBOUNDED[name]}")
    if name in INHERITS and number == INHERIT and _depth == 0:
        other = INHERITS[name]
        inherited_text = lookup(other)
        inherited = effective(other, inherited_text, kafka, lookup, 1) if inherited_text is not None else None
        if inherited is not None:
            return Effective(inherited.number, text, f"-2: {other}'s value, {inherited.show()}")
        return None
    if name in INHERITS and number == LOCAL_UNBOUNDED:
        return Effective(math.inf, text, "-1: no local limit")
    if kind == "LONG" and number == LONG_MAX:
        return Effective(math.inf, text, "Long.MAX_VALUE: never")
    return Effective(number, text)


def _no_cleanup(lookup: Callable[[str], str | None]) -> bool:
    policy = lookup("cleanup.policy")
    return policy is not None and not kafka_list(policy)


def violations(what: str, value: Effective, low, high) -> list[str]:
    """A ``min``/``max`` bound on an effective value: unbounded passes every min and fails every max;
    NaN fails both (Kafka's own comparisons with NaN are all false)."""
    out = []
    nan = isinstance(value.number, float) and math.isnan(value.number)
    if low is not None and (nan or value.number < low):
        out.append(f"{what} {value.show()} is below the minimum {_fmt(low)}")
    if high is not None and (nan or value.number > high):
        out.append(f"{what} {value.show()} is above the maximum {_fmt(high)}")
    return out


def _fmt(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return java_number_string(value) if isinstance(value, float) else str(value)


def cleanup_items(text: str) -> list[str]:
    """cleanup.policy's items as the broker reads them (``ConfigDef`` LIST); an empty list is shown as
    the empty value (no cleanup: infinite retention)."""
    return kafka_list(text) or [""]


def compact_only_note(name: str, lookup: Callable[[str], str | None]) -> str | None:
    """A retention bound on a topic that only compacts: ``UnifiedLog.deleteOldSegments`` deletes by time
    and size only when ``cleanup.policy`` holds ``delete``, so the latest record of each key stays."""
    if name not in ("retention.ms", "retention.bytes"):
        return None
    policy = lookup("cleanup.policy")
    if policy is None:
        return None
    items = kafka_list(policy)
    if items and "delete" not in items:
        return (f"{name}: cleanup.policy={policy.strip()} does not delete by time or size (UnifiedLog."
                "deleteOldSegments): the latest record of each key is kept whatever this bound says")
    return None
