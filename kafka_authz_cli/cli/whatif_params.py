"""The options of `authz whatif` as one typed value: the callback makes it once from what Typer parsed,
and replay, `--interactive` and shadow mode (cli/whatif_follow.py) read its fields, never a raw dict of
parameter names, and take from it the request of their service: :meth:`WhatIfParams.replay_request`,
:meth:`WhatIfParams.interactive_request`, :meth:`WhatIfParams.follow_request`."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from pathlib import Path
from typing import Any, Mapping, Optional

from kafka_authz_cli.cli.common import AclFormat, acls_options, option_value
from kafka_authz_cli.services.whatif import Proposal, ReplayRequest, SparkOptions, TopicSource
from kafka_authz_cli.services.whatif_follow import FollowBounds, FollowRequest, FollowSource
from kafka_authz_cli.services.whatif_session import InteractiveRequest


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

    def proposal(self) -> Proposal:
        """The ACL sets and how they are read and decided. --option is read here: each mode asks for
        it once its own options are checked, so that a bad one is said after theirs."""
        assert self.proposed is not None  # the callback's _check_required refused its absence
        return Proposal(self.proposed, self.current, option_value(self.acls_format), acls_options(self.option),
                        self.super_users, self.allow_everyone, self.broker_config, self.command_config, self.timeout)

    def spark_options(self) -> Optional[SparkOptions]:
        if not self.spark:
            return None
        return SparkOptions(self.master, self.driver_memory, self.executor_memory, self.partition_bytes)

    def replay_request(self, since: Optional[str], until: Optional[str]) -> ReplayRequest:
        """A replay of --logs, --logs-topic or --index (checked: exactly one, with what goes with it);
        `since` and `until` as :func:`~kafka_authz_cli.whatif.hour_bound` gives them."""
        topic = None
        if self.logs_topic and self.bootstrap_server:
            topic = TopicSource(self.logs_topic, self.bootstrap_server, self.command_config, self.max_events,
                                self.until_end)
        return ReplayRequest(self.proposal(), tuple(self.logs or ()), topic, tuple(self.index or ()), since, until,
                             self.full, self.spark_options())

    def interactive_request(self, since: Optional[str], until: Optional[str]) -> InteractiveRequest:
        return InteractiveRequest(self.proposal(), tuple(self.index or ()), since, until)

    def follow_request(self) -> FollowRequest:
        source = FollowSource(self.follow, self.follow_topic, self.bootstrap_server, self.command_config,
                              self.from_start)
        return FollowRequest(self.proposal(), source, FollowBounds(self.max_seconds, self.max_changes), self.every,
                             self.quarantine, self.spark_options())

    def given(self, name: str) -> bool:
        """Whether the option of this parameter name was given (set to neither None nor False)."""
        return getattr(self, name) not in (None, False)

    @classmethod
    def names(cls) -> frozenset[str]:
        return frozenset(f.name for f in fields(cls))
