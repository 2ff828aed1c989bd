"""`authz whatif`'s options pass between its modules as one typed value (cli/whatif_params.py), never as
Typer's raw ctx.params: the value has exactly the callback's parameters."""

import typer

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.whatif_params import WhatIfParams


def test_the_typed_options_are_exactly_the_callbacks_parameters():
    group = typer.main.get_command(app)
    ctx = group.make_context("authz", [], resilient_parsing=True)
    whatif = group.get_command(ctx, "whatif")
    assert {p.name for p in whatif.params} == WhatIfParams.names()
