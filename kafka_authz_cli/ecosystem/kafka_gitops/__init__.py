"""kafka-gitops desired state files: ``reader`` reads them as kafka-gitops applies them (its EA3xx
codes), ``expand`` is what kafka-gitops generates for a service and a role, ``writer`` writes bindings
as a state file of ``customUserAcls``."""
