"""The real Terraform files of tests/ecosystem/corpora/terraform/: read to exactly the bindings (and findings) their
SOURCES.md and .bindings.json say, refused where a value is not in the files, and written back with both
providers to resources that decide alike (`authz diff`: equivalent)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem.terraform.reader import read
from kafka_authz_cli.ecosystem.terraform.writer import write
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.services.acl_sources import load_acl_set
from kafka_authz_cli.services.diff import condition_holds, diff_acl_sets

CORPUS = Path(__file__).parent / "corpora" / "terraform"
FILES = sorted(p for p in CORPUS.glob("*.tf") if p.with_name(p.stem + ".bindings.json").is_file())
#: the findings each file gives (the others give none)
FINDINGS = {"mongey-docs-guides-quick-start-acls.tf": ["EA506"],
            "mongey-docs-resources-user-scram-credential.tf": ["EA506"]}
#: files whose ACLs take values from what Terraform computes: (line:col of the error, resources left out)
REFUSED = {"confluent-docs-kafka-acl-other-usages.tf": ("6:19", 1),
           "confluent-examples-basic-kafka-acls-main.tf": ("134:27", 3)}


def codes(warnings):
    return sorted({c for w in warnings for c in re.findall(r"\bEA5\d\d\b", w)})


def test_the_corpus_has_at_least_five_real_files_each_with_its_bindings_and_source():
    assert len(FILES) >= 5
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for path in CORPUS.glob("*.tf"):
        assert f"`{path.name}`" in sources, f"{path.name} has no source in SOURCES.md"
    assert {p.name for p in CORPUS.glob("*.tf")} == {p.name for p in FILES} | set(REFUSED)
    # both providers are in it
    assert any("confluent_kafka_acl" in p.read_text() for p in FILES)
    assert any('"kafka_acl"' in p.read_text() for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_reads_to_the_bindings_it_means(path):
    got = load_acl_set(path)
    expected = load_acl_set(path.with_name(path.stem + ".bindings.json"))
    assert got.bindings == expected.bindings
    assert got.format == "terraform"
    assert codes(got.warnings) == FINDINGS.get(path.name, [])
    for origin in got.origins:
        assert re.fullmatch(rf"{re.escape(str(path))}:\d+ \((?:confluent_)?kafka_acl\.[\w-]+\)", origin)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_values_terraform_computes_are_refused_located_or_skipped_with_ea504(name):
    path = CORPUS / name
    place, skipped = REFUSED[name]
    with pytest.raises(InputError) as e:
        read(path.read_text(), str(path))
    assert f"{e.value.line}:{e.value.col}" == place
    got = read(path.read_text(), str(path), {"unevaluated": "skip"})
    assert got.bindings == [] and codes(got.warnings) == ["EA504"]
    line = next(w for w in got.warnings if "EA504" in w)
    assert line.startswith(f"{skipped} EA504 ") if skipped > 1 else line.startswith(f"{path}:")


@pytest.mark.parametrize("provider", ["kafka", "confluent"])
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_round_trips_through_terraform_exactly(path, provider, tmp_path):
    bindings = load_acl_set(path).bindings
    written = tmp_path / "written.tf"
    written.write_text(write(bindings, provider=provider,
                             confluent_cluster="lkc-1" if provider == "confluent" else None).text)
    again = read(written.read_text(), str(written)).bindings
    assert sorted(map(str, again)) == sorted(map(str, set(bindings)))
    result = diff_acl_sets(path, written)
    assert result.verdict == "equivalent" and not result.bindings.added and not result.bindings.removed
    assert not condition_holds(result, "any-change")


def test_authz_diff_of_a_file_and_its_conversion_exits_0(tmp_path):
    path = CORPUS / "mongey-docs-resources-acl.tf"
    out = tmp_path / "acls.tf"
    runner = CliRunner()
    converted = runner.invoke(app, ["convert", str(path), "--to", "terraform", "-o", str(out)])
    assert converted.exit_code == 0, converted.output
    result = runner.invoke(app, ["diff", str(path), str(out), "--fail-on", "any-change"])
    assert result.exit_code == 0, result.output
    assert "equivalent" in result.stdout
