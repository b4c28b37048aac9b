"""``memory-service``: serve, seed, export, import, age, rederive and token. Every flag also reads
``MEMORY_…``."""

from __future__ import annotations

from host.cli import data, maintenance, serve
from host.cli.base import app
from host.cli.tokens import tokens_app

for function, options in serve.COMMANDS + data.COMMANDS + maintenance.COMMANDS:  # the order --help lists
    app.command(**options)(function)
app.add_typer(tokens_app, name="token")


def main() -> None:
    app()
