"""What a connector file is, by its content (never its name), and the configuration Connect would get.

The shapes Kafka Connect (and the tools in front of it) really read:

* the REST create body, ``{"name": n, "config": {...}}`` (``POST /connectors``; also a ``ConnectorInfo``
  as ``GET /connectors/n`` returns it, whose ``type`` is Connect's own source/sink decision);
* the REST config body, a flat object (``PUT /connectors/n/config``): its name is the URL's, so it is
  given with ``--name``; a ``name`` inside must equal it (Kafka:
  ``ConnectorsResource.checkAndPutConnectorConfigName``);
* a Strimzi ``KafkaConnector`` resource, YAML or JSON: what Strimzi's operator PUTs to Connect is
  ``spec.config`` (values made strings, the options Strimzi forbids dropped), ``connector.class`` from
  ``spec.class``, ``tasks.max`` from ``spec.tasksMax``, ``connector.plugin.version`` from ``spec.version``,
  named ``metadata.name`` (Strimzi: ``AbstractConnectOperator.asJson``, ``KafkaConnectorConfiguration``);
* a ``.properties`` connector file, as ``connect-standalone`` reads it (Kafka:
  ``ConnectStandalone.parseConnectorConfigurationFile``: a flat JSON map, else a create body, else
  ``java.util.Properties``);
* several connectors: a YAML stream or ``kind: List``, a JSON list of create bodies, the map
  ``GET /connectors?expand=info`` returns.

A leading UTF-8 byte-order mark before JSON is skipped, as Connect's JSON reader (Jackson's
``ByteSourceJsonBootstrapper``) skips it. Anything else is refused saying what it looks like.

Pure: text in, connectors out (or :class:`InputError`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from kafka_authz_cli._java import UTF8_BOM_READ_AS_LATIN1, java_double_string, java_trim, parse_properties
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.formats import loads

NAME = "name"
CLASS = "connector.class"
# Strimzi drops these from spec.config (lower-cased key equals one): AbstractConnectorSpec.FORBIDDEN_PARAMETERS.
STRIMZI_FORBIDDEN = ("name", "connector.class", "tasks.max", "connector.plugin.version")
CREATE = "a REST create body (POST /connectors)"
INFO = "a ConnectorInfo (GET /connectors/<name>)"
PUT = "a REST config body (PUT /connectors/<name>/config)"
PROPERTIES = "a .properties connector file (connect-standalone)"
KAFKA_CONNECTOR = "a Strimzi KafkaConnector resource"


@dataclass(frozen=True)
class ConnectorFile:
    """One connector of a file: its name, the configuration Connect gets, and what the file said."""

    name: str
    config: dict[str, str]
    shape: str
    declared_type: str | None = None  # "source"/"sink" when the file carries Connect's own decision
    notes: tuple[str, ...] = field(default=())


def read_connectors(text: str, label: str, name: str | None = None) -> list[ConnectorFile]:
    """Every connector in ``text`` (``name``: the URL's name for a PUT body; in a file of several, the
    one to keep). Raises :class:`InputError` saying what the file is when it holds no connector."""
    body = text[1:] if text.startswith("\ufeff") else text
    stripped = body.lstrip(" \t\r\n")
    if stripped.startswith(("{", "[")):
        loads(text, label)  # strictly, every error located; then again keeping each number's text
        found = _from_json(json.loads(body, parse_float=JsonFloat), label)
    elif looks_like_yaml(body):
        found = _from_yaml(body, label)
    else:
        found = [_from_properties(parse_properties(text, label), label)]
    return _named(found, label, name)


# -- JSON -------------------------------------------------------------------------------------------------


def _from_json(doc, label: str) -> list[ConnectorFile]:
    if isinstance(doc, list):
        if doc and all(isinstance(x, str) for x in doc):
            raise InputError("this is a list of connector names (GET /connectors), with no configuration: "
                             "expected a connector configuration", label)
        out: list[ConnectorFile] = []
        for i, item in enumerate(doc):
            if not isinstance(item, dict):
                raise InputError(f"element {i} is a JSON {_json_kind(item)}: expected a connector object", label)
            out += _from_json(item, f"{label}[{i}]")
        if not out:
            raise InputError("an empty JSON list: no connector", label)
        return out
    if not isinstance(doc, dict):
        raise InputError(f"a JSON {_json_kind(doc)}: expected a connector configuration object", label)
    if "apiVersion" in doc or "kind" in doc:
        return _from_resources([doc], label)
    if isinstance(doc.get("config"), dict):
        return [_from_create_body(doc, label)]
    if doc and all(isinstance(v, dict) and ("info" in v or "status" in v) for v in doc.values()):
        return _from_expanded(doc, label)
    if isinstance(doc.get("connector"), dict) and isinstance(doc.get("tasks"), list):
        raise InputError(f"this is a connector's status (GET /connectors/{doc.get('name', '<name>')}/status), with no "
                         f"configuration: expected {CREATE} or {PUT} (GET /connectors/<name>/config)", label)
    return [_from_flat(doc, label, PUT)]


class JsonFloat(str):
    """A JSON number with a fraction or exponent, as written: Jackson binds it to a String value by its
    text (``1.50`` stays ``1.50``), while Strimzi's Kubernetes client reads a Double."""


def _json_kind(value) -> str:
    return {list: "array", dict: "object", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


def _jackson_string(value, key: str, label: str) -> str:
    """A JSON value as Jackson binds it to a ``Map<String, String>`` value (scalars as their text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    if value is None:
        raise InputError(f"{key!r} is null: Connect refuses it (AbstractHerder.validateConnectorConfig: "
                         "\"Null value can not be supplied as the configuration value.\")", label)
    raise InputError(f"{key!r} is a JSON {_json_kind(value)}: a connector configuration value is a string "
                     "(Connect binds the config to Map<String, String>)", label)


def _from_flat(doc: dict, label: str, shape: str) -> ConnectorFile:
    nested = [k for k, v in doc.items() if isinstance(v, (dict, list))]
    if nested and CLASS not in doc:
        raise InputError(f"a JSON object that is no connector configuration (it has neither {NAME!r} nor "
                         f"{CLASS!r}; keys: {_some(doc)}); expected {CREATE} or {PUT}", label)
    config = {k: _jackson_string(v, k, label) for k, v in doc.items()}
    return ConnectorFile(config.get(NAME, ""), config, shape)


def _from_create_body(doc: dict, label: str) -> ConnectorFile:
    config = {k: _jackson_string(v, k, label) for k, v in doc["config"].items()}
    shape = INFO if "tasks" in doc or "type" in doc else CREATE
    raw = doc.get("name")
    if raw is not None and not isinstance(raw, str):
        raise InputError(f"\"name\" is a JSON {_json_kind(raw)}: a connector's name is a string", label)
    # ConnectorsResource.createConnector: the body's name trimmed ("" when absent), then
    # checkAndPutConnectorConfigName: a name in config must equal it, else it is put there.
    body_name = java_trim(raw) if raw is not None else ""
    _check_same_name(config, body_name, label, "the body's \"name\"")
    config.setdefault(NAME, body_name)
    declared = doc.get("type") if doc.get("type") in ("source", "sink") else None
    return ConnectorFile(body_name, config, shape, declared)


def _from_expanded(doc: dict, label: str) -> list[ConnectorFile]:
    """``GET /connectors?expand=info[&expand=status]``: ``{name: {"info": ConnectorInfo, "status": ...}}``."""
    out = [_from_create_body(v["info"], f"{label}[{k!r}]") for k, v in doc.items() if isinstance(v.get("info"), dict)]
    if not out:
        raise InputError("connector statuses (GET /connectors?expand=status), with no configuration: add "
                         "expand=info, or give a connector configuration", label)
    return out


def _check_same_name(config: dict[str, str], expected: str, label: str, what: str) -> None:
    included = config.get(NAME)
    if included is not None and included != expected:
        # Kafka's message (ConnectorsResource.checkAndPutConnectorConfigName), then where the name came from.
        raise InputError(f"Connector name configuration ({included}) doesn't match connector name in the URL "
                         f"({expected}): Connect refuses it ({what} is {expected!r})", label)


# -- YAML (Kubernetes resources) ---------------------------------------------------------------------------

_YAML_HINTS = re.compile(r"^(?:(?:apiVersion|kind)\s*:|---(?:\s|$)|[^#!=\s:][^=:]*:[ \t]*\r?\n[ \t]+[^\s#])",
                         re.MULTILINE)
_YAML_QUOTED = re.compile(r"""^[^#!=\s:][^=:]*:[ \t]+(["']).*\1[ \t]*\r?$""", re.MULTILINE)


def looks_like_yaml(text: str) -> bool:
    """YAML rather than ``.properties``: a Kubernetes resource (``apiVersion:``/``kind:``), a document
    marker, a nested mapping, or ``key: "quoted"`` lines with no ``=`` anywhere (a ``.properties``
    reader would keep the quotes inside the values)."""
    if _YAML_HINTS.search(text):
        return True
    content = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "!"))]
    return bool(_YAML_QUOTED.search(text)) and not any("=" in ln for ln in content)


def _loader():
    """PyYAML's safe loader without the timestamp type: ``kubectl`` (sigs.k8s.io/yaml) keeps a date-like
    scalar a JSON string, so Strimzi gets the text."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    return Loader


def _from_yaml(text: str, label: str) -> list[ConnectorFile]:
    import yaml

    try:
        docs = [d for d in yaml.load_all(text, Loader=_loader()) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        if mark is not None:
            raise InputError(f"invalid YAML: {problem}", label, mark.line + 1, mark.column + 1) from None
        raise InputError(f"invalid YAML: {problem}", label) from None
    except RecursionError:
        raise InputError("YAML nested too deeply (authz reads YAML nested up to a few hundred levels)", label) from None
    if not docs:
        raise InputError("an empty YAML document: no connector", label)
    if all(isinstance(d, dict) and ("kind" in d or "apiVersion" in d) for d in docs):
        return _from_resources(docs, label)
    if len(docs) == 1 and isinstance(docs[0], dict) and all(not isinstance(v, (dict, list)) for v in docs[0].values()):
        raise InputError("a flat YAML map of settings: no Kafka Connect input has this shape (connect-standalone "
                         "would read it as .properties, keeping the quotes in the values); expected "
                         f"{CREATE}, {PUT}, {KAFKA_CONNECTOR} or {PROPERTIES}", label)
    raise InputError(f"YAML that is no Kubernetes resource (no apiVersion/kind): expected {KAFKA_CONNECTOR}", label)


def _from_resources(docs: list, label: str) -> list[ConnectorFile]:
    flat: list[dict] = []
    for d in docs:
        if isinstance(d, dict) and d.get("kind") == "List" and isinstance(d.get("items"), list):
            flat += [i for i in d["items"] if isinstance(i, dict)]
        elif isinstance(d, dict):
            flat.append(d)
    connectors = [d for d in flat if _is_kafka_connector(d)]
    others = [describe_resource(d) for d in flat if not _is_kafka_connector(d)]
    if not connectors:
        what = others[0] if len(others) == 1 else f"{len(others)} resources: " + "; ".join(others)
        raise InputError(f"this is {what}, not a KafkaConnector: expected a connector configuration", label)
    skipped = tuple(f"skipped {o} (not a KafkaConnector)" for o in others)
    out = [_from_kafka_connector(d, label) for d in connectors]
    return [ConnectorFile(c.name, c.config, c.shape, c.declared_type, c.notes + skipped) for c in out]


def _is_kafka_connector(doc: dict) -> bool:
    return doc.get("kind") == "KafkaConnector" and str(doc.get("apiVersion", "")).startswith("kafka.strimzi.io/")


_STRIMZI_KINDS = {
    "KafkaUser": "a user (its ACLs and credentials)",
    "Kafka": "a Kafka cluster",
    "KafkaConnect": "a Connect cluster (its spec.config is the worker's configuration, for --worker)",
    "KafkaMirrorMaker2": "a MirrorMaker 2 deployment",
    "KafkaTopic": "a topic",
    "KafkaNodePool": "a pool of Kafka nodes",
    "KafkaBridge": "an HTTP bridge",
    "KafkaRebalance": "a Cruise Control rebalance",
}


def describe_resource(doc: dict) -> str:
    kind, api = str(doc.get("kind", "?")), str(doc.get("apiVersion", "?"))
    meta = doc.get("metadata")
    name = f" {meta['name']!r}" if isinstance(meta, dict) and isinstance(meta.get("name"), str) else ""
    if api.startswith("kafka.strimzi.io/") and kind in _STRIMZI_KINDS:
        return f"a Strimzi {kind} resource{name} ({api}: {_STRIMZI_KINDS[kind]})"
    return f"a Kubernetes {kind} resource{name} ({api})"


def _strimzi_string(value, key: str, label: str) -> str:
    """A spec.config value as Strimzi's ``OrderedProperties.addIterablePairs`` makes it a string
    (``String.valueOf``: a Double as ``Double.toString`` writes it)."""
    if isinstance(value, JsonFloat):
        value = float(value)
    if isinstance(value, float):
        return java_double_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    if value is None:
        raise InputError(f"spec.config {key!r}: A null value is not allowed for this key (Strimzi refuses the "
                         "KafkaConnector)", label)
    raise InputError(f"spec.config {key!r}: Unsupported type {type(value).__name__} in configuration for this key "
                     "(Strimzi refuses the KafkaConnector)", label)


def _from_kafka_connector(doc: dict, label: str) -> ConnectorFile:
    meta, spec = doc.get("metadata"), doc.get("spec")
    meta = meta if isinstance(meta, dict) else {}
    spec = spec if isinstance(spec, dict) else {}
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("a KafkaConnector without metadata.name: Kubernetes refuses it", label)
    raw = spec.get("config") or {}
    if not isinstance(raw, dict):
        raise InputError(f"KafkaConnector {name!r}: spec.config is not a map", label)
    config: dict[str, str] = {}
    notes = []
    for key, value in raw.items():
        key = str(key)
        if key.lower() in STRIMZI_FORBIDDEN:
            notes.append(f"Strimzi ignores spec.config {key!r} (forbidden: {', '.join(STRIMZI_FORBIDDEN)})")
            continue
        config[key] = _strimzi_string(value, key, label)
    for spec_key, key in (("tasksMax", "tasks.max"), ("version", "connector.plugin.version"), ("class", CLASS)):
        if spec.get(spec_key) is not None:
            config[key] = _strimzi_string(spec[spec_key], key, label)
    config[NAME] = name  # PUT /connectors/<metadata.name>/config
    return ConnectorFile(name, config, f"{KAFKA_CONNECTOR} ({doc.get('apiVersion')})", notes=tuple(notes))


# -- .properties -------------------------------------------------------------------------------------------


def _from_properties(props: dict[str, str], label: str) -> ConnectorFile:
    return ConnectorFile(props.get(NAME, ""), props, PROPERTIES)


_LOOKS = (
    (("clusters",), "a MirrorMaker 2 configuration (connect-mirror-maker.properties, for connect-mirror-maker.sh)"),
    (("config.storage.topic", "offset.storage.topic", "status.storage.topic"),
     "a Kafka Connect distributed worker configuration (connect-distributed.properties; give it with --worker)"),
    (("offset.storage.file.filename", "plugin.path", "key.converter", "value.converter", "rest.port", "listeners.https"),
     "a Kafka Connect worker configuration (connect-standalone.properties; give it with --worker)"),
    (("broker.id", "node.id", "process.roles", "log.dirs", "log.dir", "zookeeper.connect", "controller.quorum.voters",
      "advertised.listeners"), "a Kafka broker configuration (server.properties)"),
    (("dataDir", "clientPort"), "a ZooKeeper configuration (zookeeper.properties)"),
    (("log4j.rootLogger",), "a log4j configuration"),
    (("bootstrap.servers", "security.protocol", "sasl.jaas.config", "group.id", "key.serializer",
      "key.deserializer"), "a Kafka client configuration (producer.properties / consumer.properties)"),
)


def describe_settings(config: dict[str, str]) -> str:
    """What a map of settings without ``connector.class`` looks like."""
    if not config:
        return "an empty file (no settings)"
    for keys, what in _LOOKS:
        hits = [k for k in keys if k in config]
        if hits:
            return f"{what} (it sets {', '.join(hits[:3])})"
    if any(k.startswith("log4j.") for k in config):
        return "a log4j configuration"
    return f"settings with neither {NAME!r} nor {CLASS!r} (keys: {_some(config)})"


def _some(config: dict) -> str:
    keys = list(config)
    return ", ".join(map(str, keys[:5])) + (", ..." if len(keys) > 5 else "")


# -- names and the mandatory settings ------------------------------------------------------------------------


def _named(found: list[ConnectorFile], label: str, name: str | None) -> list[ConnectorFile]:
    if name is not None and len(found) > 1:
        chosen = [c for c in found if c.name == name]
        if not chosen:
            raise InputError(f"no connector named {name!r} here (it holds {', '.join(repr(c.name) for c in found)})",
                             label)
        found = chosen
    return [_complete(c, label, name) for c in found]


def _complete(c: ConnectorFile, label: str, name: str | None) -> ConnectorFile:
    """Connect's mandatory settings: ``connector.class`` (AbstractHerder.validateConnectorConfig: "contains
    no connector type") and a non-empty ``name`` (ConnectorConfig's ``name`` has no default and must be
    a non-empty string; connect-standalone: "is missing the mandatory 'name' configuration")."""
    config = dict(c.config)
    if java_trim(config.get(CLASS) or "") == "" and not config.get(NAME):
        raise InputError(f"this looks like {describe_settings(config)}: no connector configuration (Connect "
                         f"requires {NAME!r} and {CLASS!r})", label)
    if c.shape == PUT and name is not None:
        _check_same_name(config, name, label, "--name")
        config.setdefault(NAME, name)
    elif name is not None and c.name != name:
        raise InputError(f"--name {name!r}: the file names the connector {c.name!r}", label)
    if not config.get(NAME):
        if c.shape == PUT:
            raise InputError(f"{PUT} without \"name\": the name is the URL's; give it with --name", label)
        bom = " (the file starts with a UTF-8 byte-order mark, which java.util.Properties reads as part of the " \
              "first key)" if any(k.startswith(("\ufeff", UTF8_BOM_READ_AS_LATIN1)) for k in config) else ""
        raise InputError(f"{c.shape} without a connector name: Connect requires {NAME!r} (ConnectorConfig){bom}",
                         label)
    _check_name_value(config[NAME], label)
    if CLASS not in config or config[CLASS] is None:
        raise InputError(f"connector {config[NAME]!r} has no {CLASS!r}: Connect refuses it (AbstractHerder."
                         "validateConnectorConfig: \"contains no connector type\")", label)
    return ConnectorFile(config[NAME], config, c.shape, c.declared_type, c.notes)


def _check_name_value(name: str, label: str) -> None:
    """ConnectorConfig's ``name``: a STRING (so trimmed) checked by ConfigDef.NonEmptyStringWithoutControlChars."""
    trimmed = java_trim(name)
    if not trimmed:
        raise InputError(f"Invalid value {name} for configuration name: String may not be empty (Connect refuses "
                         "the connector)", label)
    control = [ord(ch) for ch in trimmed if ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F]
    if control:
        raise InputError(f"Invalid value {name!r} for configuration name: String may not contain control sequences "
                         f"but had the following ASCII control sequences: {control} (Connect refuses the connector)",
                         label)
