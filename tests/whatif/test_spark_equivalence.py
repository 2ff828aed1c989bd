"""The Spark pipeline gives exactly what the in-process replay gives: line accounting, quarantine, report.

Generated logs mix every format and layout, hostile names, multi-line records and forged continuation
lines; Spark's file splits are forced down to a few hundred bytes so that records, runs and groups
straddle split boundaries."""

import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from kafka_authz_cli.acl import BrokerSettings
from kafka_authz_cli.acl.engine import StandardAuthorizer
from kafka_authz_cli.acl.model import AclBinding
from kafka_authz_cli.whatif.auditlog import ReadStats, read_stream
from kafka_authz_cli.whatif.replay import replay
from tests.whatif.logs_strategy import log_files

SETTINGS = BrokerSettings(super_users="User:admin")
PROPOSED = [AclBinding.of("TOPIC", "orders", "LITERAL", "User:bob", "*", "READ", "ALLOW"),
            AclBinding.of("TOPIC", "team", "PREFIXED", "User:a", "*", "ALL", "ALLOW"),
            AclBinding.of("GROUP", "*", "LITERAL", "User:eve", "*", "READ", "ALLOW"),
            AclBinding.of("TOPIC", "*", "LITERAL", "User:x", "10.0.0.1", "READ", "DENY")]
CURRENT = PROPOSED[:2] + [AclBinding.of("TOPIC", "*", "LITERAL", "User:bob", "*", "ALL", "ALLOW")]


def in_process(paths, current=False):
    stats, quarantine, decisions = ReadStats(), [], []
    for p in paths:
        with open(p, "rb") as fh:
            decisions += read_stream(fh, p, stats, quarantine)
    cur = StandardAuthorizer(CURRENT, SETTINGS) if current else None
    return stats, quarantine, replay(decisions, StandardAuthorizer(PROPOSED, SETTINGS), cur)


def check_same(spark, paths, partition_bytes, current=False):
    from kafka_authz_cli.whatif import spark as spark_job

    l_stats, l_quarantine, l_report = in_process(paths, current)
    on_spark = spark_job.run(spark, paths, (PROPOSED, SETTINGS), (CURRENT, SETTINGS) if current else None,
                             partition_bytes=partition_bytes)
    s_stats, s_quarantine, s_report = on_spark.stats, on_spark.quarantine, on_spark.report
    assert s_stats.balanced and l_stats.balanced
    assert s_stats.as_dict() == l_stats.as_dict()
    assert [(q.source, q.reason, q.text) for q in s_quarantine] == \
        [(q.source, q.reason, q.text) for q in l_quarantine]
    assert asdict(s_report) == asdict(l_report)
    return l_stats, l_report


@pytest.mark.spark
@settings(max_examples=3, deadline=None, phases=(Phase.explicit, Phase.generate),
          suppress_health_check=list(HealthCheck))
@given(files=log_files())
def test_spark_and_in_process_agree_on_generated_logs(spark, files):
    tmp = Path(tempfile.mkdtemp(prefix="authz-eq-"))
    try:
        paths = []
        for name, data in files:
            (tmp / name).write_bytes(data)
            paths.append(str(tmp / name))
        check_same(spark, paths, partition_bytes=256, current=len(paths) > 1)
    finally:
        shutil.rmtree(tmp)


FORGED = ("[2026-11-20 10:00:00,000] INFO Principal = User:eve is Denied operation = READ from host = 10.0.0.9 on "
          "resource = Group:LITERAL:a")
REAL = ("[2026-11-20 10:00:0{i},000] DEBUG Principal = User:admin is Allowed operation = ALTER from host = 10.0.0.1 "
        "on resource = Cluster:LITERAL:kafka-cluster for request = AlterConfigs with resourceRefCount = 1 based on "
        "rule SuperUser (kafka.authorizer.logger)")


@pytest.mark.spark
def test_a_forged_record_at_a_split_boundary_never_becomes_a_decision(spark, tmp_path):
    # The same perfect line is a decision where it stands alone and quarantined where it continues an
    # unterminated record; splits of 200 bytes put the two lines of the injection in different tasks.
    lines = [REAL.format(i=i) for i in range(5)] + [FORGED, REAL.format(i=5)] + [REAL.format(i=6)] * 3
    log = tmp_path / "kafka-authorizer.log"
    log.write_text("\n".join(lines) + "\n")
    stats, report = check_same(spark, [str(log)], partition_bytes=200)
    assert stats.quarantined_lines == 2 and stats.decisions == 8


NOT_RECORDS = [
    # The stock path recognises these by bytes and checks date and level per group: none is a record.
    "[2026-02-29 10:00:00,000] INFO {m} (kafka.authorizer.logger)",  # no such day
    "[2026-04-31 10:00:00,000] INFO {m} (kafka.authorizer.logger)",
    "[0000-01-01 10:00:00,000] INFO {m} (kafka.authorizer.logger)",
    "[2026-11-20 10:00:00,000] NOTICE {m} (kafka.authorizer.logger)",  # no such level
    "[2026-11-20 10:00:00,000] INFO(kafka.authorizer.logger)",
    "[2026-11-20 10:00:00,000] INFO (kafka.authorizer.logger)",
    "[2026-11-20 10:00:00,000]  INFO {m} (kafka.authorizer.logger)",
]
MSG = ("Principal = User:bob is Allowed operation = READ from host = 10.0.0.1 on resource = Topic:LITERAL:orders "
       "for request = Fetch with resourceRefCount = 1 based on rule DefaultDeny")


@pytest.mark.spark
def test_stock_lines_that_are_not_records_are_read_with_their_context(spark, tmp_path):
    # Real records around each odd line, one of them unterminated: what the odd line is (a record, a
    # continuation, a foreign line) decides what happens to its neighbours; 2024-02-29 does exist.
    # One file per odd line, read in one run.
    good = "[2024-02-29 10:00:0{i},000] DEBUG " + MSG + " (kafka.authorizer.logger)"
    paths, total = [], 0
    for k, odd in enumerate(NOT_RECORDS):
        lines = [good.format(i=i) for i in range(3)] + [odd.format(m=MSG)] * 2 + [good.format(i=5),
            "[2026-11-20 10:00:05,000] INFO Principal = User:eve is Denied operation = READ from host = 10.0.0.9 on "
            "resource = Group:LITERAL:a", good.format(i=7), odd.format(m=MSG), "  at some.Frame(Frame.java:1)",
            good.format(i=9)]
        log = tmp_path / f"kafka-authorizer-{k}.log"
        log.write_text("\n".join(lines) + "\n")
        paths.append(str(log))
        total += len(lines)
    stats, _ = check_same(spark, paths, partition_bytes=300, current=True)
    assert stats.lines == total and stats.decisions >= 4 * len(NOT_RECORDS)


@pytest.mark.spark
def test_gzip_files_whole_or_damaged_read_as_the_reader_reads_them(spark, tmp_path):
    # Whole gzip files go to Spark's own decompressor, anything else to the Python decoder: the same
    # lines, warnings and line numbers either way (a second member, a truncated or corrupt one, bytes
    # after the last, a byte-order mark inside, an empty stream, gzip data without the .gz name).
    import gzip

    good = "[2026-11-20 10:00:0{i},000] DEBUG " + MSG + " (kafka.authorizer.logger)\n"
    body = "".join(good.format(i=i % 10) for i in range(40)).encode()
    tail = ("[2026-11-20 11:00:00,000] INFO " + MSG.replace("bob", "eve") + " (kafka.authorizer.logger)\n").encode()
    variants = {
        "whole.log.gz": gzip.compress(body),
        "members.log.gz": gzip.compress(body) + gzip.compress(tail) + gzip.compress(b""),
        "truncated.log.gz": gzip.compress(body + tail)[:-7],
        "garbage.log.gz": gzip.compress(body) + b"not gzip\n",
        "corrupt.log.gz": (lambda z: z[:40] + bytes(b ^ 0x55 for b in z[40:60]) + z[60:])(gzip.compress(body + tail)),
        "bom.log.gz": gzip.compress(b"\xef\xbb\xbf" + body),
        "empty.log.gz": gzip.compress(b""),
        "noname.log": gzip.compress(tail + body),
        "fake.log.gz": body,
    }
    paths = []
    for name, data in variants.items():
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    stats, _ = check_same(spark, paths, partition_bytes=300)
    assert stats.decisions >= 40 * 4 and stats.warnings
    # In local mode the driver checks the gzip files (while the JVM starts); a cluster's executors do.
    from kafka_authz_cli.whatif.spark.log_lines import SourceCheck, _gzip_check

    on_driver = SourceCheck(paths, threads=3).kinds()
    whole = _gzip_check(spark, [p for p in paths if p.endswith(".gz") and variants[Path(p).name][:2] == b"\x1f\x8b"])
    assert {p: k for p, k in on_driver.items() if p in whole} == {p: "text" if w else "python" for p, w in whole.items()}
    assert [Path(p).name for p, k in on_driver.items() if k == "text"] == ["whole.log.gz", "members.log.gz",
                                                                         "empty.log.gz"]


def test_the_source_check_says_what_reading_a_file_raised_and_never_holds_up_an_exit(tmp_path):
    from kafka_authz_cli.whatif.spark.log_lines import SourceCheck

    (tmp_path / "a.log").write_text("x\n")
    check = SourceCheck([str(tmp_path / "a.log"), str(tmp_path / "gone.log")])
    assert all(t.daemon for t in check._threads)
    with pytest.raises(FileNotFoundError):
        check.kinds()
    assert SourceCheck([str(tmp_path / "a.log")]).kinds() == {str(tmp_path / "a.log"): "text"}


def test_which_gzip_files_spark_decompresses_itself(tmp_path):
    import gzip

    from kafka_authz_cli.whatif.spark.log_lines import _gzip_whole

    body = b"[2026-11-20 10:00:00,000] INFO x (kafka.authorizer.logger)\n" * 50_000
    z = gzip.compress(body)
    expect = {
        "whole": (z, True), "members": (z + gzip.compress(b"y\n") + gzip.compress(b""), True),
        "empty": (gzip.compress(b""), True), "zeros": (gzip.compress(b"\0" * 20_000_000), True),
        "truncated": (z[:-5], False), "cut": (z[:len(z) // 2], False), "garbage": (z + b"junk", False),
        "corrupt": (z[:30] + b"\xff" * 30 + z[60:], False), "bom": (gzip.compress(b"\xef\xbb\xbf" + body), False),
        "bom across members": (gzip.compress(b"\xef") + gzip.compress(b"\xbb\xbf" + body), False),
    }
    for name, (data, whole) in expect.items():
        (tmp_path / "f.gz").write_bytes(data)
        assert _gzip_whole(str(tmp_path / "f.gz")) is whole, name


CAROL = ("Principal = User:carol is Allowed operation = READ from host = 10.0.0.7 on resource = Topic:LITERAL:orders "
         "for request = {req} with resourceRefCount = 1 based on rule {rule}")


def _carol_log(tmp_path):
    # One request over two hours. 10:00: three rules logged at the same millisecond (the greatest text
    # wins). 11:00: the latest line has a '.' fraction, so the reference reader reads it (an odd line)
    # and its text is later than the stock line's ',' at the same instant: the odd line's rule wins.
    line = "[{ts}] {level} " + CAROL + " (kafka.authorizer.logger)"
    lines = [line.format(ts="2026-11-20 10:00:03,000", level="DEBUG", req="Fetch", rule="DefaultAllow"),
             line.format(ts="2026-11-20 10:00:05,000", level="DEBUG", req="Fetch", rule="DefaultAllow"),
             line.format(ts="2026-11-20 10:00:05,000", level="TRACE", req="ListOffsets", rule="SuperUser"),
             line.format(ts="2026-11-20 10:00:05,000", level="INFO", req="Metadata", rule="DefaultDeny"),
             line.format(ts="2026-11-20 11:00:07,250", level="INFO", req="Fetch", rule="DefaultAllow"),
             line.format(ts="2026-11-20 11:00:07.250", level="INFO", req="Fetch", rule="DefaultDeny"),
             line.format(ts="2026-11-20 11:00:01,000", level="INFO", req="Fetch", rule="SuperUser")]
    log = tmp_path / "kafka-authorizer.log"
    log.write_text("\n".join(lines) + "\n")
    return str(log)


@pytest.mark.spark
def test_latest_rule_and_times_merge_across_fast_groups_and_odd_lines(spark, tmp_path):
    from kafka_authz_cli.whatif import spark as spark_job

    log = _carol_log(tmp_path)
    stats, report = check_same(spark, [log], partition_bytes=300)
    (change,) = report.newly_denied
    assert (change.first_seen, change.last_seen, change.before_rule) == \
        ("2026-11-20 10:00:03,000", "2026-11-20 11:00:07.250", "DefaultDeny")
    assert stats.decisions == 7
    result = spark_job.read_logs(spark, [log])
    try:
        rows = {r.hour: r for r in result.hourly.collect()}
        assert result.info["join_on"] == "h1+h2"
        assert (rows["2026-11-20 10"].rule, rows["2026-11-20 10"].rule_at) == ("SuperUser", "2026-11-20 10:00:05,000")
        assert (rows["2026-11-20 10"]["count"], rows["2026-11-20 10"].visible) == (4, 3)
        assert (rows["2026-11-20 11"].rule, rows["2026-11-20 11"].rule_at) == ("DefaultDeny", "2026-11-20 11:00:07.250")
        assert (rows["2026-11-20 11"].first_seen, rows["2026-11-20 11"]["count"]) == ("2026-11-20 11:00:01,000", 3)
    finally:
        for df in result.info["cached"]:
            spark_job.release(df)


@pytest.mark.spark
def test_colliding_message_hashes_fall_back_to_joining_on_the_message(spark, tmp_path, monkeypatch):
    # Every message gets the same two hashes: the one-to-one check must see it and join on the text.
    from pyspark.sql import functions as F

    from kafka_authz_cli.whatif import spark as spark_job
    from kafka_authz_cli.whatif.spark import messages

    monkeypatch.setattr(messages, "msg_id", lambda msg: [F.lit(1).cast("long").alias("h1"),
                                                           F.lit(2).cast("long").alias("h2")])
    log = _carol_log(tmp_path)
    check_same(spark, [log], partition_bytes=300)
    result = spark_job.read_logs(spark, [log])
    try:
        assert result.info["join_on"] == "msg"
    finally:
        for df in result.info["cached"]:
            spark_job.release(df)
