"""Start-up: `authz --help`, `--version` and a command's own run import only what they use.

Not timed (tests/bench/bench_startup.py measures); each case runs authz in a fresh interpreter and
lists the modules it imported.
"""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.main import get_command, get_command_name

from kafka_authz_cli.cli.app import COMMANDS, app, load_all
from kafka_authz_cli.cli.help_layout import first_sentence

ROOT = Path(__file__).parents[2]
SMALL_RULES = ROOT / "examples" / "rules" / "multi-team.acl"
ACLS = ROOT / "examples" / "acls" / "cluster.json"

PROBE = """
import json, os, sys
from kafka_authz_cli.cli.app import main
def _exit(code):  # main() may end with os._exit (keep_until_exit): report the modules first
    raise SystemExit(code)
os._exit = _exit
sys.argv = ["authz"] + json.loads(sys.argv[1])
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
print("\\n@@MODULES@@" + json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

HEAVY = ("pyspark", "pyarrow", "kafka", "cryptography", "lark", "re2", "pydantic", "rich", "xml", "multiprocessing",
         "concurrent.futures", "py4j")
COMMAND_MODULES = {c.module for c in COMMANDS.values()}


def imported(args: list[str], env: dict | None = None) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps([str(a) for a in args])], cwd=ROOT,
                          capture_output=True, text=True, env=env, timeout=120)
    marker = proc.stderr.rindex("@@MODULES@@")
    return set(json.loads(proc.stderr[marker + len("@@MODULES@@"):]))


def loaded(modules: set[str], roots) -> set[str]:
    return {m for m in modules for r in roots if m == r or m.startswith(r + ".")}


@pytest.mark.parametrize("args", [["--help"], ["--version"], [], ["-h"]])
def test_help_and_version_import_no_command_and_no_heavy_dependency(args):
    modules = imported(args)
    assert not loaded(modules, HEAVY), loaded(modules, HEAVY)
    assert not modules & COMMAND_MODULES, modules & COMMAND_MODULES
    assert not loaded(modules, ["kafka_authz_cli.acl.engine", "kafka_authz_cli.rules", "kafka_authz_cli.formats"])


def test_lint_imports_the_rules_parser_and_nothing_else_heavy():
    modules = imported(["lint", SMALL_RULES])
    assert "kafka_authz_cli.rules.lint" in modules and "lark" in modules
    heavy = loaded(modules, ["pyspark", "pyarrow", "kafka", "cryptography", "xml", "multiprocessing",
                             "concurrent.futures", "rich"])
    assert not heavy, heavy  # text into a pipe: no rich at all
    assert modules & COMMAND_MODULES == {"kafka_authz_cli.cli.rules"}
    assert "kafka_authz_cli.rules.compile" not in modules  # compile/decompile only


@pytest.mark.parametrize("group", ["scram", "cluster", "whatif", "config", "principal", "connect", "policy"])
def test_a_group_help_imports_only_that_group(group):
    modules = imported([group, "--help"])
    heavy = loaded(modules, ["pyspark", "pyarrow", "kafka", "cryptography", "pydantic", "rich.table",
                             "rich.progress", "multiprocessing", "concurrent.futures"])
    assert not heavy, heavy
    assert modules & COMMAND_MODULES == {COMMANDS[group].module}


def test_simulate_json_imports_no_live_spark_or_crypto_dependency():
    modules = imported(["simulate", ACLS, "--principal", "User:analytics", "--operation", "Read",
                        "--topic", "orders-audit", "--format", "json"])
    heavy = loaded(modules, ["pyspark", "pyarrow", "kafka", "cryptography", "lark", "rich", "multiprocessing"])
    assert not heavy, heavy


def test_the_listing_is_the_commands_own_one_line_help():
    load_all()
    root = get_command(app)
    ctx = root.context_class(root, info_name="authz", **root.context_settings)
    registered = [info.name or get_command_name(info.callback.__name__) for info in app.registered_commands]
    registered += [info.name for info in app.registered_groups]
    assert sorted(registered) == sorted(COMMANDS), "a command module registers a command COMMANDS does not list"
    for name, spec in COMMANDS.items():
        command = root.get_command(ctx, name)
        assert command is not None, name
        assert first_sentence(command) == spec.short_help, name
        assert command.callback is None or command.callback.__module__ in (spec.module, "typer.main"), name
    help_text = root.get_help(ctx)
    for name, spec in COMMANDS.items():
        assert name in help_text
        assert " ".join(spec.short_help.split()) in " ".join(help_text.split())


def test_an_unknown_command_is_a_usage_error_with_a_suggestion():
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["simulat"])
    assert result.exit_code == 2
    assert "No such command 'simulat'" in result.output and "'simulate'" in result.output


# -- the rules grammar's parser tables, cached per user --------------------------------------------

def test_lark_cache_is_a_private_directory(tmp_path, monkeypatch):
    from kafka_authz_cli.rules import parser_cache as cache

    monkeypatch.setenv("AUTHZ_CACHE_DIR", str(tmp_path / "c"))
    path = cache.lark_cache("rules")
    assert path and Path(path).parent == tmp_path / "c"
    assert stat.S_IMODE(os.stat(tmp_path / "c").st_mode) & 0o077 == 0

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # another user could plant a pickle here: not used
    monkeypatch.setenv("AUTHZ_CACHE_DIR", str(shared))
    assert cache.lark_cache("rules") is False
    monkeypatch.setenv("AUTHZ_CACHE_DIR", "")
    assert cache.lark_cache("rules") is False


@pytest.mark.parametrize("state", ["empty", "warm", "damaged"])
def test_lint_is_the_same_whatever_the_cache_holds(tmp_path, state):
    cache_dir = tmp_path / "cache"
    env = dict(os.environ, AUTHZ_CACHE_DIR=str(cache_dir))
    cmd = [sys.executable, "-m", "kafka_authz_cli", "lint", "--format", "json",
           str(ROOT / "examples" / "rules" / "every-finding.acl")]
    reference = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=dict(env, AUTHZ_CACHE_DIR=""))
    if state in ("warm", "damaged"):
        subprocess.run(cmd, cwd=ROOT, capture_output=True, env=env, check=False)
        files = list(cache_dir.iterdir())
        assert len(files) == 1  # the one LALR parser the rules code builds
        if state == "damaged":
            for f in files:
                f.write_bytes(f.read_bytes()[: len(f.read_bytes()) // 2])
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    assert (result.returncode, result.stdout) == (reference.returncode, reference.stdout)
    assert json.loads(result.stdout)[0]["findings"]
    assert result.stderr == ""


def test_lint_of_a_big_file_exits_with_its_code_and_all_its_output(tmp_path):
    """keep_until_exit: the process leaves without freeing its objects, after flushing everything."""
    body = "".join(f'allow User with name = "u{i}" to READ Topic with name like "t{i}*";\n' for i in range(3000))
    rules = tmp_path / "big.acl"
    rules.write_text("from io.kroxylicious.filter.authorization import TopicResource as Topic;\n" + body
                     + "allow User with name = \"u1\" to READ Topic with name like \"t1*\";\notherwise deny;\n")
    proc = subprocess.run([sys.executable, "-m", "kafka_authz_cli", "lint", str(rules), "--fail-level", "warning"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1  # AZ107 (the duplicate) is a warning
    assert lines[-1].startswith("1 file(s): 0 error(s), 1 warning(s)")
    assert sum("AZ109" in line for line in lines) == 0 and any("AZ107" in line for line in lines)
