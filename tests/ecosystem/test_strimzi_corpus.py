"""The real KafkaUser files of tests/ecosystem/corpora/strimzi/: read to exactly the bindings their SOURCES.md
and .bindings.json say, and written back to KafkaUsers that decide alike (`authz diff`: equivalent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem.strimzi.reader import read
from kafka_authz_cli.ecosystem.strimzi.writer import write
from kafka_authz_cli.services.acl_sources import load_acl_set
from kafka_authz_cli.services.diff import condition_holds, diff_acl_sets

CORPUS = Path(__file__).parent / "corpora" / "strimzi"
FILES = sorted(p for p in CORPUS.glob("*.yaml") if p.with_name(p.stem + ".bindings.json").is_file())


def test_the_corpus_has_at_least_five_real_files_each_with_its_bindings_and_source():
    assert len(FILES) >= 5
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for path in CORPUS.glob("*.yaml"):
        assert f"`{path.name}`" in sources, f"{path.name} has no source in SOURCES.md"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_reads_to_the_bindings_it_means(path):
    got = load_acl_set(path)
    expected = load_acl_set(path.with_name(path.stem + ".bindings.json"))
    assert got.bindings == expected.bindings
    assert got.format == "strimzi"
    # every binding names the KafkaUser and the line of its acl entry
    for origin in got.origins:
        assert origin.startswith(f"{path}:") and "(KafkaUser " in origin


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_round_trips_through_kafka_users_exactly(path, tmp_path):
    bindings = load_acl_set(path).bindings
    written = tmp_path / "written.yaml"
    written.write_text(write(bindings).text)
    again = read(written.read_text(), str(written)).bindings
    assert sorted(map(str, again)) == sorted(map(str, set(bindings)))
    # the decision diff of the service `authz diff` runs: equivalent, and no binding added or removed
    result = diff_acl_sets(path, written)
    assert result.verdict == "equivalent" and not result.bindings.added and not result.bindings.removed
    assert not condition_holds(result, "any-change")


def test_authz_diff_of_a_file_and_its_conversion_exits_0(tmp_path):
    path = CORPUS / "tls-auth-mirror-maker-2.yaml"
    out = tmp_path / "users.yaml"
    runner = CliRunner()
    converted = runner.invoke(app, ["convert", str(path), "--to", "strimzi", "-o", str(out)])
    assert converted.exit_code == 0, converted.output
    result = runner.invoke(app, ["diff", str(path), str(out), "--fail-on", "any-change"])
    assert result.exit_code == 0, result.output
    assert "equivalent" in result.stdout


def test_a_kafka_access_resource_is_refused_saying_what_it_is():
    result = CliRunner().invoke(app, ["convert", str(CORPUS / "kafka-access-with-user.yaml"), "--to", "json"])
    assert result.exit_code == 2
    assert "this looks like a Kubernetes KafkaAccess resource" in result.stderr


def test_the_corpus_directory_reads_as_one_acl_set_of_every_file():
    # kafka-access-with-user.yaml and the .bindings.json files are skipped: not KafkaUsers
    merged = load_acl_set(CORPUS)
    assert len(merged.bindings) == sum(len(load_acl_set(p).bindings) for p in FILES)
    assert any("not Strimzi KafkaUser resources and were skipped" in w for w in merged.warnings)
