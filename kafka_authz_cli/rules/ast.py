"""The typed syntax tree of a rules file, every node with its source position.

Positions are ANTLR's: line 1-based, column 0-based in code points (what the proxy reports).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Pos(NamedTuple):
    line: int
    col: int
    offset: int = 0

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


class Name(NamedTuple):
    """An identifier as written (a keyword used as an identifier keeps its text)."""

    text: str
    pos: Pos


@dataclass(slots=True)
class ImportItem:
    class_name: Name
    alias: Name | None

    @property
    def local_name(self) -> Name:
        return self.alias or self.class_name


@dataclass(slots=True)
class Import:
    package: tuple[Name, ...]
    items: tuple[ImportItem, ...]
    pos: Pos

    @property
    def package_name(self) -> str:
        return ".".join(n.text for n in self.package)


@dataclass(slots=True)
class NamePredicate:
    """``= "s"``, ``in {"a", "b"}``, ``like "p*"``, ``*`` or ``matching /re/``.

    ``raw`` keeps each literal's text without its quotes or slashes and before any unescaping:
    the proxy unescapes ``=``/``in``/``matching`` and scans ``like`` differently.
    """

    kind: str  # equals | in | like | any | matching
    raw: tuple[str, ...]
    pos: Pos  # of the first literal (or of '*')
    keyword_pos: Pos | None = None  # of 'in' / 'like' / 'matching'
    literal_pos: tuple[Pos, ...] = ()


@dataclass(slots=True)
class Rule:
    effect: str  # allow | deny
    principal_type: Name
    principal: NamePredicate
    operations: tuple[Name, ...] | None  # None: '*', every operation of the resource type
    operations_pos: Pos
    resource_type: Name
    resource: NamePredicate
    pos: Pos
    end_offset: int = 0


@dataclass
class RulesFile:
    imports: list[Import]
    rules: list[Rule]
    end_pos: Pos | None
    path: str = "<rules>"
    #: Text after `otherwise deny;`, which the proxy ignores.
    trailing_text: str = ""
    trailing_pos: Pos | None = None
    source: str = field(default="", repr=False)

    @property
    def deny_rules(self) -> list[Rule]:
        return [r for r in self.rules if r.effect == "deny"]

    @property
    def allow_rules(self) -> list[Rule]:
        return [r for r in self.rules if r.effect == "allow"]
