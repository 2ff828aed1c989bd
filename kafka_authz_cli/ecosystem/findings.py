"""The coded findings of every ecosystem format, one registry (``EA`` codes): a range per format
(EA1xx Strimzi, EA2xx KSM YAML, EA3xx kafka-gitops, EA4xx JulieOps, EA5xx Terraform, EA6xx Jikkou), each declared in
its format's module next to the code that finds it."""

from __future__ import annotations

from kafka_authz_cli.codes import CodeRegistry, FindingCode
from kafka_authz_cli.ecosystem.jikkou import reader as jikkou
from kafka_authz_cli.ecosystem.julieops import reader as julieops
from kafka_authz_cli.ecosystem.kafka_gitops import reader as kafka_gitops
from kafka_authz_cli.ecosystem.ksm import reader as ksm
from kafka_authz_cli.ecosystem.strimzi import reader as strimzi
from kafka_authz_cli.ecosystem.terraform import reader as terraform

#: a file its tool would refuse (what every command taking ACLs refuses with one located line)
UNREADABLE = FindingCode(
    "EA001", "ecosystem-unreadable", "error", "the tool that applies this file would refuse it",
    "authz reads the file as its tool does and stops where the tool would (an unknown operation, a "
    "missing field, a principal without a type, a MATCH rule without the topics it is matched against): "
    "the tool would refuse to apply it, so nothing it holds takes effect. The message is the one every "
    "command that takes ACLs gives for the file.",
    "apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\nmetadata:\n  name: app\nspec:\n  authorization:\n"
    "    type: simple\n    acls:\n      - resource: {type: topic, name: t}\n        operations: [Reed]\n")

#: format name -> its findings, for the examples' tests and the manual
BY_FORMAT = {"strimzi": strimzi.FINDINGS, "ksm-yaml": ksm.FINDINGS, "kafka-gitops": kafka_gitops.FINDINGS,
             "julieops": julieops.FINDINGS, "terraform": terraform.FINDINGS, "jikkou": jikkou.FINDINGS}
CODES = CodeRegistry("EA", [UNREADABLE, *(code for codes in BY_FORMAT.values() for code in codes)])
