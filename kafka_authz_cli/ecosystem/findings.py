"""The coded findings of every ecosystem format, one registry (``EA`` codes): a range per format
(EA1xx Strimzi, EA2xx KSM YAML), each declared in its format's module next to the code that finds it."""

from __future__ import annotations

from kafka_authz_cli.codes import CodeRegistry
from kafka_authz_cli.ecosystem import ksm, strimzi

#: format name -> its findings, for the examples' tests and the manual
BY_FORMAT = {"strimzi": strimzi.FINDINGS, "ksm-yaml": ksm.FINDINGS}
CODES = CodeRegistry("EA", [code for codes in BY_FORMAT.values() for code in codes])
