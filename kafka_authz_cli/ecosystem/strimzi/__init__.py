"""Strimzi ``KafkaUser`` resources: ``reader`` reads them as the User Operator applies them (its EA1xx
codes), ``writer`` writes bindings as KafkaUsers, refusing what the CRD cannot hold."""
