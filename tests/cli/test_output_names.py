"""Principals, DNs and resource names in tables: never wrapped at a space inside the value; folded
only between the RDNs of a DN when the column cannot hold the whole value (cli/output.py)."""

import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.table import Table
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.output import AuthzConsole, fold_offsets, name_units


@pytest.fixture(autouse=True)
def fresh_consoles():
    """rich fixes a console's width when it is created (once per process for the CLI): these runs set
    their own, and leave no narrow console behind for the tests after them."""
    from kafka_authz_cli.cli import common

    for lazy in (common.console, common.err_console):
        lazy._console = None
    yield
    for lazy in (common.console, common.err_console):
        lazy._console = None


BORDERS = re.compile(r"[│┃┆|]")


def render(table: Table, width: int) -> str:
    buf = io.StringIO()
    AuthzConsole(file=buf, width=width, force_terminal=False, color_system=None, highlight=False).print(table)
    return buf.getvalue()


def pieces(out: str) -> list[str]:
    """Every cell line of the output (a table's cells, or a record's values), stripped."""
    found = []
    for line in out.splitlines():
        for part in BORDERS.split(line):
            found.append(part.strip())
            found.extend(p.strip() for p in re.split(r"\s{2,}", part))
    return found


def unit_is_whole(unit: str, out: str) -> bool:
    unit = unit.strip()
    return any(unit in p for p in pieces(out))


RDN_VALUE = st.text(alphabet="abcdefgh ABC-.", min_size=1, max_size=18).map(str.strip).filter(bool)
RDN = st.builds(lambda t, v: f"{t}={v}", st.sampled_from(["CN", "OU", "O", "L", "C", "DC"]), RDN_VALUE)
DN = st.lists(RDN, min_size=1, max_size=5).map(",".join)


@settings(max_examples=150, deadline=None)
@given(dns=st.lists(DN, min_size=1, max_size=4), width=st.integers(min_value=30, max_value=160),
       why=st.text(alphabet="abc de", max_size=60))
def test_a_name_is_cut_only_between_rdns(dns, width, why):
    table = Table("#", "DN", "principal", "why")
    for i, dn in enumerate(dns, 1):
        table.add_row(str(i), dn, f"User:{dn}", why)
    out = render(table, width)
    assert "…" not in out
    for dn in dns:
        for unit in name_units(dn) + name_units(f"User:{dn}"):
            assert unit_is_whole(unit, out), (unit, out)


def test_units_and_folds():
    assert name_units("User:CN=Alice Smith,O=Acme Corp\\, Inc.,C=US") == [
        "User:CN=Alice Smith,", "O=Acme Corp\\, Inc.,", "C=US"]
    assert name_units("User:alice smith") == ["User:alice smith"]
    assert fold_offsets("CN=Alice Smith,O=Acme,C=US", 25) == [22]
    assert fold_offsets("CN=Alice Smith,O=Acme,C=US", 20) == [15]
    assert fold_offsets("CN=Alice Smith,O=Acme,C=US", 5) == [15, 22]  # a unit wider than the line: whole


def run(*args, columns=80):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": str(columns)}, terminal_width=columns)


def test_the_principal_table_keeps_alice_smith_together():
    dn = "CN=Alice Smith,OU=Platform Team,O=Acme Corp,C=US"
    args = ("principal", "tls", "--rules", "RULE:^CN=([^,]*),O=Acme.*$/$1/,DEFAULT", dn, "CN=Bob Jones,O=Acme")
    for columns in (40, 60, 80, 120):
        out = run(*args, columns=columns).output
        for unit in ("CN=Alice Smith,", "OU=Platform Team,", "O=Acme Corp,", "User:CN=Alice Smith,",
                     "User:Bob Jones"):
            assert unit_is_whole(unit, out), (columns, unit, out)
    rows = json.loads(run(*args, "-f", "json", columns=40).stdout)  # json is never folded
    assert rows[0]["principal"] == f"User:{dn}" and rows[1]["principal"] == "User:Bob Jones"
    csv = run(*args, "-f", "csv", columns=40).stdout
    assert f'"User:{dn}"' in csv
