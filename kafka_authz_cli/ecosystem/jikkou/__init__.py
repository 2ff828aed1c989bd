"""Jikkou ``KafkaPrincipalAuthorization`` and ``KafkaPrincipalRole`` resources: ``reader`` expands them,
roles and MATCH rules included, as Jikkou's ACL binding builders do (its EA6xx codes); ``match``
matches a MATCH pattern against whole topic names, in RE2 or within a CPU budget; ``writer`` writes
bindings as one ``KafkaPrincipalAuthorization`` per principal."""
