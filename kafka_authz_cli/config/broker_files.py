"""A broker's configuration sources: server.properties and its dynamic (KIP-226) configs, and the
password encoder's settings in server.properties.

Dynamic configs are read from either

* JSON: ``{"cluster_default": {"key": "value"}, "brokers": {"0": {"key": "value"}}}`` (numbers and
  booleans are taken as their text; ``null`` means deleted), or
* the text ``kafka-configs.sh --describe --entity-type brokers [--entity-name N | --entity-default]``
  prints (``Dynamic configs for broker 0 are:`` / ``Default configs for brokers in the cluster are:``
  followed by ``  key=value sensitive=... synonyms={...}`` lines; sensitive values print as null).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from kafka_authz_cli._java import NumberFormatException, java_parse_int, java_trim, parse_properties_with_lines
from kafka_authz_cli.config.dynamic import BrokerConfigSources, Located
from kafka_authz_cli.config.password_encoder import (
    CONFIG_CIPHER,
    CONFIG_ITERATIONS,
    CONFIG_KEY_FACTORY,
    CONFIG_KEY_LENGTH,
    CONFIG_OLD_SECRET,
    CONFIG_SECRET,
    DEFAULT_CIPHER,
    DEFAULT_ITERATIONS,
    DEFAULT_KEY_LENGTH,
    EncoderConfig,
)
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import read_text, what_is, wrong_kind

# kafka.admin.ConfigCommand, by version: 2.5+ "Dynamic configs for broker N are:" / "Default configs for
# brokers in the cluster are:"; 1.1-2.4 "Configs for broker N are:" / "Default config for brokers in the
# cluster are:" (both followed by entry lines); with --zookeeper (to 3.x) one line per entity,
# "Configs for brokers 'N' are k=v,k2=v2" / "Configs for default brokers are k=v" (Entity.toString).
_HEADER_BROKER = re.compile(r"(?:Dynamic )?[Cc]onfigs for broker (\S+) are:\s*$")
_HEADER_DEFAULT = re.compile(r"Default configs? for brokers in the cluster are:\s*$")
_HEADER_ALL = re.compile(r"All configs for broker (\S+) are:\s*$")
_ZK_LINE = re.compile(r"[ \t]*Configs for (?:brokers '(?P<broker>[^']*)'|(?P<default>default brokers)) are ?(?P<configs>.*)$")
# The --zookeeper form joins key=value with "," (values may hold commas: split before "key=" only).
_ZK_SPLIT = re.compile(r",(?=[A-Za-z0-9_.\-]+=)")
# The same command for other entity types (2.5+: "<source> configs for <type without s> <name> are:").
_OTHER_ENTITY = re.compile(r"[ \t]*(?:Dynamic |All )?[Cc]onfigs for (?P<what>topic|broker-logger|client-metric|group|"
                           r"user-principal|client-id|ip)\b")
# ConfigCommand prints these to stdout before the output with --zookeeper (2.5+).
_NOISE = ("Warning: --zookeeper is deprecated", "Use --bootstrap-server instead to specify a broker")
_ENTRY = re.compile(r"^\s+(?P<key>[^=\s][^=]*)=(?P<value>.*) sensitive=(?P<sensitive>true|false) synonyms=\{(?P<synonyms>.*)\}\s*$")
# One synonym of an entry: "SOURCE:name=value" (ConfigEntry.ConfigSource names), joined with ", ".
_SYNONYM = re.compile(r"(?:^|, )(?P<source>[A-Z_]+):(?P<name>[^=]+)=(?P<value>.*?)(?=, [A-Z_]+:[^=]+=|$)")


def read_static(path: Path | str) -> dict[str, Located]:
    props = parse_properties_with_lines(read_text(path), str(path))
    return {k: Located(v, f"{path}:{line}") for k, (v, line) in props.items()}


def _text(value, path: str, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise InputError(f"{where}: a config value must be a string, number or boolean", path)


def read_dynamic(path: Path | str, broker_id: str | None) -> tuple[dict[str, Located], dict[str, Located], list[str]]:
    """(cluster default, this broker, broker ids present) from a dynamic-config file."""
    text = read_text(path).removeprefix("\ufeff")
    if text.lstrip().startswith(("{", "[")):
        return _read_json(text, str(path), broker_id)
    return _read_describe(text, str(path), broker_id)


def _read_json(text: str, path: str, broker_id: str | None):
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", path, exc.lineno, exc.colno) from None
    if not isinstance(doc, dict):
        raise InputError('expected {"cluster_default": {...}, "brokers": {"<id>": {...}}}', path)
    unknown = set(doc) - {"cluster_default", "brokers"}
    if unknown:
        raise InputError(f"unknown top-level key(s) {sorted(unknown)}; expected cluster_default and brokers", path)
    for section in ("cluster_default", "brokers"):
        if section in doc and doc[section] is not None and not isinstance(doc[section], dict):
            raise InputError(f"{section} must be an object", path)
    default: dict[str, Located] = {}
    for k, v in (doc.get("cluster_default") or {}).items():
        value = _text(v, path, f"cluster_default.{k}")
        if value is not None:
            default[k] = Located(value, f"{path} (cluster default)")
    brokers = doc.get("brokers") or {}
    if not isinstance(brokers, dict):
        raise InputError("brokers must map broker ids to configs", path)
    mine: dict[str, Located] = {}
    for bid, configs in brokers.items():
        if configs is not None and not isinstance(configs, dict):
            raise InputError(f"brokers.{bid} must be an object", path)
    if broker_id is not None and broker_id in brokers:
        for k, v in (brokers[broker_id] or {}).items():
            value = _text(v, path, f"brokers.{broker_id}.{k}")
            if value is not None:
                mine[k] = Located(value, f"{path} (broker {broker_id})")
    return default, mine, sorted(brokers)


def _read_describe(text: str, path: str, broker_id: str | None):
    default: dict[str, Located] = {}
    per_broker: dict[str, dict[str, Located]] = {}
    current: dict[str, Located] | None = None
    everything = False  # --all: each entry's synonyms name its dynamic layers
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith(_NOISE):
            continue
        if _zk_line(line, path, lineno, default, per_broker):
            current = None
            continue
        other = _OTHER_ENTITY.match(line)
        if other:
            raise InputError(f"these are the configs of a {other['what']}, not of brokers: --dynamic takes "
                             "kafka-configs --describe --entity-type brokers output", path, lineno)
        m = _HEADER_BROKER.match(line) or _HEADER_ALL.match(line)
        if m:
            current, everything = per_broker.setdefault(m.group(1), {}), bool(_HEADER_ALL.match(line))
            continue
        if _HEADER_DEFAULT.match(line):
            current, everything = default, False
            continue
        m = _ENTRY.match(line)
        if m and current is not None:
            _entry(m, current, default, everything, f"{path}:{lineno}")
            continue
        kind = what_is(text)
        if kind is not None and kind.key != "kafka-configs":
            raise wrong_kind(text, path, "dynamic broker configs", "authz dynamic config JSON, kafka-configs "
                             "--describe --entity-type brokers output (Kafka 1.1 to 4.x)")
        raise InputError("not a kafka-configs --describe line (expected 'Dynamic configs for broker N are:', "
                         "'Default configs for brokers in the cluster are:' or '  key=value sensitive=... "
                         "synonyms={...}')", path, lineno)
    mine = per_broker.get(broker_id, {}) if broker_id is not None else {}
    return default, mine, sorted(per_broker)


def _hidden(value: str, sensitive: str) -> str:
    return "[hidden by kafka-configs]" if sensitive == "true" and value == "null" else value


def _entry(m, current: dict[str, Located], default: dict[str, Located], everything: bool, where: str) -> None:
    if not everything:
        current[m.group("key")] = Located(_hidden(m.group("value"), m.group("sensitive")), where)
        return
    # --all prints every config with its effective value; only its DYNAMIC_* synonyms are dynamic configs.
    for syn in _SYNONYM.finditer(m.group("synonyms")):
        target = {"DYNAMIC_BROKER_CONFIG": current, "DYNAMIC_DEFAULT_BROKER_CONFIG": default}.get(syn["source"])
        if target is not None:
            target[syn["name"]] = Located(_hidden(syn["value"], m.group("sensitive")), where)


def _zk_line(line: str, path: str, lineno: int, default: dict[str, Located],
             per_broker: dict[str, dict[str, Located]]) -> bool:
    m = _ZK_LINE.match(line)
    if m is None:
        return False
    target = default if m["default"] else per_broker.setdefault(m["broker"], {})
    for pair in _ZK_SPLIT.split(m["configs"]) if m["configs"].strip() else []:
        key, sep, value = pair.partition("=")
        if not sep:
            raise InputError(f"not a key=value pair: {pair[:60]!r}", path, lineno)
        target[key] = Located(value, f"{path}:{lineno}")
    return True


def load_sources(broker_config: Path | None, dynamic: Path | None, broker_id: str | None
                 ) -> tuple[BrokerConfigSources, list[str]]:
    notes: list[str] = []
    static = read_static(broker_config) if broker_config is not None else {}
    if broker_id is None:
        for key in ("node.id", "broker.id"):
            if key in static:
                broker_id = static[key].value.strip()
                notes.append(f"broker id {broker_id} from {key} ({static[key].where})")
                break
    default: dict[str, Located] = {}
    mine: dict[str, Located] = {}
    if dynamic is not None:
        default, mine, ids = read_dynamic(dynamic, broker_id)
        if broker_id is None and ids:
            notes.append(f"no broker id (--broker-id, node.id): the per-broker configs of {', '.join(ids)} in "
                         f"{dynamic} are not applied")
        elif broker_id is not None and ids and broker_id not in ids:
            notes.append(f"{dynamic} has no per-broker configs for broker {broker_id} (it has {', '.join(ids)})")
    return BrokerConfigSources(static, default, mine, broker_id), notes


# -- the password encoder's settings ------------------------------------------------------------------

@dataclass(frozen=True)
class EncoderSettings:
    """``password.encoder.*`` of a server.properties: each value with its line (none without a file)."""

    path: str = ""
    values: dict[str, tuple[str, int]] = field(default_factory=dict)

    def _value(self, key: str) -> str | None:
        return self.values[key][0] if key in self.values else None

    @property
    def secret(self) -> str | None:
        return self._value(CONFIG_SECRET)

    @property
    def old_secret(self) -> str | None:
        return self._value(CONFIG_OLD_SECRET)

    def config(self, cipher: str | None = None, key_factory: str | None = None, key_length: int | None = None,
               iterations: int | None = None) -> EncoderConfig:
        """The encoder's configuration: each setting from its flag, else from the file, else Kafka's default."""
        return EncoderConfig(
            key_factory if key_factory is not None else (self._value(CONFIG_KEY_FACTORY) or None),
            cipher if cipher is not None else self.values.get(CONFIG_CIPHER, (DEFAULT_CIPHER,))[0],
            self._int(key_length, CONFIG_KEY_LENGTH, DEFAULT_KEY_LENGTH),
            self._int(iterations, CONFIG_ITERATIONS, DEFAULT_ITERATIONS))

    def _int(self, flag: int | None, key: str, default: int) -> int:
        # An INT config as ConfigDef reads it: String.trim, then Integer.parseInt.
        if flag is not None:
            return flag
        if key not in self.values:
            return default
        text, line = self.values[key]
        try:
            return java_parse_int(java_trim(text))
        except NumberFormatException:
            raise InputError(f"{key}: not an int: {text!r}", self.path, line) from None


def read_encoder_settings(path: Path | str | None) -> EncoderSettings:
    """The ``password.encoder.*`` lines of ``path`` (a server.properties); no settings without one."""
    if path is None:
        return EncoderSettings()
    props = parse_properties_with_lines(read_text(path), str(path))
    return EncoderSettings(str(path), {k: v for k, v in props.items() if k.startswith("password.encoder.")})
