"""The lark grammar in grammars/rules.lark: the single definition of the rules language's syntax."""

from __future__ import annotations

import functools
import re
from importlib import resources


@functools.lru_cache(maxsize=1)
def grammar_text() -> str:
    # `kafka_authz_cli/rules/grammars` links to the top-level grammars/ folder, so the same file serves
    # a source checkout and an installed wheel.
    return resources.files("kafka_authz_cli.rules").joinpath("grammars", "rules.lark").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def terminal_order() -> tuple[str, ...]:
    """Terminal names in declaration order (ANTLR's tie-break)."""
    return tuple(re.findall(r"^([A-Z_]+)\s*:", grammar_text(), re.M))
