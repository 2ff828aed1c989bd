"""`authz whatif --follow` as users run it: a subprocess following a file another process writes, JSON
lines as they happen, the summary on Ctrl-C and SIGTERM, bounds, and bad options refused in one line."""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
LINE = ("[2026-11-20 10:00:0{i},000] {level} Principal = User:{who} is {word} operation = READ from host = 10.0.0.1 "
        "on resource = Topic:LITERAL:orders for request = Fetch with resourceRefCount = 1 based on rule {rule} "
        "(kafka.authorizer.logger)\n")
RULE = ("MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=orders, patternType=LITERAL, "
        "principal=User:{who}, host=*, operation=READ, permissionType=ALLOW))")


def allowed(who, i=0, level="DEBUG"):
    return LINE.format(i=i, who=who, level=level, word="Allowed", rule=RULE.format(who=who))


def denied(who, i=0):
    return LINE.format(i=i, who=who, level="INFO", word="Denied", rule="DefaultDeny")


@pytest.fixture
def acls(tmp_path):
    """(current, proposed): the proposal drops bob's READ on orders and allows carol's."""
    def acl(who):
        return {"resource_type": "TOPIC", "resource_name": "orders", "pattern_type": "LITERAL",
                "principal": f"User:{who}", "host": "*", "operation": "READ", "permission": "ALLOW"}
    current, proposed = tmp_path / "current.json", tmp_path / "proposed.json"
    current.write_text(json.dumps({"version": 1, "acls": [acl("alice"), acl("bob")]}))
    proposed.write_text(json.dumps({"version": 1, "acls": [acl("alice"), acl("carol")]}))
    return current, proposed


class Shadow:
    """`authz whatif --follow ...` in a subprocess; its stdout lines on a queue as they come."""

    def __init__(self, *args):
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen([sys.executable, "-m", "kafka_authz_cli", "whatif", *map(str, args)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def wait_open(self, path: Path, timeout=20.0):
        """Until the follower has `path` open (it then reads what is appended after)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.proc.stderr.read()
            try:
                fds = os.listdir(f"/proc/{self.proc.pid}/fd")
                if any(os.path.realpath(f"/proc/{self.proc.pid}/fd/{fd}") == str(path) for fd in fds):
                    return
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"{path} never opened")

    def next(self, timeout=10.0) -> dict:
        line = self.lines.get(timeout=timeout)
        assert line is not None, self.proc.stderr.read()
        return json.loads(line)

    def rest(self, timeout=20.0) -> tuple[int, list[dict], str]:
        code = self.proc.wait(timeout=timeout)
        out = []
        while True:
            line = self.lines.get(timeout=timeout)
            if line is None:
                break
            out.append(json.loads(line))
        return code, out, self.proc.stderr.read()


def append(path, text):
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_jsonl_as_lines_are_written_and_the_summary_on_a_signal(tmp_path, acls, sig):
    current, proposed = acls
    log = tmp_path / "kafka-authorizer.log"
    append(log, allowed("bob", 9) * 3)  # before following: not read (it starts at the end)
    shadow = Shadow("--follow", log, "--current", current, "--proposed", proposed, "--format", "jsonl",
                    "--max-seconds", "60")
    shadow.wait_open(log)
    append(log, allowed("alice", 1) + allowed("bob", 2))
    t0 = time.monotonic()
    change = shadow.next()
    assert time.monotonic() - t0 < 3
    assert (change["type"], change["kind"], change["principal"], change["before"], change["after"]) == \
        ("change", "newly_denied", "User:bob", "ALLOWED", "DENIED")
    assert change["cause"] == "removing ALLOW READ on TOPIC orders (LITERAL) for User:bob"
    append(log, allowed("bob", 3) + denied("carol", 4) + "not a record (kafka.authorizer.logger)\n")
    change = shadow.next()
    assert (change["kind"], change["principal"], change["source"]) == ("newly_allowed", "User:carol", f"{log}[from byte "
                                                                       f"{3 * len(allowed('bob', 9))}]:4")
    time.sleep(0.5)
    shadow.proc.send_signal(sig)
    code, rest, err = shadow.rest()
    assert code == 0, err
    assert [r["type"] for r in rest] == ["summary"]
    s = rest[0]
    assert s["stopped"] == "interrupted" and "Traceback" not in err
    assert (s["lines"], s["decisions"], s["distinct_requests"], s["newly_denied"], s["newly_denied_requests"],
            s["newly_allowed"], s["quarantined_lines"], s["reported"]) == (5, 4, 3, 2, 1, 1, 1, 2)


def test_fail_on_newly_denied_exits_1_after_the_summary(tmp_path, acls):
    current, proposed = acls
    log = tmp_path / "a.log"
    log.write_text(allowed("bob"))
    shadow = Shadow("--follow", log, "--from-start", "--current", current, "--proposed", proposed, "-f", "jsonl",
                    "--fail-on", "newly-denied", "--max-seconds", "60")
    assert shadow.next()["principal"] == "User:bob"
    shadow.proc.send_signal(signal.SIGINT)
    code, rest, _ = shadow.rest()
    assert code == 1 and rest[-1]["visible_newly_denied"] == 1


def test_max_changes_and_every(tmp_path, acls):
    _, proposed = acls
    log = tmp_path / "a.log"
    log.write_text(allowed("bob", 1) + allowed("bob", 2) + allowed("dave", 3) + allowed("erin", 4))
    res = CliRunner().invoke(app, ["whatif", "--follow", str(log), "--from-start", "--proposed", str(proposed),
                                   "-f", "jsonl", "--every", "--max-changes", "2", "--max-seconds", "20"])
    assert res.exit_code == 0, res.output
    out = [json.loads(x) for x in res.stdout.splitlines()]
    assert [(o["type"], o.get("principal"), o.get("occurrence")) for o in out] == [
        ("change", "User:bob", 1), ("change", "User:bob", 2), ("summary", None, None)]
    assert out[-1]["stopped"] == "--max-changes 2 reached"


def test_a_rotation_while_following_from_the_cli(tmp_path, acls):
    current, proposed = acls
    log = tmp_path / "a.log"
    log.write_text("")
    shadow = Shadow("--follow", log, "--current", current, "--proposed", proposed, "-f", "jsonl", "--max-seconds",
                    "60", "--quarantine", tmp_path / "q.jsonl")
    shadow.wait_open(log)
    append(log, allowed("bob", 1))
    assert shadow.next()["principal"] == "User:bob"
    os.rename(log, tmp_path / "a.log.1")
    append(log, denied("carol", 2) + "garbage (kafka.authorizer.logger)\n")
    change = shadow.next()
    assert (change["principal"], change["source"]) == ("User:carol", f"{log}:1")
    time.sleep(0.3)
    shadow.proc.send_signal(signal.SIGTERM)
    code, rest, _ = shadow.rest()
    assert code == 0 and rest[-1]["rotations"] == 1 and rest[-1]["files"] == 2
    q = [json.loads(x) for x in (tmp_path / "q.jsonl").read_text().splitlines()]
    assert [x["source"] for x in q] == [f"{log}:2"] and q[0]["text"] == "garbage (kafka.authorizer.logger)"


def test_table_output_names_each_change_and_the_summary(tmp_path, acls):
    current, proposed = acls
    log = tmp_path / "a.log"
    log.write_text(allowed("bob") + allowed("alice"))
    res = CliRunner().invoke(app, ["whatif", "--follow", str(log), "--from-start", "--current", str(current),
                                   "--proposed", str(proposed), "--max-seconds", "0.5"])
    assert res.exit_code == 0, res.output
    assert ("- newly denied  User:bob from 10.0.0.1 READ TOPIC:orders  ALLOWED -> DENIED  by removing ALLOW READ on "
            "TOPIC orders (LITERAL) for User:bob (now DefaultDeny)") in res.stdout
    assert "User:alice" not in res.stdout
    assert "stopped (--max-seconds 0.5 reached)" in res.stdout and "newly denied 1 (1 requests)" in res.stdout


@pytest.mark.parametrize("args, message", [
    (["--logs", "x.log"], "--logs does not go with --follow"),
    (["--index", "ix"], "--index does not go with --follow"),
    (["--spark"], "--follow with --spark takes the directory the brokers' rolled logs land in"),
    (["--out", "o"], "--out (use --quarantine FILE) does not go with --follow"),
    (["--since", "2026-01-01"], "--since does not go with --follow"),
    (["-f", "json"], "--format json does not go with --follow/--follow-topic: use --format jsonl"),
    (["--follow-topic", "t", "--bootstrap-server", "h:1"], "give either --follow LOGFILE or --follow-topic TOPIC"),
    (["--max-seconds", "0"], "must be positive"),
    (["--max-changes", "0"], "must be at least 1"),
])
def test_bad_options_exit_2_with_one_line(tmp_path, acls, args, message):
    res = CliRunner().invoke(app, ["whatif", "--follow", str(tmp_path / "a.log"), "--proposed", str(acls[1]), *args])
    assert res.exit_code == 2, res.output
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert message in res.output and "Traceback" not in res.output
    assert len(lines) == 1, res.output  # a usage error (`Invalid value for ...`) too


@pytest.mark.parametrize("args, message", [
    (["--every"], "--every goes with --follow/--follow-topic"),
    (["-f", "jsonl"], "--format jsonl goes with --follow/--follow-topic"),
    (["--from-start"], "--from-start goes with --follow/--follow-topic"),
])
def test_shadow_options_without_follow_exit_2(tmp_path, acls, args, message):
    log = tmp_path / "a.log"
    log.write_text(allowed("bob"))
    res = CliRunner().invoke(app, ["whatif", "--logs", str(log), "--proposed", str(acls[1]), *args])
    assert res.exit_code == 2 and message in res.output, res.output


def test_follow_topic_needs_a_bootstrap_server(acls):
    res = CliRunner().invoke(app, ["whatif", "--follow-topic", "audit", "--proposed", str(acls[1])])
    assert res.exit_code == 2 and "--follow-topic needs --bootstrap-server" in res.output, res.output


def test_a_status_line_on_a_terminal(tmp_path, acls):
    """stderr a terminal: a status line with the running counts (stdout a pipe keeps only the changes)."""
    import pty
    import select

    current, proposed = acls
    log = tmp_path / "a.log"
    log.write_text(allowed("bob"))
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200")
    proc = subprocess.Popen([sys.executable, "-m", "kafka_authz_cli", "whatif", "--follow", str(log), "--from-start",
                             "--current", str(current), "--proposed", str(proposed), "--max-seconds", "3"],
                            stdout=subprocess.PIPE, stderr=slave, env=env, cwd=ROOT, text=True)
    os.close(slave)
    seen = b""
    while proc.poll() is None or select.select([master], [], [], 0.2)[0]:
        if select.select([master], [], [], 0.2)[0]:
            try:
                seen += os.read(master, 65536)
            except OSError:
                break
    os.close(master)
    out = proc.stdout.read()
    assert proc.wait() == 0
    assert b"following " in seen and b"1 lines, 1 decisions, 1 distinct requests; newly denied 1" in seen, seen
    assert "newly denied  User:bob" in out and "following" not in out.replace("following " + str(log) + ":", "")


def test_a_directory_or_an_unreadable_file_is_one_line(tmp_path, acls, monkeypatch):
    res = CliRunner().invoke(app, ["whatif", "--follow", str(tmp_path), "--proposed", str(acls[1])])
    assert res.exit_code == 2 and "is a directory" in res.output and "Traceback" not in res.output, res.output
    from kafka_authz_cli.whatif import follow as follow_module

    def refused(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(follow_module, "open", refused, raising=False)  # root reads every file: the refusal is simulated
    log = tmp_path / "secret.log"
    log.write_text("")
    res = CliRunner().invoke(app, ["whatif", "--follow", str(log), "--proposed", str(acls[1]), "--max-seconds", "2"])
    assert res.exit_code == 2 and f"{log}: Permission denied" in res.output and "Traceback" not in res.output, \
        res.output


@pytest.mark.parametrize("fmt", ["jsonl", "table"])
def test_a_closed_pipe_stops_following_quietly(tmp_path, acls, fmt):
    """`authz whatif --follow ... | head -1`: once the reader is gone, the next change ends the follow, exit 0."""
    current, proposed = acls
    log = tmp_path / "a.log"
    log.write_text(allowed("bob", 1))
    proc = subprocess.Popen([sys.executable, "-m", "kafka_authz_cli", "whatif", "--follow", str(log), "--from-start",
                             "--every", "--current", str(current), "--proposed", str(proposed), "-f", fmt,
                             "--max-seconds", "60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    assert b"User:bob" in proc.stdout.readline()
    proc.stdout.close()
    t0 = time.monotonic()
    append(log, allowed("bob", 2))
    assert proc.wait(timeout=20) == 0
    assert time.monotonic() - t0 < 10 and proc.stderr.read() == b""


def test_a_quarantine_file_that_cannot_be_written_is_one_line_before_following(tmp_path, acls):
    res = CliRunner().invoke(app, ["whatif", "--follow", str(tmp_path / "a.log"), "--proposed", str(acls[1]),
                                   "--quarantine", str(tmp_path / "no-such-dir" / "q.jsonl"), "--max-seconds", "30"])
    assert res.exit_code == 2 and "cannot write the quarantine" in res.output and "Traceback" not in res.output, \
        res.output
