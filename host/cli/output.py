"""What a command prints on stdout: its result for a script, a table for a person.

stdout carries only the result (a table or ``--json``); progress, the store line and summaries go
to stderr (``host.cli.base.err``), so ``memory-service age --json > out.json`` stays parseable.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn
from rich.table import Column, Table
from rich.text import Text

from host.cli.base import err

# Backslash first, so the escapes the others introduce are not escaped again.
_TSV_ESCAPES = (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r"))


def progress() -> Progress:
    """A spinner with a changing description, on stderr. stdout is left alone while it spins (Rich
    would otherwise route prints to stdout through the spinner's console, onto stderr)."""
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), console=err, redirect_stdout=False)


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")


def _tsv_cell(value: str) -> str:
    for raw, escaped in _TSV_ESCAPES:
        value = value.replace(raw, escaped)
    return value


def print_table(columns: Sequence[str | Column], rows: Iterable[Sequence[str]]) -> None:
    """A Rich table on a terminal. Piped or redirected, where Rich would wrap at 80 columns and
    split an id over several lines, tab-separated lines instead: a header, then one line per row,
    tabs and newlines inside a value escaped as ``\\t`` and ``\\n``, so ``cut`` and ``grep`` see
    every value whole."""
    if sys.stdout.isatty():
        table = Table(*columns)
        for row in rows:
            # Values are data (labels, summaries): shown literally, never read as Rich markup.
            table.add_row(*(Text(value) for value in row))
        Console().print(table)
        return
    headers = [column if isinstance(column, str) else str(column.header) for column in columns]
    lines = ["\t".join(_tsv_cell(value) for value in row) for row in [headers, *rows]]
    sys.stdout.write("".join(line + "\n" for line in lines))
