"""The distinct messages of the fast groups: fields of the KRaft and ZK 2.4+ shapes extracted in the
JVM, each message also read once by the reference reader (:mod:`kafka_authz_cli.whatif.auditlog`),
which has the last word; and a message's identity for the joins that follow (two hashes)."""

from __future__ import annotations

import itertools

from kafka_authz_cli.acl import AclOperation, ResourceType, Rule
from kafka_authz_cli.whatif.auditlog import classify_message
from kafka_authz_cli.whatif.spark.session import materialize

_KRAFT_OPS = "|".join(m.name for m in AclOperation.concrete())
_ZK_OPS = "|".join(m.pascal for m in AclOperation.concrete())
_PASCAL_TYPES = "|".join(m.pascal for m in ResourceType.concrete())
_HOST = r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}(?:%[A-Za-z0-9_.-]+)?"
_RULE = "|".join(Rule) + r"|MatchingAcl\(acl=StandardAcl[(\[].*[)\]]\)"
_KRAFT_RE = (rf"(?s)^Principal = (.*?) is (Allowed|Denied) operation = ({_KRAFT_OPS}) from host = ({_HOST}) on "
             rf"resource = ({_PASCAL_TYPES}):LITERAL:(.*) for request = ([A-Za-z_]+|[0-9]+) with resourceRefCount = "
             rf"(-?[0-9]+) based on rule ({_RULE})$")
_ZK_RE = (rf"(?s)^Principal = (.*?) is (Allowed|Denied) Operation = ({_ZK_OPS}) from host = ({_HOST}) on "
          rf"resource = ({_PASCAL_TYPES}):LITERAL:(.*) for request = ([A-Za-z_]+|[0-9]+) with resourceRefCount = "
          r"(-?[0-9]+)$")


def _jvm_fields(msgs):
    """KRaft / ZK 2.4+ fields of each distinct message, in the JVM (one regex pass each, groups split)."""
    from pyspark.sql import functions as F

    m = F.col("msg")
    sep = "\u0001"
    kraft = F.split(F.regexp_replace(m, _KRAFT_RE, sep + "K" + sep + sep.join(f"${i}" for i in range(1, 10))), sep)
    zk = F.split(F.regexp_replace(m, _ZK_RE, sep + "Z" + sep + sep.join(f"${i}" for i in range(1, 9))), sep)
    ok = F.is_valid_utf8(m) & ~m.contains(sep)
    parts = F.when(ok & m.startswith("Principal = ") & (F.get(kraft, 1) == "K"), kraft) \
        .when(ok & m.startswith("Principal = ") & (F.get(zk, 1) == "Z"), zk)
    op_map = F.create_map(*itertools.chain.from_iterable(
        (F.lit(x), F.lit(o.name)) for o in AclOperation.concrete() for x in {o.name, o.pascal}))
    type_map = F.create_map(*itertools.chain.from_iterable(
        (F.lit(t.pascal), F.lit(t.name)) for t in ResourceType.concrete()))
    p = F.col("parts")
    rule = F.when(F.get(p, 1) == "K", F.get(p, 10))
    return msgs.select("msg", "n", parts.alias("parts")).select(
        F.col("msg").cast("binary").alias("msg"), "n",
        F.get(p, 2).alias("j_principal"), F.get(p, 5).alias("j_host"),
        F.element_at(op_map, F.get(p, 4)).alias("j_operation"),
        F.element_at(type_map, F.get(p, 6)).alias("j_resource_type"), F.get(p, 7).alias("j_resource_name"),
        F.when(F.get(p, 3) == "Allowed", "ALLOWED").when(F.get(p, 3) == "Denied", "DENIED").alias("j_decision"),
        rule.alias("j_rule"),
        F.when(F.get(p, 1) == "Z", "F-ZK24").when(rule.contains("StandardAcl["), "F-KRAFT-RECORD")
        .when(F.get(p, 1) == "K", "F-KRAFT").alias("j_format"))


_CLASS_SCHEMA = ("msg string, n long, cls string, principal string, host string, operation string, resource_type string, "
                 "resource_name string, decision string, rule string, format string, reason string, agree boolean")


def _classify_worker(batches):
    """The reference reader on each distinct message; JVM fields are kept where it agrees."""
    import pyarrow as pa

    names = ["principal", "host", "operation", "resource_type", "resource_name", "decision", "rule", "format"]
    for batch in batches:
        msgs = batch.column("msg")
        jvm = [batch.column("j_" + n).to_pylist() for n in names]
        out: dict[str, list] = {n: [] for n in ["cls"] + names + ["reason", "agree"]}
        for i, raw in enumerate(msgs.to_pylist()):
            c = classify_message(raw.decode("utf-8", "replace"))
            out["cls"].append(c[0])
            if c[0] == "D":
                principal, host, op, rtype, name, _, decision, _, _, rule, fmt = c[1:]
                mine = [principal, host, op, rtype, name, decision, rule, fmt]
                theirs = [col[i] for col in jvm]
                out["agree"].append(theirs[0] is None or theirs == mine)
                for n, val in zip(names, mine):
                    out[n].append(val)
                out["reason"].append(None)
            else:
                for n in names:
                    out[n].append(None)
                out["reason"].append(c[1] if c[0] == "Q" else None)
                out["agree"].append(jvm[0][i] is None)
        yield pa.record_batch([msgs.cast(pa.binary()), batch.column("n")]
                              + [pa.array(out[n], pa.bool_() if n == "agree" else pa.string())
                                 for n in ["cls"] + names + ["reason", "agree"]],
                              names=["msg", "n", "cls"] + names + ["reason", "agree"])


def msg_id(msg):
    """A message as two independent 64-bit hashes (xxHash64 under two seeds): what the fast groups and
    their message's fields are joined on, so that the join moves 16 bytes a row instead of the message.
    Used only when one-to-one on the run's distinct messages (checked: a crafted collision falls back
    to joining on the message itself)."""
    from pyspark.sql import functions as F

    return [F.xxhash64(msg).alias("h1"), F.xxhash64(F.lit(0x5EED), msg).alias("h2")]


def classified_messages(fast):
    """Each distinct message of the fast groups with its line count `n`, its class `cls` (D a decision,
    N another line, Q quarantined), its fields, whether the JVM's fields agree with the reference
    reader's, and its id (h1, h2); materialized (the caller releases it)."""
    from pyspark.sql import functions as F

    msgs = fast.groupBy("msg").agg(F.sum("n").alias("n"))
    return materialize(_jvm_fields(msgs).mapInArrow(_classify_worker, _CLASS_SCHEMA.replace("msg string", "msg binary"))
                       .withColumn("msg", F.col("msg").cast("string")).select("*", *msg_id(F.col("msg"))))
