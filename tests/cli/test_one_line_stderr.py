"""Output for machines and files: when standard error is not a terminal (a CI log, `2>file`), each warning and
each error is one line, however long (a grep finds it whole); on a terminal warnings wrap at its width. Every
usage error is one line: `authz: error: ... (see authz CMD --help)`, not click's four."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_authz_cli.cli.output import AuthzConsole

ROOT = Path(__file__).resolve().parents[2]
PROPOSED = str(ROOT / "examples" / "whatif" / "proposed.json")
DENIED = ("[2026-11-20 10:00:00,000] INFO Principal = User:payments-svc is Denied operation = WRITE from host = "
          "10.3.0.9 on resource = Topic:LITERAL:payments for request = Produce with resourceRefCount = 1 based on rule "
          "DefaultDeny (kafka.authorizer.logger)\n")


#: the program as `authz` (click names it by argv[0])
MAIN = "import sys; sys.argv[0] = 'authz'; from kafka_authz_cli.cli.app import main; main()"


def authz(*args, columns="80"):
    """authz in a subprocess, standard error a pipe (as in CI), at a console width of `columns`."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS=columns)
    env.pop("FORCE_COLOR", None)
    env.pop("TTY_COMPATIBLE", None)
    return subprocess.run([sys.executable, "-c", MAIN, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)


def test_a_long_warning_is_one_line_in_a_pipe(tmp_path):
    log = tmp_path / "kafka-authorizer.log"
    log.write_text(DENIED)
    proc = authz("whatif", "--logs", str(log), "--proposed", PROPOSED)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert all(ln.startswith("warning: ") for ln in lines), lines  # nothing wrapped onto a line of its own
    [no_allowed] = [ln for ln in lines if "no ALLOWED decision was logged" in ln]
    assert len(no_allowed) > 300 and no_allowed.endswith("or pass --current ACLS.")


def test_the_gate_failing_closed_is_one_line(tmp_path):
    empty = tmp_path / "kafka-authorizer.log"
    empty.write_bytes(b"")
    proc = authz("whatif", "--logs", str(empty), "--proposed", PROPOSED, "--fail-on", "newly-denied")
    assert proc.returncode == 3
    assert [ln for ln in proc.stderr.splitlines() if not ln.startswith("warning: ")] == [
        "authz: --fail-on newly-denied fails closed: not verified: no logged decision was read, so no request "
        "could show as newly denied (--allow-unverified accepts that)"]


@pytest.mark.parametrize("args, line", [
    (["whatif", "--follow", "a.log", "--proposed", PROPOSED, "--max-seconds", "0"],
     "authz: error: Invalid value for --max-seconds: must be positive, got 0 (see authz whatif --help)"),
    (["whatif", "--logs", "a.log", "--proposed", PROPOSED, "--bogus"],
     "authz: error: No such option: --bogus (Possible options: --logs, --out) (see authz whatif --help)"),
    (["simulate"],
     "authz: error: Invalid value for --principal: give --principal (or --requests FILE) (see authz simulate --help)"),
    (["similate"], "authz: error: No such command 'similate'. Did you mean 'simulate'? (see authz --help)"),
    (["--bogus"], "authz: error: No such option: --bogus (see authz --help)"),
    (["policy", "check"], "authz: error: Missing argument 'REQUESTS'. (see authz policy check --help)"),
    (["whatif", "index", "--logs", "a.log"], "authz: error: Missing option '--out' / '-o'. (see authz whatif index --help)"),
    (["diff", "a.json"], "authz: error: Missing argument 'NEW'. (see authz diff --help)"),
    (["convert", "a.json"], "authz: error: Missing option '--to'. Choose from: json, kafka-acls, csv, strimzi, ksm-yaml, "
     "jikkou, kafka-gitops, terraform (see authz convert --help)"),
    (["simulate", "x.json", "--format", "xml"],
     "authz: error: Invalid value for '--format' / '-f': Value error, 'xml' is not one of 'table', 'json', "
     "'jsonl', 'csv'. "
     "(see authz simulate --help)"),
])
def test_every_usage_error_is_one_line(args, line):
    proc = authz(*args, columns="40")  # narrow: nothing may wrap
    assert proc.returncode == 2
    assert proc.stderr == line + "\n" and proc.stdout == ""


def test_no_arguments_still_show_the_help():
    proc = authz("whatif")
    assert "Usage: authz whatif [OPTIONS] COMMAND [ARGS]..." in proc.stdout + proc.stderr


@pytest.mark.parametrize("terminal", [True, False])
def test_warnings_wrap_only_on_a_terminal(terminal):
    out = io.StringIO()
    console = AuthzConsole(file=out, width=40, force_terminal=terminal, wrap_on_terminal_only=True, highlight=False)
    text = "warning: " + " ".join(f"word{i}" for i in range(30))
    console.print(text)
    lines = out.getvalue().splitlines()
    if terminal:
        assert len(lines) > 1 and all(len(ln) <= 40 for ln in lines)
    else:
        assert lines == [text]
