"""Bindings as Terraform: one ``kafka_acl`` (or ``confluent_kafka_acl``) resource per binding, each with an
``import`` block (Terraform 1.5+) carrying the provider's import ID, so that ``terraform plan`` against the
cluster the bindings came from adopts them and plans no change.

- ``kafka_acl`` (Mongey, ``importACL``): the ID is ``principal|host|operation|permission|type|name|pattern``
  split on ``|`` into exactly 7 fields, so a ``|`` in a principal, host or name cannot be imported.
- ``confluent_kafka_acl`` (``kafkaAclImport``, ``deserializeAcl``): ``<cluster id>/<TYPE>#<name>#<PATTERN>#
  <principal>#<host>#<OPERATION>#<PERMISSION>``, split on ``/`` into exactly 2 and on ``#`` into exactly 7:
  no ``/`` or ``#`` anywhere; the cluster id is required (it is the ID's first part).
- Neither provider takes USER resources, CREATE_TOKENS, DESCRIBE_TOKENS or TWO_PHASE_COMMIT; patterns are
  LITERAL and PREFIXED only. Such bindings are refused (``--lossy``: left out and listed), never widened.

Resource labels are readable and stable: ``<permission>_<principal>_<operation>_<type>_<name>`` folded to
an identifier; labels that fold alike each get the first 8 hex digits of their import ID's SHA-1, so a label
depends only on its own binding and the others folding to the same words.
"""

from __future__ import annotations

import hashlib
import re
from typing import Iterable

from kafka_authz_cli.acl import FORMATS, AclBinding, PatternType
from kafka_authz_cli.ecosystem.terraform.reader import CONFLUENT, MONGEY, Provider
from kafka_authz_cli.ecosystem.written import Written, expressible
from kafka_authz_cli.errors import OptionError

PROVIDER_CHOICES = {"kafka": MONGEY, "confluent": CONFLUENT}
_NAMES = {p.resource: {field: {v: k for k, v in table.items()} for field, table in (
    ("resource_type", p.types), ("pattern_type", p.patterns), ("operation", p.operations),
    ("permission", p.permissions))} for p in (MONGEY, CONFLUENT)}
_UNSAFE = re.compile(r"[^a-z0-9]+")
#: what python-hcl2's lexer cannot read back escaped (``$${`` needs a closing ``}`` in it)
_TEMPLATE = ("${", "%{")


def quote(text: str) -> str:
    """An HCL quoted string that reads back as exactly ``text``."""
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    out = re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\u{ord(m[0]):04x}", out)
    return f'"{out}"'


def import_id(provider: Provider, b: AclBinding, cluster: str | None = None) -> str:
    names = _NAMES[provider.resource]
    rtype, pattern = names["resource_type"][b.resource_type], names["pattern_type"][b.pattern_type]
    op, perm = names["operation"][b.operation], names["permission"][b.permission]
    if provider is MONGEY:  # StringlyTypedACL.String / importACL
        return "|".join((b.principal, b.host, op, perm, rtype, b.resource_name, pattern))
    return f"{cluster}/" + "#".join((rtype, b.resource_name, pattern, b.principal, b.host, op, perm))


def why_not(provider: Provider, b: AclBinding) -> str | None:
    """Why ``provider``'s resource cannot hold ``b`` (and be imported), or None."""
    names = _NAMES[provider.resource]
    for field, value in (("resource_type", b.resource_type), ("operation", b.operation),
                         ("pattern_type", b.pattern_type), ("permission", b.permission)):
        if value not in names[field]:
            return f"{provider.resource} has no {value.name} {field.replace('_', ' ')}"
    texts = (b.principal, b.host, b.resource_name)
    if provider is MONGEY and any("|" in t for t in texts):
        return "a '|' in the principal, host or name breaks kafka_acl's import ID (split on '|')"
    if provider is CONFLUENT and any("#" in t or "/" in t for t in texts):
        return "a '#' or '/' in the principal, host or name breaks confluent_kafka_acl's import ID"
    if any(t in x for x in texts for t in _TEMPLATE):
        return "a '${' or '%{' in a value (a Terraform template sequence)"
    return None


def label(b: AclBinding) -> str:
    """The readable part of a resource label."""
    principal = b.principal[5:] if b.principal.startswith("User:") else b.principal
    words = [b.permission.name, principal, b.operation.name, b.resource_type.name]
    if b.pattern_type is PatternType.PREFIXED:
        words.append("prefixed")
    words.append("all" if b.resource_name == "*" else b.resource_name)
    folded = _UNSAFE.sub("_", "_".join(words).lower()).strip("_")
    return folded[:72].rstrip("_")


def write(bindings: Iterable[AclBinding], lossy: bool = False, provider: str = "kafka",
          confluent_cluster: str | None = None) -> Written:
    """The resources and import blocks of ``bindings`` (in their order, duplicates once); refuses what the
    provider cannot hold unless ``lossy``."""
    if provider not in PROVIDER_CHOICES:
        raise OptionError(f"{provider!r}: expected one of {', '.join(PROVIDER_CHOICES)}", "--terraform-provider")
    chosen = PROVIDER_CHOICES[provider]
    if chosen is CONFLUENT and not confluent_cluster:
        raise OptionError("confluent_kafka_acl needs the Kafka cluster id (lkc-...): its import ID starts with it",
                          "--terraform-confluent-cluster")
    if chosen is CONFLUENT and confluent_cluster and ("/" in confluent_cluster or "#" in confluent_cluster):
        raise OptionError(f"{confluent_cluster!r}: a cluster id cannot hold '/' or '#'", "--terraform-confluent-cluster")
    if chosen is MONGEY and confluent_cluster:
        raise OptionError("only with --terraform-provider confluent", "--terraform-confluent-cluster")
    kept, lost = expressible(f"terraform ({chosen.resource})", bindings, lambda b: why_not(chosen, b), lossy)
    return Written(_text(chosen, kept, confluent_cluster), lost)


def _labels(provider: Provider, bindings: list[AclBinding], cluster: str | None) -> list[str]:
    bases = [label(b) for b in bindings]
    counts: dict[str, int] = {}
    for base in bases:
        counts[base] = counts.get(base, 0) + 1
    out, used = [], set()
    for b, base in zip(bindings, bases):
        name = base
        if counts[base] > 1:
            name = f"{base}_{hashlib.sha1(import_id(provider, b, cluster).encode()).hexdigest()[:8]}"
        while name in used:  # an 8-digit clash, or a label that folds like another's hashed one
            name += "_"
        used.add(name)
        out.append(name)
    return out


def _text(provider: Provider, bindings: list[AclBinding], cluster: str | None) -> str:
    names = _NAMES[provider.resource]
    a = provider.attributes
    follows = FORMATS["terraform"].follows
    out = [f"# {len(bindings)} Kafka ACL(s) as {provider.resource} resources, written by authz ({follows}).",
           "# The import blocks (Terraform 1.5 and later) adopt the ACLs the cluster already has: `terraform plan`",
           "# against it plans no change."]
    if provider is CONFLUENT:
        out.append("# The provider block gives kafka_rest_endpoint and kafka_api_key/kafka_api_secret (or add "
                   "rest_endpoint and credentials here).")
    width = max(len(x) for x in a.values())
    for b, name in zip(bindings, _labels(provider, bindings, cluster)):
        values = {"principal": b.principal, "host": b.host, "operation": names["operation"][b.operation],
                  "permission": names["permission"][b.permission],
                  "resource_type": names["resource_type"][b.resource_type], "resource_name": b.resource_name,
                  "pattern_type": names["pattern_type"][b.pattern_type]}
        out.append("")
        out.append(f'resource "{provider.resource}" "{name}" {{')
        if provider is CONFLUENT:
            assert cluster is not None  # write() refuses confluent_kafka_acl without the cluster id
            out.extend(["  kafka_cluster {", f"    id = {quote(cluster)}", "  }"])
        for field in ("resource_type", "resource_name", "pattern_type", "principal", "host", "operation", "permission"):
            out.append(f"  {a[field].ljust(width)} = {quote(values[field])}")
        out.append("}")
        out.append("")
        out.append("import {")
        out.append(f"  to = {provider.resource}.{name}")
        out.append(f"  id = {quote(import_id(provider, b, cluster))}")
        out.append("}")
    return "\n".join(out) + "\n"
