"""Terraform ``kafka_acl`` (Mongey) and ``confluent_kafka_acl`` (Confluent) resources: ``reader`` finds
the ACLs they create (its EA5xx codes) in ``.tf`` files, read by ``hcl``, or in Terraform's JSON, read
by ``state``; ``writer`` writes one resource per binding with the ``import`` block that adopts it."""
