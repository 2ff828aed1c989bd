"""The refusal of files that are no log never touches a log: over generated hostile logs (and the same
logs behind an ACL file's text), whatif's reader either reads exactly what the log4j reader reads, or
refuses a file in which that reader finds no decision at all."""

import io
from dataclasses import asdict
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.whatif import auditlog, streams
from tests.whatif.logs_strategy import log_files

ROOT = Path(__file__).parents[2]
HEADS = [b"", (ROOT / "tests/ecosystem/corpora/strimzi/kafka-user.yaml").read_bytes(),
         (ROOT / "tests/realworld/kafka-cli/server-3.8.0.properties").read_bytes(),
         (ROOT / "tests/ecosystem/corpora/ksm/v1.0.1-acls.csv").read_bytes()]


def both(data: bytes):
    base_stats, base_q = auditlog.ReadStats(), []
    base = list(auditlog.read_stream(io.BytesIO(data), "f", base_stats, base_q))
    stats, quarantine = auditlog.ReadStats(), []
    try:
        got = list(streams.read_stream(io.BytesIO(data), "f", stats, quarantine))
    except InputError as exc:
        return base, base_stats, exc
    assert got == base and asdict(stats) == asdict(base_stats) and quarantine == base_q
    return base, base_stats, None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=log_files(), head=st.sampled_from(HEADS), keep=st.integers(0, 400))
def test_a_file_is_refused_only_when_the_reader_finds_no_decision_in_it(files, head, keep):
    for _name, data in files:
        if data[:2] == b"\x1f\x8b":
            continue  # behind an ACL file's text a gzip is no gzip; gzip is tested plain below
        base, stats, refused = both(head + data[:keep])  # cut short: now and then no decision is left
        if refused is not None:
            assert stats.decision_lines == 0, (refused, stats)
            # what it looks like, or (looking like nothing known) that most of its lines are no record
            assert "this looks like " in refused.reason or "no line is a decision and " in refused.reason, refused


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=log_files())
def test_generated_logs_plain_or_gzip_read_as_the_reader_reads_them(files):
    for _name, data in files:
        _base, stats, refused = both(data)
        assert refused is None or stats.decision_lines == 0
