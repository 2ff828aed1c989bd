"""YAML as nodes that know where they are: the reading every YAML-based format shares.

PyYAML's composer keeps each node's start mark; the helpers here read mappings, lists and strings
from nodes strictly (a number where a string belongs is an error, as it is for the Kubernetes API
server's schema check) and raise :class:`InputError` at the node's ``file:line:col``.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from kafka_authz_cli.ecosystem.yaml_aliases import BOUNDED, JACKSON, Composer
from kafka_authz_cli.errors import InputError

STR = "tag:yaml.org,2002:str"
NULL = "tag:yaml.org,2002:null"


#: first characters of the plain scalars YAML 1.1's implicit resolvers may turn into something else than
#: a string (yaml.resolver: bool, float, int, merge, null, timestamp, value): any other plain scalar is
#: a string, which spares the regular expressions for nearly every scalar of a KafkaUser
_MAYBE_TYPED = frozenset("-+.0123456789yYnNtTfFoO~<=")
_LOADER = None


def _loader():
    global _LOADER
    if _LOADER is None:
        import yaml

        base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's loader where PyYAML has it

        class Loader(base):
            def resolve(self, kind, value, implicit):
                if kind is yaml.ScalarNode and implicit[0] and value and value[0] not in _MAYBE_TYPED:
                    return STR
                return super().resolve(kind, value, implicit)

        _LOADER = Loader
    return _LOADER


def documents(text: str, path: str, aliases: str = BOUNDED, warn: Callable[[int, str], None] | None = None,
              skip_empty: bool = False) -> Iterator:
    """The root node of each document of a (multi-document) YAML text; located syntax errors.

    ``aliases`` is how the tool reading the file treats YAML aliases (:mod:`.yaml_aliases`: ``JACKSON``,
    ``SNAKEYAML``, ``KUBERNETES``; ``BOUNDED`` by default); ``warn(line, message)`` hears of aliases read as
    text. ``skip_empty`` leaves out empty (and ``null``) documents, as kubectl does (its ``StreamVisitor``
    skips a document that decodes to nothing). A byte-order mark and CRLF line ends are read as YAML
    defines them (the parsers of every tool here do the same)."""
    import yaml

    try:
        for node in _composed(text, path, aliases, warn):
            if node is None or skip_empty and node.tag == NULL:
                continue
            yield node
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        reason = f"not valid YAML: {exc.problem or exc.context}"
        raise InputError(reason, path, *((mark.line + 1, mark.column + 1) if mark else (None, None))) from None
    except yaml.YAMLError as exc:
        raise InputError(f"not valid YAML: {exc}", path) from None


def _composed(text: str, path: str, aliases: str, warn) -> Iterator:
    """PyYAML's own (C) composer where the text holds no anchor, so no alias can expand; else the events
    composed an alias at a time (:class:`.yaml_aliases.Composer`). Jackson reads an alias of an anchor that
    does not exist as text too: that goes the second way when the first fails on it."""
    import yaml

    if "&" not in text:
        if aliases != JACKSON:
            yield from yaml.compose_all(text, Loader=_loader())
            return
        try:  # all first: on an alias, the documents are composed again the other way
            docs = list(yaml.compose_all(text, Loader=_loader()))
        except yaml.composer.ComposerError as exc:
            if "undefined alias" not in str(exc.problem):
                raise
        else:
            yield from docs
            return
    loader = _loader()(text)
    try:
        yield from Composer(loader, path, aliases, warn).documents()
    finally:
        loader.dispose()


def line(node) -> int:
    return node.start_mark.line + 1


def error(node, path: str, reason: str) -> InputError:
    anchor = getattr(node, "alias_of", None)
    if anchor is not None:
        anchor = anchor if len(anchor) <= 60 else anchor[:60] + "..."  # the reader met an alias where it needs the anchored value: say why it is not that
        reason += f" (this is the alias *{anchor}, which the tool's YAML parser, Jackson's, reads as the text {anchor!r})"
    return InputError(reason, path, node.start_mark.line + 1, node.start_mark.column + 1)


def kind_of(node) -> str:
    if node.id == "mapping":
        return "a mapping"
    if node.id == "sequence":
        return "a list"
    return {STR: "a string", NULL: "null", "tag:yaml.org,2002:int": "a number", "tag:yaml.org,2002:float": "a number",
            "tag:yaml.org,2002:bool": "a boolean"}.get(node.tag, "a scalar")


def mapping(node, path: str, what: str) -> dict[str, Any]:
    """A mapping node's entries by key (string keys; a repeated key is an error, as in Kubernetes)."""
    if node.id != "mapping":
        raise error(node, path, f"{what} must be a mapping, got {kind_of(node)}")
    out: dict[str, Any] = {}  # PyYAML nodes, untyped here as everywhere in this module
    for key, value in node.value:
        if key.id != "scalar" or key.tag != STR:
            raise error(key, path, f"{what}: keys must be strings, got {kind_of(key)}")
        if key.value in out:
            raise error(key, path, f"{what}: key {key.value!r} given twice")
        if key.value == "<<":
            raise error(key, path, f"{what}: YAML merge keys ('<<') are not read here; write the entries out")
        out[key.value] = value
    return out


def sequence(node, path: str, what: str) -> list:
    if node.id != "sequence":
        raise error(node, path, f"{what} must be a list, got {kind_of(node)}")
    return list(node.value)


def string(node, path: str, what: str) -> str:
    if node.id != "scalar" or node.tag != STR:
        raise error(node, path, f"{what} must be a string, got {kind_of(node)}")
    return node.value


def is_null(node) -> bool:
    return node is None or getattr(node, "tag", None) == NULL


def optional_string(entries: dict, key: str, path: str, what: str) -> str | None:
    node = entries.get(key)
    return None if is_null(node) else string(node, path, f"{what}.{key}")
