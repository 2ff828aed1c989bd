"""kafka-authz-cli: Apache Kafka authorization tooling (`authz`)."""

__version__ = "0.1.0"
