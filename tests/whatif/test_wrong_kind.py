"""A file that is no audit log at all, given to every command that reads audit logs, is refused saying
what it looks like (one line, exit 2); a real log is read whatever its first lines look like."""

import gzip
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.formats import what_is
from kafka_authz_cli.whatif import spark as spark_job
from kafka_authz_cli.whatif.sniffing import EXPECTED, PREFIX_BYTES, peek

ROOT = Path(__file__).parents[2]
PROPOSED = str(ROOT / "examples" / "whatif" / "proposed.json")
LOG = ROOT / "examples" / "whatif" / "logs" / "kafka-authorizer.log"
runner = CliRunner()

#: a real example of every kind of input authz reads as ACLs (or configuration), and the words its kind names
WRONG = [
    ("tests/conformance/kroxylicious/valid/proposal-simple.acl", "Kroxylicious rules file"),
    ("tests/realworld/kafka-cli/kafka-acls-list-1.0-cp-demo.txt", "kafka-acls output"),
    ("tests/ecosystem/corpora/ksm/v1.0.1-acls.csv", "Kafka Security Manager CSV"),
    ("examples/whatif/proposed.json", "authz ACL JSON"),
    ("tests/ecosystem/corpora/strimzi/kafka-user.yaml", "Strimzi KafkaUser"),
    ("tests/ecosystem/corpora/ksm/example-acls.yml", "Kafka Security Manager YAML"),
    ("tests/ecosystem/corpora/jikkou/docs-acls-example.yaml", "Jikkou"),
    ("tests/ecosystem/corpora/kafka-gitops/simple-users.yaml", "kafka-gitops"),
    ("tests/ecosystem/corpora/julieops/example-descriptor.yaml", "JulieOps topology"),
    ("tests/ecosystem/corpora/terraform/mongey-examples-main.tf", "Terraform"),
    ("tests/realworld/kafka-cli/server-3.8.0.properties", "server.properties"),
    ("tests/realworld/rules/configs/example-proxy-config.yaml", "Kroxylicious proxy configuration"),
    ("README.md", "Markdown text"),
]

#: every command that reads audit logs, as (arguments before the log file)
COMMANDS = {
    "whatif": ["whatif", "--proposed", PROPOSED, "--logs"],
    "whatif index": ["whatif", "index", "-o", "{tmp}/ix", "--logs"],
    "access unused": ["access", "unused", PROPOSED, "--logs"],
    "generate": ["generate", "--logs"],
    "whatif --spark": ["whatif", "--spark", "--proposed", PROPOSED, "--logs"],
    "whatif index --spark": ["whatif", "index", "--spark", "-o", "{tmp}/ix", "--logs"],
}


@pytest.fixture(autouse=True)
def no_spark(monkeypatch):
    """A refusal comes before any Spark job: starting one fails the test (and never starts a JVM)."""
    def started(*_a, **_k):
        raise AssertionError("a Spark job was started for a file that is no log")
    monkeypatch.setattr(spark_job, "job_session", started)


def run(command: str, path, tmp_path):
    args = [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[command]]
    return runner.invoke(app, [*args, str(path)])


def assert_refused(res, path, kind: str):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert f"{path}: this looks like " in lines[0] and kind in lines[0] and EXPECTED in lines[0], lines[0]
    assert "Traceback" not in res.output


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("path,kind", WRONG, ids=[Path(p).name for p, _ in WRONG])
def test_every_kind_of_acl_file_is_refused_by_every_command(command, path, kind, tmp_path):
    assert_refused(run(command, ROOT / path, tmp_path), ROOT / path, kind)
    assert not (tmp_path / "ix" / "runs").exists() or not any((tmp_path / "ix" / "runs").iterdir())


@pytest.mark.parametrize("command", list(COMMANDS))
def test_binary_file_is_refused(command, tmp_path):
    blob = tmp_path / "segment.bin"
    blob.write_bytes(bytes(range(256)) * 64)
    assert_refused(run(command, blob, tmp_path), blob, "a binary file")


@pytest.mark.parametrize("command", ["whatif", "access unused", "whatif --spark"])
def test_gzipped_wrong_file_is_refused_as_what_it_holds(command, tmp_path):
    gz = tmp_path / "users.yaml.gz"
    gz.write_bytes(gzip.compress((ROOT / "tests/ecosystem/corpora/strimzi/kafka-user.yaml").read_bytes()))
    assert_refused(run(command, gz, tmp_path), gz, "Strimzi KafkaUser")


def test_bom_and_crlf_do_not_hide_the_kind(tmp_path):
    text = (ROOT / "tests/ecosystem/corpora/kafka-gitops/simple-users.yaml").read_text()
    f = tmp_path / "state.yaml"
    f.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    assert_refused(run("whatif", f, tmp_path), f, "kafka-gitops")


def test_refused_file_among_logs_is_named(tmp_path):
    """The run stops at the file that is no log, whichever place it has among real logs."""
    res = runner.invoke(app, ["whatif", "--proposed", PROPOSED, "--logs", str(LOG), "--logs",
                              str(ROOT / "tests/ecosystem/corpora/strimzi/kafka-user.yaml")])
    assert_refused(res, ROOT / "tests/ecosystem/corpora/strimzi/kafka-user.yaml", "Strimzi KafkaUser")


def test_big_wrong_file_is_decided_from_its_first_mib(tmp_path):
    one = (ROOT / "tests/ecosystem/corpora/ksm/example-acls.yml").read_text()
    body = one.split("\n", 1)[1]  # the users under the top-level key, repeated: one YAML document
    big = tmp_path / "acls.yml"
    big.write_text("users:\n" + body * (3 * PREFIX_BYTES // len(body)))
    assert big.stat().st_size > 2 * PREFIX_BYTES
    assert_refused(run("whatif", big, tmp_path), big, "Kafka Security Manager YAML")


# ---------------------------------------------------------------------------------------------
# What is read as before


def decision(i: int) -> str:
    return (f"[2026-11-20 10:00:{i % 60:02d},000] DEBUG Principal = User:app is Allowed operation = READ from host = "
            f"10.0.0.1 on resource = Topic:LITERAL:orders for request = Fetch with resourceRefCount = 1 based on rule "
            f"SuperUser (kafka.authorizer.logger)")


def whatif_lines(path) -> dict:
    import json

    res = runner.invoke(app, ["whatif", "--proposed", PROPOSED, "-f", "json", "--logs", str(path)])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["lines"]


def test_log_with_a_long_startup_preamble_is_read(tmp_path):
    """Broker startup (a KafkaConfig dump that reads like server.properties on its own), other loggers and a
    stack trace, over more than the prefix, before the first decision: a log, read."""
    config = "".join(f"\t{k} = {v}\n" for k, v in [("advertised.listeners", "PLAINTEXT://b1:9092"),
                                                     ("broker.id", "1"), ("log.dirs", "/var/lib/kafka"),
                                                     ("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer"),
                                                     ("super.users", "User:admin")] * 60)
    startup = "[2026-11-20 09:59:00,000] INFO KafkaConfig values: \n" + config + " (kafka.server.KafkaConfig)\n"
    assert what_is(config) is not None and what_is(config).key == "server-properties"  # the prefix alone misleads
    noise = "".join(f"[2026-11-20 09:59:01,{i % 1000:03d}] INFO [ReplicaFetcher replicaId=1] fetching partition "
                    f"orders-{i} (kafka.server.ReplicaFetcherThread)\n" for i in range(20000))
    trace = "java.lang.IllegalStateException: boom\n\tat kafka.server.KafkaApis.handle(KafkaApis.scala:1)\n"
    log = tmp_path / "server.log"
    log.write_text(startup + noise + trace + "".join(decision(i) + "\n" for i in range(5)))
    assert log.stat().st_size > PREFIX_BYTES
    lines = whatif_lines(log)
    assert lines["decision_lines"] == 5 and lines["files"] == 1
    assert lines["total"] == log.read_text().count("\n")  # every line accounted for, as before


def test_decision_after_lines_that_look_like_yaml_is_read(tmp_path):
    """No log4j line, a head that looks like YAML, but a decision within the prefix: a log."""
    log = tmp_path / "pasted.log"
    bare = decision(1).split("] ", 1)[1]  # no timestamp: no log4j line either
    log.write_text("note: pasted from the broker\nsource: b1\nlevel: DEBUG\nby: ops\n" + bare + "\n")
    assert what_is(log.read_text()).key == "yaml"
    assert whatif_lines(log)["decision_lines"] == 1


@pytest.mark.parametrize("command", list(COMMANDS))
def test_text_that_looks_like_nothing_known_and_is_no_record_is_refused(command, tmp_path):
    """No decision, and most lines are no log record: no log, whatever it looks like (here: nothing known)."""
    prose = tmp_path / "notes.txt"
    prose.write_text("the broker was restarted twice\n\nthen the clients reconnected\n")
    assert what_is(prose.read_text()) is None
    res = run(command, prose, tmp_path)
    assert res.exit_code == 2, res.output
    assert res.stderr == (f"authz: error: {prose}: no line is a decision and 2 of 2 non-blank line(s) are no log "
                          f"record, expected {EXPECTED}\n")


def test_mostly_other_records_are_a_log(tmp_path):
    """Lines the reader takes as other loggers' records (a broker's server.log) are a log: read, not refused."""
    log = tmp_path / "server.log"
    log.write_text("the first line is no record\n" + "".join(
        f"2026-11-20 10:00:0{i},000 INFO [Controller id=1] elected (kafka.controller.KafkaController)\n"
        for i in range(3)))
    lines = whatif_lines(log)
    assert lines["decision_lines"] == 0 and lines["quarantined_lines"] == 1 and lines["non_decision_lines"] == 3


@pytest.mark.parametrize("text", ["[2026-11-20 10:00:00,001] DEBUG Principal = User:app is Allo",  # a log4j line
                                  "2026-11-2", "the start of a line still being written"])
def test_a_record_still_being_written_is_no_refusal(text, tmp_path):
    """A file whose only line has no line end yet (an active log just rotated, caught mid-write) is read."""
    log = tmp_path / "kafka-authorizer.log"
    log.write_text(text)
    res = runner.invoke(app, ["whatif", "--proposed", PROPOSED, "--logs", str(log)])
    assert res.exit_code == 0, res.output
    assert "no decision line in 1 file(s)" in res.stderr


@pytest.mark.parametrize("command", ["whatif", "whatif index"])
def test_empty_file_is_a_warning(command, tmp_path):
    empty = tmp_path / "kafka-authorizer.log"
    empty.write_bytes(b"")
    res = run(command, empty, tmp_path)
    assert res.exit_code == 0, res.output
    assert [ln for ln in res.stderr.splitlines() if "no decision line" in ln] == [
        "warning: no decision line in 1 file(s): is this an authorizer log?"]


@pytest.mark.parametrize("command,why", [("access unused", "unused"), ("generate", "nothing to generate")])
def test_no_decision_line_at_all_fails_unused_and_generate(command, why, tmp_path):
    empty = tmp_path / "kafka-authorizer.log"
    empty.write_bytes(b"")
    res = run(command, empty, tmp_path)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "no decision line in 1 file(s): is this an authorizer log?" in lines[0] and why in lines[0]


def test_empty_file_beside_a_log_is_no_warning(tmp_path):
    empty = tmp_path / "kafka-authorizer.log.1"
    empty.write_bytes(b"")
    res = runner.invoke(app, ["whatif", "--proposed", PROPOSED, "--logs", str(LOG), "--logs", str(empty)])
    assert res.exit_code == 0, res.output
    assert "no decision line" not in res.stderr


def test_confluent_events_are_still_read():
    events = ROOT / "tests/whatif/corpora/confluent-audit/confluent-unit-test-createtopics.jsonl"
    assert whatif_lines(events)["decision_lines"] > 0


class _Pipe(io.RawIOBase):
    """A stream that cannot seek (stdin)."""

    def __init__(self, data: bytes):
        self._data = io.BytesIO(data)

    def readable(self):
        return True

    def read(self, size=-1):
        return self._data.read(min(size, 1000) if size and size > 0 else size)


@pytest.mark.parametrize("packed", [False, True])
def test_peek_gives_every_byte_again(packed):
    data = "".join(decision(i) + "\n" for i in range(30000)).encode()
    raw = gzip.compress(data) if packed else data
    stream, head, whole = peek(_Pipe(raw))
    assert not whole and data.decode().startswith(head) and len(head) == PREFIX_BYTES
    chunks = []
    while chunk := stream.read(1 << 22):
        chunks.append(chunk)
    assert b"".join(chunks) == raw


def test_stdin_that_is_no_log_is_refused_by_its_name():
    res = runner.invoke(app, ["whatif", "--proposed", PROPOSED, "--logs", "-"],
                        input=(ROOT / "tests/ecosystem/corpora/terraform/mongey-examples-main.tf").read_bytes())
    assert_refused(res, "<stdin>", "Terraform")
