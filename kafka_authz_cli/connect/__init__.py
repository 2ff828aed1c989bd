"""Kafka Connect: KIP-458 connector client config overrides, as a worker applies them.

``overrides`` is the worker's ``connector.client.config.override.policy`` judging a connector's
``producer.override.*``, ``consumer.override.*`` and ``admin.override.*`` keys (Kafka's messages), the
clients a connector really uses, their effective configuration, who each connects as, and the ACLs they
need; ``shapes`` tells by content what a connector file is (REST create or config body, Strimzi
KafkaConnector, .properties; several connectors) and refuses the rest saying what it is; ``connector_files``
reads a connector file and a worker.properties.

Pure but for ``connector_files``, which reads the files it is given: no terminal, no network. Other packages
import what is listed here.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.connect.connector_files import read_connector, read_connector_file, read_worker
    from kafka_authz_cli.connect.overrides import (
        DEFAULT_POLICY,
        POLICY_CONFIG,
        PREFIXES,
        PRINCIPAL_ALLOWED,
        ClientCheck,
        ConfigValue,
        ConnectorCheck,
        Identity,
        PolicyError,
        RequiredAction,
        check_connector,
        clients_used,
        hide_secret,
        identity,
        is_sensitive,
        parse_topics_list,
        policy_message,
        policy_name,
        redact,
        required_actions,
        validate,
        worker_exception,
    )
    from kafka_authz_cli.connect.shapes import (
        ConnectorFile,
        describe_resource,
        describe_settings,
        looks_like_yaml,
        read_connectors,
    )

__getattr__, __all__ = lazy_face(__name__, {
    # overrides
    "DEFAULT_POLICY": "overrides", "POLICY_CONFIG": "overrides", "PREFIXES": "overrides",
    "PRINCIPAL_ALLOWED": "overrides", "ClientCheck": "overrides", "ConfigValue": "overrides",
    "ConnectorCheck": "overrides", "Identity": "overrides", "PolicyError": "overrides", "RequiredAction": "overrides",
    "check_connector": "overrides", "clients_used": "overrides", "hide_secret": "overrides", "identity": "overrides",
    "is_sensitive": "overrides", "parse_topics_list": "overrides", "policy_message": "overrides",
    "policy_name": "overrides", "redact": "overrides", "required_actions": "overrides", "validate": "overrides",
    "worker_exception": "overrides",
    # connector_files
    "read_connector": "connector_files", "read_connector_file": "connector_files", "read_worker": "connector_files",
    # shapes
    "ConnectorFile": "shapes", "read_connectors": "shapes", "looks_like_yaml": "shapes", "describe_settings": "shapes",
    "describe_resource": "shapes",
})
