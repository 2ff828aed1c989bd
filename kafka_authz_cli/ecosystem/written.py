"""What a writer of an ecosystem format returns, and the refusal when it cannot express everything."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from kafka_authz_cli.acl import AclBinding
from kafka_authz_cli.errors import AuthzError

#: how many lost bindings a refusal names in its one line (the rest are counted)
SHOWN = 5


@dataclass(frozen=True)
class Lost:
    """A binding a format cannot hold, and why."""

    binding: AclBinding
    reason: str

    def __str__(self) -> str:
        b = self.binding
        return (f"{b.permission.name} {b.principal} {b.operation.name} {b.resource_type.name}:"
                f"{b.pattern_type.name}:{b.resource_name} host {b.host} ({self.reason})")


@dataclass
class Written:
    text: str
    #: bindings left out (only when the caller accepted the loss)
    lost: list[Lost] = field(default_factory=list)


class NotExpressible(AuthzError):
    """A conversion that would lose bindings, refused: names the first few and counts the rest."""

    def __init__(self, fmt: str, lost: list[Lost]):
        self.lost = lost
        shown = "; ".join(str(x) for x in lost[:SHOWN])
        more = f"; and {len(lost) - SHOWN} more" if len(lost) > SHOWN else ""
        super().__init__(f"{fmt} cannot express {len(lost)} binding(s), refused (--lossy writes the rest and "
                         f"lists what was left out): {shown}{more}")


def expressible(fmt: str, bindings: Iterable[AclBinding], why_not: Callable[[AclBinding], Optional[str]],
                lossy: bool) -> tuple[list[AclBinding], list[Lost]]:
    """The bindings (each once, in order) a format can hold, and the ones it cannot with ``why_not``'s
    reason; refused (:class:`NotExpressible`) when any is lost and the caller did not accept the loss."""
    kept: list[AclBinding] = []
    lost: list[Lost] = []
    for b in dict.fromkeys(bindings):
        reason = why_not(b)
        if reason is None:
            kept.append(b)
        else:
            lost.append(Lost(b, reason))
    if lost and not lossy:
        raise NotExpressible(fmt, lost)
    return kept, lost
