"""`authz` run in-process, as the command tests run it: Typer's CliRunner on the app.

``run("scram", "create-user", path, input=...)`` is ``authz scram create-user PATH`` with ``input`` on stdin;
every argument is given as ``str(argument)``, so paths go in as they are.
"""

from __future__ import annotations

from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app

runner = CliRunner()


def run(*args, input=None, env=None):
    return runner.invoke(app, [str(a) for a in args], input=input, env=env)
