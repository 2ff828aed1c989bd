"""The prompts the live-cluster commands (`cluster apply`, `scram delete|apply`) ask through (the rules of a
deliberate change are cluster/guard.py's); their options are cli/options.py's."""

from __future__ import annotations

import typer


def confirm(question: str) -> bool:
    """Yes or no, no by default; a closed stdin is a no."""
    try:
        return typer.confirm(question, default=False)
    except typer.Abort:  # stdin closed: no answer is a no
        return False


def ask(question: str) -> str:
    """A typed answer ("" when stdin is closed)."""
    try:
        return typer.prompt(question, default="", show_default=False)
    except typer.Abort:
        return ""
