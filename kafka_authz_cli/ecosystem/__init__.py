"""ACL formats of the Kafka ecosystem: the files teams keep their ACLs in, read and written as Kafka
bindings, each expanded exactly as the tool that applies it does (for a stated version of it).

Each format is an entry of ``acl.registry`` (its name, how it is told by content, its reader and
writer, its reading options, what it can hold) and one sub-package holding its ``reader``, its
``writer`` and their helpers: ``strimzi`` (Strimzi ``KafkaUser`` resources as the User Operator applies
them), ``ksm`` (Kafka Security Manager YAML files as its ``YamlAclParser`` reads them), ``jikkou``
(Jikkou ``KafkaPrincipalAuthorization``/``KafkaPrincipalRole`` resources, roles and MATCH rules expanded
as Jikkou's ACL binding builders do; ``jikkou.match`` matches MATCH patterns in RE2 or within a CPU
budget), ``kafka_gitops`` (kafka-gitops state files, services expanded by ``kafka_gitops.expand`` as
kafka-gitops generates them), ``julieops`` (JulieOps topologies as its default ACL provider applies
them) and ``terraform`` (Terraform ACL resources; ``terraform.state`` reads Terraform's JSON strictly).

What the formats share is here: ``yamlnodes`` reads YAML with the line and column of every node, so
that each binding keeps its ``file:line`` and every error is located; ``yaml_aliases`` composes YAML
aliases as each tool's YAML library reads them (Jackson: as text; SnakeYAML and kubectl's go-yaml:
within their limits), never expanding past a bound. ``source_reading`` is what every reader keeps
while reading (warnings per kind, coded findings), ``findings`` the registry of the EA codes.
``written`` is what a writer returns: the text, and the bindings it could not express (refused unless
the caller accepts the loss); ``yaml_text`` quotes a scalar for the YAML writers so that it reads back as
exactly the text written. ``directory`` reads a directory of files of one format as one ACL set.

Pure: no terminal, no network. Above ``acl`` (bindings, ``AclSet``), below the services, which make
every command that takes ACLs accept these formats (``services/acl_sources.py``).
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.ecosystem.directory import read_directory
    from kafka_authz_cli.ecosystem.findings import CODES
    from kafka_authz_cli.ecosystem.source_reading import SourceFinding
    from kafka_authz_cli.ecosystem.written import Lost, NotExpressible, Written

__getattr__, __all__ = lazy_face(__name__, {
    "read_directory": "directory",
    "Lost": "written", "Written": "written", "NotExpressible": "written",
    "CODES": "findings", "SourceFinding": "source_reading",
})
