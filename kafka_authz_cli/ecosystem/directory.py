"""The ecosystem formats authz reads and writes: one entry per format, one module per format.

A format is told by content (``sniff``), read into an :class:`AclSet` whose origins name the file,
line and the construct each binding came from (``read``), and written from bindings (``write``,
refusing what it cannot express). Adding a format is adding its module and one entry here; the
services and the command options take their choices from :data:`FORMATS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Optional

from kafka_authz_cli.acl import AclSet
from kafka_authz_cli.ecosystem import (
    jikkou,
    jikkou_write,
    julieops,
    kafka_gitops,
    kafka_gitops_write,
    ksm,
    ksm_write,
    strimzi,
    strimzi_write,
    terraform,
    terraform_write,
)
from kafka_authz_cli.errors import InputError, OptionError
from kafka_authz_cli.formats import files_under, read_text


@dataclass(frozen=True)
class EcosystemFormat:
    #: the name ``--acls-format`` and ``--to`` take
    name: str
    #: what it is, for people
    title: str
    #: the version of the tool whose code the reading and writing follow
    follows: str
    sniff: Callable[[str], bool]
    #: ``read(text, path, options)``: one file
    read: Callable[[str, str, Mapping[str, str]], AclSet]
    #: ``read_many([(text, path), ...], source, options)``: several files as one ACL set (a directory)
    read_many: Callable[[Iterable[tuple[str, str]], str, Mapping[str, str]], AclSet]
    #: ``write(bindings, **options) -> Written`` (None: read only)
    write: Optional[Callable] = None
    #: what the format cannot hold, in a sentence (help and errors)
    cannot_hold: str = ""
    #: file name endings of a directory's files worth sniffing (others are skipped unread)
    suffixes: tuple[str, ...] = ()
    #: reading options (``--option KEY=VALUE``): key -> what it does
    options: Mapping[str, str] = field(default_factory=dict)

    def check_options(self, options: Mapping[str, str] | None) -> Mapping[str, str]:
        """``options`` if this format reads them all, else an OptionError naming the ones it has."""
        options = options or {}
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            known = "; ".join(f"{k}: {v}" for k, v in self.options.items()) or "none"
            raise OptionError(f"{self.name} has no reading option {', '.join(unknown)} (its options: {known})",
                              "--option")
        return options


FORMATS: dict[str, EcosystemFormat] = {f.name: f for f in (
    EcosystemFormat(
        "strimzi", "Strimzi KafkaUser resources", strimzi.FOLLOWS, strimzi.sniff, strimzi.read, strimzi.read_many,
        strimzi_write.write,
        "non-User principals, User:*, names that are not Kubernetes names, DELEGATION_TOKEN and USER "
        "resources, cluster names other than kafka-cluster, token and two-phase-commit operations",
        (".yaml", ".yml", ".json"), strimzi.OPTIONS),
    EcosystemFormat(
        "ksm-yaml", "Kafka Security Manager YAML files", ksm.FOLLOWS, ksm.sniff, ksm.read, ksm.read_many,
        ksm_write.write,
        "non-User principals, LITERAL names ending in '*', names with surrounding spaces, hosts that are empty "
        "or hold ',', resources other than topics, groups, transactional ids and clusters, token and "
        "two-phase-commit operations", (".yaml", ".yml")),
    EcosystemFormat(
        "julieops", "JulieOps topologies", julieops.FOLLOWS, julieops.sniff, julieops.read, julieops.read_many,
        None, "DENY, hosts, and any binding none of its roles generates (read only)",
        (".yaml", ".yml", ".json"), julieops.OPTIONS),
    EcosystemFormat(
        "jikkou", "Jikkou KafkaPrincipalAuthorization resources", jikkou.FOLLOWS, jikkou.sniff, jikkou.read,
        jikkou.read_many, jikkou_write.write,
        "principals without ':', and names, principals or hosts holding '{{', '{%' or '{#' (Jikkou renders "
        "every file as a Jinja template); MATCH rules are not re-derived (their topics are written LITERAL)",
        (".yaml", ".yml"), jikkou.OPTIONS),
    EcosystemFormat(
        "kafka-gitops", "kafka-gitops desired state files", kafka_gitops.FOLLOWS, kafka_gitops.sniff,
        kafka_gitops.read, kafka_gitops.read_many, kafka_gitops_write.write,
        "USER resources, pattern types other than LITERAL and PREFIXED, token and two-phase-commit operations "
        "(Kafka 2.4's enums)", (".yaml", ".yml"), kafka_gitops.OPTIONS),
    EcosystemFormat(
        "terraform", "Terraform kafka_acl / confluent_kafka_acl resources", terraform.FOLLOWS, terraform.sniff,
        terraform.read, terraform.read_many, terraform_write.write,
        "USER resources, token and two-phase-commit operations, pattern types other than LITERAL and PREFIXED, "
        "a '|' in a name, principal or host (kafka_acl's import ID), '#' or '/' (confluent_kafka_acl's)",
        (".tf", ".json", ".tfstate"), terraform.OPTIONS),
)}


def ecosystem_format(name: str) -> EcosystemFormat | None:
    return FORMATS.get(name)


def format_of_text(text: str) -> EcosystemFormat | None:
    """The ecosystem format ``text`` is in, told by content, or None."""
    return next((f for f in FORMATS.values() if f.sniff(text)), None)


def read_directory(directory: str | Path, fmt: str | None = None, options: Mapping[str, str] | None = None) -> AclSet:
    """Every file under ``directory`` (recursively, hidden directories skipped, in name order) that is
    in ``fmt`` (or in the ecosystem format of the first such file), read as one ACL set.

    A file is left out only for a reason that would stop it given alone: content detection is a heuristic,
    so a file it does not recognise is still read when the format reads bindings from it (a KafkaUser whose
    lines end in CRLF, a topology whose ``projects`` come late)."""
    root = Path(directory)
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"--acls-format {fmt}: a directory is read only in {', '.join(FORMATS)}", str(root))
    suffixes = FORMATS[fmt].suffixes if fmt else tuple(s for f in FORMATS.values() for s in f.suffixes)
    files = iter(_texts(root, suffixes))
    skipped = 0
    found = FORMATS.get(fmt) if fmt else None
    checked = found.check_options(options) if found else None
    first = None
    for text, path in files:
        candidate = found or format_of_text(text)
        if candidate is not None and (candidate.sniff(text) or _reads(candidate, text, path, checked)):
            found, first = candidate, (text, path)
            break
        skipped += 1
    if found is None or first is None:
        raise InputError(f"no file here is in a format authz reads from a directory ({', '.join(FORMATS)})",
                         str(root))
    checked = found.check_options(options)
    counted = [skipped]

    def matching() -> Iterator[tuple[str, str]]:
        yield first
        for text, path in files:
            if found.sniff(text) or _reads(found, text, path, checked):
                yield text, path
            else:
                counted[0] += 1

    acl_set = found.read_many(matching(), str(root), checked)
    if counted[0]:
        acl_set.warnings.append(f"{root}: {counted[0]} file(s) are not {found.title} and were skipped")
    return acl_set


#: a word every file a format reads bindings from holds (the kind, or a required key): a file without it is
#: not worth reading to find out
_NEEDED = {"strimzi": "KafkaUser", "jikkou": "KafkaPrincipal", "julieops": "context", "ksm-yaml": "users",
           "kafka-gitops": "", "terraform": ""}


def _reads(fmt: EcosystemFormat, text: str, path: str, options: Mapping[str, str] | None) -> bool:
    """Whether ``fmt`` reads bindings (or coded findings) from ``text`` alone, which content detection did not
    recognise: such a file given alone with --acls-format is read, so it is read in a directory too."""
    if _NEEDED.get(fmt.name, "") not in text:
        return False
    try:
        acl_set = fmt.read(text, path, options or {})
    except (InputError, OptionError):
        return False  # given alone, this would stop it too
    return bool(acl_set.bindings or acl_set.findings)


def _texts(root: Path, suffixes: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    for path in files_under(root, suffixes):
        yield read_text(path), str(path)
