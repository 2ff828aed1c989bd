"""YAML anchors and aliases as each tool's YAML library reads them, composed without ever expanding one.

An alias costs a few bytes and stands for the whole node it names: ten levels of ten aliases are 10^10
values ("billion laughs"). PyYAML's composer shares the node, so composing is cheap, but a reader that
walks the result walks it expanded. So the nodes are composed here from the parser's events, an alias
at a time, with the limits of the library the tool itself reads the file with:

- :data:`JACKSON` (JulieOps, Jikkou, kafka-gitops read YAML with Jackson's ``YAMLFactory``):
  jackson-dataformat-yaml's ``YAMLParser.nextToken`` gives Jackson an alias as a ``VALUE_STRING`` whose
  text is the anchor's name (it keeps no object identity), so ``*base`` reads as the text ``base`` and
  nothing ever expands. Read so here, and said (the author surely meant the anchored value).
- :data:`SNAKEYAML` (KSM: circe-yaml composes with SnakeYAML): SnakeYAML's ``Composer`` counts the
  aliases of collections (not of scalars) and refuses the document past
  ``LoaderOptions.maxAliasesForCollections``, 50 by default ("Number of aliases for non-scalar nodes
  exceeds the specified max=50").
- :data:`KUBERNETES` (Strimzi resources, as kubectl decodes them: sigs.k8s.io/yaml on
  go.yaml.in/yaml/v2): ``decoder.unmarshal`` counts every node it decodes and those it decodes inside an
  alias, and fails "document contains excessive aliasing" once more than 100 of over 1,000 decoded
  nodes came from aliases and their share passes ``allowedAliasRatio`` (99% up to 400,000 decodes,
  falling to 10% at 4,000,000); ``decoder.alias`` refuses an alias inside its own anchor ("anchor 'a'
  value contains itself").
- :data:`BOUNDED` (every other caller): expanded as PyYAML does, within authz's own bound below.

Whatever the policy, the nodes a reader may walk once aliases are expanded are at most
:data:`EXPANDED_FLOOR` or :data:`EXPANDED_FACTOR` times the nodes written, whichever is more: beyond,
the document is one located error at the alias that passes it (authz's bound, so that no reader ever
costs more than a small multiple of the text). A recursive alias is refused by every expanding policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator

from kafka_authz_cli.errors import InputError

if TYPE_CHECKING:
    from yaml import MappingNode, ScalarNode, SequenceNode

JACKSON = "jackson"
SNAKEYAML = "snakeyaml"
KUBERNETES = "kubernetes"
BOUNDED = "bounded"
#: SnakeYAML's ``LoaderOptions.maxAliasesForCollections`` default
SNAKEYAML_MAX_ALIASES = 50
#: go.yaml.in/yaml/v2 ``decode.go``: ``alias_ratio_range_low`` and ``_high``
_RATIO_LOW, _RATIO_HIGH = 400_000, 4_000_000
#: authz's bound on the nodes of a document once its aliases are expanded
EXPANDED_FLOOR = 400_000
EXPANDED_FACTOR = 10
STR = "tag:yaml.org,2002:str"


def allowed_alias_ratio(decoded: int) -> float:
    """go.yaml.in/yaml/v2 ``allowedAliasRatio``."""
    if decoded <= _RATIO_LOW:
        return 0.99
    if decoded >= _RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * ((decoded - _RATIO_LOW) / (_RATIO_HIGH - _RATIO_LOW))


class Composer:
    """The documents of one text as PyYAML nodes, aliases read as ``policy`` says.

    ``warn(line, message)`` hears of each alias read as text (JACKSON)."""

    def __init__(self, loader, path: str, policy: str, warn: Callable[[int, str], None] | None = None):
        import yaml

        self.yaml = yaml
        self.loader = loader
        self.path = path
        self.policy = policy
        self.warn = warn
        self.anchors: dict[str, ScalarNode | SequenceNode | MappingNode] = {}
        self.open: set[int] = set()  # collections being composed (an alias of one is recursive)
        self.collection_aliases = 0  # SnakeYAML's nonScalarAliasesCount: per file, never reset
        self.sizes: dict[int, int] = {}  # expanded node count of each aliased node (and its aliased parts)
        self.alias_children: dict[int, int] = {}  # collections holding aliases: how many (each is decoded too)

    def documents(self) -> Iterator:
        y = self.yaml
        self.loader.get_event()  # StreamStart
        while not self.loader.check_event(y.StreamEndEvent):
            self.loader.get_event()  # DocumentStart
            # per document: anchors (YAML scopes them to one), and the sizes kept by node identity
            self.anchors, self.sizes, self.alias_children, self.open = {}, {}, {}, set()
            self.decoded, self.aliased, self.written, self.expanded = 1, 0, 0, 0  # the document node is decoded
            root = self._compose()
            self.loader.get_event()  # DocumentEnd
            yield root

    def _compose(self):
        """One node, iteratively (no Python recursion however deep the input nests)."""
        y = self.yaml
        stack: list[list] = []  # [collection node, key waiting for its value (mappings)]
        waiting = object()
        while True:
            event = self.loader.get_event()
            if isinstance(event, (y.SequenceEndEvent, y.MappingEndEvent)):
                node = stack.pop()[0]
                node.end_mark = event.end_mark
                self.open.discard(id(node))
            elif isinstance(event, y.AliasEvent):
                node = self._alias(event)
                if stack:
                    self.alias_children[id(stack[-1][0])] = self.alias_children.get(id(stack[-1][0]), 0) + 1
            else:
                node = self._new(event)
                if node.id != "scalar":
                    stack.append([node, waiting])
                    self.open.add(id(node))
                    continue
            if not stack:
                return node
            frame = stack[-1]
            if frame[0].id == "sequence":
                frame[0].value.append(node)
            elif frame[1] is waiting:
                frame[1] = node
            else:
                frame[0].value.append((frame[1], node))
                frame[1] = waiting

    def _new(self, event):
        y = self.yaml
        self.written += 1
        self.expanded += 1
        self.decoded += 1
        self._check_decoded(event)
        tag = event.tag
        if isinstance(event, y.ScalarEvent):
            if tag is None or tag == "!":
                tag = self.loader.resolve(y.ScalarNode, event.value, event.implicit)
            node = y.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
        else:
            kind = y.SequenceNode if isinstance(event, y.SequenceStartEvent) else y.MappingNode
            if tag is None or tag == "!":
                tag = self.loader.resolve(kind, None, event.implicit)
            node = kind(tag, [], event.start_mark, None, flow_style=event.flow_style)
        if event.anchor is not None:
            self.anchors[event.anchor] = node  # a later anchor of the same name wins (YAML 1.2, yaml.v2)
        return node

    def _alias(self, event):
        y = self.yaml
        if self.policy == JACKSON:
            if self.warn is not None:
                name = event.anchor if len(event.anchor) <= 60 else event.anchor[:60] + "..."
                self.warn(event.start_mark.line + 1, f"*{name} is an alias: Jackson's YAML parser reads it "
                          f"as the text {name!r}, not as the anchored value")
            self.written += 1
            node = y.ScalarNode(STR, event.anchor, event.start_mark, event.end_mark)
            node.alias_of = event.anchor  # an error at this node says why it is text (yamlnodes.error)
            return node
        target = self.anchors.get(event.anchor)
        if target is None:
            raise self._error(event, "found undefined alias")
        if id(target) in self.open:
            raise self._error(event, f"anchor {event.anchor[:60]!r} value contains itself (a recursive alias)")
        if self.policy == SNAKEYAML and target.id != "scalar":
            self.collection_aliases += 1
            if self.collection_aliases > SNAKEYAML_MAX_ALIASES:
                raise self._error(event, f"Number of aliases for non-scalar nodes exceeds the specified "
                                  f"max={SNAKEYAML_MAX_ALIASES} (SnakeYAML's LoaderOptions.maxAliasesForCollections: "
                                  "the tool refuses this document)")
        size = self._size(target)
        self.decoded += 1 + size  # the alias node, then what it names: all decoded inside the alias
        self.aliased += size
        self._check_decoded(event)
        self.expanded += size
        if self.expanded > EXPANDED_FLOOR and self.expanded > EXPANDED_FACTOR * self.written:
            raise self._error(event, f"aliases expand this document to more than {self.expanded:,} YAML nodes "
                              f"({self.written:,} written): authz reads at most {EXPANDED_FACTOR} times the "
                              f"nodes written (or {EXPANDED_FLOOR:,})")
        return target

    def _check_decoded(self, event) -> None:
        if self.policy != KUBERNETES:
            return
        d, a = self.decoded, self.aliased
        if a > 100 and d > 1000 and a / d > allowed_alias_ratio(d):
            raise self._error(event, "document contains excessive aliasing (kubectl's YAML decoder, "
                              "go.yaml.in/yaml/v2, refuses it)")

    def _size(self, node) -> int:
        """The nodes decoded for ``node`` once expanded (an alias counts itself and what it names)."""
        sizes = self.sizes
        if id(node) in sizes:
            return sizes[id(node)]
        stack = [(node, False)]
        while stack:
            current, done = stack.pop()
            if id(current) in sizes:
                continue
            children = _children(current)
            if done:
                sizes[id(current)] = 1 + self.alias_children.get(id(current), 0) + sum(sizes[id(c)] for c in children)
                continue
            stack.append((current, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
        return sizes[id(node)]

    def _error(self, event, reason: str) -> InputError:
        mark = event.start_mark
        if isinstance(event, self.yaml.AliasEvent) and event.anchor is not None:
            reason = f"YAML alias *{event.anchor[:60]}{'...' if len(event.anchor) > 60 else ''}: {reason}"
        return InputError(reason, self.path, mark.line + 1, mark.column + 1)


def _children(node) -> list:
    if node.id == "sequence":
        return node.value
    if node.id == "mapping":
        return [n for pair in node.value for n in pair]
    return []
