"""Strict reading: bytes, text, JSON and CSV with file:line:col for everything that goes wrong.

The bottom layer every reader builds on (no domain types): each domain package reads its own file
formats through it. ``strict_input`` decodes files and stdin (UTF-8 only, a byte-order mark noted, a
directory, a FIFO, a device or a socket refused), parses JSON strictly (duplicate keys, ``NaN``, lone surrogates and
excessive nesting refused, every error located) and CSV with a header, and locates a JSON path in
the text it came from. ``sniff`` says what a text is (``what_is``; ``is_rules`` for a Kroxylicious
rules file), which tells Kafka's ACL formats apart and makes the error a reader gives when a file is
not what it expected (``wrong_kind``).
``directory_files`` lists the files of a directory (hidden ones skipped), the same for every command.
``tally`` counts warnings that repeat, so that a command prints one line per kind (a count and the
first few places) instead of one per finding; ``bulk.paused_gc`` keeps the garbage collector off while
a reader builds a million objects.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.formats.bulk import paused_gc
    from kafka_authz_cli.formats.directory_files import files_under
    from kafka_authz_cli.formats.sniff import (
        JSON_KINDS,
        RULES_HEAD,
        Kind,
        is_rules,
        looks_like,
        other_kind,
        what_is,
        wrong_kind,
    )
    from kafka_authz_cli.formats.strict_input import (
        STDIN,
        STDIN_LABEL,
        LineIndex,
        array_element_offsets,
        brief,
        csv_rows,
        csv_table,
        decode_utf8,
        json_lines,
        json_type,
        line_col,
        loads,
        locate,
        next_stdin_line,
        open_regular,
        read_bytes,
        read_text,
        source_label,
        special_file,
        text_lines,
    )
    from kafka_authz_cli.formats.tally import WarningTally

__getattr__, __all__ = lazy_face(__name__, {**{name: "strict_input" for name in (
    "STDIN", "STDIN_LABEL", "LineIndex", "array_element_offsets", "brief", "csv_rows", "csv_table", "decode_utf8",
    "json_lines", "json_type", "line_col", "loads", "locate", "read_bytes", "next_stdin_line", "open_regular", "read_text",
    "source_label", "special_file", "text_lines",
)}, **{name: "sniff" for name in ("Kind", "JSON_KINDS", "what_is", "wrong_kind", "other_kind",
                                        "is_rules", "looks_like", "RULES_HEAD")}, "WarningTally": "tally", "paused_gc": "bulk",
    "files_under": "directory_files"})
