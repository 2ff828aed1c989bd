"""Tables for people at 80 columns and in a pipe: no value cut with `…`, no name broken mid-token."""

import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.table import Table
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.cli.output import AuthzConsole, Records, fit_table

ROOT = Path(__file__).parents[2]
EX = ROOT / "examples"


@pytest.fixture(autouse=True)
def fresh_consoles():
    """rich fixes a console's width from $COLUMNS when it is created (once per process for the CLI):
    these in-process runs each set their own."""
    from kafka_authz_cli.cli import common

    for lazy in (common.console, common.err_console):
        lazy._console = None
    yield
    for lazy in (common.console, common.err_console):
        lazy._console = None


SPLIT = re.compile(r"[\s│┃┆|]+")


def tokens(text: str) -> set[str]:
    return set(SPLIT.split(text))


def render(table: Table, width: int) -> str:
    buf = io.StringIO()
    AuthzConsole(file=buf, width=width, force_terminal=False, color_system=None, highlight=False).print(table)
    return buf.getvalue()


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:.=/+", min_size=1,
               max_size=50)
CELL = st.lists(WORD, min_size=0, max_size=6).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(headers=st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12), min_size=1,
                        max_size=7, unique=True),
       data=st.data(), width=st.integers(min_value=30, max_value=200), show_header=st.booleans())
def test_a_table_at_any_width_keeps_every_word_whole(headers, data, width, show_header):
    rows = data.draw(st.lists(st.lists(CELL, min_size=len(headers), max_size=len(headers)), min_size=1, max_size=5))
    table = Table(*headers, show_header=show_header)
    for row in rows:
        table.add_row(*row)
    out = render(table, width)
    assert "…" not in out
    seen = tokens(out)
    for row in rows:
        for cell in row:
            for word in cell.split():
                assert word in seen, (word, out)
    if show_header:  # (the record layout names a column beside its values: none, no name)
        for i, h in enumerate(headers):
            if not any(row[i].strip() for row in rows):
                continue
            assert h in seen or f"#{h}" in seen or any(t.startswith(h) for t in seen), (h, out)
    for line in out.splitlines():
        if len(line) > width:  # only a word longer than the room left may run past the edge
            longest = max(line.split(), key=len)
            assert len(line) - len(longest) <= width, (line, out)


def test_fit_keeps_a_table_that_fits_and_makes_records_of_one_that_cannot():
    console = AuthzConsole(file=io.StringIO(), width=80)
    small = Table("a", "b")
    small.add_row("x", "y")
    assert fit_table(console, small, 80) is small and small.columns[0].width is None
    narrow = Table("principal", "why")
    narrow.add_row("User:analytics", "DENY ACL denies READ on TOPIC 'orders-audit' (examples/acls/cluster.json:6)")
    assert fit_table(console, narrow, 60) is narrow and narrow.columns[1].width is not None
    wide = Table("key", "value")
    wide.add_row("StoredKey", "x" * 120)
    assert isinstance(fit_table(console, wide, 80), Records)


def run(*args, columns=80, stdin=None):
    return CliRunner().invoke(app, [str(a) for a in args], input=stdin, env={"COLUMNS": str(columns)},
                              terminal_width=columns)


def test_scram_keys_are_printed_whole_at_80_columns():
    base = ("scram", "create-user", "--user", "alice", "--password-stdin", "--salt", "c2FsdHNhbHRzYWx0")
    for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
        record = json.loads(run(*base, "--mechanism", mechanism, "--format", "json", stdin="pw\n").output)
        table = run(*base, "--mechanism", mechanism, stdin="pw\n")
        assert table.exit_code == 0, table.output
        assert "…" not in table.output
        assert record["storedKey"] in tokens(table.output) and record["serverKey"] in tokens(table.output)


def test_simulate_at_80_columns_keeps_every_name_whole():
    result = run("simulate", EX / "acls" / "cluster.json", "--requests", EX / "acls" / "requests.csv",
                 "--broker-config", EX / "acls" / "server.properties")
    as_json = run("simulate", EX / "acls" / "cluster.json", "--requests", EX / "acls" / "requests.csv",
                  "--broker-config", EX / "acls" / "server.properties", "--format", "json")
    assert result.exit_code == as_json.exit_code == 0, result.output
    assert "…" not in result.output
    seen = tokens(result.output)
    for row in json.loads(as_json.output):
        assert row["principal"] in seen
        for word in (row.get("explanation") or "").split():
            assert word in seen, word
    assert max(len(line) for line in result.output.splitlines()) <= 80


def test_rules_decisions_at_80_columns_keep_rule_texts_whole():
    result = run("simulate", "--rules", EX / "rules" / "multi-team.acl", "--requests", EX / "rules" / "requests.csv")
    assert result.exit_code == 0, result.output
    assert "…" not in result.output
    assert "examples/rules/multi-team.acl:5" in tokens(result.output) or \
        str(EX / "rules" / "multi-team.acl") + ":5" in tokens(result.output)


def test_diff_at_80_columns_keeps_operation_lists_whole():
    result = run("diff", EX / "diff" / "old.json", EX / "diff" / "new.json")
    assert "READ/WRITE/CREATE/DELETE/ALTER/DESCRIBE/DESCRIBE_CONFIGS/ALTER_CONFIGS" in tokens(result.output)
    assert "User:payments-svc" in tokens(result.output)


def test_wide_terminals_still_get_tables():
    result = run("simulate", EX / "acls" / "cluster.json", "--requests", EX / "acls" / "requests.csv",
                 "--broker-config", EX / "acls" / "server.properties", columns=250)
    assert "┃ principal" in result.output


def test_values_are_printed_as_given_not_as_emoji():
    table = Table("resource")
    table.add_row("TOPIC:alerts:fire:")
    assert "TOPIC:alerts:fire:" in render(table, 80)


def test_diff_table_with_o_is_written_to_the_file_not_ignored(tmp_path):
    """-o with the default table format used to print to the terminal and write nothing (exit 0)."""
    out = tmp_path / "diff.txt"
    result = run("diff", EX / "diff" / "old.json", EX / "diff" / "new.json", "-o", out)
    assert result.exit_code == 0 and "verdict" not in result.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith("verdict: both") and "\x1b[" not in text
    assert "READ/WRITE/CREATE/DELETE/ALTER/DESCRIBE/DESCRIBE_CONFIGS/ALTER_CONFIGS" in tokens(text)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab c\t日本 \u3000-")), max_size=80), st.integers(1, 30))
def test_tables_break_lines_at_spaces_only_and_never_drop_a_character(text, width):
    from rich.cells import cell_len

    from kafka_authz_cli.cli.output import break_offsets

    offsets = break_offsets(text, width)
    pieces = [text[a:b] for a, b in zip([0] + offsets, offsets + [len(text)])]
    assert "".join(pieces) == text
    for start in offsets:  # a break starts a word, right after a space
        assert not text[start].isspace() or not text[start - 1].isspace()
        assert text[start - 1].isspace()
    for piece in pieces:  # a piece wider than the width is one word (with its spaces)
        assert cell_len(piece.rstrip()) <= width or len(piece.split()) <= 1
