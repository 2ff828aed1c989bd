"""Kafka authorizer audit logs (`kafka.authorizer.logger`), every version's format, read safely.

Principals and resource names are free text that may contain every separator the format uses,
and even line breaks. The reader therefore anchors on what free text cannot fake:

* the layout is taken off from the right once (`` (kafka.authorizer.logger)``), and a physical
  line that does not end with it is joined with the following ones until one does; a joined
  group in which a later line starts like a new record is quarantined, so a forged record hidden
  in a name never becomes a decision;
* on the left, the first `` is Allowed|Denied operation = <known op> from host = <IP literal>``
  ends the principal;
* the tail (``for request = X with resourceRefCount = N based on rule R``) is matched from the
  right with a strict grammar, and a ``MatchingAcl`` rule must cover the resource and agree with
  the decision.

Every physical line is counted once: as part of a decision, as a non-decision line, or
quarantined with a reason.
"""

from __future__ import annotations

import functools
import glob
import io
import itertools
import json
import os
import re
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import BinaryIO, Iterable, Iterator

from kafka_authz_cli.acl import AclOperation, ResourceType, Rule
from kafka_authz_cli.formats import files_under

LOGGER_SUFFIX = " (kafka.authorizer.logger)"

_OPS = {m.name: m.name for m in AclOperation.concrete()}
_OPS.update({m.pascal: m.name for m in AclOperation.concrete()})
_TYPES = {m.pascal: m.name for m in ResourceType.concrete()}
_TYPES.update({m.name: m.name for m in ResourceType.concrete()})
_IPV4 = r"(?:\d{1,3}\.){3}\d{1,3}"
_IPV6 = r"[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}(?:%[\w.-]+)?"
_OP_ALT = "|".join(sorted(map(re.escape, _OPS), key=len, reverse=True))
_TYPE_ALT = "|".join(sorted(map(re.escape, _TYPES), key=len, reverse=True))

_HEAD = re.compile(
    rf"Principal = (?P<principal>.*?) is (?P<decision>Allowed|Denied) (?P<opkw>[Oo])peration = (?P<op>{_OP_ALT}) "
    rf"from host = (?P<host>{_IPV4}|{_IPV6})(?: via listener (?P<listener>\S+))? on resource = "
    rf"(?P<rtype>{_TYPE_ALT}):(?P<rest>.*)\Z", re.S)
_TAIL = re.compile(r" for request = (?P<request>[A-Za-z_]+|\d+) with resourceRefCount = (?P<ref>-?\d+)"
                   r"(?: based on rule (?P<rule>.*))?(?: with (?P<suppressed>\d+) identical entries suppressed)?\Z", re.S)
_RULE_SIMPLE = frozenset(Rule)
_MATCHING_ACL = re.compile(
    r"MatchingAcl\(acl=StandardAcl(?P<open>[(\[])resourceType=(?P<rtype>[A-Z_]+), resourceName=(?P<name>.*), "
    r"patternType=(?P<pattern>LITERAL|PREFIXED), principal=(?P<principal>.*), host=(?P<host>[^,]*), "
    r"operation=(?P<op>[A-Z_]+), permissionType=(?P<perm>ALLOW|DENY)[)\]]\)\Z", re.S)

# Layouts: Apache `[%d] %p `, Strimzi/log4j2 `%d %p `, CFK `[%p] %d [%t] %c %M - `, bare `%p ` or nothing.
_TS = r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[,.]\d{1,9})?"
_LEVEL = r"TRACE|DEBUG|INFO|WARN|ERROR"
_LAYOUTS = [
    re.compile(rf"\[(?P<ts>{_TS})\] (?P<level>{_LEVEL}) (?P<msg>.*)\Z", re.S),
    re.compile(rf"(?P<ts>{_TS}) (?P<level>{_LEVEL}) (?P<msg>.*)\Z", re.S),
    re.compile(rf"\[(?P<level>{_LEVEL})\] (?P<ts>{_TS}) \[[^\]]*\] kafka\.authorizer\.logger \w+ - (?P<msg>.*)\Z", re.S),
    re.compile(rf"(?P<ts>)(?P<level>{_LEVEL}):? (?P<msg>.*)\Z", re.S),
]
_NOISE = re.compile(
    r"\A(?:\ufeff|\d{4}-\d{2}-\d{2}T[\d:.]+Z (?:stdout|stderr) [FP] |[\w.-]+\s+\| |MESSAGE: |"
    r"[\w.-]+ [\w.-]+ (?=\[\d{4}-)|"
    r"\S*kafka-authorizer\.log[^\s:]*(?: => |:)|# )+")
_RECORD_START = re.compile(rf"(?:\[(?:{_TS}|{_LEVEL})\] |{_TS} (?:{_LEVEL}) |(?:{_LEVEL}) Principal = |Principal = )")
_NON_DECISION = re.compile(
    r"(?:principal = .* is a super user, allowing operation without checking acls\.|"
    r"No acl found for resource .*, authorized = (?:true|false)|"
    r"operation = .* on resource = .* from host = .* is (?:Allow|Deny|ALLOW|DENY) based on acl = .*|"
    r"principal = .* belongs to super group .*, allowing operation without checking acls\.)\Z", re.S)
_THREAD_SUFFIX = re.compile(r" \(kafka\.authorizer\.logger\) \[[^\]]*\]\Z")
_OTHER_LOGGER = re.compile(r".* \((?!kafka\.authorizer\.logger\))[\w.$]+\)(?: \[[^\]]*\])?\Z", re.S)


@dataclass(slots=True)
class AuditDecision:
    principal: str
    host: str
    operation: str  # Kafka enum name (READ, IDEMPOTENT_WRITE)
    resource_type: str  # Kafka enum name (TOPIC, TRANSACTIONAL_ID)
    resource_name: str
    pattern_type: str | None  # LITERAL (2.0+), or None for pre-2.0 lines
    decision: str  # ALLOWED / DENIED
    level: str | None
    timestamp: str | None
    request: str | None
    resource_ref_count: int | None
    rule: str | None
    format: str  # F-LEGACY, F-PATTERN, F-ZK24, F-KRAFT, F-KRAFT-RECORD, F-BF2
    source: str  # file:line

    @property
    def client_visible(self) -> bool:
        """A decision the client asked for; TRACE lines come from filtering / authorized-operations checks."""
        return self.level != "TRACE"


@dataclass
class ReadStats:
    lines: int = 0
    decision_lines: int = 0
    decisions: int = 0
    non_decision_lines: int = 0
    quarantined_lines: int = 0
    files: int = 0
    by_format: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: files found in a directory or by a glob and not read, being no log: {"file", "reason"} each
    skipped_files: list[dict[str, str]] = field(default_factory=list)

    def add(self, other: "ReadStats") -> None:
        for f in ("lines", "decision_lines", "decisions", "non_decision_lines", "quarantined_lines", "files"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        for k, v in other.by_format.items():
            self.by_format[k] = self.by_format.get(k, 0) + v
        self.warnings += other.warnings
        self.skipped_files += other.skipped_files

    def as_dict(self) -> dict:
        return {"lines": self.lines, "decision_lines": self.decision_lines, "decisions": self.decisions,
                "non_decision_lines": self.non_decision_lines, "quarantined_lines": self.quarantined_lines,
                "files": self.files, "by_format": dict(sorted(self.by_format.items())),
                "warnings": list(self.warnings), "skipped_files": [dict(s) for s in self.skipped_files]}

    @classmethod
    def from_dict(cls, d: dict) -> "ReadStats":
        return cls(d["lines"], d["decision_lines"], d["decisions"], d["non_decision_lines"], d["quarantined_lines"],
                   d["files"], dict(d["by_format"]), list(d.get("warnings", [])),
                   [dict(s) for s in d.get("skipped_files", [])])

    def files_read(self) -> str:
        """"N file(s)", with the files skipped as no log when there were some (the line accounting's words)."""
        skipped = f" ({len(self.skipped_files):,} more skipped: no log)" if self.skipped_files else ""
        return f"{self.files} file(s){skipped}"

    @property
    def balanced(self) -> bool:
        return self.lines == self.decision_lines + self.non_decision_lines + self.quarantined_lines


@dataclass(frozen=True)
class Quarantined:
    source: str
    reason: str
    text: str

    def json_line(self) -> str:
        """One line of a quarantine file (JSON lines, every writer's; without the newline): where, why, and
        the text as it was read."""
        return json.dumps({"source": self.source, "reason": self.reason, "text": self.text}, ensure_ascii=False)


def parse_message(message: str, source: str = "", level: str | None = None,
                  timestamp: str | None = None) -> AuditDecision | str:
    """A decision, or the reason the message is not one."""
    core = _parse_core(message)
    if isinstance(core, str):
        return core
    return AuditDecision(*core[:7], level, timestamp, *core[7:11], source)


#: A decision's fields as its message gives them: principal, host, operation, resource type, name, pattern type,
#: decision, request, resource reference count, rule and format.
_Core = tuple[str, str, str, str, str, str | None, str, str | None, int | None, str | None, str]


@functools.lru_cache(maxsize=1 << 16)
def _parse_core(message: str) -> _Core | str:
    # Real logs repeat the same message (same request) over and over, only timestamps differ:
    # each distinct message is parsed once.
    head = _HEAD.match(message)
    if head is None:
        return _why_not_head(message)
    op_raw, rtype_raw = head["op"], head["rtype"]
    kraft = head["opkw"] == "o"
    operation, resource_type = _OPS[op_raw], _TYPES[rtype_raw]
    rest = head["rest"]
    pattern = None
    m = re.match(r"(LITERAL|PREFIXED|MATCH|ANY):", rest)
    if m:
        pattern, rest = m.group(1), rest[m.end():]
    # The tail, from the right: the last " for request = " after which a strict tail runs to the end.
    name, request, ref, rule, fmt = rest, None, None, None, None
    for pos in _rfind_all(rest, " for request = "):
        tail = _TAIL.match(rest, pos)
        if tail is None:
            continue
        candidate_rule = tail["rule"]
        if candidate_rule is not None and not _valid_rule(candidate_rule, head["decision"], resource_type,
                                                          rest[:pos]):
            continue
        name, request, ref, rule = rest[:pos], tail["request"], int(tail["ref"]), candidate_rule
        break
    if kraft:
        if request is None:
            return _why_not_tail(rest, head["decision"], resource_type)
        fmt = "F-KRAFT-RECORD" if rule and "StandardAcl[" in rule else "F-KRAFT"
    elif head["listener"] is not None:
        fmt = "F-BF2"
    elif request is not None:
        fmt = "F-ZK24"
    elif pattern is not None:
        fmt = "F-PATTERN"
    else:
        fmt = "F-LEGACY"
    if pattern not in (None, "LITERAL"):
        return f"decision on a {pattern} resource (decisions are always LITERAL)"
    return (head["principal"], head["host"], operation, resource_type, name, pattern,
            "ALLOWED" if head["decision"] == "Allowed" else "DENIED", request, ref, rule, fmt)


def _rfind_all(text: str, needle: str) -> Iterator[int]:
    pos = len(text)
    while True:
        pos = text.rfind(needle, 0, pos)
        if pos < 0:
            return
        yield pos


_IP = re.compile(rf"(?:{_IPV4}|{_IPV6})\Z")
_DECISION_AT = re.compile(r" is (Allowed|Denied) ")


def _why_not_head(message: str) -> str:
    """Which part of `Principal = P is Allowed operation = OP from host = IP on resource = TYPE:...` is
    missing or wrong, read at the first ` is Allowed|Denied ` (a best effort: the principal is free text)."""
    if not message.startswith("Principal = "):
        start = message[:40] + ("…" if len(message) > 40 else "")
        return f"not a decision record: no 'Principal = ' where the message starts ({start!r})"
    m = _DECISION_AT.search(message, 12)
    if m is None:
        return "not a decision record: no ' is Allowed ' or ' is Denied ' after the principal"
    rest = message[m.end():]
    if not (rest.startswith("operation = ") or rest.startswith("Operation = ")):
        return f"no 'operation = ' after ' is {m[1]} ' (found {rest[:20]!r})"
    rest = rest[len("operation = "):]
    op, sep, rest = rest.partition(" from host = ")
    if not sep:
        return "no ' from host = ' after the operation"
    if op not in _OPS:
        return f"unknown operation {op[:40]!r}"
    host, sep, rest = rest.partition(" on resource = ")
    if not sep:
        return "no ' on resource = ' after the host"
    host = host.split(" via listener ", 1)[0]
    if not _IP.match(host):
        return f"host {host[:60]!r} is not an IP address (Kafka logs the client's IP literal)"
    rtype, sep, _ = rest.partition(":")
    if not sep:
        return "no ':' after the resource type"
    if rtype not in _TYPES:
        return f"unknown resource type {rtype[:40]!r}"
    return "not a decision record"


def _why_not_tail(rest: str, decision: str, resource_type: str) -> str:
    """Why a KRaft record (lower-case 'operation') has no valid `for request = ... based on rule ...` tail."""
    pos = rest.rfind(" for request = ")
    if pos < 0:
        return "KRaft record without ' for request = ' (KRaft always logs the request and the rule)"
    tail = _TAIL.match(rest, pos)
    if tail is None:
        return ("KRaft record whose tail is not 'for request = <ApiKey> with resourceRefCount = <n> based on "
                f"rule <rule>' (found {rest[pos + 1:pos + 81]!r})")
    rule = tail["rule"]
    if rule is None:
        return "KRaft record without ' based on rule ' (KRaft always logs the deciding rule)"
    return f"rule {rule[:120]!r} cannot have decided this record: {_rule_problem(rule, decision, resource_type, rest[:pos])}"


def _rule_problem(rule: str, decision: str, resource_type: str, name: str) -> str:
    if rule == Rule.SUPER_USER:
        return "a super user is always Allowed"
    m = _MATCHING_ACL.match(rule)
    if m is None:
        return "not SuperUser, DefaultAllow, DefaultDeny or MatchingAcl(acl=StandardAcl(...))"
    if (m["perm"] == "ALLOW") != (decision == "Allowed"):
        return f"its permissionType is {m['perm']} but the record says {decision}"
    if m["rtype"] != resource_type:
        return f"its resourceType is {m['rtype']} but the resource is a {resource_type}"
    return f"its {m['pattern']} resourceName {m['name'][:60]!r} does not match the resource name"


def _valid_rule(rule: str, decision: str, resource_type: str, name: str) -> bool:
    if rule in _RULE_SIMPLE:
        return rule != Rule.SUPER_USER or decision == "Allowed"
    m = _MATCHING_ACL.match(rule)
    if m is None:
        return False
    if (m["perm"] == "ALLOW") != (decision == "Allowed") or m["rtype"] != resource_type:
        return False
    acl_name = m["name"]
    if m["pattern"] == "PREFIXED":
        return name.startswith(acl_name)
    return acl_name in (name, "*")


def matching_acl(rule: str | None) -> dict[str, str] | None:
    """The ACL of a ``MatchingAcl(acl=StandardAcl(...))`` rule text (rtype, name, pattern, principal,
    host, op, perm), or None for SuperUser, DefaultAllow, DefaultDeny and errors."""
    m = _MATCHING_ACL.match(rule) if rule else None
    return None if m is None else {k: m[k] for k in ("rtype", "name", "pattern", "principal", "host", "op", "perm")}


def short_rule(rule: str | None) -> str:
    """Kafka's rule text in a few words: `DENY READ on TOPIC orders-audit (LITERAL) for User:analytics`."""
    if not rule:
        return ""
    m = _MATCHING_ACL.match(rule)
    if m is None:
        return rule
    host = "" if m["host"] == "*" else f" from {m['host']}"
    return f"{m['perm']} {m['op']} on {m['rtype']} {m['name']} ({m['pattern']}) for {m['principal']}{host}"


def _strip_layout(line: str) -> tuple[str, str | None, str | None, bool]:
    """(message, level, timestamp, had the logger suffix)."""
    # The stock layout ("[2024-...] LEVEL ... (kafka.authorizer.logger)") needs no noise stripping.
    stock = line[:1] == "[" and line[1:2].isdigit()
    text = line if stock else _NOISE.sub("", line, count=1)
    suffixed = False
    if text.endswith(LOGGER_SUFFIX):
        text = text[:-len(LOGGER_SUFFIX)]
        suffixed = True
    else:
        thread = _THREAD_SUFFIX.search(text)
        if thread:
            text = text[:thread.start()]
            suffixed = True
    for layout in _LAYOUTS:
        m = layout.match(text)
        if m:
            return m["msg"], m["level"], m["ts"] or None, suffixed
    return text, None, None, suffixed


#: a part of every timestamp that a search finds fast (it starts with a literal)
_TS_HINT = re.compile(r"-[0-9][0-9][ T][0-9][0-9]:[0-9][0-9]:")


def has_log4j_line(text: str) -> bool:
    """Is a line of ``text`` in a log4j layout the reader knows, with its timestamp (any logger)?"""
    for m in _TS_HINT.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        if _strip_layout(text[start:end if end >= 0 else len(text)].rstrip("\r"))[2]:
            return True
    return False


def valid_timestamp(ts: str) -> bool:
    """A log4j `%d` that names a real instant (month 1-12, a day the month has, 00:00:00-23:59:59)."""
    try:
        datetime(int(ts[0:4]), int(ts[5:7]), int(ts[8:10]), int(ts[11:13]), int(ts[14:16]), int(ts[17:19]))
    except ValueError:
        return False
    return True


def classify_message(message: str) -> tuple:
    """What the reader makes of one complete single-line record whose layout was recognised and which
    ends with the logger suffix: ("N",) a non-decision line, ("Q", reason), or ("D", *fields) with
    the fields of :func:`_parse_core` (principal, host, operation, resource_type, name, pattern,
    decision, request, ref, rule, format). The Spark job asks this once per distinct message."""
    if _NON_DECISION.match(message):
        return ("N",)
    core = _parse_core(message)
    if isinstance(core, str):
        return ("Q", core)
    return ("D",) + core


# A record joined from more lines or characters than this is quarantined unparsed (memory stays flat).
GROUP_MAX_LINES = 10_000
GROUP_MAX_CHARS = 4 << 20
SUFFIX_MODE_LINES = 200


class FileReader:
    """The reader's state machine over the physical lines of one file (line terminators removed).

    `feed` lines in order; `gap` says the next line is not fed (the Spark job feeds only the lines
    its JVM shape did not take, and every line it takes ends a record): it returns True when a record
    was still open, i.e. the next line would have been joined to it. `finish` at the end of the file.
    Decisions are returned as they complete; counts go to `stats`, rejects to `quarantine`.
    """

    __slots__ = ("source", "stats", "quarantine", "suffix_mode", "_start", "_texts", "_lines", "_chars",
                 "_injection")
    # the open record (set by `feed` when one starts)
    _texts: list[str]
    _lines: int
    _chars: int
    _injection: bool

    def __init__(self, source: str, stats: "ReadStats", quarantine: list, suffix_mode: bool):
        self.source = source
        self.stats = stats
        self.quarantine = quarantine
        self.suffix_mode = suffix_mode
        self._start = 0  # first line of the open record, 0 when none is open

    def feed(self, lineno: int, raw: str) -> list[AuditDecision]:
        self.stats.lines += 1
        line = raw.rstrip("\r")
        if self._start:
            self._lines += 1
            if self._chars <= GROUP_MAX_CHARS and self._lines <= GROUP_MAX_LINES:
                self._texts.append(line)
                self._chars += len(line) + 1
            if not self._injection and _RECORD_START.match(_NOISE.sub("", line, count=1)):
                self._injection = True
            if _ends_record(line):
                return self._close()
            return []
        if self.suffix_mode and not _ends_record(line) and _RECORD_START.match(_NOISE.sub("", line, count=1)):
            self._start, self._texts, self._lines, self._chars, self._injection = lineno, [line], 1, len(line), False
            return []
        return self._record(line, 1, lineno)

    def gap(self) -> bool:
        """The next line is not fed. True if an open record would have taken it (nothing is counted)."""
        if self._start:
            self.stats.lines -= self._lines
            self._start = 0
            return True
        return False

    def finish(self) -> None:
        if self._start:
            self._quarantine("record never ends (no logger suffix before the end of the file)")

    def _group_text(self) -> str:
        text = "\n".join(self._texts)
        if self._lines > len(self._texts):
            text += f"\n… {self._lines - len(self._texts)} more line(s)"
        return text

    def _quarantine(self, reason: str) -> None:
        self.quarantine.append(Quarantined(f"{self.source}:{self._start}", reason, self._group_text()))
        self.stats.quarantined_lines += self._lines
        self._start = 0

    def _close(self) -> list[AuditDecision]:
        if self._injection:
            self._quarantine("a continuation line looks like a new record (possible log injection)")
            return []
        if self._lines > len(self._texts) or self._chars > GROUP_MAX_CHARS:
            self._quarantine(f"record joined from {self._lines} lines is over the reader's limit "
                             f"({GROUP_MAX_LINES} lines, {GROUP_MAX_CHARS >> 20} MiB)")
            return []
        start, lines = self._start, self._lines
        self._start = 0
        return self._record("\n".join(self._texts), lines, start)

    def _record(self, text: str, lines: int, lineno: int) -> list[AuditDecision]:
        stats = self.stats
        if not text or text.isspace() or (text[0] == "\x00" and not text.strip("\x00")):
            stats.non_decision_lines += lines
            return []
        message, level, ts, _ = _strip_layout(text)
        if _NON_DECISION.match(message) or ("kafka.authorizer.logger" not in text and _OTHER_LOGGER.match(text)):
            stats.non_decision_lines += lines
            return []
        source = f"{self.source}:{lineno}"
        parsed = parse_message(message, source, level, ts)
        if isinstance(parsed, str):
            if level is None and not message.startswith("Principal = "):
                parsed = "not an authorizer record: no log4j layout ([timestamp] LEVEL) and no 'Principal = '"
            self.quarantine.append(Quarantined(source, parsed, text))
            stats.quarantined_lines += lines
            return []
        if ts and not valid_timestamp(ts):
            self.quarantine.append(Quarantined(source, f"impossible timestamp {ts!r}", text))
            stats.quarantined_lines += lines
            return []
        stats.decision_lines += lines
        stats.decisions += 1
        stats.by_format[parsed.format] = stats.by_format.get(parsed.format, 0) + 1
        return [parsed]


def ends_record(line: str) -> bool:
    """Does this physical line (trailing CRs removed) end a record in the stock layouts?"""
    return _ends_record(line)


def read_lines(lines: Iterable[str], source: str, stats: ReadStats,
               quarantine: list[Quarantined], first_line: int = 1) -> Iterator[AuditDecision]:
    """Records from the physical lines (without line terminators) of one file, streamed.

    Files written with the stock layout end every record with the logger suffix: when one of the first
    200 lines does, a line that does not is joined with the following ones (see the module doc)."""
    it = iter(lines)
    head = []
    for line in it:
        head.append(line)
        if len(head) >= SUFFIX_MODE_LINES:
            break
    reader = FileReader(source, stats, quarantine, any(_ends_record(ln.rstrip("\r")) for ln in head))
    n = first_line
    for line in head:
        yield from reader.feed(n, line)
        n += 1
    for line in it:
        yield from reader.feed(n, line)
        n += 1
    reader.finish()


def read_runs(source: str, numbered: Iterable[tuple[int, str]], total_lines: int, first_fast_line: int | None,
              stats: ReadStats, quarantine: list[Quarantined], consumed: list[int]) -> Iterator[AuditDecision]:
    """The lines of one file that the Spark job's JVM shape did not take, in order, with their numbers.

    Every line not given is a complete single-line record (it ends with the logger suffix), so it
    closes whatever is open before it: the runs between such lines are read independently. When a run
    ends inside an open record, the next line would have been joined to it: its number goes to
    `consumed` (the job then routes that line here too and reads again)."""
    it = iter(numbered)
    head = []
    for item in it:
        head.append(item)
        if item[0] >= SUFFIX_MODE_LINES:
            break
    mode = (first_fast_line is not None and first_fast_line <= SUFFIX_MODE_LINES) or any(
        n <= SUFFIX_MODE_LINES and _ends_record(ln.rstrip("\r")) for n, ln in head)
    reader = FileReader(source, stats, quarantine, mode)
    last = 0
    for n, line in itertools.chain(head, it):
        if n != last + 1 and last and reader.gap():
            consumed.append(last + 1)
        yield from reader.feed(n, line)
        last = n
    if last < total_lines:
        if reader.gap():
            consumed.append(last + 1)
    else:
        reader.finish()


def _ends_record(line: str) -> bool:
    return line.endswith(LOGGER_SUFFIX) or (line.endswith("]") and _THREAD_END.search(line) is not None)


_THREAD_END = re.compile(r"\(kafka\.authorizer\.logger\) \[[^\]]*\]\Z")
GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 22


def iter_file_lines(fh: BinaryIO, source: str, stats: ReadStats, on_bytes=None) -> Iterator[str]:
    """The physical lines of a file, streamed: gzip undone member by member (a truncated or corrupt
    member keeps what it held, with a warning), invalid UTF-8 replaced, split on LF only."""
    for piece in iter_file_line_bytes(fh, source, stats, on_bytes):
        yield piece.decode("utf-8", "replace")


def iter_file_line_bytes(fh: BinaryIO, source: str, stats: ReadStats, on_bytes=None) -> Iterator[bytes]:
    buf = b""
    for data in iter_decoded(fh, source, stats, on_bytes):
        if b"\n" not in data:
            buf += data
            continue
        parts = data.split(b"\n")
        parts[0] = buf + parts[0]
        buf = parts.pop()
        yield from parts
    if buf:
        yield buf


def iter_decoded(fh: BinaryIO, source: str, stats: ReadStats, on_bytes) -> Iterator[bytes]:
    first = fh.read(_CHUNK)
    if on_bytes:
        on_bytes(len(first))
    if first[:2] != GZIP_MAGIC:
        while first:
            yield first
            first = fh.read(_CHUNK)
            if on_bytes:
                on_bytes(len(first))
        return
    d = zlib.decompressobj(wbits=31)
    data = first
    member_bytes = 0
    while data:
        try:
            out = d.decompress(data)
        except zlib.error as exc:
            stats.warnings.append(f"{source}: gzip data corrupt ({exc}) after {member_bytes} byte(s) of a member: "
                                  "the rest of the file is not read")
            return
        member_bytes += len(data)
        if out:
            yield out
        if d.eof:
            rest = d.unused_data
            if not rest:
                rest = fh.read(_CHUNK)
                if on_bytes:
                    on_bytes(len(rest))
                if not rest:
                    return
            if rest[:2] != GZIP_MAGIC:
                stats.warnings.append(f"{source}: {len(rest)}+ byte(s) after the last gzip member are not gzip "
                                      "data: not read")
                return
            d, data, member_bytes = zlib.decompressobj(wbits=31), rest, 0
            continue
        data = fh.read(_CHUNK)
        if on_bytes:
            on_bytes(len(data))
    if not d.eof:
        stats.warnings.append(f"{source}: the last gzip member is truncated (a file still being written or "
                              "compressed?): read what it holds")


def decode(data: bytes) -> str:
    """File bytes as text: gzip (possibly a truncated last member) undone, invalid UTF-8 replaced."""
    return "\n".join(iter_file_lines(io.BytesIO(data), "", ReadStats()))


def read_stream(fh: BinaryIO, source: str, stats: ReadStats, quarantine: list[Quarantined],
                on_bytes=None) -> Iterator[AuditDecision]:
    """Records of one file or stream (stdin), memory flat in its size."""
    stats.files += 1
    yield from read_lines(iter_file_lines(fh, source, stats, on_bytes), source, stats, quarantine)


def read_file_bytes(data: bytes, source: str, stats: ReadStats, quarantine: list[Quarantined]) -> list[AuditDecision]:
    return list(read_stream(io.BytesIO(data), source, stats, quarantine))


def _rotation_key(path: str):
    """Rotated files before the active one: dated suffixes in order, numbered ones newest last."""
    base = os.path.basename(path)
    m = re.search(r"\.log\.(\d{4}-\d{2}-\d{2}(?:-\d{2})?)(?:\.gz)?\Z", base)
    if m:
        return (0, m.group(1), 0, base)
    m = re.search(r"\.log\.(\d+)(?:\.gz)?\Z", base)
    if m:
        return (0, "", -int(m.group(1)), base)
    return (1, "", 0, base)


def expand_paths(paths: Iterable[str]) -> list[str]:
    """Files named, found under directories (as every command walks one: hidden names skipped, as Spark's
    file source skips them too), or matched by globs; rotated files in time order."""
    out: list[str] = []
    for p in paths:
        if any(c in p for c in "*?["):
            matches = sorted(glob.glob(p, recursive=True))
            out += [m for m in matches if os.path.isfile(m)]
        elif os.path.isdir(p):
            out += [str(f) for f in files_under(p) if f.is_file()]
        else:
            out.append(p)
    by_dir: dict[str, list[str]] = {}
    for f in dict.fromkeys(out):
        by_dir.setdefault(os.path.dirname(f), []).append(f)
    ordered = []
    for d in sorted(by_dir):
        ordered += sorted(by_dir[d], key=_rotation_key)
    return ordered
