"""man/authz.1 is generated from the commands and man/authz.1.in, is current, and is installed."""

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kafka_authz_cli.cli import manpage

ROOT = Path(__file__).parents[2]
MAN = ROOT / "man" / "authz.1"


def test_the_committed_man_page_is_current():
    generated = manpage.render((ROOT / "man" / "authz.1.in").read_text(encoding="utf-8"))
    assert MAN.read_text(encoding="utf-8") == generated, "run: python -m kafka_authz_cli.cli.manpage"
    assert manpage.main(["--check"]) == 0


def test_check_reports_a_stale_page(tmp_path, capsys):
    stale = tmp_path / "authz.1"
    stale.write_text(MAN.read_text(encoding="utf-8").replace("Print the version and exit.", "Old text."))
    assert manpage.main(["--check", "-o", str(stale)]) == 1
    assert "+Print the version and exit." in capsys.readouterr().out


def test_every_command_option_and_exit_code_is_in_the_page():
    from kafka_authz_cli.cli.app import command_tree

    text = MAN.read_text(encoding="utf-8")
    plain = text.replace("\\-", "-").replace("\\fB", "").replace("\\fI", "").replace("\\fR", "")
    for path, command, ctx in command_tree():
        assert f'.SS "{path} ' in plain, path
        for param in command.get_params(ctx):
            if getattr(param, "hidden", False):
                continue
            for opt in param.opts:
                if param.param_type_name == "option":
                    assert opt in plain, (path, opt)
        for line in (command.help or "").split("\n\n"):
            if line.startswith("Exit codes:"):
                assert " ".join(line.split()) in " ".join(plain.split()), path
    for prose in (".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH COMMANDS", ".SH EXIT STATUS",
                  ".SH SHELL COMPLETION", ".SH ENVIRONMENT", ".SH FILES", ".SH SEE ALSO"):
        assert prose in text
    assert not re.search(r"^\.TH .*@VERSION@", text, re.M) and "@REFERENCE@" not in text


@pytest.mark.skipif(shutil.which("man") is None, reason="man is not installed")
def test_man_renders_it_without_warnings_or_split_names():
    proc = subprocess.run(["man", "-l", str(MAN)], capture_output=True, text=True,
                          env={"MANWIDTH": "80", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, timeout=60)
    assert proc.returncode == 0
    assert "warning" not in proc.stderr
    assert "\u2010" not in proc.stdout  # no typographic hyphens: flags copy as typed
    assert "--allow-everyone-if-no-acl-found" in proc.stdout
    assert "ssl.principal.mapping.rules" in proc.stdout


def test_the_package_installs_the_page_under_share_man_man1():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert config["tool"]["setuptools"]["data-files"]["share/man/man1"] == ["man/authz.1"]
    assert "man/authz.1" in (ROOT / "Makefile").read_text()  # the editable dev venv links it


def test_the_generator_runs_as_a_module(tmp_path):
    out = tmp_path / "authz.1"
    proc = subprocess.run([sys.executable, "-m", "kafka_authz_cli.cli.manpage", "-o", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text(encoding="utf-8") == MAN.read_text(encoding="utf-8")
