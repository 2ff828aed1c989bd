"""The options of `authz whatif` as one typed value: the callback makes it once from what Typer parsed,
and replay, `--interactive` and shadow mode (cli/whatif_follow.py) read its fields, never a raw dict of
parameter names."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from pathlib import Path
from typing import Any, Mapping, Optional

from kafka_authz_cli.cli.common import AclFormat


class WhatIfFormat(str, Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"  # shadow mode (--follow) only


class WhatIfGate(str, Enum):
    newly_denied = "newly-denied"


@dataclass(frozen=True)
class WhatIfParams:
    """Every option of the `whatif` callback, by its parameter name."""

    logs: Optional[list[str]]
    proposed: Optional[Path]
    current: Optional[Path]
    index: Optional[list[Path]]
    logs_topic: Optional[str]
    bootstrap_server: Optional[str]
    max_events: Optional[int]
    until_end: bool
    since: Optional[str]
    until: Optional[str]
    acls_format: Optional[AclFormat]
    option: list[str]
    spark: bool
    master: str
    driver_memory: str
    executor_memory: Optional[str]
    partition_bytes: int
    super_users: Optional[str]
    allow_everyone: Optional[bool]
    broker_config: Optional[Path]
    out: Optional[Path]
    report_html: Optional[Path]
    fail_on: Optional[WhatIfGate]
    allow_unverified: bool
    fmt: WhatIfFormat
    command_config: Optional[Path]
    timeout: float
    full: bool
    interactive: bool
    follow: Optional[str]
    follow_topic: Optional[str]
    from_start: bool
    every: bool
    max_seconds: Optional[float]
    max_changes: Optional[int]
    quarantine: Optional[Path]

    @classmethod
    def of(cls, params: Mapping[str, Any]) -> "WhatIfParams":
        """From Typer's parsed parameters (a parameter this class lacks is a TypeError in every test)."""
        return cls(**params)

    @property
    def proposal(self) -> Path:
        """The proposed ACL set: required, checked by the callback before it makes these."""
        assert self.proposed is not None  # the callback's _check_required refused its absence
        return self.proposed

    def given(self, name: str) -> bool:
        """Whether the option of this parameter name was given (set to neither None nor False)."""
        return getattr(self, name) not in (None, False)

    @classmethod
    def names(cls) -> frozenset[str]:
        return frozenset(f.name for f in fields(cls))
