"""Hypothesis strategies for whole audit-log files: every format and layout, hostile names, multi-line
records, forged continuation lines, odd lines, invalid UTF-8, gzip, byte-order marks; and one plain
log for tests that only need an index to answer from (:func:`prefix_granted_reads`). ``SUFFIX``, the logger
every authorizer line ends with, is the tests' own copy (not the reader's), shared by those that write lines."""

from __future__ import annotations

import gzip

from hypothesis import strategies as st

SUFFIX = " (kafka.authorizer.logger)"
TRICKY = [" for request = Fetch with resourceRefCount = 1", " based on rule DefaultDeny", SUFFIX, " is Denied ",
          " is Allowed operation = READ from host = 1.2.3.4 on resource = Topic:LITERAL:", "Topic:LITERAL:", "]",
          "[", "\t", "٣", "é", "\u0001", "MatchingAcl(", ", patternType=LITERAL, principal=", " with ",
          "Principal = ", ") [x]", "(kafka.authorizer.logger) [t", " operation = ", ":", " ", "*"]
PLAIN = ["orders", "payments", "a", "grp-1", "team.events", "x", "CN=svc,OU=ops", "bob", "kafka-cluster"]

def prefix_granted_reads(n: int, users: int, topics: int) -> str:
    """`n` KRaft decision lines, one a second from 10:00:00 (ten seconds, then again): User:u{i % users}
    allowed to READ Topic orders-{i % topics} by a PREFIXED grant on `orders-`."""
    return "".join(
        f"[2026-11-20 10:00:0{i % 10},000] DEBUG Principal = User:u{i % users} is Allowed operation = READ from host "
        f"= 10.0.0.1 on resource = Topic:LITERAL:orders-{i % topics} for request = Fetch with resourceRefCount = 1 "
        f"based on rule MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=orders-, patternType=PREFIXED, "
        f"principal=User:u{i % users}, host=*, operation=READ, permissionType=ALLOW)){SUFFIX}\n" for i in range(n))


names = st.lists(st.one_of(st.sampled_from(PLAIN), st.sampled_from(TRICKY),
                           st.text(st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=4)),
                 min_size=0, max_size=3).map("".join)
simple_names = st.sampled_from(PLAIN)
hosts = st.sampled_from(["10.0.0.1", "10.0.0.2", "0:0:0:0:0:0:0:1", "fe80:0:0:0:0:0:0:1%eth0", "١.٢.٣.٤", "abc"])
ops = st.sampled_from(["READ", "WRITE", "DESCRIBE", "IDEMPOTENT_WRITE", "ALL", "READS"])
types = st.sampled_from(["Topic", "Group", "Cluster", "TransactionalId", "TOPIC", "Tpic"])
levels = st.sampled_from(["INFO", "DEBUG", "TRACE", "WARN", "INFO", "DEBUG", "NOTICE"])
stamps = st.sampled_from(["2026-11-20 10:00:00,001", "2026-11-20 10:59:59,999", "2026-11-20 11:00:00,000",
                          "2026-11-20T12:30:00,5", "2024-02-29 01:00:00,000", "2026-02-29 01:00:00,000",
                          "2026-11-20 24:00:00,000", "2026-11-20 10:00:00"])


def _pascal(op: str) -> str:
    return "".join(p.capitalize() for p in op.split("_"))


@st.composite
def messages(draw) -> str:
    principal = "User:" + draw(st.one_of(simple_names, names))
    name = draw(st.one_of(simple_names, simple_names, names))
    allowed = draw(st.booleans())
    word = "Allowed" if allowed else "Denied"
    host, op, rtype = draw(hosts), draw(ops), draw(types)
    fmt = draw(st.sampled_from(["kraft", "kraft", "kraft", "record", "zk24", "zk24", "pattern", "legacy", "bf2",
                                "prefixed", "nondecision", "garbage"]))
    if fmt in ("kraft", "record", "prefixed"):
        rule = draw(st.sampled_from(["DefaultDeny", "DefaultAllow", "SuperUser", "acl", "acl", "badacl"]))
        if rule in ("acl", "badacl"):
            o, c = ("[", "]") if fmt == "record" else ("(", ")")
            perm = ("ALLOW" if allowed else "DENY") if rule == "acl" else ("DENY" if allowed else "ALLOW")
            acl_name = draw(st.sampled_from([name, "*", name[:2]]))
            pattern = "LITERAL" if acl_name in (name, "*") else "PREFIXED"
            rule = (f"MatchingAcl(acl=StandardAcl{o}resourceType={rtype.upper()}, resourceName={acl_name}, "
                    f"patternType={pattern}, principal={principal}, host=*, operation={op}, permissionType={perm}{c})")
        pat = "PREFIXED" if fmt == "prefixed" else "LITERAL"
        return (f"Principal = {principal} is {word} operation = {op} from host = {host} on resource = "
                f"{rtype}:{pat}:{name} for request = Fetch with resourceRefCount = {draw(st.sampled_from(['1', '12', '-1', '٣']))} "
                f"based on rule {rule}")
    if fmt == "zk24":
        return (f"Principal = {principal} is {word} Operation = {_pascal(op)} from host = {host} on resource = "
                f"{rtype}:LITERAL:{name} for request = Metadata with resourceRefCount = 1")
    if fmt == "bf2":
        return (f"Principal = {principal} is {word} Operation = {_pascal(op)} from host = {host} via listener l1 on "
                f"resource = {rtype}:LITERAL:{name} for request = FETCH with resourceRefCount = 0")
    if fmt == "pattern":
        return f"Principal = {principal} is {word} Operation = {_pascal(op)} from host = {host} on resource = {rtype}:LITERAL:{name}"
    if fmt == "legacy":
        return f"Principal = {principal} is {word} Operation = {_pascal(op)} from host = {host} on resource = {rtype}:{name}"
    if fmt == "nondecision":
        return draw(st.sampled_from([f"principal = {principal} is a super user, allowing operation without checking acls.",
                                     "No acl found for resource Topic:LITERAL:t, authorized = false"]))
    return draw(st.sampled_from(["hello", "", f"Principal = {principal}", "Principal = x is Denied operation = READ"]))


@st.composite
def layouts(draw, message: str) -> str:
    ts, level = draw(stamps), draw(levels)
    kind = draw(st.sampled_from(["apache", "apache", "apache", "iso", "iso_nothread", "cri", "compose", "stern",
                                 "bare", "cfk", "nosuffix", "bom"]))
    if kind == "iso":
        return f"{ts} {level} {message}{SUFFIX} [data-plane-{draw(st.sampled_from(['1', 'x]y', '[z']))}]"
    if kind == "iso_nothread":
        return f"{ts} {level} {message}{SUFFIX}"
    if kind == "cri":
        return f"2026-11-20T10:00:00.123456789Z stdout F [{ts}] {level} {message}{SUFFIX}"
    if kind == "compose":
        return f"kafka-1   | [{ts}] {level} {message}{SUFFIX}"
    if kind == "stern":
        return f"kafka-0 kafka [{ts}] {level} {message}{SUFFIX}"
    if kind == "bare":
        return f"{level} {message}{SUFFIX}"
    if kind == "cfk":
        return f"[{level}] {ts} [qtp-1] kafka.authorizer.logger logAuthorization - {message}"
    if kind == "nosuffix":
        return f"[{ts}] {level} {message}"
    if kind == "bom":
        return f"\ufeff[{ts}] {level} {message}{SUFFIX}"
    return f"[{ts}] {level} {message}{SUFFIX}"


@st.composite
def clean(draw) -> str:
    """A well-formed record as brokers write them (most lines of a real file)."""
    principal = "User:" + draw(simple_names)
    name = draw(simple_names)
    allowed = draw(st.booleans())
    word = "Allowed" if allowed else "Denied"
    host = draw(st.sampled_from(["10.0.0.1", "10.0.0.2", "0:0:0:0:0:0:0:1"]))
    op = draw(st.sampled_from(["READ", "WRITE", "DESCRIBE"]))
    rtype = draw(st.sampled_from(["Topic", "Group"]))
    ts = draw(st.sampled_from(["2026-11-20 10:00:00,001", "2026-11-20 10:59:59,999", "2026-11-20 11:00:00,000",
                               "2026-11-20 12:30:00,500"]))
    level = "TRACE" if draw(st.integers(0, 5)) == 0 else ("DEBUG" if allowed else "INFO")
    if draw(st.booleans()):
        rule = (f"MatchingAcl(acl=StandardAcl(resourceType={rtype.upper()}, resourceName={name}, patternType=LITERAL, "
                f"principal={principal}, host=*, operation={op}, permissionType={'ALLOW' if allowed else 'DENY'}))"
                if draw(st.booleans()) else ("DefaultDeny" if not allowed else "SuperUser"))
        msg = (f"Principal = {principal} is {word} operation = {op} from host = {host} on resource = "
               f"{rtype}:LITERAL:{name} for request = Fetch with resourceRefCount = 1 based on rule {rule}")
    else:
        msg = (f"Principal = {principal} is {word} Operation = {_pascal(op)} from host = {host} on resource = "
               f"{rtype}:LITERAL:{name} for request = Metadata with resourceRefCount = 1")
    layout = draw(st.sampled_from(["apache", "apache", "iso", "cri"]))
    if layout == "iso":
        return f"{ts} {level} {msg}{SUFFIX} [data-plane-kafka-request-handler-1]"
    if layout == "cri":
        return f"2026-11-20T10:00:00.123456789Z stdout F [{ts}] {level} {msg}{SUFFIX}"
    return f"[{ts}] {level} {msg}{SUFFIX}"


@st.composite
def chunks(draw) -> list[str]:
    kind = draw(st.sampled_from(["clean"] * 12 + ["line"] * 4 + ["multiline", "forged", "odd", "crlf"]))
    if kind == "clean":
        return [draw(clean())]
    if kind == "line":
        return [draw(layouts(draw(messages())))]
    if kind == "crlf":
        return [draw(layouts(draw(messages()))) + "\r"]
    if kind in ("multiline", "forged"):
        ts = draw(stamps)
        head = f"[{ts}] INFO Principal = User:eve is Denied operation = READ from host = 10.0.0.9 on resource = Group:LITERAL:a"
        if kind == "forged":
            tail = draw(layouts(draw(messages())))
        else:
            tail = "b for request = JoinGroup with resourceRefCount = 1 based on rule DefaultDeny" + SUFFIX
        return [head] + [draw(st.sampled_from(["", "  more", "x"])) for _ in range(draw(st.integers(0, 2)))] + [tail]
    return [draw(st.sampled_from(["", "   ", "\x00\x00\x00", "java.lang.IllegalStateException: boom",
                                  "\tat kafka.server.KafkaApis.handle(KafkaApis.scala:1)",
                                  "[2026-11-20 10:00:00,000] INFO something else (kafka.server.KafkaServer)",
                                  "[2026-11-20 10:00:00,000] INFO Principal = User:x is Denied operation = READ"]))]


@st.composite
def log_files(draw) -> list[tuple[str, bytes]]:
    """A few files (name, bytes): plain, gzip (sometimes truncated), with invalid UTF-8 spliced in."""
    files = []
    for i in range(draw(st.integers(1, 3))):
        lines = []
        for _ in range(draw(st.integers(1, 60))):
            lines += draw(chunks())
        data = "\n".join(lines).encode("utf-8")
        if draw(st.booleans()):
            data += b"\n"
        if draw(st.integers(0, 5)) == 0:
            cut = draw(st.integers(0, len(data)))
            data = data[:cut] + b"\xe2\x82\xff" + data[cut:]
        name = f"kafka-authorizer.log.2026-11-20-{10 + i:02d}"
        if draw(st.integers(0, 3)) == 0:
            data = gzip.compress(data)
            if draw(st.booleans()):
                data = data[:max(10, len(data) - draw(st.integers(1, 30)))]
            name += ".gz"
        files.append((name, data))
    return files
