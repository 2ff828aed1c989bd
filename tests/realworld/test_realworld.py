"""Real public files, each run through authz with the outcome Kafka (or the tool that made it) has.

Every area keeps its files and a ``cases.toml`` in ``tests/realworld/<area>/``. A case is::

    [[case]]
    file = "acl-rules.txt"                 # in this area's directory
    source = "https://github.com/<owner>/<repo>/blob/<commit>/<path>"   # where the file came from
    args = ["lint", "{file}"]              # authz's arguments; {file} is the file, {dir} the area
    exit = 1                               # the exit code authz must give
    stdout = ["..."]                       # substrings stdout must hold (optional)
    stderr = ["..."]                       # substrings stderr must hold (optional)
    not_stdout = ["..."]                   # substrings that must not appear (optional)
    why = "what the real code does with this file, naming the class that decides it"

A file may carry several cases. Every file in an area must have at least one case and a source, so
nothing sits in the corpus untested.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

HERE = Path(__file__).parent
MIN_FILES = 100


def _areas() -> list[Path]:
    return sorted(p for p in HERE.iterdir() if p.is_dir() and (p / "cases.toml").is_file())


def _cases() -> list[tuple[str, dict]]:
    found = []
    for area in _areas():
        with open(area / "cases.toml", "rb") as fh:
            doc = tomllib.load(fh)
        for i, case in enumerate(doc.get("case", [])):
            found.append((f"{area.name}/{case['file']}#{i}", {**case, "_area": area}))
    return found


CASES = _cases()


def test_the_corpus_is_big_enough_and_every_file_is_tested():
    files = [p for area in _areas() for p in area.rglob("*") if p.is_file() and p.name != "cases.toml"]
    tested = {(c["_area"] / c["file"]).resolve() for _, c in CASES}
    untested = [str(p.relative_to(HERE)) for p in files if p.resolve() not in tested]
    assert not untested, f"files without a case: {untested}"
    assert len(files) >= MIN_FILES, f"{len(files)} real files, want at least {MIN_FILES}"
    for name, case in CASES:
        assert case.get("source", "").strip(), f"{name}: no source"
        assert case.get("why", "").strip(), f"{name}: no why"


@pytest.mark.parametrize("name,case", CASES, ids=[n for n, _ in CASES])
def test_real_file(name, case, tmp_path, monkeypatch):
    area: Path = case["_area"]
    path = area / case["file"]
    assert path.is_file(), f"{name}: {path} is missing"
    monkeypatch.chdir(tmp_path)
    args = [a.replace("{file}", str(path)).replace("{dir}", str(area)) for a in case["args"]]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"}, terminal_width=200)
    detail = f"{name}\nargs: {args}\nexit {result.exit_code}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.exception is None or isinstance(result.exception, SystemExit), detail
    assert result.exit_code == case["exit"], detail
    for text in case.get("stdout", []):
        assert text in result.stdout, f"stdout lacks {text!r}\n{detail}"
    for text in case.get("stderr", []):
        assert text in result.stderr, f"stderr lacks {text!r}\n{detail}"
    for text in case.get("not_stdout", []):
        assert text not in result.stdout, f"stdout has {text!r}\n{detail}"
