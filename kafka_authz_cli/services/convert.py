"""`authz convert`: an ACL set in any format authz reads (rules files compiled, Strimzi KafkaUsers
expanded), written as canonical JSON, `kafka-acls` text, KSM CSV or an ecosystem format (Strimzi
KafkaUsers, Terraform resources), refusing a conversion that would lose bindings unless the loss is accepted."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional

from kafka_authz_cli.acl import ECOSYSTEM, FORMATS, AclBinding, dump_acls
from kafka_authz_cli.errors import OptionError
from kafka_authz_cli.services.acl_sources import KSM, load_source

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WriteOptions:
    """How bindings become an ecosystem format's constructs (ignored by Kafka's own formats)."""

    #: Strimzi: tls, tls-external or scram-sha-512 (None: User:CN=x is tls, User:x scram-sha-512)
    strimzi_authentication: Optional[str] = None
    #: Strimzi: the strimzi.io/cluster label
    strimzi_cluster: Optional[str] = None
    #: write what can be written and report the rest instead of refusing
    lossy: bool = False
    #: Strimzi: v1 (0.49+) or v1beta2 (0.22-0.51, one rule per operation)
    strimzi_api_version: Optional[str] = None
    #: Terraform: kafka (Mongey's kafka_acl, the default) or confluent (confluent_kafka_acl)
    terraform_provider: Optional[str] = None
    #: Terraform, confluent: the Kafka cluster id (lkc-...) every resource and import ID names
    terraform_confluent_cluster: Optional[str] = None


#: lost bindings named one by one in the --lossy warning
SHOWN_LOST = 20


def write_acls(bindings: Iterable[AclBinding], to: str, options: WriteOptions = WriteOptions()) -> str:
    """The text of ``bindings`` in format ``to``; bindings an ecosystem format cannot hold refuse the
    conversion (NotExpressible), or with ``lossy`` are each logged as lost."""
    found = FORMATS.get(to)
    ecosystem = found if found is not None and found.family == ECOSYSTEM else None
    _check_options_for(ecosystem.name if ecosystem is not None else None, to, options)
    if to == KSM:
        raise OptionError("ksm names both of Kafka Security Manager's formats: write ksm-yaml or csv", "--to")
    if ecosystem is None:
        return dump_acls(bindings, to)
    if ecosystem.writer is None:
        raise OptionError(f"authz reads {ecosystem.title} but does not write them", "--to")
    kwargs: dict[str, object] = {"lossy": options.lossy}
    # each writer's keyword for the options given (only its own format's are given: checked above)
    for keyword, value in (("authentication", options.strimzi_authentication), ("cluster", options.strimzi_cluster),
                           ("api_version", options.strimzi_api_version), ("provider", options.terraform_provider),
                           ("confluent_cluster", options.terraform_confluent_cluster)):
        if value is not None:
            kwargs[keyword] = value
    written = ecosystem.write(bindings, **kwargs)
    if written.lost:
        # Bounded: the first few by name, the rest counted (a pull of 100,000 ACLs may lose thousands).
        shown = "; ".join(str(lost) for lost in written.lost[:SHOWN_LOST])
        more = f"; and {len(written.lost) - SHOWN_LOST:,} more" if len(written.lost) > SHOWN_LOST else ""
        log.warning(f"--lossy: {len(written.lost):,} binding(s) left out of the {to} output (it cannot express "
                    f"them): {shown}{more}")
    return written.text


def _check_options_for(fmt: str | None, to: str, options: WriteOptions) -> None:
    """A format's write options given with another ``--to`` are a usage error (not silently ignored)."""
    for given, name, owner in ((options.strimzi_authentication, "--strimzi-authentication", "strimzi"),
                               (options.strimzi_cluster, "--strimzi-cluster", "strimzi"),
                               (options.strimzi_api_version, "--strimzi-api-version", "strimzi"),
                               (options.terraform_provider, "--terraform-provider", "terraform"),
                               (options.terraform_confluent_cluster, "--terraform-confluent-cluster", "terraform")):
        if given is not None and fmt != owner:
            raise OptionError(f"only with --to {owner} (not {to})", name)


def convert_acl_set(source: Path | str, to: str, acls_format: Optional[str] = None,
                    options: WriteOptions = WriteOptions(), acls_options: Optional[Mapping[str, str]] = None) -> str:
    """The text of ``source``'s bindings in format ``to`` (``acls_options``: the input format's
    reading options)."""
    acl_set = load_source(source, acls_format, options=acls_options)
    return write_acls(acl_set.bindings, to, options)
