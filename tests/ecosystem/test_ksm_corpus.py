"""The real KSM YAML files of tests/ecosystem/corpora/ksm/: read to exactly the bindings their SOURCES.md and
.bindings.json say (or refused where KSM refuses them), and written back to KSM YAML that decides alike
(`authz diff`: equivalent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem.ksm.reader import read
from kafka_authz_cli.ecosystem.ksm.writer import write
from kafka_authz_cli.services.acl_sources import load_acl_set
from kafka_authz_cli.services.diff import condition_holds, diff_acl_sets

CORPUS = Path(__file__).parent / "corpora" / "ksm"
FILES = sorted(p for p in CORPUS.glob("*.yml") if p.with_name(p.stem + ".bindings.json").is_file())
REFUSED = {
    "parser-test-errors.yml": "parser-test-errors.yml:5:11: 'BadOperation,Deny,12.34.56.78': 'BadOperation' is not "
                              "an operation",
    "parser-test-2020.yml": "parser-test-2020.yml:25:11: 'Admin' is not an operation",
    "ksm-export.yml": "ksm-export.yml: this looks like YAML, expected an ACL set",
}


def test_the_corpus_has_at_least_five_real_files_each_with_its_meaning_and_source():
    files = list(CORPUS.glob("*.yml"))
    assert len(files) >= 5 and len(FILES) >= 3
    assert {p.name for p in files} == {p.name for p in FILES} | set(REFUSED)
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for path in files:
        assert f"`{path.name}`" in sources, f"{path.name} has no source in SOURCES.md"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_reads_to_the_bindings_it_means(path):
    got = load_acl_set(path)
    expected = load_acl_set(path.with_name(path.stem + ".bindings.json"))
    assert got.bindings == expected.bindings
    assert got.format == "ksm-yaml"
    for origin in got.origins:
        assert origin.startswith(f"{path}:") and "(KSM user " in origin


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_files_ksm_refuses_are_refused_with_one_located_line(name):
    result = CliRunner().invoke(app, ["convert", str(CORPUS / name), "--to", "json"])
    assert result.exit_code == 2
    assert REFUSED[name] in " ".join(result.stderr.split())


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_round_trips_through_ksm_yaml_exactly(path, tmp_path):
    bindings = load_acl_set(path).bindings
    written = tmp_path / "written.yml"
    written.write_text(write(bindings).text)
    again = read(written.read_text(), str(written)).bindings
    assert sorted(map(str, again)) == sorted(map(str, set(bindings)))
    result = diff_acl_sets(path, written)
    assert result.verdict == "equivalent" and not result.bindings.added and not result.bindings.removed
    assert not condition_holds(result, "any-change")


def test_authz_diff_of_a_file_and_its_conversion_exits_0(tmp_path):
    out = tmp_path / "acls.yml"
    runner = CliRunner()
    converted = runner.invoke(app, ["convert", str(CORPUS / "readme-example.yml"), "--to", "ksm-yaml", "-o", str(out)])
    assert converted.exit_code == 0, converted.output
    assert "Produce" not in out.read_text()  # the helper is written as its explicit entries
    result = runner.invoke(app, ["diff", str(CORPUS / "readme-example.yml"), str(out), "--fail-on", "any-change"])
    assert result.exit_code == 0, result.output
    assert "equivalent" in result.stdout
