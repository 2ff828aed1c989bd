"""A live broker's DescribeConfigs answer as KIP-226 sources, and authz's resolution checked against it.

The broker answers DescribeConfigs (BROKER resource, ``include_synonyms``) with every config it has
and, for each, the synonyms that could supply it, highest precedence first, each with its source
(``DYNAMIC_BROKER_CONFIG``, ``DYNAMIC_DEFAULT_BROKER_CONFIG``, ``STATIC_BROKER_CONFIG``,
``DEFAULT_CONFIG``). The non-default synonyms are exactly what server.properties and the dynamic
configs hold, so they make the same :class:`BrokerConfigSources` the offline mode reads from files;
authz then resolves with its own tables and compares its answer with the broker's for every key.

How the broker builds its answer (``ConfigHelper.createBrokerConfigEntry`` / ``configSynonyms``):
for key K it lists the synonyms of K (``brokerConfigSynonyms(K, matchListenerOverride = true)``)
level by level, then drops every leading synonym not named K. So it reports K's own highest level
(``log.retention.ms`` with only ``log.retention.hours`` set is ``DEFAULT_CONFIG`` with no synonym:
K has no default of its own), and authz's chain is compared the same way. Sensitive values (and
every config whose type the broker does not know, such as ``super.users``) come back as null.

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kafka_authz_cli.config.definitions import KafkaConfigs, kafka_configs
from kafka_authz_cli.config.dynamic import (
    AUTHORIZER_STARTUP_CONFIGS,
    BrokerConfigSources,
    Located,
    Resolved,
    Synonym,
    base_name,
    is_listener_key,
    is_sensitive,
    resolve_key,
    update_mode,
    validate_dynamic,
)

#: ``ConfigEntry.ConfigSource`` ids as the protocol sends them.
CONFIG_SOURCES = {0: "UNKNOWN", 1: "DYNAMIC_TOPIC_CONFIG", 2: "DYNAMIC_BROKER_CONFIG",
                  3: "DYNAMIC_DEFAULT_BROKER_CONFIG", 4: "STATIC_BROKER_CONFIG", 5: "DEFAULT_CONFIG",
                  6: "DYNAMIC_BROKER_LOGGER_CONFIG", 7: "DYNAMIC_CLIENT_METRICS_CONFIG", 8: "DYNAMIC_GROUP_CONFIG"}

#: What a sensitive value the broker did not send stands for in the sources.
HIDDEN = "[hidden by the broker]"

_LEVELS = ("DYNAMIC_BROKER_CONFIG", "DYNAMIC_DEFAULT_BROKER_CONFIG", "STATIC_BROKER_CONFIG")
_DYNAMIC_MODES = ("per-broker", "cluster-wide", "per-listener only")


def source_name(code: int) -> str:
    return CONFIG_SOURCES.get(code, f"UNKNOWN({code})")


@dataclass(frozen=True)
class DescribedSynonym:
    name: str
    value: str | None  # None: sensitive (the broker never sends those)
    source: str


@dataclass(frozen=True)
class DescribedConfig:
    """One config entry of a DescribeConfigs answer."""

    name: str
    value: str | None
    source: str
    sensitive: bool
    read_only: bool
    synonyms: tuple[DescribedSynonym, ...] = ()

    def as_dict(self, hide: bool = False) -> dict:
        """The entry as JSON; ``hide``: no values (authz counts the key as sensitive)."""
        top = self.synonyms[0] if self.synonyms else None
        secret = self.sensitive or hide
        return {"value": None if secret else self.value, "source": self.source,
                "from": top.name if top else None, "sensitive": self.sensitive, "read_only": self.read_only,
                "synonyms": [{"name": s.name, "value": None if secret else s.value, "source": s.source}
                             for s in self.synonyms]}


@dataclass(frozen=True)
class LiveOrigin:
    """Where a broker's answer came from, for the ``where`` of each value."""

    bootstrap: str
    broker_id: str

    def where(self, source: str) -> str:
        if source == "DYNAMIC_DEFAULT_BROKER_CONFIG":
            return f"cluster:{self.bootstrap} (dynamic cluster default)"
        kind = "dynamic" if source == "DYNAMIC_BROKER_CONFIG" else "static"
        return f"cluster:{self.bootstrap} broker {self.broker_id} ({kind})"


def broker_sensitive(configs: list[DescribedConfig]) -> set[str]:
    """Names whose values the broker hides (its own entries and their synonyms)."""
    out = set()
    for c in configs:
        if c.sensitive:
            out.add(c.name)
            out.update(s.name for s in c.synonyms)
    return out


def sources_from_describe(configs: list[DescribedConfig], origin: LiveOrigin) -> BrokerConfigSources:
    """The static, cluster-default and per-broker configs the broker reported, as authz's sources."""
    levels: dict[str, dict[str, Located]] = {lvl: {} for lvl in _LEVELS}
    for c in configs:
        for s in c.synonyms:
            if s.source in levels and s.name not in levels[s.source]:
                levels[s.source][s.name] = Located(HIDDEN if s.value is None else s.value, origin.where(s.source))
    return BrokerConfigSources(levels["STATIC_BROKER_CONFIG"], levels["DYNAMIC_DEFAULT_BROKER_CONFIG"],
                               levels["DYNAMIC_BROKER_CONFIG"], origin.broker_id)


def hide(r: Resolved, hidden: set[str]) -> Resolved:
    """``r`` with the values hidden that the broker hides (it also hides configs of unknown type)."""
    if r.sensitive or not ({r.key} | {s.name for s in r.synonyms}) & hidden:
        return r
    return replace(r, value=None, sensitive=True, millis=None, from_value=None,
                   synonyms=tuple(replace(s, value=None) for s in r.synonyms))


@dataclass(frozen=True)
class Disagreement:
    key: str
    what: str  # "source", "property", "value", "update mode", "ignored"
    authz: str
    broker: str

    def message(self) -> str:
        return f"{self.key}: authz resolves {self.what} {self.authz}, the broker reports {self.broker}"

    def as_dict(self) -> dict:
        return {"key": self.key, "what": self.what, "authz": self.authz, "broker": self.broker}


@dataclass
class Check:
    """authz's resolution against the broker's answer."""

    compared: int = 0
    agreed: set[str] = field(default_factory=set)
    disagreements: list[Disagreement] = field(default_factory=list)
    #: Keys the broker reports that authz knows nothing of (neither default nor update mode).
    unknown: list[str] = field(default_factory=list)
    #: Differences that are not errors in authz's tables, with why.
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"compared": self.compared, "agree": len(self.agreed),
                "disagreements": [d.as_dict() for d in self.disagreements],
                "unknown_to_authz": sorted(self.unknown), "notes": self.notes}


def as_broker_reports(r: Resolved) -> tuple[Synonym, ...]:
    """authz's synonym chain for ``r.key`` as DescribeConfigs would list it: leading synonyms of other
    names dropped (``configSynonyms``' ``dropWhile(s => s.name != name)``)."""
    chain = list(r.synonyms)
    while chain and chain[0].name != r.key:
        chain.pop(0)
    return tuple(chain)


def _show(value: str | None, sensitive: bool) -> str:
    if sensitive:
        return "(sensitive)"
    return "null" if value is None else repr(value)


def compare_mode(c: DescribedConfig, kafka: KafkaConfigs | None = None) -> list[Disagreement]:
    """authz's dynamic update mode of ``c.name`` against the broker's ``read_only`` (which is
    ``!AllDynamicConfigs.contains(name)``, so listener-prefixed names always read as read-only, and so
    do the replication throttles of DynamicConfig.Broker until AllDynamicConfigs lists them in 4.3)."""
    mode = update_mode(c.name, kafka)
    d = (kafka or kafka_configs()).broker.get(c.name)
    if is_listener_key(c.name) or mode == "custom" or (d is not None and d.dynamic_only) \
            or (mode in _DYNAMIC_MODES) != c.read_only:
        return []
    return [Disagreement(c.name, "update mode", mode, "read-only" if c.read_only else "dynamically updatable")]


def compare_key(r: Resolved, c: DescribedConfig, kafka: KafkaConfigs | None = None) -> list[Disagreement]:
    """Where authz's resolution of ``c.name`` differs from what the broker reports for it."""
    out: list[Disagreement] = []
    chain = as_broker_reports(r)
    a_top = chain[0] if chain else None
    b_top = c.synonyms[0] if c.synonyms else None
    a_source = a_top.source if a_top else "DEFAULT_CONFIG"
    if a_source != c.source:
        out.append(Disagreement(c.name, "source", a_source, c.source))
    elif (a_top and a_top.name) != (b_top and b_top.name):
        out.append(Disagreement(c.name, "property", a_top.name if a_top else "none (no value of its own)",
                                b_top.name if b_top else "none (no value of its own)"))
    elif a_top and b_top and not (c.sensitive or r.sensitive) and a_top.value != b_top.value:
        out.append(Disagreement(c.name, "value", f"{a_top.value!r} ({a_top.source})",
                                f"{b_top.value!r} ({b_top.source})"))
    return out + compare_mode(c, kafka)


def check_against_broker(configs: list[DescribedConfig], sources: BrokerConfigSources,
                         kafka: KafkaConfigs | None = None) -> Check:
    """Resolve every key the broker reports with the registry of ``kafka`` and compare (``sources`` as
    built by :func:`sources_from_describe`, before any validation)."""
    check = Check()
    for per_broker, props in ((True, sources.dynamic_broker), (False, sources.dynamic_default)):
        _kept, ignored = validate_dynamic(props, per_broker, kafka)
        level = "DYNAMIC_BROKER_CONFIG" if per_broker else "DYNAMIC_DEFAULT_BROKER_CONFIG"
        for i in ignored:
            for key in i.keys:
                check.disagreements.append(Disagreement(key, "ignored", f"ignored by the broker ({i.message})",
                                                        f"applied ({level})"))
    for c in sorted(configs, key=lambda c: c.name):
        r = resolve_key(c.name, sources, kafka)
        if r.source is None and update_mode(c.name, kafka) == "custom":
            check.unknown.append(c.name)
            continue
        if r.source is None:
            found = compare_mode(c, kafka)  # all authz knows of the key: whether it is dynamic
        elif base_name(c.name) in AUTHORIZER_STARTUP_CONFIGS and c.source.startswith("DYNAMIC"):
            check.notes.append(f"{c.name}: the broker reports its stored {c.source} value; the authorizer read "
                               f"the key once at start-up and uses {r.source}")
            continue
        else:
            found = compare_key(r, c, kafka)
        check.compared += 1
        check.disagreements += found
        if not found:
            check.agreed.add(c.name)
    return check


@dataclass(frozen=True)
class Drift:
    key: str
    kind: str  # "differs", "only in file", "only on broker"
    file: str | None
    file_where: str | None
    broker: str | None

    def message(self) -> str:
        if self.kind == "differs":
            return f"{self.key}: {self.file} in the file ({self.file_where}), the broker loaded {self.broker}"
        if self.kind == "only in file":
            return f"{self.key}: {self.file} in the file ({self.file_where}), not in the broker's static config"
        return f"{self.key}: the broker loaded {self.broker}, not in the file"

    def as_dict(self) -> dict:
        return {"key": self.key, "kind": self.kind, "file": self.file, "file_where": self.file_where,
                "broker": self.broker}


#: Keys KafkaConfig copies from one to the other when only one is set (``populateSynonyms``): the
#: broker reports the copy as static although the file never had it.
DERIVED_STATIC = {"broker.id": "node.id", "node.id": "broker.id"}


def _secret(key: str, broker_static: dict[str, Located], hidden: set[str]) -> bool:
    return key in hidden or is_sensitive(key) or (key in broker_static and broker_static[key].value == HIDDEN)


def compared_as_set_only(file_static: dict[str, Located], broker_static: dict[str, Located],
                         hidden: set[str]) -> list[str]:
    """The keys in both whose values :func:`static_drift` cannot compare (sensitive, or hidden by the broker)."""
    return sorted(k for k in set(file_static) & set(broker_static) if _secret(k, broker_static, hidden))


def static_drift(file_static: dict[str, Located], broker_static: dict[str, Located],
                 hidden: set[str]) -> list[Drift]:
    """server.properties against what the broker loaded (its STATIC_BROKER_CONFIG synonyms): keys whose
    value differs and keys in only one. Sensitive values are compared only as set or unset."""
    out = []
    for key in sorted(set(file_static) | set(broker_static)):
        twin = DERIVED_STATIC.get(key)
        if key not in file_static and twin in file_static and twin in broker_static \
                and broker_static[key].value == broker_static[twin].value:
            continue  # the broker's copy of the file's twin key
        secret = _secret(key, broker_static, hidden)
        f, b = file_static.get(key), broker_static.get(key)

        def show(loc):
            return None if loc is None else "(set)" if secret else repr(loc.value)

        if f is not None and b is not None:
            if not secret and f.value != b.value:
                out.append(Drift(key, "differs", show(f), f.where, show(b)))
        elif f is not None:
            out.append(Drift(key, "only in file", show(f), f.where, None))
        else:
            out.append(Drift(key, "only on broker", None, None, show(b)))
    return out
