"""A team's applications, declared in one YAML file (`authz access --apps FILE`, `authz lint FILE`).

Each entry says what `authz app check` would be told on its command line, under the same names, so
that any one of them can be checked alone the same way::

    apps:
      - name: orders-consumer          # how findings and answers name it ("<kind> #<n>" without)
        kind: consumer                 # one of `authz app list`
        principal: User:orders-svc     # or from client-config (sasl.jaas.config's username)
        host: 10.0.0.5                 # where it connects from (default 127.0.0.1)
        topics: [orders]
        config: {group.id: orders-app, group.protocol: consumer}
      - name: orders-enricher
        kind: streams
        principal: User:orders-enricher
        inputs: [orders]
        outputs: [orders-enriched]
        stateful: true
        client-config: enricher.properties   # the application's own file, relative to this one

Keys: ``name``, ``kind``, ``principal``, ``host``, ``topics``, ``inputs``, ``outputs``, ``groups``,
``stateful``, ``topic-absent``, ``client-config``, ``config`` (a mapping, or a list of ``KEY=VALUE``)
and ``kafka-version``. An unknown key is an error at its line (a misspelt ``topic:`` must not leave
an application checked without its topics).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafka_authz_cli.codes import CodeRegistry, FindingCode
from kafka_authz_cli.ecosystem import yamlnodes as y
from kafka_authz_cli.errors import InputError

#: The keys of an entry: each is an option of `authz app check` (``topic-absent`` is --topic-absent).
LIST_KEYS = ("topics", "inputs", "outputs", "groups")
TEXT_KEYS = ("name", "kind", "principal", "host", "client-config", "kafka-version")
FLAG_KEYS = ("stateful", "topic-absent")
KEYS = (*TEXT_KEYS[:4], *LIST_KEYS, *FLAG_KEYS, "client-config", "config", "kafka-version")

#: The applications one file may declare: each is checked as `authz app check` checks it (a few
#: milliseconds each), and a file of millions would run for hours before saying anything.
MAX_APPS = 10_000

#: What marks an apps file by content: a top-level ``apps:`` list whose entries have a ``kind:``.
_APPS_KEY = re.compile(r"^apps\s*:\s*(#.*)?$", re.M)
_KIND_KEY = re.compile(r"^\s*(-\s+)?kind\s*:", re.M)


@dataclass(frozen=True)
class DeclaredApp:
    """One entry of an apps file, where it was written (``line``, ``col`` 1-based)."""

    name: str
    kind: str
    line: int
    col: int
    principal: str | None = None
    host: str = "127.0.0.1"
    topics: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    stateful: bool = False
    topic_absent: bool = False
    client_config: str | None = None
    configs: tuple[str, ...] = ()
    kafka_version: str | None = None


def looks_like_apps(text: str, whole: bool = False) -> bool:
    """Is this (by content) an apps file: a top-level ``apps:`` key and entries with a ``kind:``, in its
    first 64 KiB (a directory's files are sniffed), or anywhere with ``whole`` (a file given as one)?"""
    head = (text if whole else text[:65536]).lstrip("\ufeff")
    return bool(_APPS_KEY.search(head) and _KIND_KEY.search(head)) and not head.lstrip().startswith(("{", "["))


def read_apps(text: str, path: str) -> list[DeclaredApp]:
    """The entries of an apps file; an :class:`InputError` at ``path:line:col`` for what it cannot be."""
    docs = list(y.documents(text, path, skip_empty=True))
    if len(docs) != 1:
        raise InputError(f"an apps file is one YAML document with an `apps:` list, found {len(docs)}", path)
    top = y.mapping(docs[0], path, "the apps file")
    if "apps" not in top:
        raise y.error(docs[0], path, "the apps file has no `apps:` list")
    extra = [k for k in top if k != "apps"]
    if extra:
        raise y.error(docs[0], path, f"unknown top-level key {extra[0]!r}: an apps file holds `apps:` only")
    entries = y.sequence(top["apps"], path, "apps")
    if len(entries) > MAX_APPS:
        raise y.error(entries[MAX_APPS], path, f"more than {MAX_APPS:,} applications in one apps file "
                      f"({len(entries):,}): split it by team")
    return [_entry(node, path, i + 1) for i, node in enumerate(entries)]


def _entry(node, path: str, number: int) -> DeclaredApp:
    fields = y.mapping(node, path, f"apps entry #{number}")
    for key, value in fields.items():
        if key not in KEYS:
            raise y.error(value, path, f"apps entry #{number}: unknown key {key!r}; the keys are "
                          + ", ".join(KEYS))
    if "kind" not in fields:
        raise y.error(node, path, f"apps entry #{number} has no `kind:` (`authz app list` shows the kinds)")
    values: dict = {}
    for key in TEXT_KEYS:
        if key in fields:
            values[key.replace("-", "_")] = y.string(fields[key], path, f"{key} of apps entry #{number}")
    for key in LIST_KEYS:
        if key in fields:
            values[key] = tuple(y.string(item, path, f"an item of {key} of apps entry #{number}")
                                for item in _list(fields[key], path, f"{key} of apps entry #{number}"))
    for key in FLAG_KEYS:
        if key in fields:
            values[key.replace("-", "_")] = _flag(fields[key], path, f"{key} of apps entry #{number}")
    if "config" in fields:
        values["configs"] = _configs(fields["config"], path, f"config of apps entry #{number}")
    name = values.pop("name", None) or f"{values['kind']} #{number}"
    return DeclaredApp(name=name, line=y.line(node), col=node.start_mark.column + 1, **values)


def _list(node, path: str, what: str) -> list:
    """A list, or one string standing for a list of one (``topics: orders``)."""
    if node.id == "scalar" and node.tag == y.STR:
        return [node]
    return y.sequence(node, path, what)


def _flag(node, path: str, what: str) -> bool:
    if node.id != "scalar" or node.tag != "tag:yaml.org,2002:bool":
        raise y.error(node, path, f"{what} must be true or false, got {y.kind_of(node)}")
    return node.value.lower() in ("true", "yes", "on", "y")


def _configs(node, path: str, what: str) -> tuple[str, ...]:
    """``KEY=VALUE`` items, as --config takes them: from a mapping (values as written) or a list."""
    if node.id == "mapping":
        out = []
        for key, value in y.mapping(node, path, what).items():
            if value.id != "scalar":
                raise y.error(value, path, f"{what}: the value of {key!r} must be a scalar, got {y.kind_of(value)}")
            out.append(f"{key}={value.value}")
        return tuple(out)
    items = [y.string(item, path, f"an item of {what}") for item in y.sequence(node, path, what)]
    for item, item_node in zip(items, node.value):
        if "=" not in item:
            raise y.error(item_node, path, f"{what}: {item!r} is no KEY=VALUE")
    return tuple(items)


# ---- what `authz lint` says of an apps file ------------------------------------------------------------------

_EXAMPLE_HEAD = "apps:\n  - name: orders-reader\n    principal: User:orders\n"

APPS_UNREADABLE = FindingCode(
    "AP001", "apps-unreadable", "error", "the apps file cannot be read",
    "The file is not the YAML an apps file is (one `apps:` list of entries, each with a `kind:` and only the keys "
    "`authz app check` has options for), so none of its applications is checked. The message says where and why.",
    "apps:\n  - name: orders-reader\n    kind: consumer\n    topic: orders\n")
APP_UNKNOWN_KIND = FindingCode(
    "AP002", "app-unknown-kind", "error", "the application's kind is not in the catalogue",
    "`kind:` must be one of `authz app list`; an application of another kind is not checked at all.",
    _EXAMPLE_HEAD + "    kind: kafka-consumer\n    topics: [orders]\n")
APP_INCOMPLETE = FindingCode(
    "AP003", "app-incomplete", "error", "the application lacks what its kind needs to be checked",
    "The kind needs settings the entry does not give (a consumer's topics, a Streams application's "
    "application.id and topics, a Connect worker's internal topics): `authz app check` would refuse it, "
    "and so it cannot be said whether it runs.",
    _EXAMPLE_HEAD + "    kind: consumer\n")
APP_CONFIG_REFUSED = FindingCode(
    "AP004", "app-config-refused", "error", "the client refuses this configuration: the application cannot run",
    "The Java client checks its configuration when it is made and throws (ConfigException) before any "
    "request: whatever the ACLs, the application never starts. For example a transactional producer with "
    "enable.idempotence=false, or a consumer with an unknown group.protocol.",
    "apps:\n  - name: payments-writer\n    kind: producer\n    principal: User:payments\n    topics: [payments]\n"
    "    config: {transactional.id: payments-tx, enable.idempotence: 'false'}\n")
APP_NO_PRINCIPAL = FindingCode(
    "AP005", "app-no-principal", "warning", "who the application connects as is not said",
    "Neither `principal:` nor the client configuration (sasl.jaas.config's username, a certificate mapped by "
    "the broker's rules) says which principal the application is: its ACLs cannot be checked.",
    "apps:\n  - name: orders-reader\n    kind: consumer\n    topics: [orders]\n    config: {group.id: orders}\n")

CODES = CodeRegistry("AP", [APPS_UNREADABLE, APP_UNKNOWN_KIND, APP_INCOMPLETE, APP_CONFIG_REFUSED, APP_NO_PRINCIPAL])
