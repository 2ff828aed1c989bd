"""Every command that reads a file or stdin, fed every kind of hostile input.

Each case ends in seconds with exit 2 and exactly one line ``authz: error: FILE[:LINE[:COL]]: reason``
naming the file, or succeeds where the input is valid. Never a traceback, never a hang.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from tests.hostile.hostile_catalogue import (
    commands,
    generic_variants,
    materialise,
    slot_variants,
    unreadable_path,
)

ROOT = Path(__file__).parents[2]
LOGS = ROOT / "examples" / "whatif" / "logs" / "kafka-authorizer.log"
SECONDS = 30  # generous: the machine is shared; a hang is minutes
runner = CliRunner()

GENERIC_ERRORS = ("binary", "invalid-utf8", "directory", "missing", "unreadable")
# Decodable garbage: an input error everywhere, except in formats where any text is valid.
GENERIC_TEXT = ("nul-bytes", "10mb-line", "deep-nesting", "deep-objects")
LENIENT = {"properties": "ok", "passwordfile": 1, "rules": "rules-refused"}


# Where a format's own rules make a generic garbage input valid.
OVERRIDES: dict[tuple[str, str], object] = {}


def _expected(slot: str, variant: str):
    if (slot, variant) in OVERRIDES:
        return OVERRIDES[(slot, variant)]
    specific = slot_variants()[slot]
    if variant in specific:
        return specific[variant][1]
    if variant in GENERIC_ERRORS:
        return "error"
    return LENIENT.get(slot, "error")


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile-base")
    files = {"logs": LOGS, "out": tmp_path_factory.mktemp("hostile-out")}
    for slot in ("acls", "requests", "rules", "types", "record"):
        path = tmp / f"base-{slot}"
        path.write_bytes(slot_variants()[slot]["valid"][0])
        files[slot] = path
    return files


@pytest.fixture(scope="module")
def cases_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile-cases")


def _cases():
    fake = {k: Path(k) for k in ("acls", "requests", "rules", "types", "record", "logs", "out")}
    for name, spec in commands(fake).items():
        slot = spec["slot"]
        variants = list(slot_variants()[slot]) + list(generic_variants(slot))
        for variant in variants:
            yield pytest.param(name, variant, id=f"{name}|{variant}")


def _content(slot: str, variant: str):
    specific = slot_variants()[slot]
    if variant in specific:
        return specific[variant][0]
    return generic_variants(slot)[variant]


@pytest.mark.parametrize("command, variant", list(_cases()))
def test_hostile_input(command, variant, base, cases_dir):
    spec = commands(base)[command]
    slot = spec["slot"]
    path = materialise(cases_dir, slot, variant, _content(slot, variant))
    if path is None:
        pytest.skip(unreadable_path(cases_dir)[1])
    expected = _expected(slot, variant)
    argv = [str(a) for a in spec["argv"](path)]
    start = time.monotonic()
    res = runner.invoke(app, argv, input=spec.get("stdin"))
    elapsed = time.monotonic() - start
    assert elapsed < SECONDS, f"{command} on {variant}: {elapsed:.1f} s"
    # Never a Python exception escaping the command.
    assert res.exception is None or isinstance(res.exception, SystemExit), (
        f"{command} on {variant}: {type(res.exception).__name__}: {res.exception}")
    assert "Traceback" not in res.output
    stderr_lines = [line for line in res.stderr.splitlines() if not line.startswith("warning:")
                    and not line.startswith(" ") and line.strip()]
    if expected == "rules-refused":
        # lint reports a file the proxy refuses as a finding (exit 1); the others refuse it (exit 2).
        expected = 1 if command == "lint" else "error"
    if expected == "error":
        assert res.exit_code == 2, f"{command} on {variant}: exit {res.exit_code}: {res.output[-2000:]}"
        errors = [line for line in stderr_lines if line.startswith("authz: error:")]
        assert len(errors) == 1, res.stderr[-2000:]
        assert len(errors[0]) < 1100, errors[0][:300]
        shown = "<stdin>" if str(path) == "-" else str(path)
        assert errors[0].startswith(f"authz: error: {shown}"), (errors[0][:300], shown)
        assert re.match(rf"authz: error: {re.escape(shown)}(:\d+(:\d+)?)?: \S", errors[0]), errors[0][:300]
    elif expected == "ok":
        assert res.exit_code == 0, f"{command} on {variant}: exit {res.exit_code}: {res.output[-2000:]}"
    else:
        assert res.exit_code == expected, f"{command} on {variant}: exit {res.exit_code}: {res.output[-2000:]}"
        assert not [line for line in stderr_lines if line.startswith("authz: error:")], res.stderr[-2000:]


# -- standard input and the real entry point ------------------------------------------------------------

def _authz(*args, stdin: bytes = b"", timeout=120):
    return subprocess.run([sys.executable, "-m", "kafka_authz_cli", *map(str, args)], input=stdin,
                          capture_output=True, timeout=timeout, env=dict(os.environ, COLUMNS="200"))


@pytest.mark.parametrize("stdin, fragment", [
    (b'{"version": 1, "acls": [{"resource_name": "\xff"}]}', "<stdin>:1:44: not UTF-8 text (byte 0xff)"),
    (b"[" * 200_000, "<stdin>:1:101: invalid JSON: nested too deeply"),
    (b"", None),
    (bytes(range(256)), "<stdin>:2:118: not UTF-8 text (byte 0x80)"),
])
def test_convert_stdin_through_the_real_entry_point(stdin, fragment):
    res = _authz("convert", "-", "--to", "json", stdin=stdin)
    err = res.stderr.decode()
    assert "Traceback" not in err
    if fragment is None:
        assert res.returncode == 0 and b'"acls": [' in res.stdout
    else:
        assert res.returncode == 2 and err.strip() == f"authz: error: {fragment}" or fragment in err, err
        assert err.startswith(f"authz: error: {fragment}")
        assert err.count("\n") == 1


def test_password_stdin_with_invalid_utf8_through_the_real_entry_point():
    res = _authz("scram", "create-user", "--user", "a", "--password-stdin", "--format", "json",
                 stdin=b"\xc3\x28secret\n")
    err = res.stderr.decode()
    assert res.returncode == 2 and err.count("\n") == 1 and "--password-stdin: not UTF-8" in err
    assert "secret" not in err


def test_hundred_thousand_requests_through_the_real_entry_point(tmp_path):
    import json

    acls = tmp_path / "acls.json"
    acls.write_bytes(slot_variants()["acls"]["valid"][0])
    requests = tmp_path / "requests.jsonl"
    requests.write_text("".join(json.dumps({"principal": f"User:u{i % 300}", "host": f"10.0.{i % 7}.{i % 200}",
                                            "operation": "READ", "resource_type": "TOPIC",
                                            "resource_name": f"orders-{i % 1000}"}) + "\n"
                                for i in range(100_000)))
    start = time.monotonic()
    res = _authz("simulate", acls, "--requests", requests)
    elapsed = time.monotonic() - start
    assert res.returncode == 0 and elapsed < SECONDS, (res.returncode, elapsed, res.stderr[-500:])
    assert b"99,800 more row(s) not shown" in res.stdout
