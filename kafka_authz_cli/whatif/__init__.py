"""What a proposed ACL change would do to real traffic: Kafka's authorizer audit logs replayed.

``auditlog`` reads ``kafka.authorizer.logger`` lines of every Kafka version's format, safely (free
text that forges records is quarantined, every line is accounted for), and ``cloudevents`` Confluent's
audit-log events (a file of them is told by its content); ``replay`` folds decisions
into per-request aggregates, decides each distinct request before and after the change and reports
what is newly denied or allowed; ``parquet_index`` keeps per (request, hour) aggregates on disk (Parquet)
to answer from many times; ``follow`` follows a growing log as ``tail -F`` does and ``shadow``
judges each decision as it is logged (shadow mode); ``report_files`` writes the results (JSON, Parquet, the quarantine, an HTML
report). ``spark`` is the same replay as a Spark job, for logs of any size (its own face; the only
place PySpark is imported).

Pure: no terminal, no network; importing it imports neither PySpark nor PyArrow. Other packages
import what is listed here.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.whatif.auditlog import (
        AuditDecision,
        Quarantined,
        ReadStats,
        expand_paths,
        parse_message,
        read_file_bytes,
        short_rule,
    )
    from kafka_authz_cli.whatif.cloudevents import EventReader, decode_event, file_holds_events, read_records, to_event
    from kafka_authz_cli.whatif.follow import Follower, Line
    from kafka_authz_cli.whatif.incremental import Baseline, answer_from_index
    from kafka_authz_cli.whatif.parquet_index import (
        Index,
        aggregates_from_table,
        check_not_indexed,
        commit_run,
        fill_hours,
        fingerprint,
        hour_bound,
        new_run_id,
        open_checked,
        open_index,
        quarantined,
        read_hourly_local,
        staging_dir,
        write_hourly_local,
    )
    from kafka_authz_cli.whatif.replay import (
        Aggregate,
        Change,
        LinesRead,
        Replayed,
        Verdict,
        WhatIfReport,
        aggregate,
        aggregate_hourly,
        build_report,
        classify,
        decide,
        replay_aggregates,
    )
    from kafka_authz_cli.whatif.report_files import check_out_dir, render_html, report_dict, write_out_dir
    from kafka_authz_cli.whatif.shadow import LineDecisions, Shadow, ShadowChange, ShadowSummary
    from kafka_authz_cli.whatif.sniffing import (
        check_log_file,
        no_decision_lines,
        no_log_found,
        skipped_warning,
        sort_out,
        why_not_a_log,
    )
    from kafka_authz_cli.whatif.streams import read_stream

__getattr__, __all__ = lazy_face(__name__, {
    # auditlog: the reader
    "AuditDecision": "auditlog", "Quarantined": "auditlog", "ReadStats": "auditlog", "expand_paths": "auditlog",
    "parse_message": "auditlog", "read_file_bytes": "auditlog", "short_rule": "auditlog",
    # streams: one file, log4j or events, told by content; sniffing: a file that is no log at all
    "read_stream": "streams", "check_log_file": "sniffing", "no_decision_lines": "sniffing",
    "no_log_found": "sniffing", "skipped_warning": "sniffing", "sort_out": "sniffing", "why_not_a_log": "sniffing",
    # cloudevents: Confluent audit-log events
    "decode_event": "cloudevents", "file_holds_events": "cloudevents", "read_records": "cloudevents",
    "to_event": "cloudevents", "EventReader": "cloudevents",
    # follow, shadow: shadow mode (a followed log, each decision judged as it is logged)
    "Follower": "follow", "Line": "follow", "LineDecisions": "shadow", "Shadow": "shadow", "ShadowChange": "shadow",
    "ShadowSummary": "shadow",
    # replay: aggregates, decisions, the report
    "Aggregate": "replay", "Change": "replay", "Verdict": "replay", "WhatIfReport": "replay",
    "LinesRead": "replay", "Replayed": "replay",
    "aggregate": "replay", "aggregate_hourly": "replay", "build_report": "replay", "classify": "replay",
    "decide": "replay", "replay_aggregates": "replay",
    # parquet_index: read once, ask many times
    "Index": "parquet_index", "aggregates_from_table": "parquet_index", "check_not_indexed": "parquet_index",
    "commit_run": "parquet_index", "fill_hours": "parquet_index", "fingerprint": "parquet_index",
    "hour_bound": "parquet_index", "new_run_id": "parquet_index", "open_checked": "parquet_index",
    "open_index": "parquet_index", "quarantined": "parquet_index", "read_hourly_local": "parquet_index",
    "staging_dir": "parquet_index", "write_hourly_local": "parquet_index",
    # incremental: a proposal answered from an index by what it changes, in slices of bounded memory
    "Baseline": "incremental", "answer_from_index": "incremental",
    # report_files: results on disk
    "check_out_dir": "report_files", "render_html": "report_files", "report_dict": "report_files", "write_out_dir": "report_files",
})
