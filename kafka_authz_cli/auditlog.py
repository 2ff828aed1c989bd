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
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from kafka_authz_cli.model import AclOperation, ResourceType

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
_RULE_SIMPLE = {"SuperUser", "DefaultAllow", "DefaultDeny"}
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

    def add(self, other: "ReadStats") -> None:
        for f in ("lines", "decision_lines", "decisions", "non_decision_lines", "quarantined_lines", "files"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        for k, v in other.by_format.items():
            self.by_format[k] = self.by_format.get(k, 0) + v

    @property
    def balanced(self) -> bool:
        return self.lines == self.decision_lines + self.non_decision_lines + self.quarantined_lines


@dataclass(frozen=True)
class Quarantined:
    source: str
    reason: str
    text: str


def parse_message(message: str, source: str = "", level: str | None = None,
                  timestamp: str | None = None) -> AuditDecision | str:
    """A decision, or the reason the message is not one."""
    core = _parse_core(message)
    if isinstance(core, str):
        return core
    return AuditDecision(*core[:7], level, timestamp, *core[7:11], source)


@functools.lru_cache(maxsize=1 << 16)
def _parse_core(message: str) -> tuple | str:
    # Real logs repeat the same message (same request) over and over, only timestamps differ:
    # each distinct message is parsed once.
    head = _HEAD.match(message)
    if head is None:
        return "not a decision record"
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
            return "KRaft-style record without its request tail"
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


def _valid_rule(rule: str, decision: str, resource_type: str, name: str) -> bool:
    if rule in _RULE_SIMPLE:
        return rule != "SuperUser" or decision == "Allowed"
    m = _MATCHING_ACL.match(rule)
    if m is None:
        return False
    if (m["perm"] == "ALLOW") != (decision == "Allowed") or m["rtype"] != resource_type:
        return False
    acl_name = m["name"]
    if m["pattern"] == "PREFIXED":
        return name.startswith(acl_name)
    return acl_name in (name, "*")


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


def read_lines(lines: Iterable[str], source: str, stats: ReadStats,
               quarantine: list[Quarantined]) -> Iterator[AuditDecision]:
    """Records from physical lines (without line terminators) of one file."""
    lines = list(lines)
    stats.lines += len(lines)
    # Files written with the stock layout end every record with the logger suffix: join what does not.
    suffix_mode = sum(1 for ln in lines[:200] if ln.rstrip().endswith(LOGGER_SUFFIX) or
                      re.search(r"\(kafka\.authorizer\.logger\) \[[^\]]*\]\Z", ln)) >= 1
    i = 0
    n = len(lines)
    while i < n:
        start = i
        line = lines[i].rstrip("\r")
        group = [line]
        if suffix_mode and not _ends_record(line) and _RECORD_START.match(_NOISE.sub("", line, count=1)):
            j = i + 1
            while j < n and not _ends_record(group[-1]):
                group.append(lines[j].rstrip("\r"))
                j += 1
            if not _ends_record(group[-1]):
                quarantine.append(Quarantined(f"{source}:{start + 1}", "record never ends (no logger suffix)",
                                              "\n".join(group)))
                stats.quarantined_lines += len(group)
                i = start + len(group)
                continue
            if any(_RECORD_START.match(_NOISE.sub("", g, count=1)) for g in group[1:]):
                quarantine.append(Quarantined(f"{source}:{start + 1}", "a continuation line looks like a new "
                                                                      "record (possible log injection)",
                                              "\n".join(group)))
                stats.quarantined_lines += len(group)
                i = start + len(group)
                continue
        i = start + len(group)
        text = group[0] if len(group) == 1 else "\n".join(group)
        if not text or text.isspace() or (text[0] == "\x00" and not text.strip("\x00")):
            stats.non_decision_lines += len(group)
            continue
        message, level, ts, _ = _strip_layout(text)
        if _NON_DECISION.match(message) or ("kafka.authorizer.logger" not in text and _OTHER_LOGGER.match(text)):
            stats.non_decision_lines += len(group)
            continue
        parsed = parse_message(message, f"{source}:{start + 1}", level, ts)
        if isinstance(parsed, str):
            quarantine.append(Quarantined(f"{source}:{start + 1}", parsed, text))
            stats.quarantined_lines += len(group)
            continue
        stats.decision_lines += len(group)
        stats.decisions += 1
        stats.by_format[parsed.format] = stats.by_format.get(parsed.format, 0) + 1
        yield parsed


def _ends_record(line: str) -> bool:
    return line.endswith(LOGGER_SUFFIX) or re.search(r"\(kafka\.authorizer\.logger\) \[[^\]]*\]\Z", line) is not None


def decode(data: bytes) -> str:
    """File bytes as text: gzip (possibly a truncated last member) undone, invalid UTF-8 replaced."""
    if data[:2] == b"\x1f\x8b":
        # Member by member with zlib, so that a truncated last member still yields what it holds.
        out = bytearray()
        rest = data
        while rest[:2] == b"\x1f\x8b":
            d = zlib.decompressobj(wbits=31)
            try:
                out += d.decompress(rest)
            except zlib.error:
                break
            rest = d.unused_data
        data = bytes(out)
    return data.decode("utf-8", "replace")


def read_file_bytes(data: bytes, source: str, stats: ReadStats, quarantine: list[Quarantined]) -> list[AuditDecision]:
    text = decode(data)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    stats.files += 1
    return list(read_lines(lines, source, stats, quarantine))


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
    """Files named, found under directories, or matched by globs; rotated files in time order."""
    out: list[str] = []
    for p in paths:
        if any(c in p for c in "*?["):
            matches = sorted(glob.glob(p, recursive=True))
            out += [m for m in matches if os.path.isfile(m)]
        elif os.path.isdir(p):
            out += [str(f) for f in Path(p).rglob("*") if f.is_file()]
        else:
            out.append(p)
    by_dir: dict[str, list[str]] = {}
    for f in dict.fromkeys(out):
        by_dir.setdefault(os.path.dirname(f), []).append(f)
    ordered = []
    for d in sorted(by_dir):
        ordered += sorted(by_dir[d], key=_rotation_key)
    return ordered
