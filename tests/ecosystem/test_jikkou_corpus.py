"""The real Jikkou files of tests/ecosystem/corpora/jikkou/: read to exactly the bindings their SOURCES.md and
.bindings.json say (MATCH rules against the corpus' topics.txt), and written back as Jikkou resources that
decide alike (`authz diff`: equivalent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem.jikkou.reader import read
from kafka_authz_cli.ecosystem.jikkou.writer import write
from kafka_authz_cli.services.acl_sources import load_acl_set
from kafka_authz_cli.services.diff import condition_holds, diff_acl_sets

CORPUS = Path(__file__).parent / "corpora" / "jikkou"
TOPICS = {"topics": str(CORPUS / "topics.txt")}
FILES = sorted(CORPUS.glob("*.yaml"))


def test_the_corpus_has_at_least_five_real_files_each_with_its_meaning_and_source():
    assert len(FILES) >= 5
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for path in FILES:
        assert path.with_name(path.stem + ".bindings.json").is_file(), path.name
        assert f"`{path.name}`" in sources, f"{path.name} has no source in SOURCES.md"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_reads_to_the_bindings_it_means(path):
    got = load_acl_set(path, options=TOPICS)
    expected = load_acl_set(path.with_name(path.stem + ".bindings.json"))
    assert sorted(map(str, got.bindings)) == sorted(map(str, expected.bindings))
    assert got.format == "jikkou"
    for origin in got.origins:
        assert origin.startswith(f"{path}:") and "(KafkaPrincipal" in origin


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_round_trips_through_jikkou_exactly(path, tmp_path):
    bindings = load_acl_set(path, options=TOPICS).bindings
    written = tmp_path / "written.yaml"
    written.write_text(write(bindings).text)
    again = read(written.read_text(), str(written)).bindings
    assert sorted(map(str, again)) == sorted(map(str, set(bindings)))
    if not bindings:
        return
    expected = tmp_path / "expected.json"
    expected.write_text(path.with_name(path.stem + ".bindings.json").read_text())
    result = diff_acl_sets(expected, written)
    assert result.verdict == "equivalent" and not result.bindings.added and not result.bindings.removed
    assert not condition_holds(result, "any-change")


def test_the_findings_of_the_corpus_are_the_ones_sources_md_names():
    warnings = {p.name: " ".join(load_acl_set(p, options=TOPICS).warnings) for p in FILES}
    assert "EA601" in warnings["examples-principal-acls.yaml"]
    assert "EA603" in warnings["e2e-kafka-acls-delete.yaml"]
    assert "matches 0 of the" in warnings["docs-roles-example.yaml"]
    assert "v1beta2" in warnings["howto-roles.yaml"]
    assert "EA60" not in warnings["e2e-kafka-acls.yaml"] + warnings["it-test-kafka-acls.yaml"]


def test_authz_diff_of_a_file_and_its_conversion_exits_0(tmp_path):
    out = tmp_path / "acls.yaml"
    source = str(CORPUS / "examples-principal-acls-and-roles.yaml")
    runner = CliRunner()
    converted = runner.invoke(app, ["convert", source, "--option", f"topics={TOPICS['topics']}", "--to", "jikkou",
                                    "-o", str(out)])
    assert converted.exit_code == 0, converted.output
    assert "roles" not in out.read_text() and "MATCH" not in out.read_text()
    as_json = tmp_path / "acls.json"
    assert runner.invoke(app, ["convert", source, "--option", f"topics={TOPICS['topics']}", "-o", str(as_json),
                               "--to", "json"]).exit_code == 0
    result = runner.invoke(app, ["diff", str(as_json), str(out), "--fail-on", "any-change"])
    assert result.exit_code == 0, result.output
    assert "equivalent" in result.stdout
