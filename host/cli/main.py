"""``memory-service``: serve, seed, export, import, import-history, age, rederive, verify, salvage, backup, restore
and token. Every flag also reads
``MEMORY_…``."""

from __future__ import annotations

from host.cli import data, history, maintenance, operate, serve
from host.cli import grants as _grants  # noqa: F401 - registers `token grants`
from host.cli.base import app
from host.cli.tokens import tokens_app

for function, options in (
    serve.COMMANDS + data.COMMANDS + history.COMMANDS + maintenance.COMMANDS + operate.COMMANDS
):  # the order --help lists
    app.command(**options)(function)
app.add_typer(tokens_app, name="token")


def main() -> None:
    app()
