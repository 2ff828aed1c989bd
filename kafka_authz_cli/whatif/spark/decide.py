"""Deciding the distinct requests and the report: on the executors (Arrow batches, the ACL sets
broadcast), or on the driver after one collect; either way as :mod:`kafka_authz_cli.whatif.replay`
decides and classifies them."""

from __future__ import annotations

from kafka_authz_cli.acl import AclBinding, BrokerSettings, StandardAuthorizer
from kafka_authz_cli.whatif.replay import (
    Aggregate,
    ChangedRequest,
    Summary,
    Verdict,
    WhatIfReport,
    assemble_report,
    build_report,
    classify,
    decide,
    mismatch_row,
)
from kafka_authz_cli.whatif.spark.aggregate import KEY
from kafka_authz_cli.whatif.spark.progress import StatusProgress
from kafka_authz_cli.whatif.spark.session import materialize, release

_DECIDED_SCHEMA = ("principal string, host string, operation string, resource_type string, resource_name string, "
                   "count long, visible long, allowed long, denied long, first_seen string, last_seen string, "
                   "rule string, kind string, before_rule string, after_rule string, after_acl int, "
                   "comparable int, reproduced int, mismatch boolean, mixed boolean, current_decision string, "
                   "current_rule string")


def _decide_worker(acls_bc):
    def run(batches):
        import pyarrow as pa

        proposed, current, settings = acls_bc.value
        after_authz = StandardAuthorizer(proposed, settings)
        before_authz = StandardAuthorizer(current, settings) if current is not None else None
        index = {a: i for i, a in enumerate(proposed)}
        names = [f.split()[0] for f in _DECIDED_SCHEMA.split(", ")]
        for batch in batches:
            cols = {n: batch.column(n).to_pylist() for n in batch.schema.names}
            keys = list(zip(*(cols[k] for k in KEY)))
            after = decide(keys, after_authz)
            before = decide(keys, before_authz) if before_authz is not None else None
            out: dict[str, list] = {n: [] for n in names}
            for i, key in enumerate(keys):
                agg = Aggregate(cols["count"][i], cols["visible"][i], cols["allowed"][i], cols["denied"][i],
                                cols["first_seen"][i], cols["last_seen"][i], rule=cols["rule"][i])
                a = after[key]
                b = before[key] if before is not None else None
                kind, _, before_rule = classify(agg, a, b)
                logged = agg.logged
                comparable = b is not None and logged != "MIXED"
                agrees = b is not None and b.decision == logged
                for n, val in zip(KEY, key):
                    out[n].append(val)
                for n in ("count", "visible", "allowed", "denied", "first_seen", "last_seen", "rule"):
                    out[n].append(cols[n][i])
                out["kind"].append(kind)
                out["before_rule"].append(before_rule)
                out["after_rule"].append(a.rule)
                out["after_acl"].append(index.get(a.acl, -1) if a.acl is not None else -1)
                out["comparable"].append(int(comparable))
                out["reproduced"].append(int(comparable and agrees))
                out["mismatch"].append(bool(comparable and not agrees))
                out["mixed"].append(logged == "MIXED")
                out["current_decision"].append(b.decision if b is not None else None)
                out["current_rule"].append(b.rule if b is not None else None)
            types = {"count": pa.int64(), "visible": pa.int64(), "allowed": pa.int64(), "denied": pa.int64(),
                     "after_acl": pa.int32(), "comparable": pa.int32(), "reproduced": pa.int32(),
                     "mismatch": pa.bool_(), "mixed": pa.bool_()}
            yield pa.record_batch([pa.array(out[n], types.get(n, pa.string())) for n in names], names=names)
    return run


def report_from(spark, per_key, proposed: tuple[list[AclBinding], BrokerSettings],
                current: tuple[list[AclBinding], BrokerSettings] | None, hourly,
                progress: StatusProgress | None = None, decide_on: str = "executors") -> WhatIfReport:
    """Decide each distinct request (on the executors, or on the driver after one collect) and report."""
    from pyspark.sql import functions as F

    progress = progress or StatusProgress(spark, None)
    acls = list(dict.fromkeys(proposed[0]))
    settings = proposed[1]
    if decide_on == "driver":
        progress.set("collecting distinct requests")
        table = per_key.toArrow()
        hours = {}
        per_hour = hourly.where("hour IS NOT NULL").groupBy(*KEY, "hour").agg(F.sum("count").alias("count"))
        for r in per_hour.groupBy(*KEY).agg(
                F.map_from_entries(F.collect_list(F.struct("hour", "count"))).alias("hours")).collect():
            hours[tuple(r[k] for k in KEY)] = dict(r.hours)
        aggs = {}
        cols = table.to_pydict()
        for i in range(table.num_rows):
            key = tuple(cols[k][i] for k in KEY)
            aggs[key] = Aggregate(cols["count"][i], cols["visible"][i], cols["allowed"][i], cols["denied"][i],
                                  cols["first_seen"][i], cols["last_seen"][i], hours.get(key, {}), cols["rule"][i],
                                  cols["rule_at"][i] or "")
        progress.set("deciding distinct requests")
        after = decide(aggs, StandardAuthorizer(acls, settings))
        before = decide(aggs, StandardAuthorizer(*current)) if current is not None else None
        return build_report(aggs, after, acls, before)
    acls_bc = spark.sparkContext.broadcast((acls, current[0] if current is not None else None, settings))
    progress.set("deciding distinct requests")
    decided = materialize(per_key.mapInArrow(_decide_worker(acls_bc), _DECIDED_SCHEMA))
    try:
        totals = decided.agg(F.count(F.lit(1)).alias("distinct"), F.sum("count").alias("decisions"),
                             F.sum("allowed").alias("allowed"), F.sum("denied").alias("denied"),
                             F.sum("comparable").alias("comparable"), F.sum("reproduced").alias("reproduced"),
                             F.max("mixed").alias("mixed"), F.collect_set("after_acl").alias("used")).collect()[0]
        summary = Summary(totals.distinct, totals.decisions or 0, totals.allowed or 0, totals.denied or 0,
                          totals.comparable or 0, totals.reproduced or 0, bool(totals.mixed))
        progress.set("collecting the changes")
        for r in decided.where("mismatch").orderBy(*KEY).limit(20).collect():
            key, agg = _decided_row(r)
            summary.mismatches.append((key, mismatch_row(key, agg, Verdict(r.current_decision, r.current_rule, None))))
        changed_df = decided.where("kind IS NOT NULL")
        changed = []
        for r in changed_df.collect():
            key, agg = _decided_row(r)
            changed.append(ChangedRequest(key, agg, r.kind, r.before_rule, r.after_rule))
        timeline: dict[str, dict[str, int]] = {}
        if changed:
            kinds = changed_df.select(*KEY, "kind")
            for r in hourly.where("hour IS NOT NULL").join(kinds, KEY).groupBy("hour", "kind").agg(
                    F.sum("count").alias("n")).collect():
                slot = timeline.setdefault(r.hour, {"newly_denied": 0, "newly_allowed": 0})
                slot[r.kind] += r.n
        used = {acls[i] for i in totals.used if i is not None and i >= 0}
        return assemble_report(changed, summary, timeline, acls, used, current is not None)
    finally:
        release(decided)


def _decided_row(r) -> tuple[tuple, Aggregate]:
    """A row of the decided table back to the request key and its aggregate."""
    key = tuple(r[k] for k in KEY)
    return key, Aggregate(r["count"], r.visible, r.allowed, r.denied, r.first_seen, r.last_seen, rule=r.rule)
