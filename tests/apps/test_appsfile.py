"""A team's apps file (apps/appsfile.py): read with positions, linted (AP codes, each example producing its
own code), and answered by `authz access --apps` as `authz app check` answers each application alone."""

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.apps.appsfile import CODES, DeclaredApp, looks_like_apps, read_apps
from kafka_authz_cli.cli.app import app
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.services import rules as lint_service

ACLS = """Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:
 \t(principal=User:orders, host=*, operation=READ, permissionType=ALLOW)

Current ACLs for resource `ResourcePattern(resourceType=GROUP, name=orders-app, patternType=LITERAL)`:
 \t(principal=User:orders, host=*, operation=READ, permissionType=ALLOW)

Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=payments, patternType=LITERAL)`:
 \t(principal=User:payments, host=*, operation=WRITE, permissionType=ALLOW)
"""

TEAM = """apps:
  - name: orders-reader
    kind: consumer
    principal: User:orders
    topics: [orders]
    config: {group.id: orders-app}
  - name: orders-audit
    kind: consumer
    principal: User:orders
    topics: orders-audit
    config: [group.id=orders-audit]
  - name: payments-writer
    kind: producer
    principal: User:payments
    topics: [payments]
"""


def test_entries_are_read_with_where_they_are_written():
    apps = read_apps(TEAM, "team.yaml")
    assert [(a.name, a.kind, a.line, a.col, a.topics, a.configs) for a in apps] == [
        ("orders-reader", "consumer", 2, 5, ("orders",), ("group.id=orders-app",)),
        ("orders-audit", "consumer", 7, 5, ("orders-audit",), ("group.id=orders-audit",)),
        ("payments-writer", "producer", 12, 5, ("payments",), ())]
    assert looks_like_apps(TEAM) and not looks_like_apps("topics:\n  - kind: x\n")


@pytest.mark.parametrize("text, where, reason", [
    ("apps:\n  - kind: consumer\n    topic: orders\n", (3, 12), "apps entry #1: unknown key 'topic'"),
    ("apps:\n  - name: x\n    topics: [a]\n", (2, 5), "apps entry #1 has no `kind:`"),
    ("apps:\n  - kind: consumer\n    stateful: maybe\n", (3, 15), "stateful of apps entry #1 must be true or false"),
    ("apps:\n  - kind: consumer\n    config: [group.id]\n", (3, 14), "config of apps entry #1: 'group.id' is no KEY"),
    ("apps: {kind: consumer}\n", (1, 7), "apps must be a list, got a mapping"),
    ("apps:\n  - kind: consumer\nteams: []\n", (1, 1), "unknown top-level key 'teams'"),
])
def test_what_an_apps_file_cannot_be_is_one_located_error(text, where, reason):
    with pytest.raises(InputError) as info:
        read_apps(text, "a.yaml")
    assert (info.value.line, info.value.col) == where and info.value.reason.startswith(reason), info.value


NAMES = st.text(st.characters(whitelist_categories=("Ll", "Nd"), whitelist_characters="-._"), min_size=1, max_size=8)


@given(st.lists(st.fixed_dictionaries({"kind": NAMES}, optional={
    "name": NAMES, "principal": NAMES.map(lambda n: "User:" + n), "topics": st.lists(NAMES, max_size=3),
    "inputs": st.lists(NAMES, max_size=2), "stateful": st.booleans(), "topic-absent": st.booleans(),
    "config": st.dictionaries(NAMES, NAMES, max_size=3)}), max_size=4))
def test_an_apps_file_written_by_a_yaml_library_reads_back_as_written(entries):
    # Property: whatever a YAML library writes for these entries (quoting numbers-like names, flow or
    # block style) reads back as the same applications.
    apps = read_apps(yaml.safe_dump({"apps": entries}, sort_keys=False), "p.yaml")
    assert len(apps) == len(entries)
    for n, (got, entry) in enumerate(zip(apps, entries), 1):
        assert got.kind == entry["kind"] and got.name == entry.get("name", f"{entry['kind']} #{n}")
        assert got.principal == entry.get("principal") and got.topics == tuple(entry.get("topics", ()))
        assert got.inputs == tuple(entry.get("inputs", ())) and got.stateful == entry.get("stateful", False)
        assert got.topic_absent == entry.get("topic-absent", False)
        assert got.configs == tuple(f"{k}={v}" for k, v in entry.get("config", {}).items())


@pytest.mark.parametrize("code", list(CODES))
def test_every_apps_code_s_example_produces_exactly_that_code(code, tmp_path):
    (tmp_path / "apps.yaml").write_text(CODES[code].example)
    [result] = lint_service.lint_paths([tmp_path / "apps.yaml"], None).results
    assert [f.code for f in result.findings] == [code], result.findings
    assert all(f.severity == CODES[code].severity for f in result.findings)


def test_lint_finds_apps_files_in_a_directory_by_content(tmp_path):
    (tmp_path / "team.yaml").write_text(TEAM)
    (tmp_path / "broken.yaml").write_text(CODES["AP004"].example)
    run = lint_service.lint_paths([tmp_path], None)
    assert {Path(r.path).name: [f.code for f in r.findings] for r in run.results} == {"team.yaml": [],
                                                                                        "broken.yaml": ["AP004"]}
    explained = CliRunner().invoke(app, ["lint", "--explain", "ap004"])
    assert explained.exit_code == 0 and "AP004 app-config-refused (error)" in explained.output


def _files(tmp_path):
    (tmp_path / "acls.txt").write_text(ACLS)
    (tmp_path / "team.yaml").write_text(TEAM)
    return str(tmp_path / "acls.txt"), str(tmp_path / "team.yaml")


def test_access_says_which_of_the_principal_s_applications_work_as_app_check_does(tmp_path):
    acls, team = _files(tmp_path)
    res = CliRunner().invoke(app, ["access", acls, "--principal", "User:orders", "--apps", team, "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["access"] and [(a["name"], a["works"], a["declared_at"]) for a in doc["apps"]] == [
        ("orders-reader", True, "2:5"), ("orders-audit", False, "7:5")]  # payments-writer is another principal's
    for entry, args in zip(doc["apps"], (["--topic", "orders", "--config", "group.id=orders-app"],
                                         ["--topic", "orders-audit", "--config", "group.id=orders-audit"])):
        alone = CliRunner().invoke(app, ["app", "check", acls, "consumer", "--principal", "User:orders", *args,
                                         "--format", "json"])
        answer = json.loads(alone.stdout)
        assert {k: entry[k] for k in answer} == answer
        assert alone.exit_code == (0 if entry["works"] else 1)
    assert doc["apps"][1]["exception"] == "TopicAuthorizationException"


def test_access_with_apps_alone_answers_every_application_and_a_person_reads_it(tmp_path):
    acls, team = _files(tmp_path)
    res = CliRunner().invoke(app, ["access", acls, "--apps", team], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "2 of 3 application(s) work; 1 fail" in res.output
    assert "this consumer cannot read the metadata of topic orders-audit: DESCRIBE on TOPIC orders-audit is " \
           "missing" in " ".join(res.output.split())
    md = CliRunner().invoke(app, ["access", acls, "--apps", team, "--format", "markdown"])
    assert "| orders-audit | consumer | fails |" in md.output


def test_a_file_that_is_no_apps_file_is_refused_saying_so(tmp_path):
    acls, _ = _files(tmp_path)
    res = CliRunner().invoke(app, ["access", acls, "--apps", acls])
    assert res.exit_code == 2 and "this is no apps file" in res.output


def test_declared_app_defaults():
    assert DeclaredApp("x", "consumer", 1, 1).host == "127.0.0.1"


def test_an_application_s_own_client_config_is_read_beside_the_apps_file_and_says_who_it_is(tmp_path):
    # client-config is relative to the apps file (not to where authz runs); the principal comes from
    # its sasl.jaas.config, and --principal picks the application by that principal.
    (tmp_path / "acls.txt").write_text(ACLS)
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "reader.properties").write_text(
        "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
        'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="orders" '
        'password="x";\ngroup.id=orders-app\n')
    (tmp_path / "team" / "apps.yaml").write_text(
        "apps:\n  - name: reader\n    kind: consumer\n    topics: [orders]\n    client-config: reader.properties\n"
        "  - name: missing\n    kind: consumer\n    topics: [orders]\n    client-config: nowhere.properties\n")
    res = CliRunner().invoke(app, ["access", str(tmp_path / "acls.txt"), "--principal", "User:orders", "--apps",
                                   str(tmp_path / "team" / "apps.yaml"), "--format", "json"])
    assert res.exit_code == 0, res.output
    apps = {a["name"]: a for a in json.loads(res.stdout)["apps"]}
    assert apps["reader"]["works"] is True and apps["reader"]["principal"] == "User:orders"
    assert "SCRAM" in apps["reader"]["principal_source"] or "sasl" in apps["reader"]["principal_source"]
    # an application whose file cannot be read is said, not dropped (it may be this principal's)
    assert apps["missing"]["works"] is None and "nowhere.properties" in apps["missing"]["problem"]
