"""``token list`` renders labels (and the CLI its error messages) as Rich markup.

``memory-service token list`` puts each label into a Rich table cell, and ``_fail`` prints its
message with ``Console.print``; both parse ``[...]`` as markup. A label such as
"[prod] alice's assistant" loses its "[prod]" in the listing, and a label or token id holding
"[/]" makes ``token list`` / ``token revoke`` die with a MarkupError traceback: one odd label
leaves the operator unable to list any token.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.server_process import run_cli
from tests.support.tokens import create_token, token_env

pytestmark = pytest.mark.slow


def test_token_list_shows_labels_literally(tmp_path: Path) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    create_token(token_file, 1, label="[prod] alice's assistant")
    create_token(token_file, 2, label="[/] [bold]odd[/bold]")
    listed = run_cli(["token", "list"], cwd=tmp_path, env={**token_env(token_file), "COLUMNS": "400"})
    assert listed.returncode == 0, listed.stderr
    assert "[prod] alice's assistant" in listed.stdout
    assert "[/] [bold]odd[/bold]" in listed.stdout


def test_an_error_naming_a_bracketed_token_id_is_reported_not_a_crash(tmp_path: Path) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    create_token(token_file, 1)
    done = run_cli(["token", "revoke", "[/]x"], cwd=tmp_path, env={**token_env(token_file), "COLUMNS": "400"})
    assert done.returncode == 1, done.stderr
    assert "no token with id [/]x" in done.stderr and "Traceback" not in done.stderr
