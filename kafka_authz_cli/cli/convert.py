"""`authz convert`: ACL sets between canonical JSON, kafka-acls text, KSM CSV/YAML and Strimzi KafkaUsers."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.common import (
    ACLS_OPTION_HELP,
    LOSSY_HELP,
    STRIMZI_API_VERSION_HELP,
    STRIMZI_AUTHENTICATION_HELP,
    STRIMZI_CLUSTER_HELP,
    AclFormat,
    StrimziApiVersion,
    StrimziAuthentication,
    acls_options,
    option_value,
    write_output,
)
from kafka_authz_cli.services.convert import WriteOptions, convert_acl_set


class OutFormat(str, Enum):
    json = "json"
    kafka_acls = "kafka-acls"
    csv = "csv"
    strimzi = "strimzi"
    ksm_yaml = "ksm-yaml"
    kafka_gitops = "kafka-gitops"


@app.command("convert", short_help="Convert ACL sets between JSON, kafka-acls text, KSM CSV/YAML and Strimzi KafkaUsers.",
             help="""Convert an ACL set between formats: canonical JSON, the text `kafka-acls --list`
prints, Kafka Security Manager CSV and YAML, and Strimzi KafkaUser resources (a rules file is compiled first).
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
operations) refuses the conversion unless --lossy.

Kafka Security Manager YAML (follows KSM 1.1.0's YamlAclParser, KSM 0.10 and later; its CSV is `csv`):
`users: {<name>: {topics|groups|transactional_ids|clusters: {<name>: [entries]}}}` is read as KSM
applies it: User:<name>, a name ending in `*` is PREFIXED, `Op` or `Op,Permission,Host` entries, and
the helpers `Consume` (DESCRIBE, READ) and `Produce` (DESCRIBE, CREATE, WRITE, plus CREATE on CLUSTER
`*`, warned). `--to ksm-yaml` writes explicit `Op,Permission,Host` entries only; it refuses, unless
--lossy, non-User principals, other resource types, LITERAL names ending in `*`, names with surrounding
spaces, hosts that are empty or hold `,`, token and two-phase-commit operations.

kafka-gitops (follows kafka-gitops 0.2.15): a desired state file (and the files its settings.files
name) is read as kafka-gitops applies it: services of type application, kafka-streams and kafka-connect
expanded as its code does (the streams application id PREFIXED, connect storage topics and groups,
describeTopicEnabled), users' roles, customServiceAcls/customUserAcls; a user named like a service
replaces its ACLs, as in kafka-gitops. Warned with codes EA301-EA308: cluster-wide roles, streams
prefixes, name clashes, ignored custom ACLs, literal names ending in `*`, ignored parts of included
files, a file with no ACLs, custom ACLs relying on the host/permission defaults 0.2.15 lacks. settings.ccloud needs --option ccloud-service-accounts=NAME=ID,... `--to
kafka-gitops` writes one user per principal (`roles: []`) and its ACLs as customUserAcls; it refuses,
unless --lossy, USER resources, MATCH, token and two-phase-commit operations (not in Kafka 2.4).

Exit codes: 0 converted; 2 usage or input error (file:line: reason), or a conversion that would lose bindings.""")
def convert(
    source: Path = typer.Argument(..., help="Input ACL set ('-' for stdin, or a directory of KafkaUsers); format "
                                            "detected by content."),
    to: OutFormat = typer.Option(..., "--to", help="Output format."),
    acls_format: Optional[AclFormat] = typer.Option(None, "--acls-format", help="Override input detection."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help=ACLS_OPTION_HELP),
    strimzi_authentication: Optional[StrimziAuthentication] = typer.Option(
        None, "--strimzi-authentication", help=STRIMZI_AUTHENTICATION_HELP),
    strimzi_cluster: Optional[str] = typer.Option(None, "--strimzi-cluster", help=STRIMZI_CLUSTER_HELP),
    strimzi_api_version: Optional[StrimziApiVersion] = typer.Option(None, "--strimzi-api-version",
                                                                    help=STRIMZI_API_VERSION_HELP),
    lossy: bool = typer.Option(False, "--lossy", help=LOSSY_HELP),
    out: Optional[Path] = typer.Option(None, "-o", "--output", help="Write here instead of stdout."),
) -> None:
    options = WriteOptions(option_value(strimzi_authentication), strimzi_cluster, lossy,
                           option_value(strimzi_api_version))
    write_output(convert_acl_set(source, to.value, option_value(acls_format), options, acls_options(option)), out)
