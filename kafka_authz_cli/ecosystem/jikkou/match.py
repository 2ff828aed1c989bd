"""Jikkou's ``patternType: MATCH``: a ``java.util.regex`` pattern matched against whole topic names, bounded.

Jikkou's planner (``TopicMatchingAclRulesBuilder``) compiles the pattern with ``Pattern.compile`` and
tries it on every topic of the cluster with ``matcher(topic).matches()``: a backtracking engine, so a
pattern such as ``(a+)+$`` against a 41-character topic name takes it minutes too. Here a pattern from a
file is matched within a stated bound:

- the pattern nests at most :data:`MAX_GROUP_DEPTH` groups (deeper is one located error, never Python's
  recursion limit);
- RE2 (google-re2, linear time) where it reads the pattern as Java does: an ASCII pattern that Python's
  ``re`` reads as Java (``_java_only`` finds nothing else) and RE2 compiles (no back-references,
  lookaround, possessive or atomic groups). Topic names hold only ``[a-zA-Z0-9._-]``, so the places where
  the engines differ (line terminators and ``$``, whitespace classes, Unicode case folding) cannot show in
  a whole-name match, and greedy or lazy repetition changes which strings match in neither;
- otherwise Python's ``re`` in ASCII mode, within :data:`MATCH_SECONDS` of CPU time per rule (over all its
  topics): past it, one located error naming the pattern and the topic it was trying.
"""

from __future__ import annotations

import re
import signal
import threading
import time
import warnings

import re2

from kafka_authz_cli.ecosystem import yamlnodes as y

#: groups a MATCH pattern may nest (Java's parser recurses on them too; real patterns nest a few)
MAX_GROUP_DEPTH = 100
#: CPU seconds of backtracking one MATCH rule may take over all the topics, where RE2 cannot read its pattern
MATCH_SECONDS = 2.0
#: Java regex escapes that Python's ``re`` reads alike (ASCII mode); any other letter escape differs
_SAME_ESCAPES = set("dDwWsSbBtnrfaAux") | set("0123456789")
_REPEAT = re.compile(r"\{\d+(?:,\d*)?\}")
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


class TopicPattern:
    """A compiled MATCH pattern: ``matches(topic)`` is Java's ``matcher(topic).matches()``."""

    def __init__(self, text: str, regex: re.Pattern, linear, node, path: str) -> None:
        self.text, self.regex, self.linear, self.node, self.path = text, regex, linear, node, path
        self.left = MATCH_SECONDS

    @property
    def engine(self) -> str:
        return "RE2" if self.linear is not None else "backtracking"

    def matches(self, topic: str) -> bool:
        if self.linear is not None:
            return self.linear.fullmatch(topic) is not None
        return self._bounded(topic)

    def _bounded(self, topic: str) -> bool:
        """The match within what is left of the rule's budget of CPU seconds: a virtual timer (user CPU time, so a
        busy machine does not shorten it; SIGVTALRM, which no test runner or fuzzer uses) interrupts the regex
        engine, which checks for signals as it backtracks."""
        unbounded = (threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer")
                     or signal.getsignal(signal.SIGVTALRM) is None)  # None: a handler not Python's, left alone
        if unbounded:
            return self.regex.fullmatch(topic) is not None  # (authz reads on the main thread: never the case)
        if self.left <= 0:
            raise self._too_long(topic)
        previous = signal.signal(signal.SIGVTALRM, _expire)
        start = time.process_time()
        signal.setitimer(signal.ITIMER_VIRTUAL, self.left)
        try:
            return self.regex.fullmatch(topic) is not None
        except _Expired:
            self.left = 0
            raise self._too_long(topic) from None
        finally:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            signal.signal(signal.SIGVTALRM, previous)
            self.left -= time.process_time() - start

    def _too_long(self, topic: str):
        return y.error(self.node, self.path, f"MATCH pattern {self.text!r} backtracks for more than {MATCH_SECONDS:g} s of CPU "
                       f"on topic {topic!r}: authz stops there. RE2 cannot read this pattern (it needs backtracking), "
                       "and Jikkou's planner, which matches with java.util.regex, would backtrack on it too")


class _Expired(Exception):
    pass


def _expire(signum, frame):
    raise _Expired()


def compile_match(text: str, node, path: str) -> TopicPattern:
    """``Pattern.compile(text)`` as a :class:`TopicPattern`, refusing what Python and Java read differently."""
    why = _java_only(text)
    if why is None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # "possible nested set": Java reads [a[b]] as a union
                regex = re.compile(text, re.ASCII)
        except (re.error, FutureWarning, DeprecationWarning, RecursionError, OverflowError) as exc:
            why = f"not a regex authz reads ({exc})"
        else:
            return TopicPattern(text, regex, _linear(text), node, path)
    raise y.error(node, path, f"MATCH pattern {text!r}: {why}; Jikkou compiles it with java.util.regex")


def _linear(text: str):
    """The pattern in RE2 where RE2 reads it as Java does on topic names (see the module), else None."""
    if not text.isascii():
        return None  # case folding of non-ASCII letters differs (RE2 folds Unicode, Java only ASCII)
    try:
        return re2.compile(text, _RE2_OPTIONS)
    except Exception:  # re2.error: a construct RE2 does not have (back-references, lookaround, ...)
        return None


def _java_only(text: str) -> str | None:
    """Why ``text`` means something else (or nothing) to Python's ``re`` than to ``java.util.regex``, or
    nests too deep; one pass, no recursion."""
    in_class = False
    depth = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt.isalnum() and nxt not in _SAME_ESCAPES:
                return f"the escape \\{nxt} is Java's own"
            if nxt == "x" and text[i + 2:i + 3] == "{" or nxt == "0":
                return f"the escape \\{nxt} differs between Java and Python"
            i += 2
            continue
        if in_class and (c == "[" or text.startswith("&&", i)):
            return "Java's nested or intersected character classes"
        if c == "[" and not in_class:
            in_class = True
            i += 2 if text[i + 1:i + 2] == "^" else 1
            i += 1 if text[i:i + 1] == "]" else 0  # a leading ']' is literal in both
            continue
        if c == "]" and in_class:
            in_class = False
        elif not in_class:
            why = _outside_class(text, i)
            if why:
                return why
            depth += 1 if c == "(" else -1 if c == ")" else 0
            if depth > MAX_GROUP_DEPTH:
                return f"groups nested more than {MAX_GROUP_DEPTH} deep (authz reads at most that)"
        i += 1
    return None


def _outside_class(text: str, i: int) -> str | None:
    """What at ``text[i]`` (outside a character class) one engine reads and the other refuses or reads otherwise."""
    if text.startswith("(?<", i) and text[i + 3:i + 4] not in ("=", "!"):
        return "Java's named groups (?<name>...)"
    if text.startswith(("(?P", "(?#"), i):
        return "Python's own group syntax (Java refuses it)"
    if text[i] == "{" and not _REPEAT.match(text, i):
        return "a '{' that is no repetition {n}, {n,} or {n,m} (Java refuses it, Python reads it literally)"
    return None
