"""The manual page and the README name every command the CLI has."""

from pathlib import Path

from typer.main import get_command

from kafka_authz_cli.cli.app import app

ROOT = Path(__file__).parents[2]


def test_every_command_is_documented():
    commands = set(get_command(app).list_commands(None))
    assert {"simulate", "convert", "lint", "compile", "decompile", "diff", "whatif", "scram", "cluster"} <= commands
    man = (ROOT / "man" / "authz.1").read_text()
    readme = (ROOT / "README.md").read_text()
    for name in commands:
        assert f".B {name}" in man or f"\\fB{name}" in man, name
        assert f"authz {name}" in readme, name


def test_readme_starts_with_the_two_setup_commands():
    head = (ROOT / "README.md").read_text().split("```")[1]
    assert "make demo" in head and "make test" in head
