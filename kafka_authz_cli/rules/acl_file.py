"""Where an Authorization filter's ``aclFile`` leads, resolved once for every reader.

Reading a Kroxylicious configuration as an ACL set (``services.kroxylicious``) and linting it
(``services.rules``) follow the same ``aclFile`` to the same rules; this module is that one following.
Each caller says what it finds in its own terms: reading turns a refusal into an error, lint into a
finding. What is followed, as the operator and the proxy follow it:

- in a ``KafkaProtocolFilter`` (the operator), the value must be exactly one config provider placeholder
  ``${provider:NAME:KEY}`` (``SecureConfigInterpolator``: nothing before or after it), whose provider is
  ``configmap`` or ``secret``; any other value is a path inside the proxy pod, which no input here holds;
- in a proxy configuration, ``/opt/kroxylicious/secure/<provider>/<NAME>/<KEY>`` is where the operator
  mounts such a key (the same ConfigMap or Secret); any other value is a file the proxy opens with
  ``Path.of`` (relative to the directory it is started in). A repository keeps that file next to the
  configuration, so a relative one is looked for there too, after the working directory; the first
  that exists decides, and one that is no regular file (a FIFO, a device) is refused, not skipped.
"""

from __future__ import annotations

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
    """What one ``aclFile`` names: exactly one of ``map_key``, ``path``, ``refused`` (the operator
    refuses the value) and ``pod_path`` (a path inside the proxy pod)."""

    ref: AclFileRef
    map_key: MapKey | None = None
    path: str | None = None
    refused: bool = False
    pod_path: bool = False

    @property
    def label(self) -> str:
        return f"{'KafkaProtocolFilter' if self.ref.operator else 'filter'} {self.ref.filter_name}"


def acl_file_target(ref: AclFileRef) -> AclFileTarget:
    if ref.operator:
        placeholder = PLACEHOLDER.search(ref.value)
        if placeholder is None:
            return AclFileTarget(ref, pod_path=True)
        if placeholder.start() != 0 or placeholder.end() != len(ref.value):
            return AclFileTarget(ref, refused=True)
    else:
        placeholder = MOUNTED.fullmatch(ref.value)
        if placeholder is None:
            return AclFileTarget(ref, path=ref.value)
    provider, name, key = placeholder.group("provider", "name", "key")
    return AclFileTarget(ref, map_key=MapKey(provider, PROVIDERS.get(provider), name, key, ref.namespace))


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
