"""A broker's configuration as KIP-226 resolves it, and the password encoder of dynamic passwords.

``definitions`` is Kafka's own config definitions (type, default, importance, validator, dynamic
update mode, topic-to-broker synonyms), per Kafka version, generated from Kafka's classes by
tools/gen_config_definitions.py into ``kafka_configs.json``; ``dynamic`` is the resolution (which value a broker really uses for a key, from which level and
property: dynamic per-broker, dynamic cluster-wide default, static server.properties, Kafka's
default, synonyms and listener prefixes counted) with the tables of what can be updated
dynamically; ``broker_files`` reads the sources (server.properties, dynamic configs as JSON or
``kafka-configs --describe`` text, the ``password.encoder.*`` settings); ``described_configs`` turns a broker's
DescribeConfigs answer into the same sources and checks authz's resolution against the broker's;
``password_encoder`` is ``EncryptingPasswordEncoder`` exactly (ZooKeeper-mode dynamic passwords).

Pure: no terminal, no network (the live answer is handed in). Other packages import what is
listed here.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.config.broker_files import (
        EncoderSettings,
        load_sources,
        read_dynamic,
        read_encoder_settings,
        read_static,
    )
    from kafka_authz_cli.config.definitions import (
        ConfigDefinition,
        KafkaConfigs,
        kafka_configs,
        kafka_versions,
        match_version,
        pick_version,
        span,
        versions_defining,
    )
    from kafka_authz_cli.config.described_configs import (
        Check,
        DescribedConfig,
        DescribedSynonym,
        Disagreement,
        Drift,
        LiveOrigin,
        broker_sensitive,
        check_against_broker,
        compared_as_set_only,
        hide,
        source_name,
        sources_from_describe,
        static_drift,
    )
    from kafka_authz_cli.config.dynamic import (
        ALL_DYNAMIC_CONFIGS,
        DEFAULTS,
        BrokerConfigSources,
        Ignored,
        Located,
        Refused,
        Resolved,
        keys_to_resolve,
        refused_static,
        resolve_key,
        scoped_key,
        validate_dynamic,
    )
    from kafka_authz_cli.config.password_encoder import EncoderConfig, UnsupportedByAuthz, decode, describe, encode

__getattr__, __all__ = lazy_face(__name__, {
    # dynamic
    "ALL_DYNAMIC_CONFIGS": "dynamic", "BrokerConfigSources": "dynamic", "DEFAULTS": "dynamic", "Ignored": "dynamic",
    "Located": "dynamic", "Refused": "dynamic", "Resolved": "dynamic", "keys_to_resolve": "dynamic",
    "refused_static": "dynamic", "resolve_key": "dynamic",
    "scoped_key": "dynamic", "validate_dynamic": "dynamic",
    # definitions: Kafka's own config definitions, per Kafka version
    "ConfigDefinition": "definitions", "KafkaConfigs": "definitions", "kafka_configs": "definitions",
    "kafka_versions": "definitions", "match_version": "definitions", "pick_version": "definitions",
    "span": "definitions", "versions_defining": "definitions",
    # broker_files
    "EncoderSettings": "broker_files", "load_sources": "broker_files", "read_dynamic": "broker_files",
    "read_encoder_settings": "broker_files", "read_static": "broker_files",
    # described_configs
    "Check": "described_configs", "DescribedConfig": "described_configs", "DescribedSynonym": "described_configs", "Disagreement": "described_configs", "Drift": "described_configs",
    "LiveOrigin": "described_configs", "broker_sensitive": "described_configs", "check_against_broker": "described_configs",
    "compared_as_set_only": "described_configs", "hide": "described_configs", "source_name": "described_configs", "sources_from_describe": "described_configs",
    "static_drift": "described_configs",
    # password_encoder
    "EncoderConfig": "password_encoder", "UnsupportedByAuthz": "password_encoder", "decode": "password_encoder",
    "describe": "password_encoder", "encode": "password_encoder",
})
