"""Where an Authorization filter's ``aclFile`` leads, resolved once for every reader.

Reading a Kroxylicious configuration as an ACL set (``services.kroxylicious``) and linting it
(``services.rules``) follow the same ``aclFile`` to the same rules; this module is that one following.
Each caller says what it finds in its own terms: reading turns a refusal into an error, lint into a
finding. What is followed, as the operator and the proxy follow it:

- in a ``KafkaProtocolFilter`` (the operator), the value must be exactly one config provider placeholder
  ``${provider:NAME:KEY}`` (``SecureConfigInterpolator``: nothing before or after it), whose provider is
  ``configmap`` or ``secret``; any other value is a path inside the proxy pod, which no input here holds.
  A run of ``^`` before a placeholder quotes it: an odd run leaves it text, and every run is halved
  (``^${configmap:a:b}`` gives the proxy ``${configmap:a:b}``, ``^^${configmap:a:b}`` the mounted path
  after one ``^``): both are such paths;
- in a proxy configuration, ``/opt/kroxylicious/secure/<provider>/<NAME>/<KEY>`` is where the operator
  mounts such a key (the same ConfigMap or Secret); any other value is a file the proxy opens with
  ``Path.of`` (relative to the directory it is started in). A repository keeps that file next to the
  configuration, so a relative one is looked for there too, after the working directory; the first
  that exists decides, and one that is no regular file (a FIFO, a device) is refused, not skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, TypeVar

from kafka_authz_cli.formats import special_file
from kafka_authz_cli.rules.embedded import MOUNTED, PLACEHOLDER, AclFileRef

#: The operator's config providers and the kind of object each names.
PROVIDERS = {"configmap": "ConfigMap", "secret": "Secret"}


@dataclass(frozen=True)
class MapKey:
    """The key of a ConfigMap or Secret an ``aclFile`` names (``kind`` None: an unknown provider)."""

    provider: str
    kind: str | None
    name: str
    key: str
    namespace: str | None

    @property
    def mounted(self) -> str:
        """Where the operator mounts the key in the proxy pod (MountedResourceConfigProvider)."""
        return f"/opt/kroxylicious/secure/{self.provider}/{self.name}/{self.key}"


@dataclass(frozen=True)
class AclFileTarget:
    """What one ``aclFile`` names: exactly one of ``map_key``, ``path`` (a file the proxy opens),
    ``refused`` (the operator refuses the value) and ``pod_path`` (the path inside the proxy pod that the
    operator gives the proxy). ``ref`` holds the value as written and where."""

    ref: AclFileRef
    map_key: MapKey | None = None
    path: str | None = None
    refused: bool = False
    pod_path: str | None = None

    @property
    def label(self) -> str:
        return f"{'KafkaProtocolFilter' if self.ref.operator else 'filter'} {self.ref.filter_name}"

    @property
    def unquoted(self) -> str:
        """How the operator's quoting changed a pod path, in words ('' where it did not)."""
        if self.pod_path is None or self.pod_path == self.ref.value:
            return ""
        return f" (the operator gives the proxy {self.pod_path!r}: ^ before ${{ quotes it, SecureConfigInterpolator)"


#: SecureConfigInterpolator.PATTERN, found anywhere in a value with the run of ``^`` quoting it.
_QUOTED_PLACEHOLDER = re.compile(r"(?P<quoting>\^*)" + PLACEHOLDER.pattern)


def acl_file_target(ref: AclFileRef) -> AclFileTarget:
    if ref.operator:
        return _interpolated(ref)
    placeholder = MOUNTED.fullmatch(ref.value)
    if placeholder is None:
        return AclFileTarget(ref, path=ref.value)
    return AclFileTarget(ref, map_key=_map_key(placeholder, ref))


def _interpolated(ref: AclFileRef) -> AclFileTarget:
    """A ``KafkaProtocolFilter``'s aclFile as ``SecureConfigInterpolator.maybeInterpolateString`` makes it:
    placeholders quoted by an odd run of ``^`` stay text; the first other one must be the whole value."""
    value, given, end = ref.value, [], 0
    for placeholder in _QUOTED_PLACEHOLDER.finditer(value):
        carets = len(placeholder["quoting"])
        if carets % 2:
            given.append(value[end:placeholder.start()] + "^" * (carets // 2) + placeholder[0][carets:])
            end = placeholder.end()
            continue
        if placeholder.start() != 0 or placeholder.end() != len(value):
            return AclFileTarget(ref, refused=True)
        map_key = _map_key(placeholder, ref)
        if carets == 0 or map_key.kind is None:
            return AclFileTarget(ref, map_key=map_key)
        return AclFileTarget(ref, pod_path="^" * (carets // 2) + map_key.mounted)
    return AclFileTarget(ref, pod_path="".join(given) + value[end:])


def _map_key(placeholder: re.Match, ref: AclFileRef) -> MapKey:
    provider, name, key = placeholder.group("provider", "name", "key")
    return MapKey(provider, PROVIDERS.get(provider), name, key, ref.namespace)


T = TypeVar("T")


def find_map(maps: Iterable[tuple[tuple[str, str | None, str], T]], wanted: MapKey) -> tuple[tuple, T] | None:
    """The ConfigMap/Secret a key names among ``((kind, namespace, name), payload)``: the same kind
    and name, and the same namespace where both say one; the first such."""
    for (kind, namespace, name), payload in maps:
        if kind == wanted.kind and name == wanted.name and \
                (wanted.namespace is None or namespace is None or namespace == wanted.namespace):
            return (kind, namespace, name), payload
    return None


@dataclass(frozen=True)
class LocalAclFile:
    """A proxy configuration's ``aclFile`` on this machine: the regular file read (None: none), or the
    candidate that exists but is no regular file and what it is; the places looked in, in order."""

    found: Path | None
    special: tuple[Path, str] | None
    looked_in: tuple[Path, ...]
    relative: bool


def local_acl_file(value: str, config_path: Path, cwd: Path) -> LocalAclFile:
    target = Path(value)
    candidates = (target,) if target.is_absolute() else (cwd / target, config_path.parent / target)
    for candidate in candidates:
        if candidate.is_file():
            return LocalAclFile(candidate, None, candidates, not target.is_absolute())
        what = _special(candidate)
        if what is not None:
            return LocalAclFile(None, (candidate, what), candidates, not target.is_absolute())
    return LocalAclFile(None, None, candidates, not target.is_absolute())


def _special(path: Path) -> str | None:
    """What ``path`` is when it exists and is neither a regular file nor a directory (a FIFO, a device ...)."""
    try:
        return special_file(path.stat().st_mode)
    except OSError:
        return None
