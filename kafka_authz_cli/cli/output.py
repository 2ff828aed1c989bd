"""Tables that survive a pipe and an 80-column terminal.

Rich squeezes a table that is wider than the console by shrinking its widest columns, which breaks
names mid-token (`User:ana|lytics`) and cuts keys with `…`. `AuthzConsole.print` lays a table out
itself instead:

- it fits at its natural width: printed as is;
- it fits when every column is as wide as its longest word: those widths, the spare room shared by
  how much each column wants, so cells wrap at spaces only;
- otherwise one record per block, `header  value` lines, values wrapped at spaces and a word longer
  than the line (a SCRAM StoredKey, a long rule) left whole: the line runs long and nothing is cut.

A principal, a distinguished name or a resource name is one value, spaces and all
(`User:CN=Alice Smith,O=Acme`): the columns that hold them (by header: ``NAME_HEADERS``) never wrap
at a space. When such a value is wider than its column can be, it folds after a `,` that separates
two RDNs of a DN, only there; a piece that is still too wide stays whole (the record layout lets the
line run long). json, jsonl and csv never pass through here.

The width is the console's: the terminal's, or $COLUMNS (80 by default) when piped.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any, Iterable

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

_UNBOUNDED = 1_000_000

#: headers of the columns whose values are names: they fold only between the RDNs of a DN
NAME_HEADERS = frozenset({"principal", "dn", "kerberos name", "resource", "user", "topic", "binding"})
#: where a value may fold: after a ',' that is not escaped (RFC 4514 writes a literal comma as '\,')
_UNIT = re.compile(r"(?:\\.|[^,\\])*(?:,\s*|\\$|$)")


def name_units(plain: str) -> list[str]:
    """A name cut where it may fold: after each unescaped comma (with the spaces after it)."""
    return [u for u in _UNIT.findall(plain) if u] or [plain]


def fold_offsets(plain: str, width: int) -> list[int]:
    """Where a name breaks to fit ``width`` cells: between units only, a unit wider than the line
    left whole on a line of its own."""
    offsets: list[int] = []
    used = pos = 0
    for unit in name_units(plain):
        if used and used + cell_len(unit.rstrip()) > width:
            offsets.append(pos)
            used = 0
        used += cell_len(unit)
        pos += len(unit)
    return offsets


def _fold_name(text: Text, width: int) -> list[Text]:
    out: list[Text] = []
    for line in text.split(allow_blank=True):
        pieces = line.divide(fold_offsets(line.plain, width))
        for piece in pieces:
            piece.rstrip()
        out.extend(pieces)
    return out


def is_name_column(console: Console, column: Any) -> bool:
    return _cell_text(console, column.header).plain.strip().lower() in NAME_HEADERS


def _name_min_width(console: Console, column: Any) -> int:
    """The widest piece a name column's values can fold into (cells, lines and units)."""
    return max((cell_len(u.rstrip()) for cell in column.cells
                for line in _cell_text(console, cell).plain.split("\n") for u in name_units(line)), default=1)


def _fold_name_cells(console: Console, column: Any, width: int) -> None:
    """Fold each value of a name column to ``width`` at RDN boundaries, so the table never wraps it."""
    column._cells = [Text("\n").join(_fold_name(_cell_text(console, cell), width)) for cell in column.cells]


def _spread(spare: int, wants: list[int]) -> list[int]:
    """Share `spare` columns between cells in proportion to what each still wants (no more)."""
    total = sum(wants)
    if total <= spare:
        return list(wants)
    shares = [spare * w // total for w in wants]
    left = spare - sum(shares)
    for i in sorted(range(len(wants)), key=lambda i: wants[i] - shares[i], reverse=True)[:left]:
        shares[i] += 1
    return shares


def fit_table(console: Console, table: Table, width: int) -> Any:
    """The table with column widths that break no word, or a record layout when none fits."""
    if not table.columns or not table.row_count:
        return table
    options = console.options.update_width(_UNBOUNDED)
    ranges = [table._measure_column(console, options, column) for column in table.columns]
    pads = [table._get_padding_width(i) for i in range(len(table.columns))]
    # Widths include padding; a column is at least one character wide.
    names = [is_name_column(console, column) for column in table.columns]
    mins = [max(r.maximum if column.no_wrap else
                _name_min_width(console, column) + pad if name else r.minimum, pad + 1)
            for r, column, pad, name in zip(ranges, table.columns, pads, names)]
    maxs = [max(r.maximum, lo) for r, lo in zip(ranges, mins)]
    extra = table._extra_width
    if sum(maxs) + extra <= width:
        return table
    if sum(mins) + extra > width:
        return Records(table)
    widths = [lo + add for lo, add in zip(mins, _spread(width - extra - sum(mins),
                                                         [hi - lo for lo, hi in zip(mins, maxs)]))]
    for column, w, pad, hi, name in zip(table.columns, widths, pads, maxs, names):
        column.width = w - pad
        if name and w < hi:
            _fold_name_cells(console, column, w - pad)
    return table


def _cell_text(console: Console, cell: Any) -> Text:
    if isinstance(cell, Text):
        return cell
    if isinstance(cell, str):
        return console.render_str(cell, highlight=False)
    return Text(str(cell))


_WORD = re.compile(r"\s*\S+\s*")


def break_offsets(plain: str, width: int) -> list[int]:
    """Where a line of text breaks to fit ``width`` cells, at spaces only: each word (with the
    spaces around it) goes on the current line if it fits there without its trailing spaces, else
    starts a new one; a word wider than ``width`` gets a line of its own, whole. (rich's Text.wrap
    either folds such a word or crops it, and its word splitter is not public.)"""
    offsets: list[int] = []
    used = 0
    for m in _WORD.finditer(plain):
        word = m.group()
        if width - used >= cell_len(word.rstrip()):
            used += cell_len(word)
            continue
        if m.start():
            offsets.append(m.start())
        used = cell_len(word)
    return offsets


def _wrap_words(console: Console, text: Text, width: int) -> list[Text]:
    """Wrap at spaces only: a word longer than `width` gets a line of its own, whole."""
    out: list[Text] = []
    for line in text.split(allow_blank=True):
        pieces = line.divide(break_offsets(line.plain, width))
        for piece in pieces:
            piece.rstrip_end(width)
            piece.rstrip()
        out.extend(pieces)
    return out


class Records:
    """A table as one block per row: the values of its unlabelled columns as the block's heading, then
    `header  value` lines (a headerless two-column table as `key  value` lines)."""

    def __init__(self, table: Table):
        self.table = table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        table = self.table
        width = options.max_width
        if table.title:
            yield from console.render(_cell_text(console, table.title).copy(), options.update(no_wrap=True))
        columns = [list(column.cells) for column in table.columns]
        rows = [list(row) for row in zip(*columns)]
        keyvalue = not table.show_header and len(table.columns) == 2
        blocks: list[tuple[list, list[tuple[str, Any]]]]  # per row: the cells heading it, the (label, cell)s
        if keyvalue:
            blocks = [([], [(_cell_text(console, row[0]).plain, row[1])]) for row in rows]
        elif not table.show_header:  # no names to give: each row's cells, in order, as its block
            blocks = [([], [("", cell)]) for row in rows for cell in row]
        else:
            labels = [_cell_text(console, column.header).plain.strip() for column in table.columns]
            # Unlabelled columns (a +/- mark) and a row number (`#`) head the block.
            blocks = [([cell if not label else f"#{_cell_text(console, cell).plain}"
                        for label, cell in zip(labels, row) if label in ("", "#")],
                       [(label, cell) for label, cell in zip(labels, row) if label not in ("", "#")])
                      for row in rows]
        label_width = max((len(label) for _, pairs in blocks for label, _ in pairs), default=0)
        # Long labels (a headerless table's keys are data) go on a line of their own, values below.
        stacked = label_width + 2 + 20 > width
        value_width = width - 2 if stacked else width - label_width - 2
        bold = console.get_style("bold")
        for n, (heading, pairs) in enumerate(blocks):
            if n and not keyvalue:
                yield Segment.line()
            head = Text(" ").join(_cell_text(console, c) for c in heading if _cell_text(console, c).plain.strip())
            if head.plain:
                yield from head.render(console)
                yield Segment.line()
            for label, cell in pairs:
                value = _cell_text(console, cell)
                if not value.plain.strip() and not keyvalue:
                    continue
                wrap = _fold_name if label.lower() in NAME_HEADERS else partial(_wrap_words, console)
                lines = wrap(value, value_width) if value.plain.strip() else []
                if stacked:
                    for line in _wrap_words(console, Text(label), width):
                        yield Segment(line.plain, bold)
                        yield Segment.line()
                    for line in lines:
                        yield Segment("  ")
                        yield from line.render(console)
                        yield Segment.line()
                    continue
                for i, line in enumerate(lines or [Text("")]):
                    head_text = (label if i == 0 else "").ljust(label_width) + "  " if line.plain else label
                    yield Segment(head_text, bold if i == 0 else None)
                    yield from line.render(console)
                    yield Segment.line()
        if table.caption:
            yield from console.render(_cell_text(console, table.caption).copy(), options.update(no_wrap=True))


class AuthzConsole(Console):
    """rich's Console whose `print` lays tables out with `fit_table`, and which leaves `:name:` in
    data alone (rich would print a topic called `a:smile:` as `a😄`).

    With ``wrap_on_terminal_only`` (standard error's console: warnings, notes, errors), text wraps at
    the console's width only on a terminal; into a pipe or a file each message stays one line, as long
    as it is (a CI log or a ``2>file`` gets one line per warning that a grep finds whole)."""

    def __init__(self, *args: Any, wrap_on_terminal_only: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)
        self._wrap_on_terminal_only = wrap_on_terminal_only

    def print(self, *objects: Any, **kwargs: Any) -> None:  # noqa: A003 (rich's name)
        if self._wrap_on_terminal_only and "soft_wrap" not in kwargs and not self.is_terminal:
            kwargs["soft_wrap"] = True
        if any(isinstance(o, Table) for o in objects):
            width = kwargs.get("width") or self.width
            objects = tuple(fit_table(self, o, width) if isinstance(o, Table) else o for o in objects)
            if any(isinstance(o, Records) for o in objects):
                kwargs["crop"] = False  # a word longer than the line stays whole
        super().print(*objects, **kwargs)
