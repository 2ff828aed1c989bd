"""Rules inside YAML: a Kroxylicious proxy configuration, a ConfigMap, a ``KafkaProtocolFilter``.

Where the real code finds the rules (Kroxylicious 0.24, commit 3024bf8e):

- Proxy configuration: ``filterDefinitions[]`` entries ``{name, type: Authorization, config:
  {authorizer: AclAuthorizerService, authorizerConfig: {aclFile: PATH}}}`` (``NamedFilterDefinition``,
  ``AuthorizationConfig``, ``AclAuthorizerConfig``). ``aclFile`` is the only property; the proxy's
  ``ConfigParser`` enables ``FAIL_ON_UNKNOWN_PROPERTIES``, so rules written inline are refused, not
  read. ``AclAuthorizerService.initialize`` opens ``Path.of(aclFile)``: a relative path is resolved
  against the proxy's working directory, not the configuration file's.
- Operator: a ``KafkaProtocolFilter`` with ``spec.type: Authorization`` and the same shape under
  ``spec.configTemplate``; ``aclFile: ${configmap:NAME:KEY}`` (or ``${secret:...}``) is replaced by
  the operator's ``SecureConfigInterpolator`` with the path where the ConfigMap's key is mounted
  (``/opt/kroxylicious/secure/configmap/NAME/KEY``); a placeholder with other characters around it
  is an ``InterpolationException``.
- ``ConfigMap`` ``data`` (and ``Secret`` ``stringData``) values: the rules file itself.

This module reads one YAML text into what it holds (:class:`KroxyliciousYaml`): rules texts with
the map from the rules' own ``line:col`` (what the proxy reports) to the YAML's, the ``aclFile``
references to resolve, and problems the proxy or operator would refuse the configuration for.
Resolving references across files is the service's job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kafka_authz_cli.formats import is_rules

AUTHORIZATION_FILTERS = ("Authorization", "io.kroxylicious.filter.authorization.Authorization")
ACL_AUTHORIZERS = ("AclAuthorizerService", "io.kroxylicious.authorizer.provider.acl.AclAuthorizerService")
#: Kroxylicious operator: SecureConfigInterpolator.PATTERN (without the ``^`` quoting, which escapes it).
PLACEHOLDER = re.compile(r"\$\{(?P<provider>[a-z]{1,63}):(?P<name>[a-zA-Z0-9_.-]{1,63}):(?P<key>[a-zA-Z0-9_.-]+)\}")
#: Where the operator mounts a ${provider:NAME:KEY} in the proxy pod (SecureConfigInterpolator's
#: DEFAULT_INTERPOLATOR base, MountedResourceConfigProvider's provider/NAME/KEY).
MOUNTED = re.compile(r"/opt/kroxylicious/secure/(?P<provider>[a-z]{1,63})/(?P<name>[a-zA-Z0-9_.-]{1,63})"
                     r"/(?P<key>[a-zA-Z0-9_.-]+)")
#: What makes a YAML text worth parsing: one of the shapes above, decided by content.
_CANDIDATE = re.compile(r"^\s*(?:kind:\s*[\"']?(?:ConfigMap|Secret|KafkaProtocolFilter)\b|-?\s*filterDefinitions\s*:"
                        r"|-?\s*aclFile\s*:)", re.M)
#: YAML's line breaks (PyYAML: \r\n, \r, \n, NEL, LS, PS).
_YAML_LINES = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


@dataclass(frozen=True)
class Embedded:
    """A rules text held in a YAML scalar, and where each of its lines sits in the YAML."""

    text: str
    where: str  # e.g. "ConfigMap acl-rules, key acl-rules.txt"
    anchor: tuple[int, int]  # the scalar's own line (1-based) and column (0-based)
    #: Per rules line: (YAML line, column offset), or None where a line cannot be placed exactly.
    lines: tuple[tuple[int, int] | None, ...] = ()

    def place(self, line: int, col: int) -> tuple[int, int]:
        """The YAML's line:col of the rules' line:col (1-based line, 0-based column)."""
        spot = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        return (spot[0], spot[1] + col) if spot else self.anchor


@dataclass(frozen=True)
class AclFileRef:
    """An ``aclFile`` an Authorization filter names."""

    value: str
    line: int
    col: int
    filter_name: str
    operator: bool  # in a KafkaProtocolFilter (a path in the proxy pod), else a proxy configuration
    namespace: str | None = None


@dataclass(frozen=True)
class YamlProblem:
    """A reason the proxy or the operator refuses the configuration (lint code AZ004)."""

    line: int
    col: int
    message: str


@dataclass
class KroxyliciousYaml:
    """What one YAML text holds for lint."""

    #: (kind, namespace, name) -> key -> the value (ConfigMap data, Secret stringData).
    maps: dict[tuple[str, str | None, str], dict[str, Embedded]] = field(default_factory=dict)
    refs: list[AclFileRef] = field(default_factory=list)
    problems: list[YamlProblem] = field(default_factory=list)
    inline: list[Embedded] = field(default_factory=list)  # rules written where the proxy does not read them

    def __bool__(self) -> bool:
        return bool(self.refs or self.problems or self.inline
                    or any(is_rules(e.text) for m in self.maps.values() for e in m.values()))


def may_hold_rules(text: str) -> bool:
    """Cheap test before parsing: does the text name one of the shapes that can hold rules?"""
    return bool(_CANDIDATE.search(text))


class YamlSyntaxError(ValueError):
    def __init__(self, message: str, line: int, col: int):
        super().__init__(message)
        self.line, self.col = line, col


def read_kroxylicious_yaml(text: str) -> KroxyliciousYaml:
    """The rules sources of every document of a YAML text; :class:`YamlSyntaxError` if it is not YAML."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    raw_lines = _YAML_LINES.split(text)
    out = KroxyliciousYaml()
    try:
        for doc in yaml.compose_all(text, Loader=loader):
            if isinstance(doc, yaml.MappingNode):
                _document(doc, raw_lines, out)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YamlSyntaxError(f"not valid YAML: {exc.problem or exc.context}",
                              mark.line + 1 if mark else 1, mark.column if mark else 0) from None
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(f"not valid YAML: {exc}", 1, 0) from None
    return out


def _get(node, key: str):
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _str(node) -> str | None:
    import yaml

    return node.value if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":str") else None


def _document(doc, raw_lines: list[str], out: KroxyliciousYaml) -> None:
    import yaml

    kind = _str(_get(doc, "kind"))
    meta = _get(doc, "metadata")
    name, namespace = _str(_get(meta, "name")), _str(_get(meta, "namespace"))
    if kind in ("ConfigMap", "Secret") and name:
        held: dict[str, Embedded] = {}
        for section in (("data",) if kind == "ConfigMap" else ("data", "stringData")):
            values = _get(doc, section)
            if isinstance(values, yaml.MappingNode):
                for k, v in values.value:
                    if isinstance(k, yaml.ScalarNode) and _str(v) is not None:
                        where = f"{kind} {name}, key {k.value}"
                        # A Secret's data is base64 (the kubelet mounts it decoded); stringData is
                        # written over data by the API server, as here.
                        held[k.value] = (_decoded(v, where) if kind == "Secret" and section == "data"
                                         else _embedded(v, raw_lines, where))
        out.maps[(kind, namespace, name)] = held
        for embedded in held.values():
            _nested(embedded, namespace, out)
    elif kind == "KafkaProtocolFilter":
        spec = _get(doc, "spec")
        if _str(_get(spec, "type")) in AUTHORIZATION_FILTERS:
            _authorization(_get(spec, "configTemplate"), _get(spec, "type"), name or "?", True, namespace,
                           raw_lines, out)
    filters = _get(doc, "filterDefinitions")
    if kind is None and isinstance(filters, yaml.SequenceNode):
        for entry in filters.value:
            if _str(_get(entry, "type")) in AUTHORIZATION_FILTERS:
                _authorization(_get(entry, "config"), _get(entry, "type"), _str(_get(entry, "name")) or "?",
                               False, None, raw_lines, out)


def _nested(embedded: Embedded, namespace: str | None, out: KroxyliciousYaml) -> None:
    """A proxy configuration held in a ConfigMap (the operator writes one, key proxy-config.yaml; so
    do hand-made Deployments): its Authorization filters, placed at the outer YAML's lines."""
    if is_rules(embedded.text) or not may_hold_rules(embedded.text):
        return
    try:
        inner = read_kroxylicious_yaml(embedded.text)
    except YamlSyntaxError:
        return  # a value that is no YAML: nothing the proxy would read as its configuration
    for ref in inner.refs:
        line, col = embedded.place(ref.line, ref.col)
        out.refs.append(AclFileRef(ref.value, line, col, f"{ref.filter_name} (in {embedded.where})", ref.operator,
                                   ref.namespace or namespace))
    for p in inner.problems:
        line, col = embedded.place(p.line, p.col)
        out.problems.append(YamlProblem(line, col, f"{p.message} (in {embedded.where})"))


def _authorization(config, type_node, filter_name: str, operator: bool, namespace: str | None,
                   raw_lines: list[str], out: KroxyliciousYaml) -> None:
    """An Authorization filter's config: ``authorizer`` and ``authorizerConfig`` (AuthorizationConfig)."""
    import yaml

    where = f"{'KafkaProtocolFilter' if operator else 'filter'} {filter_name}"
    authorizer = _str(_get(config, "authorizer"))
    if authorizer is None:
        at = (config or type_node).start_mark
        out.problems.append(YamlProblem(at.line + 1, at.column, f"{where}: the Authorization filter needs "
                                        "`authorizer: AclAuthorizerService` (AuthorizationConfig: required)"))
        return
    if authorizer not in ACL_AUTHORIZERS:
        return  # another authorizer: not the rules language
    acl_config = _get(config, "authorizerConfig")
    acl_file = _get(acl_config, "aclFile")
    if isinstance(acl_config, yaml.MappingNode):
        for k, v in acl_config.value:
            if isinstance(k, yaml.ScalarNode) and k.value != "aclFile":
                out.problems.append(YamlProblem(
                    k.start_mark.line + 1, k.start_mark.column,
                    f"{where}: AclAuthorizerConfig has no property {k.value!r}, only aclFile; the proxy refuses "
                    "the configuration (ConfigParser: FAIL_ON_UNKNOWN_PROPERTIES)"))
                if _str(v) is not None and is_rules(v.value):
                    out.inline.append(_embedded(v, raw_lines, f"{where}, inline {k.value}"))
    if _str(acl_file) is None:
        at = (acl_config or config).start_mark
        out.problems.append(YamlProblem(at.line + 1, at.column, f"{where}: no aclFile; the proxy cannot build the "
                                        "authorizer (AclAuthorizerService opens authorizerConfig.aclFile)"))
        return
    out.refs.append(AclFileRef(acl_file.value, acl_file.start_mark.line + 1, acl_file.start_mark.column,
                               filter_name, operator, namespace))


def _decoded(node, where: str) -> Embedded:
    """A Secret's ``data`` value: base64, placed at the scalar (the proxy's position in the message)."""
    import base64
    import binascii

    anchor = (node.start_mark.line + 1, node.start_mark.column)
    try:
        text = base64.b64decode("".join(node.value.split()), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        text = ""  # not base64 UTF-8: the API server refuses it; nothing the proxy would read as rules
    return Embedded(text, f"{where} (base64)", anchor)


def _embedded(node, raw_lines: list[str], where: str) -> Embedded:
    """The scalar's text with its lines placed: exactly for a literal block (``|``), else at the scalar."""
    anchor = (node.start_mark.line + 1, node.start_mark.column)
    if node.style != "|":
        return Embedded(node.value, where, anchor)
    first = node.start_mark.line + 1  # the line after the `|` header (0-based index)
    placed: list[tuple[int, int] | None] = []
    for i, content in enumerate(_YAML_LINES.split(node.value)):
        j = first + i
        raw = raw_lines[j] if j < len(raw_lines) else None
        if raw is not None and raw.endswith(content) and raw[:len(raw) - len(content)].strip(" ") == "":
            placed.append((j + 1, len(raw) - len(content)))
        else:
            placed.append(None)
    return Embedded(node.value, where, anchor, tuple(placed))
