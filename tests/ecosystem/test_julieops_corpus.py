"""The real JulieOps topologies of tests/ecosystem/corpora/julieops/: read to exactly the bindings their SOURCES.md
and .bindings.json say (JulieOps 4.4.1's default ACL provider), or refused where JulieOps refuses them."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.services.acl_sources import load_acl_set

CORPUS = Path(__file__).parent / "corpora" / "julieops"
FILES = sorted(p for p in [*CORPUS.glob("*.yaml"), *CORPUS.glob("*.json")]
               if not p.name.endswith(".bindings.json") and p.with_name(p.stem + ".bindings.json").is_file())
REFUSED = {
    "descriptor-with-others.yml": ([], "descriptor-with-others.yml:9: project foo: 'zookeepers' is a custom role, "
                                       "and no roles file is given"),
    "descriptor.yaml": (["--option", f"julie.roles={CORPUS / 'roles.yaml'}"],
                        "descriptor.yaml:12: project foo: role 'bar' is not in the roles file"),
    "dir_with_multiple": ([], "1-descriptor.yaml:2: context 'contextOrg': topologies from different contexts are "
                              "not allowed"),
}


def test_the_corpus_has_at_least_five_real_files_each_with_its_meaning_and_source():
    assert len(FILES) >= 5
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for path in [*CORPUS.glob("*.y*ml"), *FILES, CORPUS / "dir_with_multiple"]:
        assert f"`{path.name}" in sources, f"{path.name} has no source in SOURCES.md"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_reads_to_the_bindings_it_means(path):
    got = load_acl_set(path)
    expected = load_acl_set(path.with_name(path.stem + ".bindings.json"))
    assert got.bindings == expected.bindings
    assert got.format == "julieops"
    assert len(set(got.bindings)) == len(got.bindings)  # JulieOps keeps a set
    for origin in got.origins:
        assert origin.startswith(f"{path}:") and " entry of " in origin


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_files_julieops_refuses_are_refused_with_one_located_line(name):
    options, message = REFUSED[name]
    result = CliRunner().invoke(app, ["convert", str(CORPUS / name), "--to", "json", *options])
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())


def test_simulate_explains_a_decision_by_the_construct_that_granted_it():
    result = CliRunner().invoke(app, ["simulate", str(CORPUS / "streams-acl-it.yaml"), "--principal", "User:consumer",
                                      "--operation", "READ", "--topic", "context.streamsproject.topic-C"])
    assert result.exit_code == 0, result.output
    assert "streams-acl-it.yaml:16 (consumers entry of project streamsproject)" in " ".join(result.stdout.split())
