"""What ``Pattern.compile`` throws, and what authz refuses rather than approximates."""

from __future__ import annotations

from kafka_authz_cli._java.lang import IllegalArgumentException


class PatternSyntaxException(IllegalArgumentException):
    """``java.util.regex.PatternSyntaxException``: description, pattern and index."""

    java_class = "java.util.regex.PatternSyntaxException"

    def __init__(self, description: str, pattern: str, index: int):
        self.description = description
        self.pattern = pattern
        self.index = index
        msg = description
        if index >= 0:
            msg += f" near index {index}"
        msg += "\n" + pattern
        if 0 <= index < len(pattern):
            msg += "\n" + " " * index + "^"
        super().__init__(msg)

    def one_line(self) -> str:
        near = f" near index {self.index}" if self.index >= 0 else ""
        return f"{self.description}{near} in {self.pattern!r}"


class JavaRegexUnsupported(Exception):
    """A valid Java construct authz cannot reproduce exactly (refused rather than approximated)."""

    def __init__(self, what: str, pattern: str, index: int):
        self.what = what
        self.pattern = pattern
        self.index = index
        where = f"at index {index} of {pattern!r}" if index >= 0 else f"in {pattern!r}"
        super().__init__(f"authz cannot reproduce Java's {what} ({where}) exactly")
