"""The whatif replay as a Spark job: the only package that imports pyspark.

Lines are read with Spark's splittable text source (a plain file is split across tasks, a whole
gzip file is one task; a damaged gzip file, a byte-order mark or another codec's extension go through
the reference reader's streaming Python decoder, one task per file), so no file is ever held whole in
memory. Per line, the JVM recognises Kafka's common layouts with byte tests and takes the others apart
with anchored Spark SQL expressions; lines are aggregated per distinct (hour, `LEVEL message`). Every
other line - multi-line records, foreign lines, odd layouts - keeps its file and line number and goes
to the reference reader (:mod:`kafka_authz_cli.whatif.auditlog`) with the context it needs. Message
fields of the KRaft and ZK 2.4+ shapes are extracted in the JVM; each distinct message is also read
once by the reference reader, which has the last word. Distinct requests are aggregated in Spark SQL
and decided on the executors (Arrow batches) with the ACL sets broadcast. The results are those of
the in-process replay (:mod:`kafka_authz_cli.whatif.replay`), line numbers and quarantine included.

The modules, by stage: ``session`` (the SparkSession, checked options, one job's session from its
start to its stop, local checkpoints), ``jvm`` (a Java runtime, where its log and output go),
``failures`` (any failure said in one line), ``progress`` (Spark's status tracker for authz's bar),
``log_lines`` (files to lines, gzip wholeness), ``scan`` (the per-line shape and the one scan),
``messages`` (distinct messages classified), ``odd_lines`` (the reference reader on the other lines,
line numbers), ``aggregate`` (per request and hour), ``decide`` (deciding and the report),
``pipeline`` (the stages in order, and the jobs).

Importing this package imports no pyspark: the names below are loaded when first used.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.whatif.spark.decide import report_from
    from kafka_authz_cli.whatif.spark.failures import SparkFailure, explain_failure, spark_errors
    from kafka_authz_cli.whatif.spark.jvm import java_available, java_problem, spark_log_file
    from kafka_authz_cli.whatif.spark.log_lines import SourceCheck, source_check
    from kafka_authz_cli.whatif.spark.pipeline import (
        ReadResult,
        count_lines,
        index_logs,
        read_logs,
        report_from_index,
        run,
    )
    from kafka_authz_cli.whatif.spark.progress import StatusProgress
    from kafka_authz_cli.whatif.spark.session import SPLIT_BYTES, SparkOptions, job_session, release, spark_session
    from kafka_authz_cli.whatif.spark.streaming import follow_directory

__getattr__, __all__ = lazy_face(__name__, {
    # the jobs
    "ReadResult": "pipeline", "count_lines": "pipeline", "index_logs": "pipeline", "read_logs": "pipeline",
    "report_from_index": "pipeline", "run": "pipeline",
    "report_from": "decide",
    # how each file is read, found while the session starts
    "SourceCheck": "log_lines", "source_check": "log_lines",
    # the session: its options, one job's session, and what it keeps
    "SPLIT_BYTES": "session", "SparkOptions": "session", "job_session": "session", "release": "session",
    "spark_session": "session",
    "StatusProgress": "progress",
    # shadow mode on Structured Streaming
    "follow_directory": "streaming",
    # Java, and failures said in one line
    "java_available": "jvm", "java_problem": "jvm", "spark_log_file": "jvm",
    "SparkFailure": "failures", "explain_failure": "failures", "spark_errors": "failures",
})
