"""The one way a service reaches a live cluster's admin API."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

#: Replaced in tests by a fake: ``ADMIN_FACTORY(bootstrap, command_config) -> admin``.
ADMIN_FACTORY: Optional[Callable] = None


def open_admin(bootstrap: str, command_config: Optional[Path], timeout: float):
    """kafka-python's admin client behind :mod:`kafka_authz_cli.cluster.kafka_adapter` (or the
    test's fake), connected and logged in."""
    if ADMIN_FACTORY is not None:
        return ADMIN_FACTORY(bootstrap, command_config)
    from kafka_authz_cli.cluster import open_admin as open_kafka_admin

    return open_kafka_admin(bootstrap, command_config, timeout)


def close_admin(admin) -> None:
    close = getattr(admin, "close", None)
    if close is not None:
        close()
