"""The ecosystem readers (Strimzi, KSM, JulieOps, Jikkou, kafka-gitops, Terraform) fed hostile files of every
class: YAML aliases, nesting, expansion, quadratic work, backtracking, special files, and valid files that
must be read (CRLF, a byte-order mark, empty documents, a late ``projects``). The catalogue is
hostile_ecosystem.py.

Held to the same bounds as test_hostile_inputs.py: each case ends within its SECONDS with exit 2 and one
line ``authz: error: FILE[:LINE[:COL]]: reason``, or succeeds where the file is valid; never a traceback.
The worst case of each class also runs in its own process under the memory limit the fuzzer holds every
reader to (2 GB, tests/bench/fuzz_readers.py): its peak resident memory is measured, not assumed.
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from tests.hostile.hostile_ecosystem import _directory, cases  # noqa: F401  (_directory: a fixture)
from tests.hostile.test_hostile_inputs import SECONDS

ROOT = Path(__file__).parents[2]
MEMORY_MB = 2048  # the fuzzer's -rss_limit_mb
runner = CliRunner()
#: built in seconds of their own (tens of thousands of files): run by the comparison test below, smaller
HEAVY = ("julieops|directory-50000", "strimzi|directory-50000")
CASES = {c.name: c for c in cases()}


def _check(case, code: int, output: str, stderr: str, elapsed: float) -> None:
    assert elapsed < SECONDS, f"{case.name}: {elapsed:.1f} s"
    assert "Traceback" not in output + stderr, (output + stderr)[-2000:]
    errors = [line for line in stderr.splitlines() if line.startswith("authz: error:")]
    if case.expect == "ok":
        assert code == 0, f"{case.name}: exit {code}: {stderr[-2000:]}"
    elif case.expect == "any":
        assert code in (0, 2) and len(errors) == (code == 2), f"{case.name}: exit {code}: {stderr[-2000:]}"
    elif case.expect == "error":
        assert code == 2, f"{case.name}: exit {code}: {stderr[-2000:]}"
        assert len(errors) == 1, stderr[-2000:]
        assert len(errors[0]) < 1100, errors[0][:300]
        assert re.match(r"authz: error: [^:]+(:\d+(:\d+)?)?: \S", errors[0]), errors[0][:300]
    else:
        assert code == case.expect, f"{case.name}: exit {code}: {stderr[-2000:]}"
    if case.says:
        assert case.says in output + stderr, (case.says, (output + stderr)[-1500:])


@pytest.mark.parametrize("name", [n for n in CASES if n not in HEAVY])
def test_hostile_ecosystem_file(name, tmp_path, monkeypatch):
    case = CASES[name]
    monkeypatch.chdir(tmp_path)
    argv = case.build(tmp_path)
    start = time.monotonic()
    res = runner.invoke(app, argv)
    elapsed = time.monotonic() - start
    assert res.exception is None or isinstance(res.exception, SystemExit), (
        f"{name}: {type(res.exception).__name__}: {res.exception}")
    _check(case, res.exit_code, res.stdout, res.stderr, elapsed)


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.worst and n not in HEAVY])
def test_worst_case_within_time_and_memory(name, tmp_path):
    """In its own process, under an address-space limit: the time and the peak memory it really takes."""
    from tests.bench.hostile_worst import run_measured

    authz = shutil.which("authz", path=str(Path(sys.executable).parent))
    case = CASES[name]
    argv = [authz] + case.build(tmp_path)
    r = run_measured(argv, SECONDS, MEMORY_MB, tmp_path)
    assert not r["timed_out"], f"{name}: over {SECONDS} s"
    assert not r["memory_error"] and r["peak_mb"] is not None and r["peak_mb"] < MEMORY_MB, r
    assert not r["traceback"], r
    assert r["code"] == (0 if case.expect == "ok" else 2 if case.expect == "error" else r["code"]), r


def test_a_directory_of_julieops_files_reads_as_fast_as_one_of_strimzi_files(tmp_path):
    """Each file is a topology of its own project in one context: merging them is linear (JulieOps merges the
    projects of a context; the names seen are kept, not rebuilt per file)."""
    from kafka_authz_cli.services.acl_sources import load_acl_set

    count = 10_000
    took = {}
    for fmt in ("strimzi", "julieops"):
        _directory(fmt, count)(tmp_path)
        start = time.monotonic()
        acl_set = load_acl_set(tmp_path / f"{fmt}-{count}", fmt)
        took[fmt] = time.monotonic() - start
        assert len(acl_set.bindings) >= count
    assert took["julieops"] < 3 * took["strimzi"] + 1, took
