"""KIP-458 connector client config overrides, as a Kafka Connect worker applies them.

* The worker's ``connector.client.config.override.policy`` (default ``All``; aliases ``None``,
  ``Principal``, ``All``, the simple class name or the fully-qualified one) judges every
  ``producer.override.*``, ``consumer.override.*`` and ``admin.override.*`` key of a connector, with the
  prefix stripped and matched exactly (case and spaces count). ``Principal`` allows exactly
  ``sasl.jaas.config``, ``sasl.mechanism`` and ``security.protocol``. Rejections carry Kafka's message.
* Only the clients the connector uses are checked (and the others' overrides are never applied): a
  source connector's producer (and admin when it configures ``topic.creation.*``), a sink connector's
  consumer (and producer and admin when it has a dead letter queue topic).
* The effective client config is the worker's (``producer.``/``consumer.``-prefixed only for those
  clients: the worker's own top-level security settings do not reach them; the admin client also
  inherits the top-level ones) plus the allowed overrides; from it, the principal the client connects as.

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_authz_cli._java import (
    JaasError,
    client_login,
    is_blank,
    java_list_string,
    java_trim,
    java_upper,
    kafka_list,
)

POLICY_CONFIG = "connector.client.config.override.policy"
DEFAULT_POLICY = "All"
POLICY_PACKAGE = "org.apache.kafka.connect.connector.policy."
PLUGIN_SUFFIX = "ConnectorClientConfigOverridePolicy"
POLICY_NAMES = ("None", "Principal", "All")
PRINCIPAL_ALLOWED = ("sasl.jaas.config", "sasl.mechanism", "security.protocol")
PREFIXES = {"PRODUCER": "producer.override.", "CONSUMER": "consumer.override.", "ADMIN": "admin.override."}
WORKER_PREFIXES = {"PRODUCER": "producer.", "CONSUMER": "consumer.", "ADMIN": "admin."}
DLQ_TOPIC = "errors.deadletterqueue.topic.name"
TOPIC_CREATION_PREFIX = "topic.creation."
SENSITIVE_CLIENT_KEYS = ("sasl.jaas.config", "ssl.keystore.password", "ssl.key.password", "ssl.truststore.password",
                         "ssl.keystore.key", "sasl.oauthbearer.client.credentials.client.secret",
                         "basic.auth.user.info")


class PolicyError(ValueError):
    pass


def policy_name(value: str) -> str:
    """The policy a worker loads for ``value`` (alias, simple class name or fully-qualified name)."""
    for name in POLICY_NAMES:
        if value in (name, name + PLUGIN_SUFFIX, POLICY_PACKAGE + name + PLUGIN_SUFFIX):
            return name
    raise PolicyError(f"Invalid value {value} for configuration {POLICY_CONFIG}: Class {value} could not be found.")


def policy_message(policy: str, key: str) -> str:
    return f"The '{policy}' policy does not allow '{key}' to be overridden in the connector configuration."


def is_allowed(policy: str, key: str) -> bool:
    if policy == "All":
        return True
    if policy == "Principal":
        return key in PRINCIPAL_ALLOWED
    return False


@dataclass(frozen=True)
class ConfigValue:
    """``org.apache.kafka.common.config.ConfigValue`` as the policy returns it."""

    name: str
    value: str
    error_messages: tuple[str, ...] = ()

    def to_string(self) -> str:
        return f"[{self.name},{self.value},[],{java_list_string(self.error_messages)},true]"


def validate(policy: str, client_props: dict[str, str]) -> list[ConfigValue]:
    """``ConnectorClientConfigOverridePolicy.validate``: one ConfigValue per key, in input order."""
    return [ConfigValue(k, v, () if is_allowed(policy, k) else (policy_message(policy, k),))
            for k, v in client_props.items()]


def worker_exception(values: list[ConfigValue]) -> str | None:
    """The ConnectException message a task start fails with, or None when every key is allowed."""
    rejected = [v for v in values if v.error_messages]
    if not rejected:
        return None
    return "Client Config Overrides not allowed " + java_list_string(v.to_string() for v in rejected)


def overrides(config: dict[str, str], client: str) -> dict[str, str]:
    """The connector's overrides for one client, prefix stripped (``originalsWithPrefix``)."""
    prefix = PREFIXES[client]
    return {k[len(prefix):]: v for k, v in config.items() if k.startswith(prefix)}


def clients_used(connector_type: str, config: dict[str, str]) -> list[str]:
    """Which clients AbstractHerder validates (and the worker builds) for this connector."""
    has_dlq = not is_blank(config.get(DLQ_TOPIC))
    if connector_type == "source":
        out = ["PRODUCER"]
        if any(k.startswith(TOPIC_CREATION_PREFIX) for k in config):
            out.append("ADMIN")
        return out
    out = ["CONSUMER"]
    if has_dlq:
        out += ["PRODUCER", "ADMIN"]
    return out


# Connectors whose class name does not say: Debezium's (io.debezium.connector.<db>.<Db>Connector) are
# sources but for their JDBC and MongoDB sinks (named *SinkConnector); MirrorMaker 2's are all sources.
_KNOWN_SOURCES = ("org.apache.kafka.connect.mirror.MirrorSourceConnector",
                  "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
                  "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector")
_KNOWN_SOURCE_ALIASES = ("MirrorSource", "MirrorCheckpoint", "MirrorHeartbeat")
FILE_SOURCE = ("FileStreamSourceConnector", "FileStreamSource")


def _simple_class(config: dict[str, str]) -> str:
    return java_trim(config.get("connector.class", "")).rsplit(".", 1)[-1]


def infer_type(config: dict[str, str], declared: str | None = None) -> tuple[str, str]:
    """source or sink, and why.

    Connect decides by instantiating ``connector.class`` (``instanceof SourceConnector``, else sink:
    AbstractHerder.validateConnectorConfig); offline, authz knows the class only by name: a name (or its
    plugin alias, the simple name with or without ``Connector``: Kafka's ``PluginUtils``) ending in
    ``SinkConnector``/``Sink`` or ``SourceConnector``/``Source``, the MirrorMaker 2 and Debezium
    connectors, else the settings (a sink must set ``topics`` or ``topics.regex``:
    ``SinkConnectorConfig.validate``). ``--type`` says it when none of these knows."""
    if declared in ("source", "sink"):
        return declared, f"the file says \"type\": \"{declared}\" (Connect's own ConnectorInfo)"
    cls = java_trim(config.get("connector.class", ""))
    simple = cls.rsplit(".", 1)[-1]
    for kind, suffixes in (("sink", ("SinkConnector", "Sink")), ("source", ("SourceConnector", "Source"))):
        if simple.endswith(suffixes):
            return kind, f"connector.class {cls} is named a {kind}"
    if cls in _KNOWN_SOURCES or simple in _KNOWN_SOURCE_ALIASES + tuple(k.rsplit(".", 1)[-1] for k in _KNOWN_SOURCES):
        return "source", f"connector.class {cls} is a MirrorMaker 2 connector (a source)"
    if cls.startswith("io.debezium.connector."):
        return "source", f"connector.class {cls} is a Debezium change data capture connector (a source)"
    if not is_blank(config.get("topics")) or not is_blank(config.get("topics.regex")):
        return "sink", f"connector.class {cls} is unknown offline; it sets topics/topics.regex (only sinks do)"
    return "source", (f"connector.class {cls} is unknown offline; it sets neither topics nor topics.regex "
                      "(a sink must): --type to say")


# -- effective client configuration -------------------------------------------------------------------


def base_client_config(client: str, connector: str, worker: dict[str, str]) -> dict[str, str]:
    """What ``Worker`` builds before the connector's overrides (the settings that matter here)."""
    bootstrap = worker.get("bootstrap.servers", "localhost:9092")
    if client == "PRODUCER":
        props = {"bootstrap.servers": bootstrap,
                 "key.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer",
                 "value.serializer": "org.apache.kafka.common.serialization.ByteArraySerializer",
                 "max.block.ms": "9223372036854775807", "acks": "all",
                 "max.in.flight.requests.per.connection": "1", "delivery.timeout.ms": "2147483647",
                 "client.id": f"connector-producer-{connector}-0"}
    elif client == "CONSUMER":
        props = {"bootstrap.servers": bootstrap, "group.id": f"connect-{connector}", "enable.auto.commit": "false",
                 "auto.offset.reset": "earliest",
                 "key.deserializer": "org.apache.kafka.common.serialization.ByteArrayDeserializer",
                 "value.deserializer": "org.apache.kafka.common.serialization.ByteArrayDeserializer",
                 "client.id": f"connector-consumer-{connector}-0"}
    else:
        props = {"bootstrap.servers": bootstrap, "client.id": f"connector-adminclient-{connector}-0"}
        # The admin client inherits the worker's top-level settings (backwards compatibility).
        props.update({k: v for k, v in worker.items()
                      if not k.startswith(("admin.", "consumer.", "producer.")) and k != POLICY_CONFIG})
    prefix = WORKER_PREFIXES[client]
    props.update({k[len(prefix):]: v for k, v in worker.items() if k.startswith(prefix)})
    return props


@dataclass(frozen=True)
class Identity:
    """Who a client connects as: a principal when it can be known offline, else why not."""

    principal: str | None
    how: str
    mechanism: str | None = None
    kerberos_name: str | None = None  # for GSSAPI: the name the broker's auth_to_local rules will map
    tls_keystore: str | None = None
    error: str | None = None  # why the client cannot even be built (the task fails to start)


def identity(client_config: dict[str, str]) -> Identity:
    """Who a client with this effective config connects as, as far as it can be known offline."""
    given = java_trim(client_config.get("security.protocol", "PLAINTEXT"))  # ConfigDef trims a STRING
    protocol = java_upper(given)
    if protocol == "PLAINTEXT":
        return Identity("User:ANONYMOUS", "security.protocol PLAINTEXT: no authentication")
    if protocol == "SSL":
        ks = client_config.get("ssl.keystore.location")
        if ks:
            return Identity(None, f"TLS: the DN of the certificate in ssl.keystore.location {ks}, mapped by the "
                                  "broker's ssl.principal.mapping.rules (authz principal tls --cert)", tls_keystore=ks)
        if client_config.get("ssl.keystore.certificate.chain"):
            return Identity(None, "TLS: the DN of the PEM certificate in ssl.keystore.certificate.chain",
                            tls_keystore="ssl.keystore.certificate.chain")
        return Identity("User:ANONYMOUS", "TLS without a client keystore: the broker sees no certificate "
                                          "(ANONYMOUS, unless ssl.client.auth=required refuses the connection)")
    if protocol not in ("SASL_PLAINTEXT", "SASL_SSL"):
        # ConfigDef's validator for security.protocol (CommonClientConfigs): the client is never built.
        why = (f"Invalid value {given} for configuration security.protocol: String must be one of (case "
               "insensitive): PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL")
        return Identity(None, f"{why} (the client fails to start)", error=why)
    return _sasl_identity(client_config)


def _sasl_identity(client_config: dict[str, str]) -> Identity:
    mechanism = java_trim(client_config.get("sasl.mechanism", "GSSAPI"))
    jaas_text = client_config.get("sasl.jaas.config")
    # Only an absent key falls back to the JAAS file: an empty value is a JAAS text with no login module.
    if jaas_text is None:
        return Identity(None, f"SASL {mechanism} without sasl.jaas.config: the login comes from a JAAS file "
                              "(java.security.auth.login.config) authz cannot see", mechanism)
    try:
        # The client's own reading: JaasConfig, and exactly one login module (JaasContext.loadClientContext).
        options = client_login(jaas_text).options
    except JaasError as exc:
        return Identity(None, f"sasl.jaas.config is invalid: {exc} (the client fails to start)", mechanism,
                        error=f"sasl.jaas.config: {exc}")
    if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
        if options.get("tokenauth", "").lower() == "true":
            return Identity(None, f"SASL {mechanism} with a delegation token: the principal is the token's owner",
                            mechanism)
        user = options.get("username")
        if user is None:
            return Identity(None, f"SASL {mechanism}: sasl.jaas.config has no username", mechanism)
        return Identity(f"User:{user}", f"SASL {mechanism} username in sasl.jaas.config", mechanism)
    if mechanism == "GSSAPI":
        principal = options.get("principal")
        if principal is None:
            return Identity(None, "SASL GSSAPI: sasl.jaas.config has no principal (it comes from the ticket cache)",
                            mechanism)
        return Identity(None, "SASL GSSAPI: the broker maps the Kerberos principal with "
                              "sasl.kerberos.principal.to.local.rules", mechanism, kerberos_name=principal)
    if mechanism == "OAUTHBEARER":
        sub = options.get("unsecuredLoginStringClaim_sub")
        if sub is not None:
            return Identity(f"User:{sub}", "SASL OAUTHBEARER unsecured JWT sub claim", mechanism)
        return Identity(None, "SASL OAUTHBEARER: the principal is the token's subject claim, known only at login",
                        mechanism)
    return Identity(None, f"SASL {mechanism}: principal depends on the server's callback handler", mechanism)


HIDDEN = "[hidden]"


def is_sensitive(key: str) -> bool:
    """A client setting whose value is a secret (never shown)."""
    return key in SENSITIVE_CLIENT_KEYS or key.endswith(".password")


def redact(config: dict[str, str]) -> dict[str, str]:
    return {k: HIDDEN if is_sensitive(k) else v for k, v in config.items()}


def hide_secret(value: ConfigValue) -> ConfigValue:
    """The ConfigValue as it may be shown: a secret's value hidden (in ``to_string()`` too)."""
    return ConfigValue(value.name, HIDDEN, value.error_messages) if is_sensitive(value.name) else value


# -- the whole check ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClientCheck:
    client: str  # PRODUCER | CONSUMER | ADMIN
    used: bool
    values: tuple[ConfigValue, ...]
    effective: dict[str, str]
    identity: Identity | None
    worker_exception: str | None

    @property
    def rejected(self) -> list[ConfigValue]:
        return [v for v in self.values if v.error_messages]

    @property
    def start_error(self) -> str | None:
        """Why this client, used by the connector, cannot be built (its task fails to start), besides
        the policy: an invalid ``sasl.jaas.config`` or ``security.protocol``."""
        return self.identity.error if self.used and self.identity is not None else None

    def shown_worker_exception(self) -> str | None:
        """:attr:`worker_exception` with the secrets it quotes hidden."""
        return worker_exception([hide_secret(v) for v in self.values]) if self.used else None


@dataclass(frozen=True)
class ConnectorCheck:
    name: str
    connector_type: str
    type_reason: str
    policy: str
    policy_source: str
    clients: tuple[ClientCheck, ...]

    @property
    def rest_error_count(self) -> int:
        return sum(len(c.rejected) for c in self.clients if c.used)


def check_connector(config: dict[str, str], worker: dict[str, str], policy: str | None = None,
                    connector_type: str | None = None, name: str | None = None,
                    declared_type: str | None = None) -> ConnectorCheck:
    if policy is not None:
        chosen, source = policy_name(policy), "--policy"
    elif POLICY_CONFIG in worker:
        chosen, source = policy_name(java_trim(worker[POLICY_CONFIG])), f"worker {POLICY_CONFIG}"
    else:
        # WorkerConfig.CONNECTOR_CLIENT_POLICY_CLASS_DEFAULT: "None" in Kafka 2.3-2.8, "All" since 3.0 (KIP-722).
        chosen, source = DEFAULT_POLICY, f"default: {POLICY_CONFIG} unset (All since Kafka 3.0; None in 2.3-2.8)"
    if connector_type is None:
        ctype, reason = infer_type(config, declared_type)
    else:
        ctype, reason = connector_type, "--type"
    connector = name or config.get("name", "connector")
    used = clients_used(ctype, config)
    checks = []
    for client in ("PRODUCER", "CONSUMER", "ADMIN"):
        ov = overrides(config, client)
        if client not in used and not ov:
            continue
        values = validate(chosen, ov)
        allowed = {v.name: v.value for v in values if not v.error_messages}
        effective = base_client_config(client, connector, worker)
        effective.update(allowed)
        checks.append(ClientCheck(client, client in used, tuple(values), effective,
                                  identity(effective) if client in used else None,
                                  worker_exception(values) if client in used else None))
    return ConnectorCheck(connector, ctype, reason, chosen, source, tuple(checks))


def parse_topics_list(value: str | None) -> list[str]:
    """A sink connector's ``topics`` as the worker subscribes to them: Kafka's
    ``org.apache.kafka.connect.runtime.SinkConnectorConfig.parseTopicsList`` reads the LIST value with
    ``ConfigDef.parseType`` (:func:`kafka_list`: trimmed, split at commas and the whitespace around them),
    then drops the empty names and the duplicates (``distinct()``: first occurrence kept, order kept)."""
    return list(dict.fromkeys(topic for topic in kafka_list(value) if topic))


@dataclass(frozen=True)
class RequiredAction:
    """An authorize() call a connector's client makes, for `authz simulate` to decide."""

    client: str
    principal: str | None
    operation: str  # AclOperation name
    resource_type: str  # ResourceType name
    resource_name: str
    why: str


def required_actions(check: ConnectorCheck, config: dict[str, str], topics: list[str]) -> tuple[list[RequiredAction],
                                                                                               list[str]]:
    """The ACL checks the connector's clients need, and notes on what cannot be listed."""
    by_client = {c.client: c for c in check.clients if c.used}
    actions: list[RequiredAction] = []
    notes: list[str] = []

    def who(client: str) -> str | None:
        ident = by_client[client].identity
        return ident.principal if ident else None

    for key in config:
        if key.startswith(("producer.", "consumer.", "admin.")) and not key.startswith(tuple(PREFIXES.values())):
            notes.append(f"{key}: not a client override (those are producer.override.*, consumer.override.*, "
                         "admin.override.*): the worker never applies it to a client (Worker.*Configs)")
    file_topic = java_trim(config.get("topic") or "")
    if check.connector_type == "source" and not topics and file_topic and _simple_class(config) in FILE_SOURCE:
        topics = [file_topic]  # FileStreamSourceConnector writes to its one `topic` (FileStreamSourceConnector.TOPIC_CONFIG)
    if check.connector_type == "source":
        if not topics:
            notes.append("a source connector's topics are connector-specific: give them with --topic")
        for t in topics:
            actions.append(RequiredAction("PRODUCER", who("PRODUCER"), "WRITE", "TOPIC", t, "produce records"))
            if "ADMIN" in by_client:
                actions.append(RequiredAction("ADMIN", who("ADMIN"), "CREATE", "TOPIC", t,
                                              "topic.creation: create the topic if it does not exist"))
    else:
        sink_topics = topics or parse_topics_list(config.get("topics"))
        if not is_blank(config.get("topics.regex")) and not topics:
            notes.append(f"topics.regex {config['topics.regex']!r}: give the matching topics with --topic")
        group = by_client["CONSUMER"].effective.get("group.id", f"connect-{check.name}")
        for t in sink_topics:
            actions.append(RequiredAction("CONSUMER", who("CONSUMER"), "READ", "TOPIC", t, "consume records"))
        actions.append(RequiredAction("CONSUMER", who("CONSUMER"), "READ", "GROUP", group,
                                      "join the consumer group and commit offsets"))
        dlq = java_trim(config.get(DLQ_TOPIC) or "")
        if dlq:
            actions.append(RequiredAction("PRODUCER", who("PRODUCER"), "WRITE", "TOPIC", dlq,
                                          "write failed records to the dead letter queue"))
            actions.append(RequiredAction("ADMIN", who("ADMIN"), "CREATE", "TOPIC", dlq,
                                          "create the dead letter queue topic if it does not exist"))
    return actions, notes
