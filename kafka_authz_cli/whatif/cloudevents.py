"""Confluent Server audit-log events (CloudEvents JSON from the `confluent-audit-log-events` topic).

Confluent's authorizer (`ConfluentServerAuthorizer` with `ConfluentAuditLogProvider`, CP 5.4+ and
Confluent Cloud) writes one CloudEvent per logged decision, of type
``io.confluent.kafka.server/authorization``; its ``data`` holds who
(``authenticationInfo.principal``), what (``authorizationInfo``: operation, resourceType,
resourceName, patternType, granted, and the rule that decided: ``superUserAuthorization``,
``aclAuthorization`` or ``rbacAuthorization``), the request kind (``methodName``) and the client
address (``requestMetadata``). Exports are JSON lines (one event a line) or pretty-printed objects
separated by blank lines (`kafka-console-consumer | jq .`): both are read, streamed.

The line accounting is the log4j reader's: every physical line is counted once, as part of a
decision, as another line (blank lines, other event kinds, decisions on resources Kafka's
authorizer does not have: those are counted per reason and said once per file), or quarantined
with its reason (JSON that does not parse, an authorization event missing a field, a rule that
contradicts the decision). A file is read here when its first non-blank line starts with ``{``,
which no log4j layout does.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator

from kafka_authz_cli.acl import AclError, AclOperation, ResourceType, Rule, java_host_address
from kafka_authz_cli.whatif.auditlog import AuditDecision, Quarantined, ReadStats

AUTHORIZATION = "io.confluent.kafka.server/authorization"
FORMAT = "CONFLUENT-CLOUDEVENT"
#: The host a decision is replayed from when its event carries no client address: an address no
#: ACL names, so only host-`*` ACLs match it (said in a warning).
NO_ADDRESS = "0.0.0.0"
# An object joined from more lines or characters than this is quarantined unparsed.
GROUP_MAX_LINES = 10_000
GROUP_MAX_CHARS = 4 << 20


def looks_like_events(first_line: str) -> bool:
    """Is a file whose first non-blank line is this one a stream of JSON events (not a log4j log)?"""
    return first_line.lstrip("\ufeff \t").startswith("{")


def file_holds_events(path: str) -> bool:
    """Does this file (gzip undone) hold Confluent audit-log events rather than a log4j log?"""
    from kafka_authz_cli.whatif.auditlog import iter_file_lines

    with open(path, "rb") as fh:
        for line in iter_file_lines(fh, path, ReadStats()):
            if line.strip():
                return looks_like_events(line)
    return False


class Skip(Exception):
    """The event is read but is no Kafka authorization decision (counted with this reason)."""


class Bad(Exception):
    """The event cannot be read as a decision (quarantined with this reason)."""


def decode_event(event, source: str = "") -> AuditDecision:
    """The decision one parsed CloudEvent logs; :class:`Skip` or :class:`Bad` with the reason."""
    if not isinstance(event, dict):
        raise Bad(f"a JSON {type(event).__name__}, not an event object")
    kind = event.get("type")
    if not isinstance(kind, str):
        raise Bad("not a CloudEvent: no 'type'")
    if kind != AUTHORIZATION:
        raise Skip(f"{kind} events (not authorization decisions)")
    data = event.get("data")
    if not isinstance(data, dict):
        raise Bad("authorization event without a 'data' object")
    info = data.get("authorizationInfo")
    if not isinstance(info, dict):
        raise Bad("authorization event without data.authorizationInfo")
    principal = _principal(data)
    resource_type = _enum(info, "resourceType", ResourceType, "resource type")
    operation = _enum(info, "operation", AclOperation, "operation")
    name = info.get("resourceName")
    if not isinstance(name, str):
        raise Bad("data.authorizationInfo.resourceName is missing or not a string")
    pattern = info.get("patternType")
    if pattern is not None and (not isinstance(pattern, str) or pattern.upper() != "LITERAL"):
        raise Bad(f"decision on a {str(pattern)[:20]!r} resource (a request's pattern is always LITERAL)")
    granted = info.get("granted")
    if not isinstance(granted, bool):
        raise Bad("data.authorizationInfo.granted is missing or not true/false")
    method = data.get("methodName")
    return AuditDecision(principal, _host(data), operation, resource_type, name, "LITERAL" if pattern else None,
                         "ALLOWED" if granted else "DENIED", None, _time(event.get("time")),
                         method if isinstance(method, str) else None, None, _rule(info, granted), FORMAT, source)


def _principal(data: dict) -> str:
    auth = data.get("authenticationInfo")
    principal = auth.get("principal") if isinstance(auth, dict) else None
    if not isinstance(principal, str):
        raise Bad("data.authenticationInfo.principal is missing or not a string")
    kind, sep, _ = principal.partition(":")
    if not sep or not kind:
        # Early Confluent Cloud events name users by a path (`/users/123`), not a Kafka principal.
        raise Bad(f"principal {principal[:60]!r} is not TYPE:NAME (a Kafka principal)")
    return principal


def _enum(info: dict, key: str, enum_cls, what: str) -> str:
    raw = info.get(key)
    if not isinstance(raw, str):
        raise Bad(f"data.authorizationInfo.{key} is missing or not a string")
    try:
        return enum_cls.parse(raw).name
    except AclError:
        # Confluent RBAC and Cloud also authorize resources and operations Kafka's ACLs do not have
        # (Connector, Subject, KsqlCluster, Environment, CreateCloudCluster, ...): nothing to replay.
        raise Skip(f"decisions on a {what} Kafka ACLs do not have ({raw[:40]!r})") from None


def _rule(info: dict, granted: bool) -> str | None:
    """What decided, as Confluent logs it; a rule that contradicts the decision is quarantined (as
    the log4j reader does with a MatchingAcl whose permission disagrees)."""
    if info.get("superUserAuthorization") is True:
        if not granted:
            raise Bad("superUserAuthorization but not granted (a super user is always allowed)")
        return Rule.SUPER_USER
    acl = info.get("aclAuthorization")
    if isinstance(acl, dict):
        perm = str(acl.get("permissionType", "")).upper()
        if perm not in ("ALLOW", "DENY"):
            raise Bad(f"aclAuthorization.permissionType {str(acl.get('permissionType'))[:20]!r} is not ALLOW or DENY")
        if (perm == "ALLOW") != granted:
            raise Bad(f"aclAuthorization.permissionType is {perm} but granted is {str(granted).lower()}")
        return f"aclAuthorization(permissionType={perm}, host={acl.get('host', '*')})"
    rbac = info.get("rbacAuthorization")
    if isinstance(rbac, dict):
        return f"rbacAuthorization(role={rbac.get('role')})"
    return None


_ADDRESS_KEYS = ("clientAddress", "client_address", "callerIp")


def _host(data: dict) -> str:
    """The client's IP: requestMetadata.client_address (CP 5.x: Java's InetAddress text, `/10.0.0.1`),
    .callerIp, or clientAddress ([{"ip": ...}] in Cloud), in data.requestMetadata or data itself."""
    for holder in (data.get("requestMetadata"), data):
        if not isinstance(holder, dict):
            continue
        for key in _ADDRESS_KEYS:
            value = holder.get(key)
            if isinstance(value, list) and value:
                value = value[0]
            if isinstance(value, dict):
                value = value.get("ip")
            if isinstance(value, str) and value:
                text = value.rpartition("/")[2]  # InetAddress.toString(): "hostname/ip" or "/ip"
                if text.count(":") == 1 and "." in text:
                    text = text.partition(":")[0]  # ip:port
                try:
                    return java_host_address(text)
                except AclError:
                    raise Bad(f"client address {value[:60]!r} is not an IP address") from None
    return NO_ADDRESS


def _time(value) -> str | None:
    """RFC 3339 `time` as log4j's `yyyy-MM-dd HH:mm:ss,SSS`, in UTC (so hours line up with --since)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise Bad("'time' is not a string")
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise Bad(f"impossible time {value[:40]!r}") from None
    if when.tzinfo is not None:
        when = when.astimezone(timezone.utc)
    return when.strftime("%Y-%m-%d %H:%M:%S,") + f"{when.microsecond // 1000:03d}"


def to_event(d: AuditDecision, event_id: str = "0", cluster: str = "authz") -> dict:
    """The CloudEvent Confluent writes for a decision (CP 7 shape): what `decode_event` reads back."""
    data: dict[str, Any] = {
        "serviceName": f"crn:///kafka={cluster}",
        "methodName": d.request or "kafka.Unknown",
        "resourceName": f"crn:///kafka={cluster}/{d.resource_type.lower()}={d.resource_name}",
        "authenticationInfo": {"principal": d.principal},
        "authorizationInfo": {
            "granted": d.decision == "ALLOWED",
            "operation": AclOperation[d.operation].pascal,
            "resourceType": ResourceType[d.resource_type].pascal,
            "resourceName": d.resource_name,
            "patternType": "LITERAL",
        },
        "requestMetadata": {"client_address": "/" + d.host},
    }
    if d.rule == Rule.SUPER_USER:
        data["authorizationInfo"]["superUserAuthorization"] = True
    event = {"id": event_id, "source": f"crn:///kafka={cluster}", "specversion": "1.0", "type": AUTHORIZATION,
             "datacontenttype": "application/json", "subject": data["resourceName"], "data": data}
    if d.timestamp:
        event["time"] = d.timestamp[:10] + "T" + d.timestamp[11:19] + "." + d.timestamp[20:23] + "Z"
    return event


class EventReader:
    """The line accounting of one stream of events: `feed` physical lines in order, `finish` at the end;
    or `record` one whole event (a topic record). Decisions are returned as they complete."""

    def __init__(self, source: str, stats: ReadStats, quarantine: list[Quarantined]):
        self.source = source
        self.stats = stats
        self.quarantine = quarantine
        self.skipped: dict[str, int] = {}
        self.unaddressed = 0
        self._start = 0
        self._texts: list[str] = []
        self._chars = 0
        self._first_error = ""

    def feed(self, lineno: int, raw: str) -> list[AuditDecision]:
        self.stats.lines += 1
        line = raw.rstrip("\r")
        if self._start:
            return self._continue(lineno, line)
        return self._fresh(lineno, line)

    def _fresh(self, lineno: int, line: str) -> list[AuditDecision]:
        text = line.lstrip("\ufeff")
        if not text.strip() or not text.strip("\x00"):
            self.stats.non_decision_lines += 1
            return []
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as exc:
            if text.startswith("{"):  # a pretty-printed object: joined until it closes at column 0
                self._start, self._texts, self._chars = lineno, [text], len(text)
                self._first_error = _why(exc)
                return []
            return self._reject(f"{self.source}:{lineno}", f"not JSON ({_why(exc)})", text, 1)
        return self._event(value, f"{self.source}:{lineno}", text, 1)

    def _continue(self, lineno: int, line: str) -> list[AuditDecision]:
        if line.startswith("{"):  # a new object at column 0: the open one never closed
            self._close_broken("JSON object never closes before the next one starts")
            return self._fresh(lineno, line)
        self._texts.append(line)
        self._chars += len(line) + 1
        if len(self._texts) > GROUP_MAX_LINES or self._chars > GROUP_MAX_CHARS:
            return self._close_broken(f"JSON object over the reader's limit ({GROUP_MAX_LINES} lines, "
                                      f"{GROUP_MAX_CHARS >> 20} MiB)")
        if line[:1] == "}":
            text = "\n".join(self._texts)
            try:
                value = json.loads(text)
            except (ValueError, RecursionError) as exc:
                return self._close_broken(f"not JSON ({_why(exc)})")
            source, lines = f"{self.source}:{self._start}", len(self._texts)
            self._start = 0
            return self._event(value, source, text, lines)
        return []

    def _close_broken(self, reason: str) -> list[AuditDecision]:
        if len(self._texts) == 1:  # a JSON line cut short (or with trailing garbage): its own parse error
            reason = f"not JSON ({self._first_error})"
        self._reject(f"{self.source}:{self._start}", reason, "\n".join(self._texts[:200]), len(self._texts))
        self._start = 0
        return []

    def record(self, text: str, source: str) -> list[AuditDecision]:
        """One whole event (a topic record's value), counted as one line."""
        self.stats.lines += 1
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as exc:
            return self._reject(source, f"not JSON ({_why(exc)})", text[:100_000], 1)
        return self._event(value, source, text, 1)

    def _event(self, value, source: str, text: str, lines: int) -> list[AuditDecision]:
        try:
            decision = decode_event(value, source)
        except Skip as why:
            self.stats.non_decision_lines += lines
            self.skipped[str(why)] = self.skipped.get(str(why), 0) + 1
            return []
        except Bad as why:
            return self._reject(source, str(why), text, lines)
        stats = self.stats
        stats.decision_lines += lines
        stats.decisions += 1
        stats.by_format[FORMAT] = stats.by_format.get(FORMAT, 0) + 1
        if decision.host == NO_ADDRESS:
            self.unaddressed += 1
        return [decision]

    def _reject(self, source: str, reason: str, text: str, lines: int) -> list[AuditDecision]:
        self.quarantine.append(Quarantined(source, reason, text))
        self.stats.quarantined_lines += lines
        return []

    def finish(self) -> None:
        if self._start:
            self._close_broken("JSON object never closes (the file ends inside it)")
        for reason, n in sorted(self.skipped.items()):
            self.stats.warnings.append(f"{self.source}: {n} event(s) skipped: {reason}")
        if self.unaddressed:
            self.stats.warnings.append(
                f"{self.source}: {self.unaddressed} decision(s) carry no client address: replayed as from "
                f"{NO_ADDRESS}, which only ACLs for host * match")


def _why(exc: BaseException) -> str:
    return str(exc)[:120] if isinstance(exc, ValueError) else "nested too deeply"


def read_event_lines(lines: Iterable[str], source: str, stats: ReadStats,
                     quarantine: list[Quarantined]) -> Iterator[AuditDecision]:
    """Decisions from the physical lines (without terminators) of one file of events, streamed."""
    reader = EventReader(source, stats, quarantine)
    for n, line in enumerate(lines, 1):
        yield from reader.feed(n, line)
    reader.finish()


def read_records(values: Iterable[tuple[str, bytes | None]], source: str, stats: ReadStats,
                 quarantine: list[Quarantined]) -> Iterator[AuditDecision]:
    """Decisions from topic records: (where, value bytes) pairs, each record one event."""
    stats.files += 1
    reader = EventReader(source, stats, quarantine)
    for where, value in values:
        if value is None:  # a tombstone: no event
            stats.lines += 1
            stats.non_decision_lines += 1
            continue
        yield from reader.record(value.decode("utf-8", "replace"), where)
    reader.finish()
