"""`make demo` piped: no escape codes, and the files it names are kept where it says.

The whatif part (a PySpark job in its own JVM) is left to `make demo`; the others run here.
"""

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PARTS = sorted(p for p in (ROOT / "examples").glob("*/demo-part.sh") if p.parent.name != "whatif")


def run_part(part: Path, out: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, BIN=str(Path(sys.executable).parent), DEMO_OUT=str(out), COLUMNS="100")
    return subprocess.run(["bash", str(part)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("part", PARTS, ids=[p.parent.name for p in PARTS])
def test_a_demo_part_piped_prints_no_escape_codes(part, tmp_path):
    result = run_part(part, tmp_path / "demo-out")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x1b" not in result.stderr
    assert re.search(r"^== .+\n\$ authz ", result.stdout, re.M), result.stdout[:500]


def test_the_scram_part_keeps_the_files_it_names(tmp_path):
    out = tmp_path / "demo-out"
    result = run_part(ROOT / "examples" / "scram" / "demo-part.sh", out)
    assert result.returncode == 0, result.stderr
    for name in ("alice.json", "pw.csv", "creds.jsonl"):
        path = out / "scram" / name
        assert path.is_file(), name
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, name
        assert str(path) in result.stdout  # the command shown is the command run
    rerun = run_part(ROOT / "examples" / "scram" / "demo-part.sh", out)  # a second demo starts afresh
    assert rerun.returncode == 0, rerun.stderr


def test_only_the_shared_step_function_writes_escape_codes():
    for script in (ROOT / "examples").rglob("*.sh"):
        text = script.read_text()
        if script.name == "demo-lib.sh":
            assert "[ -t 1 ]" in text
            continue
        assert "\\033" not in text and "\\e[" not in text and "\x1b" not in text, script
        if script.name == "demo-part.sh":
            assert "demo-lib.sh" in text, script


def test_the_whatif_part_keeps_its_report_where_it_says():
    text = (ROOT / "examples" / "whatif" / "demo-part.sh").read_text()
    assert "out=$(demo_out whatif)" in text and "mktemp" not in text and "trap" not in text
    assert '--report "$out/report.html"' in text and "--report $out/report.html" in text
