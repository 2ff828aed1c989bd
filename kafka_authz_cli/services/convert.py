"""`authz convert`: an ACL set in any format authz reads (rules files compiled, Strimzi KafkaUsers
expanded), written as canonical JSON, `kafka-acls` text, KSM CSV or an ecosystem format (Strimzi
KafkaUsers), refusing a conversion that would lose bindings unless the loss is accepted."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional

from kafka_authz_cli.acl import AclBinding, dump_acls
from kafka_authz_cli.errors import OptionError
from kafka_authz_cli.services.sources import KSM, load_source

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


#: lost bindings named one by one in the --lossy warning
SHOWN_LOST = 20


def write_acls(bindings: Iterable[AclBinding], to: str, options: WriteOptions = WriteOptions()) -> str:
    """The text of ``bindings`` in format ``to``; bindings an ecosystem format cannot hold refuse the
    conversion (NotExpressible), or with ``lossy`` are each logged as lost."""
    from kafka_authz_cli.ecosystem import ecosystem_format

    ecosystem = ecosystem_format(to)
    if ecosystem is None or ecosystem.name != "strimzi":
        for given, name in ((options.strimzi_authentication, "--strimzi-authentication"),
                            (options.strimzi_cluster, "--strimzi-cluster"),
                            (options.strimzi_api_version, "--strimzi-api-version")):
            if given is not None:
                raise OptionError(f"only with --to strimzi (not {to})", name)
    if to == KSM:
        raise OptionError("ksm names both of Kafka Security Manager's formats: write ksm-yaml or csv", "--to")
    if ecosystem is None:
        return dump_acls(bindings, to)
    if ecosystem.write is None:
        raise OptionError(f"authz reads {ecosystem.title} but does not write them", "--to")
    kwargs = {"lossy": options.lossy}
    if options.strimzi_authentication is not None:
        kwargs["authentication"] = options.strimzi_authentication
    if options.strimzi_cluster is not None:
        kwargs["cluster"] = options.strimzi_cluster
    if options.strimzi_api_version is not None:
        kwargs["api_version"] = options.strimzi_api_version
    written = ecosystem.write(bindings, **kwargs)
    if written.lost:
        # Bounded: the first few by name, the rest counted (a pull of 100,000 ACLs may lose thousands).
        shown = "; ".join(str(lost) for lost in written.lost[:SHOWN_LOST])
        more = f"; and {len(written.lost) - SHOWN_LOST:,} more" if len(written.lost) > SHOWN_LOST else ""
        log.warning(f"--lossy: {len(written.lost):,} binding(s) left out of the {to} output (it cannot express "
                    f"them): {shown}{more}")
    return written.text


def convert_acl_set(source: Path | str, to: str, acls_format: Optional[str] = None,
                    options: WriteOptions = WriteOptions(), acls_options: Optional[Mapping[str, str]] = None) -> str:
    """The text of ``source``'s bindings in format ``to`` (``acls_options``: the input format's
    reading options)."""
    acl_set = load_source(source, acls_format, options=acls_options)
    return write_acls(acl_set.bindings, to, options)
