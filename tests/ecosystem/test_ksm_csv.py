"""KSM's CSV of every version (tests/ecosystem/corpora/ksm/*.csv, real files of KSM 0.3, 0.4 and 1.0.1): read as
its CsvAclParser reads them, a file from before KSM 0.4 (no PatternType column) as all LITERAL with one
warning; `--acls-format ksm` names either KSM format, told apart by content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.errors import OptionError
from kafka_authz_cli.services.acl_sources import load_acl_set
from kafka_authz_cli.services.convert import write_acls

CORPUS = Path(__file__).parent / "corpora" / "ksm"
CSVS = sorted(CORPUS.glob("*.csv"))
runner = CliRunner()


def test_there_are_csvs_of_three_ksm_versions_each_with_its_source():
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    assert len(CSVS) >= 3 and all(f"`{p.name}`" in sources for p in CSVS)


@pytest.mark.parametrize("path", CSVS, ids=[p.name for p in CSVS])
@pytest.mark.parametrize("fmt", [None, "csv", "ksm"])
def test_each_csv_reads_to_its_bindings(path, fmt):
    got = load_acl_set(path, fmt)
    expected = load_acl_set(path.with_name(path.stem + ".bindings.json"))
    assert got.bindings == expected.bindings and got.format == "csv"
    pre_04 = "PatternType" not in path.read_text().splitlines()[0]
    said = [w for w in got.warnings if "no PatternType column" in w]
    assert len(said) == int(pre_04)
    if pre_04:
        assert all(b.pattern_type.name == "LITERAL" for b in got.bindings)
        assert said[0].startswith(f"{path}:1: ") and f"({len(got.bindings)} ACL(s))" in said[0]


def test_a_pre_04_file_means_what_the_04_file_says_of_the_same_rows():
    old = {str(b) for b in load_acl_set(CORPUS / "v0.3-acls.csv").bindings}
    new = {str(b) for b in load_acl_set(CORPUS / "v0.4-acls.csv").bindings}
    assert old < new  # 0.4 kept the three rows (as LITERAL) and added PREFIXED ones


def test_the_columns_may_come_in_any_order_as_ksm_reads_by_header(tmp_path):
    src = tmp_path / "acls.csv"
    src.write_text("Host,PermissionType,Operation,ResourceName,ResourceType,KafkaPrincipal\n"
                   "*,Allow,Read,foo,Topic,User:alice\n")
    [b] = load_acl_set(src).bindings
    assert (b.principal, b.resource_name, b.pattern_type.name, b.operation.name) == ("User:alice", "foo", "LITERAL",
                                                                                     "READ")


def test_acls_format_ksm_reads_yaml_too():
    yml = CORPUS / "readme-example.yml"
    assert load_acl_set(yml, "ksm").bindings == load_acl_set(yml).bindings


def test_ksm_is_no_output_format():
    # cluster pull's --to takes the reading names; the writer says which two it means
    bindings = load_acl_set(CORPUS / "v0.4-acls.csv").bindings
    with pytest.raises(OptionError, match="write ksm-yaml or csv"):
        write_acls(bindings, "ksm")


def test_the_pre_04_warning_reaches_the_user_once():
    result = runner.invoke(app, ["convert", str(CORPUS / "v0.3-acls.csv"), "--to", "json"])
    assert result.exit_code == 0 and len(json.loads(result.stdout)["acls"]) == 3
    assert " ".join(result.stderr.split()).count("no PatternType column") == 1
