"""`authz convert`: ACL sets between canonical JSON, kafka-acls text, KSM CSV/YAML, Strimzi KafkaUsers and Terraform."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    LOSSY_OPTION,
    STRIMZI_API_VERSION_OPTION,
    STRIMZI_AUTHENTICATION_OPTION,
    STRIMZI_CLUSTER_OPTION,
    TERRAFORM_CONFLUENT_CLUSTER_OPTION,
    TERRAFORM_PROVIDER_OPTION,
    AclFormat,
    StrimziApiVersion,
    StrimziAuthentication,
    TerraformProvider,
    WriteFormat,
    acls_options,
    option_value,
    write_options,
    write_output,
)
from kafka_authz_cli.services.convert import convert_acl_set

CONVERT_HELP = """Convert an ACL set between formats: canonical JSON, the text `kafka-acls --list`
prints, Kafka Security Manager CSV and YAML, Strimzi KafkaUser resources, JulieOps topologies (read only),
Jikkou resources, kafka-gitops state files and Terraform ACL resources (a rules file, or the Kroxylicious
configuration naming it, is compiled first).
Round trips lose nothing.

kafka-acls text of every Kafka version is read: 1.0/1.1 (`Topic:name`, `User:a has Allow permission for
operations: Read from hosts: *`), 2.0-2.4 with --authorizer-properties (`Topic:LITERAL:name`), 2.1+ and
4.x (`ResourcePattern(...)`), re-indented or with a byte-order mark as pasted. `--add` output holds each
ACL twice: its `Current ACLs` blocks (what the cluster has after the add) are read, with a warning. An
empty file is zero ACLs, with a warning; a file that is no ACL set is refused saying what it looks like.

Strimzi (follows Strimzi 1.2.0 for kafka.strimzi.io/v1, 0.51.0 for v1beta2 and older): a KafkaUser
file, multi-document YAML, a `kind: List`, or a directory of them (files ending .yaml/.yml/.json, told
by content) is read as the User Operator applies it: User:CN=<name> for tls and tls-external users,
User:<name> otherwise, one ACL per operation, cluster resources as LITERAL kafka-cluster. `--to strimzi`
writes one KafkaUser (kafka.strimzi.io/v1) per principal; a binding a KafkaUser cannot hold (another
principal type, User:*, a name that is no Kubernetes name, DELEGATION_TOKEN/USER resources, token
operations) refuses the conversion unless --lossy. Warned with codes: EA101 prefix `*`, EA102 a literal
name ending in `*`, EA103 a cluster name the operator ignores, EA104 a v1 rule's `operation`.

Kafka Security Manager CSV of every KSM version, by header as its CsvAclParser reads it (a file from
before KSM 0.4 has no PatternType column: every row is LITERAL, warned). `--acls-format ksm` names
either KSM format, told by content (`csv` and `ksm-yaml` name one).

Kafka Security Manager YAML (follows KSM 1.1.0's YamlAclParser, KSM 0.10 and later):
`users: {<name>: {topics|groups|transactional_ids|clusters: {<name>: [entries]}}}` is read as KSM
applies it: User:<name>, a name ending in `*` is PREFIXED, `Op` or `Op,Permission,Host` entries, and
the helpers `Consume` (DESCRIBE, READ) and `Produce` (DESCRIBE, CREATE, WRITE, plus CREATE on CLUSTER
`*`, warned: EA201). Also EA202 sections KSM ignores, EA203 user keys starting `User:`, EA204 cluster
names other than kafka-cluster and `*`. `--to ksm-yaml` writes explicit `Op,Permission,Host` entries only; it refuses, unless
--lossy, non-User principals, other resource types, LITERAL names ending in `*`, names with surrounding
spaces, hosts that are empty or hold `,`, token and two-phase-commit operations.

JulieOps topologies (follows JulieOps 4.4.1's default ACL provider; read only): a topology file or a
directory is read as the ACLs JulieOps creates, topic names from the project prefix
`context.<other top-level values>.<project>.`; every ACL names its construct (`consumers entry of
project X`). JulieOps' settings are --option with its keys: topology.topic.prefix.separator,
topology.topic.prefix.format and topology.project.prefix.format (Jinja `{{name}}` only),
topology.acls.optimized, topology.connector.allow.topic.create, topology.dlq.topics.generate (and
.allow.list/.deny.list, topology.topic.dlq.label/.prefix.format), julie.roles=FILE (custom roles),
topology.{topic,group,service.accounts}.managed.prefixes, confluent.{monitoring,command,metrics}.topic,
julie.multiple.context.per.dir.enabled, topology.builder.access.control.class. Where JulieOps grants
more than the file says it warns with a code: EA401 consumer without group, EA402 app without
applicationId, EA403 role DENY made ALLOW, EA404 connector cluster CREATE, EA405 shared connector
defaults, EA406 idempotence false, EA407 optimized prefixes, EA408 applicationId prefix, EA409 Control
Center wildcards.

Jikkou (follows Jikkou 1.1.0, kafka.jikkou.io/v1; v1beta2 read alike): KafkaPrincipalAuthorization and
KafkaPrincipalRole resources (multi-document YAML, a KafkaPrincipalAuthorizationList, or a directory) are
read as Jikkou applies them: principal = metadata.name, each role's acls appended, one ACL per operation,
enum values in any case. patternType MATCH (a Java regex over the cluster's topics when Jikkou plans) needs
`--option topics=FILE` (one topic name a line) and is a snapshot (EA601); MATCH on other resources is
dropped (EA602); jikkou.io/delete (EA603) and jikkou.io/ignore (EA605) are followed; a file holding Jinja
`{{ }}` is refused. `--to jikkou` writes one KafkaPrincipalAuthorization per principal with explicit acls.

kafka-gitops (follows kafka-gitops 0.2.15): a desired state file (and the files its settings.files
name) is read as kafka-gitops applies it: services of type application, kafka-streams and kafka-connect
expanded as its code does (the streams application id PREFIXED, connect storage topics and groups,
describeTopicEnabled), users' roles, customServiceAcls/customUserAcls; a user named like a service
replaces its ACLs, as in kafka-gitops. Warned with codes EA301-EA308: cluster-wide roles, streams
prefixes, name clashes, ignored custom ACLs, literal names ending in `*`, ignored parts of included
files, a file with no ACLs, custom ACLs relying on the host/permission defaults 0.2.15 lacks. settings.ccloud needs --option ccloud-service-accounts=NAME=ID,... `--to
kafka-gitops` writes one user per principal (`roles: []`) and its ACLs as customUserAcls; it refuses,
unless --lossy, USER resources, MATCH, token and two-phase-commit operations (not in Kafka 2.4).

Terraform (follows Mongey/kafka provider 0.13.1 and confluentinc/confluent 2.83): `kafka_acl` and
`confluent_kafka_acl` resources in .tf files (a file or a directory: one module), `terraform show -json`
output or a v4 terraform.tfstate, one binding per resource, values matched as exactly as the providers do
(`Read`, `Topic`; `READ`, `TOPIC`). In .tf files literals, var.NAME defaults, locals, configured arguments of
other resources and count/for_each on them are evaluated; a value only Terraform knows (a computed id, a
function) is an error naming it (`--option
unevaluated=skip`: left out, warned EA504); module blocks are not followed (EA505). `--to terraform` writes
`kafka_acl` resources (`--terraform-provider confluent`: `confluent_kafka_acl`, with
`--terraform-confluent-cluster lkc-...`) with stable labels and `import` blocks carrying the provider's import
ID; it refuses, unless --lossy, USER resources, token and two-phase-commit operations, and values that break
the import ID (`|`; for Confluent `#` and `/`).

Exit codes: 0 converted; 2 usage or input error (file:line: reason), or a conversion that would lose bindings."""


@app.command("convert", short_help="Convert ACL sets between Kafka's formats and the ecosystem's (Strimzi, KSM, Terraform...).",
             help=CONVERT_HELP)
def convert(
    source: Path = typer.Argument(..., help="Input ACL set ('-' for stdin, or a directory of KafkaUsers); format "
                                            "detected by content."),
    to: WriteFormat = typer.Option(..., "--to", help="Output format."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Override input detection."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    strimzi_authentication: Optional[StrimziAuthentication] = STRIMZI_AUTHENTICATION_OPTION,
    strimzi_cluster: Optional[str] = STRIMZI_CLUSTER_OPTION,
    strimzi_api_version: Optional[StrimziApiVersion] = STRIMZI_API_VERSION_OPTION,
    terraform_provider: Optional[TerraformProvider] = TERRAFORM_PROVIDER_OPTION,
    terraform_confluent_cluster: Optional[str] = TERRAFORM_CONFLUENT_CLUSTER_OPTION,
    lossy: bool = LOSSY_OPTION,
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write here instead of stdout."),
) -> None:
    options = write_options(strimzi_authentication, strimzi_cluster, strimzi_api_version, terraform_provider,
                  terraform_confluent_cluster, lossy)
    write_output(convert_acl_set(source, to.value, option_value(acls_format), options, acls_options(option)), out)
