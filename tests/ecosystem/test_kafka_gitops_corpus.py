"""The real kafka-gitops files of tests/ecosystem/corpora/kafka-gitops/: read to exactly the bindings kafka-gitops' own
plan outputs (or its code) give them, refused where kafka-gitops refuses them, and written back to a state
file that decides alike (`authz diff`: equivalent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.ecosystem.kafka_gitops.reader import read
from kafka_authz_cli.ecosystem.kafka_gitops.writer import write
from kafka_authz_cli.services.acl_sources import load_acl_set
from kafka_authz_cli.services.diff import condition_holds, diff_acl_sets

CORPUS = Path(__file__).parent / "corpora" / "kafka-gitops"
CCLOUD = {"ccloud-service-accounts": "my-test-service=12345,user-john-doe=67890"}
#: name -> (what is read, reading options)
SOURCES = {p.name.removesuffix(".bindings.json"): (p.with_name(p.name.removesuffix(".bindings.json") + ".yaml"), {})
           for p in CORPUS.glob("*.bindings.json")}
SOURCES["multi-file"] = (CORPUS / "multi-file", {})
SOURCES["confluent-cloud"] = (CORPUS / "confluent-cloud", CCLOUD)
REFUSED = {
    "invalid-custom-service-acls-1.yaml": "invalid-custom-service-acls-1.yaml:11:16: Custom ACL definition for "
                                          "service 'test-service' is invalid for field 'pattern'",
    "invalid-custom-service-acls-2.yaml": "invalid-custom-service-acls-2.yaml:14:18: Custom ACL definition for "
                                          "service 'other-service' is invalid for field 'operation'",
    "invalid-custom-user-acls-1.yaml": "invalid-custom-user-acls-1.yaml:9:13: Custom ACL definition for user "
                                       "'test-user' is invalid for field 'type'",
    "invalid-custom-user-acls-2.yaml": "invalid-custom-user-acls-2.yaml:13:19: Custom ACL definition for user "
                                       "'my-user' is invalid for field 'permission'",
    "invalid-missing-principal.yaml": "invalid-missing-principal.yaml:5:9: Missing required configuration: Not set: "
                                      "[principal] for service: test-service",
    "invalid-missing-user-principal.yaml": "invalid-missing-user-principal.yaml:2:3: Missing principal for user "
                                           "test-user",
    "unrecognized-property.yaml": "unrecognized-property.yaml:3:5: Unrecognized field: [test] in state file "
                                  "definition: topics -> test-topic",
}


def test_the_corpus_has_at_least_five_real_files_each_with_its_meaning_and_source():
    files = list(CORPUS.glob("*.yaml"))
    assert len(SOURCES) >= 10
    assert {p.name for p in files} == {p.name for p, _ in SOURCES.values() if p.suffix == ".yaml"} | set(REFUSED)
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for path in files:
        assert path.name in sources, f"{path.name} has no source in SOURCES.md"


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_file_reads_to_the_bindings_it_means(name):
    path, options = SOURCES[name]
    got = load_acl_set(path, options=options)
    expected = load_acl_set(CORPUS / f"{name}.bindings.json")
    assert got.bindings == expected.bindings
    assert got.format == "kafka-gitops"
    for origin in got.origins:
        assert origin.startswith(str(path)) and " (" in origin


def test_the_multi_file_state_reads_alike_as_its_state_file_and_as_its_directory():
    state = CORPUS / "multi-file" / "multi-file.yaml"
    assert load_acl_set(state).bindings == load_acl_set(CORPUS / "multi-file").bindings


def test_confluent_cloud_needs_the_service_account_ids():
    result = CliRunner().invoke(app, ["convert", str(CORPUS / "confluent-cloud"), "--to", "json"])
    assert result.exit_code == 2
    assert "state.yaml:3:14: settings.ccloud.enabled" in " ".join(result.stderr.split())


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_files_kafka_gitops_refuses_are_refused_with_one_located_line(name):
    result = CliRunner().invoke(app, ["convert", str(CORPUS / name), "--to", "json"])
    assert result.exit_code == 2
    assert REFUSED[name] in " ".join(result.stderr.split())


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_file_round_trips_through_kafka_gitops_exactly(name, tmp_path):
    path, options = SOURCES[name]
    bindings = load_acl_set(path, options=options).bindings
    written = tmp_path / "written.yaml"
    written.write_text(write(bindings).text)
    again = read(written.read_text(), str(written)).bindings
    assert sorted(map(str, again)) == sorted(map(str, set(bindings)))
    result = diff_acl_sets(CORPUS / f"{name}.bindings.json", written)
    assert result.verdict == "equivalent" and not result.bindings.added and not result.bindings.removed
    assert not condition_holds(result, "any-change")


def test_authz_diff_of_a_file_and_its_conversion_exits_0(tmp_path):
    out = tmp_path / "state.yaml"
    runner = CliRunner()
    source = CORPUS / "describe-topic-acl-enabled.yaml"
    converted = runner.invoke(app, ["convert", str(source), "--to", "kafka-gitops", "-o", str(out)])
    assert converted.exit_code == 0, converted.output
    assert "services" not in out.read_text()  # generators are written as their explicit ACLs
    result = runner.invoke(app, ["diff", str(source), str(out), "--fail-on", "any-change"])
    assert result.exit_code == 0, result.output
    assert "equivalent" in result.stdout
