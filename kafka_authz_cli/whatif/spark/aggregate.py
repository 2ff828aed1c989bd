"""Distinct requests aggregated in Spark SQL: per (request, hour) from the fast groups and the odd
lines, and per request from those (the same sums, times and latest rule as
:class:`kafka_authz_cli.whatif.replay.Aggregate`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_authz_cli.whatif.spark import messages
from kafka_authz_cli.whatif.spark.session import materialize

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

KEY = ["principal", "host", "operation", "resource_type", "resource_name"]


def _ts_from(hour, ms):
    """An hour (`yyyy-MM-dd HH`) and milliseconds within it back to log4j's `yyyy-MM-dd HH:mm:ss,SSS`."""
    from pyspark.sql import functions as F

    def pad(c, n):
        return F.lpad(c.cast("string"), n, "0")

    return F.when(ms.isNotNull(), F.concat(hour, F.lit(":"), pad(F.floor(ms / 60000), 2), F.lit(":"),
                                           pad(F.floor(ms / 1000) % 60, 2), F.lit(","), pad(ms % 1000, 3)))


# A rule's rank (among the run's distinct rules, in Spark's string order) in the low bits, the
# millisecond of the hour it was last logged at (< 2**22) above them: max() of the two together picks
# the latest rule and, at the same millisecond, the greatest - what merge_hourly's struct max picks.
_RANK_BITS = 40


def hourly_aggregates(fast, classes, odd, cached: list) -> tuple[DataFrame, str]:
    """Per (request, hour) aggregates of the fast groups and the odd lines' decisions, and what the
    groups were joined to their fields on. The fast groups aggregate with fixed-width buffers only
    (times as milliseconds within the hour, the last rule as a rank), which Spark does with a hash
    aggregation; strings in a buffer force a sort-based one (with the join on the message text: 8.2 s
    for 10 M lines, 7.4 s now). The odd lines' requests, usually none, merge with the strings they carry."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    decided = classes.where("cls = 'D'")
    ranked = materialize(decided.where("rule IS NOT NULL").select("rule").distinct()
                         .select("rule", F.dense_rank().over(Window.orderBy("rule")).cast("long").alias("rrank")))
    cached.append(ranked)
    d = decided.join(ranked, "rule", "left")
    one_to_one = classes.groupBy("h1", "h2").count().where("count > 1").limit(1).count() == 0
    if one_to_one:
        # (looked up on its module: the classes were given their ids by the same function)
        on, ids = ["h1", "h2"], messages.msg_id(F.col("msg"))
    else:
        on, ids = ["msg"], ["msg"]
    f = fast.select(*ids, "hour", "n", "tmin", "tmax", "level").join(d.select(*on, *KEY, "decision", "rrank"), on)
    n = F.col("n")
    per = f.groupBy(*KEY, "hour").agg(
        F.sum(n).alias("count"), F.sum(F.when(F.col("level") != "TRACE", n).otherwise(0)).alias("visible"),
        F.sum(F.when(F.col("decision") == "ALLOWED", n).otherwise(0)).alias("allowed"),
        F.sum(F.when(F.col("decision") == "DENIED", n).otherwise(0)).alias("denied"),
        F.min("tmin").alias("tmin"), F.max("tmax").alias("tmax"),
        F.max(F.shiftleft(F.col("tmax").cast("long"), _RANK_BITS) + F.col("rrank")).alias("best"))
    best, hour = F.col("best"), F.col("hour")
    hourly = per.withColumn("rrank", best.bitwiseAND((1 << _RANK_BITS) - 1)).join(ranked, "rrank", "left").select(
        *KEY, "hour", "count", "visible", "allowed", "denied", _ts_from(hour, F.col("tmin")).alias("first_seen"),
        _ts_from(hour, F.col("tmax")).alias("last_seen"),
        _ts_from(hour, F.shiftright(best, _RANK_BITS)).alias("rule_at"), "rule")
    slow = odd.where("kind = 'D'").select(*KEY, "hour", "count", "visible", "allowed", "denied", "first_seen",
                                          "last_seen", "rule_at", "rule")
    if slow.limit(1).count() > 0:
        # (an untimed request has no hour: it meets no fast group, and merges with its own kind)
        keys = [*KEY, "hour"]
        touched = slow.select(*keys).distinct()
        hourly = hourly.join(touched, keys, "left_anti").unionByName(
            merge_hourly(hourly.join(touched, keys, "left_semi").unionByName(slow), ["hour"]))
    return hourly, "+".join(on)


def merge_hourly(rows, extra: list[str]):
    """Aggregate rows of the hourly schema by request (+ `extra` columns) in Spark SQL."""
    from pyspark.sql import functions as F

    best = F.max(F.when(F.col("rule").isNotNull(), F.struct(F.coalesce(F.col("rule_at"), F.lit("")).alias("at"),
                                                             F.col("rule").alias("rule"))))
    out = rows.groupBy(*KEY, *extra).agg(
        F.sum("count").alias("count"), F.sum("visible").alias("visible"), F.sum("allowed").alias("allowed"),
        F.sum("denied").alias("denied"), F.min("first_seen").alias("first_seen"),
        F.max("last_seen").alias("last_seen"), best.alias("best"))
    return out.select(*KEY, *extra, "count", "visible", "allowed", "denied", "first_seen", "last_seen",
                      F.col("best.at").alias("rule_at"), F.col("best.rule").alias("rule"))


def per_key(hourly):
    return merge_hourly(hourly, [])
