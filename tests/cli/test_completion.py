"""Shell completion: typer's --install-completion / --show-completion, and completing from the lazy
command table (a command's module is imported only once completion reaches its options)."""

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

ROOT = Path(__file__).parents[2]


def complete(shell_env: dict) -> str:
    env = dict(os.environ, **shell_env)
    authz = Path(sys.executable).parent / "authz"  # the installed script: completion keys on its name
    proc = subprocess.run([str(authz)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_completion_options_are_offered(monkeypatch):
    # Typer finds the shell by walking up the process tree (shellingham): under `make`'s /bin/sh that is
    # sh, which it does not support; the answer must not depend on who started the tests.
    import typer.completion

    monkeypatch.setattr(typer.completion, "_get_shell_name", lambda: "bash")
    result = CliRunner().invoke(app, ["--help"])
    assert "--install-completion" in result.output and "--show-completion" in result.output
    script = CliRunner().invoke(app, ["--show-completion", "bash"], prog_name="authz")
    assert script.exit_code == 0
    assert "_AUTHZ_COMPLETE=complete_bash" in script.output and "complete " in script.output


def test_bash_completes_commands_subcommands_and_options():
    out = complete({"_AUTHZ_COMPLETE": "complete_bash", "COMP_WORDS": "authz s", "COMP_CWORD": "1"})
    assert out.split() == ["simulate", "scram"]
    out = complete({"_AUTHZ_COMPLETE": "complete_bash", "COMP_WORDS": "authz scram create", "COMP_CWORD": "2"})
    assert out.split() == ["create-user", "create-users"]
    out = complete({"_AUTHZ_COMPLETE": "complete_bash", "COMP_WORDS": "authz simulate --tls", "COMP_CWORD": "2"})
    assert out.split() == ["--tls-dn"]


def test_zsh_descriptions_are_the_one_line_help_on_one_line():
    out = complete({"_AUTHZ_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": "authz s"})
    assert '"simulate":"Decide requests exactly as Kafka\'\'s StandardAuthorizer does, with the deciding rule."' in out
    assert len(out.strip().splitlines()) == 2
