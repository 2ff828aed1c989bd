"""The per-line shape, in the JVM, and the one scan of the logs.

Per line, the JVM recognises the stock layout `[%d] %p %m (%c)` (alone or behind the CRI, docker
compose and stern prefixes the reader strips) and the thread layout `%d %p %m (%c) [%t]` with byte
tests and a regex on the timestamp, and takes other layouts apart with anchored Spark SQL
expressions. Lines are aggregated per distinct (hour, `LEVEL message`); the level and the calendar
date are checked once per group. Every other line - multi-line records, foreign lines, odd layouts -
keeps its file and its position and goes to the reference reader (:mod:`.odd_lines`).
"""

from __future__ import annotations

from kafka_authz_cli.whatif.auditlog import LOGGER_SUFFIX

_SEP_THREAD = LOGGER_SUFFIX + " ["


_HMS = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"


def _date_re() -> str:
    """A calendar date `yyyy-MM-dd` that exists (leap years included), in Java regex."""
    y = "(?!0000)[0-9]{4}"
    md = r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
    leap = r"(?!0000)(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29"
    return rf"(?:{y}-{md}|{leap})"


def _ts_re() -> str:
    """A log4j %d that names a real instant (what auditlog.valid_timestamp accepts), in Java regex."""
    return rf"{_date_re()}[ T]{_HMS}(?:[,.][0-9]{{1,9}})?"


_HOUR_RE = rf"^{_date_re()} (?:[01][0-9]|2[0-3])$"


_LEVELS = "TRACE|DEBUG|INFO|WARN|ERROR"
# The collection prefixes auditlog's _NOISE strips, in ASCII: CRI, docker compose, stern (before "[").
_CRI, _COMPOSE, _STERN = (r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z (?:stdout|stderr) [FP] ", r"[A-Za-z0-9_.-]+ +\| ",
                          r"[A-Za-z0-9_.-]+ [A-Za-z0-9_.-]+ ")
_PREFIX_RE = (rf"^(?:{_CRI}|{_COMPOSE}|{_STERN}(?=\[[0-9]{{4}}-))?"
              rf"(?:\[{_ts_re()}\]|{_ts_re()}) (?:{_LEVELS}) ")


# Nearly every line of a real log is in one of two layouts: Kafka's stock `[%d] %p %m (%c)` (alone or
# behind a CRI, docker compose or stern prefix, which holds no "[") and the thread form
# `%d %p %m (%c) [%t]` (Strimzi). Both are recognised with byte tests and one small regex on the
# timestamp (and one on the prefix when there is one); the date's calendar and the level are checked
# once per distinct (hour, rest) group (see fast_groups), not per line. Every other line - and any line
# whose thread form is ambiguous - goes through the general shape.
_HH = _HMS + ",[0-9]{3}"
_BRACKET_HEAD = rf"^\[[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}} {_HH}\] $"  # 26 bytes
_THREAD_HEAD = rf"^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}} {_HH} $"  # 24 bytes
_PREFIXES = rf"^(?:{_CRI}|{_COMPOSE}|{_STERN})$"


def _ms_in_hour(ts, at=1):
    """The `yyyy-MM-dd HH:mm:ss,SSS` at byte `at` (an int or a column) of a column, as milliseconds
    within its hour."""
    from pyspark.sql import functions as F

    return (F.substring(ts, at + 14, 2).cast("int") * 60000 + F.substring(ts, at + 17, 2).cast("int") * 1000
            + F.substring(ts, at + 20, 3).cast("int"))


def _closes_thread(after):
    """What follows the first thread separator is a thread name and its "]": no other "]" in it."""
    from pyspark.sql import functions as F

    return F.octet_length(F.substring_index(after, "]", 1)) == F.octet_length(after) - 1


def shape_lines(lines):
    """Per line, JVM side: does it end a record in a layout the JVM takes apart (`fast`), and if so its
    hour, its milliseconds within the hour and its `rest` (`LEVEL message`, as bytes): the key lines
    are aggregated on. Byte-exact cuts at ASCII boundaries, byte-level functions only (counting
    characters costs more than reading the line); every intermediate value is its own column so that
    nothing is computed twice."""
    from pyspark.sql import functions as F

    s = _general_layout(_stock_layouts(lines))
    value = F.col("value")
    k, n, t = F.col("k"), F.col("len"), F.col("ts")
    # The JVM takes log4j's own `,SSS`; other fractions go to the reader.
    stock_ts = F.coalesce((F.octet_length(t) == 23) & (F.substring(t, 20, 1) == ","), F.lit(False))
    general = F.col("general") & stock_ts
    bracket, thread = F.col("bracket"), F.col("thread")
    b = value.cast("binary")
    rest = (F.when(bracket, F.substring(b, k + 27, n - k - 52))
            .when(thread, F.substring(b, 25, F.col("pre") - 24))
            .when(general, F.concat(F.col("level").cast("binary"), F.lit(b" "), F.col("msg"))))
    hour = F.when(bracket, F.substring(value, k + 2, 13)).when(thread, F.substring(value, 1, 13)) \
        .when(general, F.substring(t, 1, 13))
    ms = F.when(bracket, _ms_in_hour(value, k + 2)).when(thread, _ms_in_hour(value, 1)).when(general, _ms_in_hour(t))
    return s.select("file", "block", "id", "value", (bracket | thread | general).alias("fast"), hour.alias("hour"),
                    ms.alias("ms"), rest.alias("rest"))


_BASE = ["file", "block", "id", "value"]


def _stock_layouts(lines):
    """The stock and the thread layout, by byte tests: `bracket` (and `k`, the prefix's bytes), `thread`
    (and `pre`, the bytes before its separator)."""
    from pyspark.sql import functions as F

    base = _BASE
    value, rid = F.col("value"), F.col("id")
    # Bracket form: k bytes of prefix (none, or a collection prefix) before the first "[". Only lines
    # that end as the stock layout does need k: on a thread-layout line the first "[" is the thread's,
    # at the end, and searching for it cost a fifth of such a line's scan.
    apache = value.endswith(LOGGER_SUFFIX)
    s = lines.select(*base, F.when(apache, F.octet_length(F.substring_index(value, "[", 1))).alias("k"),
                     F.octet_length(value).alias("len"))
    k, n = F.col("k"), F.col("len")
    # The prefix, when there is one, is ASCII: character positions are byte positions from there on.
    bracket = F.coalesce(apache & (rid >= 0) & ((k == 0) | F.substring(value, 1, k).rlike(_PREFIXES))
                         & F.substring(value, k + 1, 26).rlike(_BRACKET_HEAD), F.lit(False))
    s = s.select(*base, "k", "len", bracket.alias("bracket"))
    # Thread form, with exactly one separator and no "]" in the thread name but the last character.
    pre = F.octet_length(F.substring_index(value, _SEP_THREAD, 1))
    after = F.substring_index(value, _SEP_THREAD, -1)
    # (no separator: `pre` is the whole line and `single` fails)
    thread = ~F.col("bracket") & (rid >= 0) & value.endswith("]") & F.substring(value, 1, 24).rlike(_THREAD_HEAD)
    s = s.select(*base, "k", "len", "bracket", F.when(thread, pre).alias("pre"), F.when(thread, after).alias("after"))
    pre, after = F.col("pre"), F.col("after")
    single = pre + len(_SEP_THREAD) + F.octet_length(after) == n
    return s.select(*base, "k", "len", "bracket", "pre",
                    F.coalesce(single & _closes_thread(after), F.lit(False)).alias("thread"))


def _general_layout(s):
    """Any other layout, by anchored expressions (lines of a known layout skip them): `general` (a
    record in a layout the JVM takes apart), its `msg`, `level` and `ts`."""
    from pyspark.sql import functions as F

    base = _BASE
    value, rid = F.col("value"), F.col("id")
    known = F.col("bracket") | F.col("thread")
    # The general shape, for the other lines only (CASE WHEN is lazy: known lines skip the regex).
    # auditlog strips trailing CRs; only lines that have one pay for the trim
    v = F.when(value.endswith("\r"), F.expr("TRIM(TRAILING '\\r' FROM value)")).otherwise(value)
    s = s.select(*base, "k", "len", "bracket", "pre", "thread", F.when(~known, v).alias("v"))
    head = F.substring(F.col("v").cast("binary"), 1, 160).cast("string")
    keep = [*base, "k", "len", "bracket", "pre", "thread"]
    s = s.select(*keep, "v", F.regexp_extract(head, _PREFIX_RE, 0).alias("pfx"))
    v, pfx = F.col("v"), F.col("pfx")
    s = s.select(*keep, "v", "pfx", F.octet_length(pfx).alias("plen"), F.octet_length(v).alias("vlen"))
    plen, vlen = F.col("plen"), F.col("vlen")
    # Thread form "... (kafka.authorizer.logger) [thread]": cut at the first separator, which must be
    # followed by no "]" but the last character (auditlog's _THREAD_SUFFIX, searched leftmost).
    before_sep = F.octet_length(F.substring_index(v, _SEP_THREAD, 1))
    s = s.select(*keep, "v", "pfx", "plen", "vlen",
                 F.when(plen == 0, None).when(v.endswith(LOGGER_SUFFIX), vlen - plen - len(LOGGER_SUFFIX))
                 .when(v.endswith("]") & v.contains(_SEP_THREAD), before_sep).alias("cut"),
                 v.endswith(LOGGER_SUFFIX).alias("apache"))
    cut = F.col("cut")
    tail = F.substring(v.cast("binary"), cut + len(_SEP_THREAD) + 1, vlen).cast("string")
    msg_len = F.when(F.col("apache"), cut).when(cut.isNotNull() & _closes_thread(tail), cut - plen)
    s = s.select(*keep, "v", "pfx", "plen", msg_len.alias("mlen"))
    mlen = F.col("mlen")
    general = F.coalesce((mlen >= 0) & (rid >= 0), F.lit(False))
    s = s.select(*keep, "v", "pfx", "plen", "mlen", general.alias("general"))
    # level: the last token of the prefix; time: inside [..], or the one/two tokens before the level
    s = s.select(*keep, "general",
                 F.when(F.col("general"), F.substring(F.col("v").cast("binary"), plen + 1, mlen)).alias("msg"),
                 F.when(F.col("general"), F.rtrim(pfx)).alias("p"))
    p = F.col("p")
    s = s.select(*keep, "general", "msg", F.substring_index(p, " ", -1).alias("level"),
                 F.expr("substring(p, 1, octet_length(p) - octet_length(substring_index(p, ' ', -1)) - 1)").alias("bfr"))
    bfr = F.col("bfr")
    last = F.substring_index(bfr, " ", -1)
    ts = (F.when(bfr.endswith("]"), F.substring_index(F.expr("substring(bfr, 1, octet_length(bfr) - 1)"), "[", -1))
          .when(last.contains("T"), last).otherwise(F.substring_index(bfr, " ", -2)))
    return s.select(*keep, "general", "msg", "level", F.translate(ts, "T", " ").alias("ts"))


def grouped_lines(shaped):
    """One scan, one hash aggregation with two grouping sets: per split (kind B), its lines, first line
    and first fast line (for line numbers); and per distinct (hour, rest) of the fast lines (kind F),
    their count and first/last time - or, for every other line, the line itself with its position
    (kind S, or W for a decoder warning). Its bytes are a grouping key, so every aggregation buffer
    is fixed-width (a hash aggregation that spills), and the fast groups are global, not per split:
    what is kept for the later phases is about as large as the distinct requests, not the logs."""
    from pyspark.sql import functions as F

    fast, rid = F.col("fast"), F.col("id")
    rows = shaped.select("file", "block", "hour", "rest", F.when(~fast, F.col("file")).alias("sfile"),
                         F.when(~fast, F.col("block")).alias("sblock"), F.when(~fast, rid).alias("rid"),
                         F.when(~fast, F.col("value").cast("binary")).alias("raw"), "ms", "id", "fast")
    keys = ["hour", "rest", "sfile", "sblock", "rid", "raw"]
    agg = rows.groupingSets([keys, ["file", "block"]], *keys, "file", "block").agg(
        F.grouping("file").alias("g"), F.count(F.when(rid >= 0, 1)).alias("n"), F.min("ms").alias("tmin"),
        F.max("ms").alias("tmax"), F.min(F.when(rid >= 0, rid)).alias("bmin"),
        F.min(F.when(fast, rid)).alias("fmin"))
    kind = (F.when(F.col("g") == 0, "B").when(F.col("rest").isNotNull(), "F").when(F.col("rid") >= 0, "S")
            .otherwise("W"))
    return agg.select(kind.alias("kind"), F.coalesce("file", "sfile").alias("file"),
                      F.coalesce("block", "sblock").alias("block"), "hour", "rest", "rid", "raw", "n", "tmin", "tmax",
                      "bmin", "fmin")


def fast_groups(stage1):
    """The fast groups taken apart: level and message, and whether the group really is a record (a
    valid level and calendar date: the stock path checks these per group, not per line)."""
    from pyspark.sql import functions as F

    rest = F.col("rest")
    level = F.substring_index(rest.cast("string"), " ", 1)
    g = stage1.where("kind = 'F'").select("hour", "rest", "n", "tmin", "tmax", level.alias("level"))
    lv = F.octet_length(F.col("level"))
    mlen = F.octet_length(rest) - lv - 1
    valid = F.col("level").isin(*_LEVELS.split("|")) & (mlen >= 0) & F.col("hour").rlike(_HOUR_RE)
    return g.select("hour", "rest", "n", "tmin", "tmax", "level",
                    F.when(valid, F.substring(rest, lv + 2, mlen).cast("string")).alias("msg"), valid.alias("valid"))
