"""Kafka Security Manager's YAML ACL files: ``reader`` reads them as KSM's ``YamlAclParser`` does (its
EA2xx codes), ``writer`` writes bindings as explicit ``Operation,Permission,Host`` entries. KSM's CSV
is Kafka's own ``csv`` format (``acl.formats``)."""
