"""What the CLI prints, in process: the store line never shows a credential, and a table is Rich on a
terminal but tab-separated lines, values escaped, when piped."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.table import Column

from host.cli.base import describe_store
from host.cli.output import print_table
from service.settings import Settings


@pytest.mark.parametrize(
    ("uri", "shown"),
    [
        ("mongodb://127.0.0.1:27017", "mongodb://127.0.0.1:27017/tm"),
        ("mongodb://bob:s3cret@db.example:27017/admin?authSource=admin", "mongodb://***@db.example:27017/tm"),
        (
            "mongodb+srv://bob:p%40ss@cluster0.example.net/?retryWrites=true",
            "mongodb+srv://***@cluster0.example.net/tm",
        ),
        ("mongodb://bob@h1:1,h2:2/?replicaSet=rs&directConnection=false", "mongodb://***@h1:1,h2:2/tm"),
        ("mongodb://h?tlsCertificateKeyFilePassword=s3cret", "mongodb://h/tm"),
        # Not URIs the driver accepts: whatever precedes an '@' may be a credential, so none is shown.
        ("mongodb://bob:s3/cret@h:27017/db", "mongodb://***/tm"),
        ("mongodb://bob:a@b@h:27017", "mongodb://***@h:27017/tm"),
        ("bob:s3cret@h", "***/tm"),
    ],
)
def test_a_mongodb_store_is_named_without_credentials_or_options(uri: str, shown: str) -> None:
    described = describe_store(Settings(mongodb_uri=uri, database_name="tm"))
    assert described == f"mongodb at {shown}"
    assert "s3" not in described and "bob" not in described and "p%40ss" not in described


def test_an_embedded_store_is_named_by_its_absolute_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert describe_store(Settings(data_dir=Path("data"))) == f"embedded at {tmp_path.resolve() / 'data'}"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


ID = "5f0c2a7e-0b1d-4c6e-9a3f-2d8e7b6a1c90-and-then-some-more-characters"


def test_piped_a_table_is_one_tab_separated_line_per_row(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    print_table(
        ["id", Column("note", overflow="fold")], [[ID, "two\tcolumns\nand lines, a \\ too"], [ID + "2", "[bold]x"]]
    )
    assert out.getvalue() == (f"id\tnote\n{ID}\ttwo\\tcolumns\\nand lines, a \\\\ too\n{ID}2\t[bold]x\n")


def test_on_a_terminal_a_table_is_drawn_and_values_stay_literal(monkeypatch: pytest.MonkeyPatch) -> None:
    out = Terminal()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    print_table(["id", "note"], [["abc", "[bold]x[/bold]"]])
    drawn = out.getvalue()
    assert "│ abc │ [bold]x[/bold] │" in drawn and "━━━━━" in drawn
    assert "\t" not in drawn
