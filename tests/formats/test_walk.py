"""formats.files_under: the one directory walk, and the commands that walk a directory with it."""

from pathlib import Path

from kafka_authz_cli.formats import files_under
from kafka_authz_cli.services import rules as rules_service
from kafka_authz_cli.services.acl_sources import load_acl_set

USER = ("apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\nmetadata:\n  name: {name}\n  labels:\n"
        "    strimzi.io/cluster: prod\nspec:\n  authorization:\n    type: simple\n    acls:\n"
        "      - resource: {{type: topic, name: t}}\n        operations: [Read]\n")


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_files_in_name_order_a_directory_before_its_subdirectories_hidden_names_skipped(tmp_path):
    _tree(tmp_path, {"b.yaml": "", "a.yml": "", "z/c.yaml": "", "m/d.txt": "", ".hidden.yaml": "",
                     ".git/e.yaml": "", ".terraform/modules/f.yaml": "", "m/.swp.yaml": ""})
    assert [p.relative_to(tmp_path).as_posix() for p in files_under(tmp_path)] == [
        "a.yml", "b.yaml", "m/d.txt", "z/c.yaml"]
    assert [p.name for p in files_under(tmp_path, (".yaml",))] == ["b.yaml", "c.yaml"]


def test_lint_reads_no_hidden_file_or_directory(tmp_path):
    # The rule every directory read follows; lint skipped only .git, .hg and .svn before.
    _tree(tmp_path, {"a.acl": "otherwise deny;\n", ".old.acl": "otherwise deny;\n", ".config/b.acl": "otherwise deny;\n"})
    run = rules_service.lint_paths([tmp_path], None)
    assert [Path(r.path).name for r in run.results] == ["a.acl"] and not run.skipped


def test_an_acl_set_directory_reads_no_hidden_file_or_directory(tmp_path):
    _tree(tmp_path, {"a.yaml": USER.format(name="a"), ".b.yaml": USER.format(name="b"),
                     ".backup/c.yaml": USER.format(name="c")})
    assert {b.principal for b in load_acl_set(tmp_path).bindings} == {"User:a"}
