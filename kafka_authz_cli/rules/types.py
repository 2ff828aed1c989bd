"""Principal and resource classes the rules language can name, as the proxy's classpath has them.

The Kroxylicious classes are built in (User, and the Topic/Group/TransactionalId/Cluster resource
enums with their operations and ``implies()``); more can be declared in a types file shaped like
``{"principal_types": [{"short", "class"}], "resource_types": [{"short", "class", "operations",
"implies"}], "default_imports": {...}}`` (``authz lint --types FILE``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka_authz_cli.acl import ResourceType
from kafka_authz_cli.errors import InputError

PRINCIPAL_INTERFACE = "io.kroxylicious.proxy.authentication.Principal"
RESOURCE_TYPE_INTERFACE = "io.kroxylicious.authorizer.service.ResourceType"
USER_CLASS = "io.kroxylicious.proxy.authentication.User"


@dataclass(frozen=True)
class PrincipalClass:
    fqcn: str
    short: str
    #: The Kafka principal type this class stands for when compiling to ACLs ("User" for User).
    kafka_type: str


@dataclass(frozen=True)
class ResourceClass:
    fqcn: str
    short: str
    operations: tuple[str, ...]
    implies: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False, compare=False)
    kafka_type: ResourceType | None = None


_BUILTIN_RESOURCES = [
    ResourceClass("io.kroxylicious.filter.authorization.TopicResource", "Topic",
                  ("READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"),
                  {"READ": ("DESCRIBE",), "WRITE": ("DESCRIBE",), "DELETE": ("DESCRIBE",), "ALTER": ("DESCRIBE",),
                   "ALTER_CONFIGS": ("DESCRIBE_CONFIGS",)}, ResourceType.TOPIC),
    ResourceClass("io.kroxylicious.filter.authorization.GroupResource", "Group",
                  ("READ", "DELETE", "DESCRIBE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"),
                  {"READ": ("DESCRIBE",), "DELETE": ("DESCRIBE",), "ALTER_CONFIGS": ("DESCRIBE_CONFIGS",)},
                  ResourceType.GROUP),
    ResourceClass("io.kroxylicious.filter.authorization.ClusterResource", "Cluster",
                  ("CREATE", "ALTER", "DESCRIBE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "CONNECT"),
                  {}, ResourceType.CLUSTER),
    ResourceClass("io.kroxylicious.filter.authorization.TransactionalIdResource", "TransactionalId",
                  ("WRITE", "DESCRIBE", "TWO_PHASE_COMMIT"), {"WRITE": ("DESCRIBE",)}, ResourceType.TRANSACTIONAL_ID),
]


class TypeRegistry:
    """Which classes exist, and what they are (the proxy's classpath, as far as rules can see it)."""

    def __init__(self) -> None:
        self.principals: dict[str, PrincipalClass] = {USER_CLASS: PrincipalClass(USER_CLASS, "User", "User")}
        self.resources: dict[str, ResourceClass] = {r.fqcn: r for r in _BUILTIN_RESOURCES}
        #: Other classes that exist but are neither (interfaces, java.lang.String...).
        self.others: dict[str, str] = {
            PRINCIPAL_INTERFACE: "principal-interface",
            RESOURCE_TYPE_INTERFACE: "resource-interface",
            "java.lang.String": "other",
            "java.lang.Object": "other",
        }
        self.default_imports: dict[str, str] = {"User": USER_CLASS}

    def kind(self, fqcn: str) -> str | None:
        if fqcn in self.principals:
            return "principal"
        if fqcn in self.resources:
            return "resource"
        return self.others.get(fqcn)

    def resource_for_kafka(self, rtype: ResourceType) -> ResourceClass | None:
        return next((r for r in self.resources.values() if r.kafka_type is rtype), None)

    def load(self, doc: dict, path: str = "<types>") -> "TypeRegistry":
        try:
            for p in doc.get("principal_types", []):
                self.principals[p["class"]] = PrincipalClass(p["class"], p["short"], p.get("kafka_type", p["short"]))
            for r in doc.get("resource_types", []):
                kafka = r.get("kafka_type")
                existing = self.resources.get(r["class"])
                kafka_type = ResourceType.parse(kafka) if kafka else (existing.kafka_type if existing else None)
                self.resources[r["class"]] = ResourceClass(
                    r["class"], r["short"], tuple(r["operations"]),
                    {k: tuple(v) for k, v in r.get("implies", {}).items()}, kafka_type)
            self.default_imports.update(doc.get("default_imports", {}))
        except (KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"not a types file: missing or malformed {exc}", path) from None
        return self
