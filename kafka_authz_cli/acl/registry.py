"""Every format authz reads an ACL set from or writes one in: one table, one entry per format.

Kafka's own (authz's JSON, ``kafka-acls`` text, Kafka Security Manager CSV), the Kroxylicious rules
language and the proxy's configurations, and the ecosystem's formats (Strimzi, KSM YAML, JulieOps,
Jikkou, kafka-gitops, Terraform). An entry is everything about its format but the code that reads and
writes it: the name ``--acls-format`` and ``--to`` take, what it is in words, the version of the tool
it follows, how it is told by content, its reading options, what it cannot hold, and the functions
that read and write it. The commands' ``--acls-format`` and ``--to`` choices and ``--option`` help,
the manual's ECOSYSTEM FORMATS section and :data:`ACL_SET_READS` are made from :data:`FORMATS`, in its
order; adding a format is its module and one entry here.

The code lives in the layers that can hold it (``acl.formats``, ``rules``, ``ecosystem``, and
``services.kroxylicious``, which opens the files a proxy configuration names): an entry names each
function as ``"module:name"``, imported when first called. So the table costs nothing to import
(``authz convert --help`` lists the choices without loading a reader) and ``acl`` imports none of them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from kafka_authz_cli.errors import OptionError

#: Kafka's own formats and authz's (no reading options, no directories)
KAFKA = "kafka"
#: the Kroxylicious rules language and the proxy's configurations that hold or name rules
KROXYLICIOUS = "kroxylicious"
#: the files teams keep their ACLs in for another tool, read as that tool applies them (a file or a directory)
ECOSYSTEM = "ecosystem"


def _function(reference: str) -> Callable[..., Any]:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class AclSetFormat:
    """A format of ACL sets: what it is, how it is told, read and written (functions as ``"module:name"``)."""

    #: the name ``--acls-format`` and ``--to`` take
    name: str
    #: what its files are, for people (errors, the manual, :data:`ACL_SET_READS`)
    title: str
    #: KAFKA, KROXYLICIOUS or ECOSYSTEM
    family: str
    #: the tool (and its version) whose reading and writing this format's follow
    follows: str
    #: ``read(text, path) -> AclSet``, with ``options`` as a third argument for a format that has reading
    #: options (None: read as one file of ``many_reader``)
    reader: str | None = None
    #: ``read_many([(text, path), ...], source, options) -> AclSet``: several files as one ACL set
    many_reader: str | None = None
    #: ``write(bindings) -> str`` (KAFKA) or ``write(bindings, lossy=..., **options) -> Written`` (None: read only)
    writer: str | None = None
    #: ``sniff(text) -> bool``: the format's own test of content, tried before formats.what_is (None: told by
    #: ``kinds``)
    sniffer: str | None = None
    #: the kinds formats.what_is names this format's files (what tells it without a sniffer)
    kinds: tuple[str, ...] = ()
    #: the kinds of the format's syntax (CSV, YAML) on which its reader's own located error says more
    #: than "this looks like YAML"
    syntax: tuple[str, ...] = ()
    #: reading options (``--option KEY=VALUE``): key -> what it does (None: the format takes none)
    options: Mapping[str, str] | None = None
    #: what ``--option``'s help says of this format's options
    option_help: str = ""
    #: what the writer cannot hold, in a sentence (the manual; refused unless --lossy)
    cannot_hold: str = ""
    #: file name endings of a directory's files worth reading (others are skipped unread)
    suffixes: tuple[str, ...] = ()
    #: a word every file this format reads bindings from holds: a directory's file without it is not read
    #: to find out whether the format reads it
    must_hold: str = ""
    #: a name for several formats, told apart by content: the first whose test finds it, else the last
    either: tuple[str, ...] = ()

    @property
    def own_kinds(self) -> frozenset[str]:
        """The kinds formats.what_is may call a file of this format that its reader refuses."""
        return frozenset(self.kinds + self.syntax)

    def sniff(self, text: str) -> bool:
        """Whether ``text`` is in this format, by content."""
        if self.sniffer is not None:
            return bool(_function(self.sniffer)(text))
        from kafka_authz_cli.formats import what_is

        kind = what_is(text)
        return kind is not None and kind.key in self.kinds

    def read(self, text: str, path: str, options: Mapping[str, str] | None = None):
        """One file's ACL set (``options`` checked first: :meth:`check_options`)."""
        if self.reader is None:
            return self.read_many([(text, path)], path, options)
        if self.options is None:
            return _function(self.reader)(text, path)
        return _function(self.reader)(text, path, options or {})

    def read_many(self, texts: Iterable[tuple[str, str]], source: str, options: Mapping[str, str] | None = None):
        assert self.many_reader is not None  # asked only of a format that reads several files as one
        return _function(self.many_reader)(texts, source, options or {})

    def write(self, bindings, **options):
        """The text of ``bindings`` (KAFKA) or a ``Written`` (the others); only for a format with a writer."""
        assert self.writer is not None  # only for a format with a writer
        return _function(self.writer)(bindings, **options)

    def check_options(self, options: Mapping[str, str] | None) -> Mapping[str, str]:
        """``options`` if this format reads them all, else an OptionError naming the ones it has."""
        options = options or {}
        if self.options is None:
            return no_reading_options(options)
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            known = "; ".join(f"{k}: {v}" for k, v in self.options.items()) or "none"
            raise OptionError(f"{self.name} has no reading option {', '.join(unknown)} (its options: {known})",
                              "--option")
        return options


_YAML = (".yaml", ".yml")

FORMATS: dict[str, AclSetFormat] = {f.name: f for f in (
    AclSetFormat(
        "json", "authz ACL JSON", KAFKA, 'authz ("version": 1)',
        "kafka_authz_cli.acl.formats:read_json", writer="kafka_authz_cli.acl.formats:write_json",
        kinds=("acl-json", "json")),
    AclSetFormat(
        "kafka-acls", "kafka-acls --list/--add output (Kafka 1.0 to 4.x)", KAFKA,
        "kafka-acls (AclCommand) of Kafka 1.0 to 4.x",
        "kafka_authz_cli.acl.formats:read_kafka_acls", writer="kafka_authz_cli.acl.formats:write_kafka_acls",
        kinds=("kafka-acls",)),
    AclSetFormat(
        "csv", "Kafka Security Manager CSV", KAFKA,
        "Kafka Security Manager's CsvAclParser (every version: before KSM 0.4 without PatternType)",
        "kafka_authz_cli.acl.formats:read_csv", writer="kafka_authz_cli.acl.formats:write_csv",
        kinds=("ksm-csv",), syntax=("csv",)),
    AclSetFormat(
        "rules", "a Kroxylicious rules file", KROXYLICIOUS, "Kroxylicious 0.24 (AclRules.g4), compiled to ACLs",
        "kafka_authz_cli.rules.compile:read_rules_acl_set", kinds=("rules",)),
    AclSetFormat(
        "kroxylicious", "a Kroxylicious proxy configuration, KafkaProtocolFilter or ConfigMap holding rules",
        KROXYLICIOUS, "Kroxylicious 0.24 (the proxy's aclFile, the operator's ${configmap:NAME:KEY})",
        many_reader="kafka_authz_cli.services.kroxylicious:read",
        sniffer="kafka_authz_cli.services.kroxylicious:holds", kinds=("kroxylicious-config",), syntax=("yaml",),
        options={"filter": "the Authorization filter whose rules to read, by name (needed when the input has "
                           "several)",
                 "key": "the ConfigMap/Secret key holding the rules (needed when a ConfigMap alone holds several)"},
        option_help="Kroxylicious: filter=NAME, key=KEY.", suffixes=_YAML),
    AclSetFormat(
        "strimzi", "Strimzi KafkaUser resources", ECOSYSTEM,
        "Strimzi 1.2.0 (kafka.strimzi.io/v1; v1beta2 and older as 0.51.0)",
        "kafka_authz_cli.ecosystem.strimzi.reader:read", "kafka_authz_cli.ecosystem.strimzi.reader:read_many",
        "kafka_authz_cli.ecosystem.strimzi.writer:write", "kafka_authz_cli.ecosystem.strimzi.reader:sniff",
        kinds=("strimzi-kafkauser",), syntax=("yaml", "json"),
        options={"cluster": "read only the KafkaUsers labelled strimzi.io/cluster=VALUE (what that cluster's User "
                            "Operator applies)"},
        option_help="Strimzi: cluster=NAME reads only the KafkaUsers labelled strimzi.io/cluster=NAME.",
        cannot_hold="non-User principals, User:*, names that are not Kubernetes names, DELEGATION_TOKEN and USER "
                    "resources, cluster names other than kafka-cluster, token and two-phase-commit operations",
        suffixes=(*_YAML, ".json"), must_hold="KafkaUser"),
    AclSetFormat(
        "ksm-yaml", "Kafka Security Manager YAML files", ECOSYSTEM,
        "Kafka Security Manager 1.1.0 (YamlAclParser, KSM 0.10 and later)",
        "kafka_authz_cli.ecosystem.ksm.reader:read", "kafka_authz_cli.ecosystem.ksm.reader:read_many",
        "kafka_authz_cli.ecosystem.ksm.writer:write", "kafka_authz_cli.ecosystem.ksm.reader:sniff",
        kinds=("ksm-yaml",), syntax=("yaml", "json"), options={},
        cannot_hold="non-User principals, LITERAL names ending in '*', names with surrounding spaces, hosts that "
                    "are empty or hold ',', resources other than topics, groups, transactional ids and clusters, "
                    "token and two-phase-commit operations",
        suffixes=_YAML, must_hold="users"),
    AclSetFormat(
        "ksm", "Kafka Security Manager YAML or CSV, told by content", KAFKA,
        "Kafka Security Manager (ksm-yaml, csv)", either=("ksm-yaml", "csv")),
    AclSetFormat(
        "julieops", "JulieOps topologies", ECOSYSTEM, "JulieOps 4.4.1 (its default ACL provider, AclsBindingsBuilder)",
        "kafka_authz_cli.ecosystem.julieops.reader:read", "kafka_authz_cli.ecosystem.julieops.reader:read_many",
        sniffer="kafka_authz_cli.ecosystem.julieops.reader:sniff", kinds=("julieops",), syntax=("yaml", "json"),
        options={
            # JulieOps' own configuration keys (Constants; defaults from reference.conf of 4.4.1): only those
            # the default ACL provider reads while building bindings (ecosystem/julieops/builder_config.py)
            "topology.topic.prefix.separator": "separator of the default topic and project prefixes (default '.')",
            "topology.topic.prefix.format": "Jinja format of full topic names ({{context}}, other top-level keys, "
                                            "{{project}}, {{topic}}, {{dataType}}); set with the project format",
            "topology.project.prefix.format": "Jinja format of the project prefix (streams/ksql without "
                                              "applicationId, optimized ACLs); set with the topic format, which "
                                              "must start with it",
            "topology.acls.optimized": "true: project-level consumers and producers get PREFIXED ACLs on the "
                                       "project prefix instead of LITERAL ones per topic (default false)",
            "topology.connector.allow.topic.create": "false: connectors get no CREATE on the cluster (default true)",
            "topology.dlq.topics.generate": "true: every project topic gets a dead-letter topic, with the topic's "
                                            "users (default false)",
            "topology.topic.dlq.label": "the dead-letter topics' suffix (default dlq)",
            "topology.topic.dlq.prefix.format": "Jinja format of dead-letter topic names (default: the topic name, "
                                                "separator, label)",
            "topology.dlq.topics.allow.list": "comma-separated regular expressions: only matching topics get a "
                                              "dead-letter topic",
            "topology.dlq.topics.deny.list": "comma-separated regular expressions: matching topics get none",
            "confluent.monitoring.topic": "Control Center's monitoring topic (default _confluent-monitoring)",
            "confluent.command.topic": "Control Center's command topic (default _confluent-command)",
            "confluent.metrics.topic": "Control Center's metrics topic (default _confluent-metrics)",
            "julie.roles": "the custom roles file (JulieRoles YAML) that project keys other than the built-in "
                           "ones name",
            "topology.topic.managed.prefixes": "comma-separated: only TOPIC ACLs on names with these prefixes are "
                                               "created",
            "topology.group.managed.prefixes": "comma-separated: only GROUP ACLs on names with these prefixes are "
                                               "created",
            "topology.service.accounts.managed.prefixes": "comma-separated: only ACLs of principals with these "
                                                          "prefixes are created",
            "julie.multiple.context.per.dir.enabled": "true: a directory may hold topologies of several contexts "
                                                      "(default false: refused)",
            "topology.builder.access.control.class": "the access control provider (default "
                                                     "com.purbon.kafka.topology.roles.SimpleAclsProvider; the "
                                                     "Confluent Cloud ones create the same bindings; RBAC creates "
                                                     "none)",
        },
        option_help="JulieOps: its own configuration keys (see `authz convert --help`).",
        cannot_hold="DENY, hosts, and any binding none of its roles generates (read only)",
        suffixes=(*_YAML, ".json"), must_hold="context"),
    AclSetFormat(
        "jikkou", "Jikkou KafkaPrincipalAuthorization resources", ECOSYSTEM,
        "Jikkou 1.1.0 (kafka.jikkou.io/v1; v1beta2 read alike)",
        "kafka_authz_cli.ecosystem.jikkou.reader:read", "kafka_authz_cli.ecosystem.jikkou.reader:read_many",
        "kafka_authz_cli.ecosystem.jikkou.writer:write", "kafka_authz_cli.ecosystem.jikkou.reader:sniff",
        kinds=("jikkou",), syntax=("yaml", "json"),
        options={"topics": "a file of the cluster's topic names, one a line (kafka-topics.sh --list output), that "
                           "patternType MATCH rules are expanded against, as Jikkou does when it plans"},
        option_help="Jikkou: topics=FILE lists the cluster's topics (one a line) that patternType MATCH rules are "
                    "expanded against.",
        cannot_hold="principals without ':', and names, principals or hosts holding '{{', '{%' or '{#' (Jikkou "
                    "renders every file as a Jinja template); MATCH rules are not re-derived (their topics are "
                    "written LITERAL)",
        suffixes=_YAML, must_hold="KafkaPrincipal"),
    AclSetFormat(
        "kafka-gitops", "kafka-gitops desired state files", ECOSYSTEM,
        "kafka-gitops 0.2.15 (StateManager, ServiceDetails; custom ACL defaults as on master 8f3afc9)",
        "kafka_authz_cli.ecosystem.kafka_gitops.reader:read", "kafka_authz_cli.ecosystem.kafka_gitops.reader:read_many",
        "kafka_authz_cli.ecosystem.kafka_gitops.writer:write", "kafka_authz_cli.ecosystem.kafka_gitops.reader:sniff",
        kinds=("kafka-gitops",), syntax=("yaml", "json"),
        options={"ccloud-service-accounts": "with settings.ccloud.enabled, the Confluent Cloud service-account ids "
                                            "kafka-gitops looks up: NAME=ID,... (a service's account is named after "
                                            "it, a user's user-<name>) or a file of `ccloud service-account list -o "
                                            "json`"},
        option_help="kafka-gitops: ccloud-service-accounts=NAME=ID,... (or a file of `ccloud service-account list "
                    "-o json`) gives the Confluent Cloud ids settings.ccloud needs.",
        cannot_hold="USER resources, pattern types other than LITERAL and PREFIXED, token and two-phase-commit "
                    "operations (Kafka 2.4's enums)",
        suffixes=_YAML),
    AclSetFormat(
        "terraform", "Terraform kafka_acl / confluent_kafka_acl resources", ECOSYSTEM,
        "Mongey/terraform-provider-kafka 0.13.1 (kafka_acl) and confluentinc/terraform-provider-confluent 2.83 "
        "(confluent_kafka_acl)",
        "kafka_authz_cli.ecosystem.terraform.reader:read", "kafka_authz_cli.ecosystem.terraform.reader:read_many",
        "kafka_authz_cli.ecosystem.terraform.writer:write", "kafka_authz_cli.ecosystem.terraform.reader:sniff",
        kinds=("terraform", "terraform-state"), syntax=("yaml", "json"),
        options={"unevaluated": "error (the default): a kafka_acl whose values authz cannot evaluate (references to "
                                "other resources, for_each, functions) is an error; skip: it is left out, warned "
                                "(EA504)"},
        option_help="Terraform: unevaluated=skip leaves out (warned, EA504) the resources whose values authz cannot "
                    "evaluate, instead of refusing the file.",
        cannot_hold="USER resources, token and two-phase-commit operations, pattern types other than LITERAL and "
                    "PREFIXED, a '|' in a name, principal or host (kafka_acl's import ID), '#' or '/' "
                    "(confluent_kafka_acl's)",
        suffixes=(".tf", ".json", ".tfstate")),
)}

#: what the ACL readers take, for errors (``formats authz reads here: ...``)
ACL_SET_READS = "; ".join(f.title for f in FORMATS.values() if not f.either)


def ecosystem_formats() -> list[AclSetFormat]:
    """The ecosystem's formats, in table order (read from a file or a directory)."""
    return [f for f in FORMATS.values() if f.family == ECOSYSTEM]


def ecosystem_format_of(text: str) -> AclSetFormat | None:
    """The ecosystem format ``text`` is in, by each format's own test, or None."""
    return next((f for f in ecosystem_formats() if f.sniff(text)), None)


def format_of(text: str) -> AclSetFormat | None:
    """The format ``text`` is in: the formats with a test of their own first, in table order (a Kroxylicious
    configuration before the ecosystem's, which hold no rules); then the one formats.what_is tells (Kafka's
    formats, rules files). None: no format authz reads."""
    found = next((f for f in FORMATS.values() if f.sniffer is not None and f.sniff(text)), None)
    return found if found is not None else format_by_kind(text)


def format_by_kind(text: str) -> AclSetFormat | None:
    """The format of the kind formats.what_is names ``text`` (``json``, ``kafka-acls``, ``csv`` or ``rules``)."""
    from kafka_authz_cli.formats import what_is

    kind = what_is(text)
    if kind is None:
        return None
    return next((f for f in FORMATS.values() if f.sniffer is None and kind.key in f.kinds), None)


def no_reading_options(options: Mapping[str, str] | None) -> Mapping[str, str]:
    """``options`` when there are none, else the OptionError of a format that takes none."""
    if options:
        raise OptionError(f"reading options are for the ecosystem's formats "
                          f"({', '.join(f.name for f in ecosystem_formats())}), not this ACL set", "--option")
    return options or {}


def told_apart(fmt: AclSetFormat, text: str) -> AclSetFormat:
    """The format ``fmt`` stands for in ``text``: itself, or for a name of several (``ksm``) the one it is in."""
    if not fmt.either:
        return fmt
    either = [FORMATS[name] for name in fmt.either]
    return next((f for f in either[:-1] if f.sniff(text)), either[-1])
