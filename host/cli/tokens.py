"""``memory-service token create | list | revoke``: bearer tokens, shown once and stored hashed."""

from __future__ import annotations

import json
import sys
from typing import Annotated, TypeGuard

import typer
from rich.markup import escape

from host.cli.base import AsJson, DataDir, TokenFile, err, fail, settings_from, token_store
from host.cli.output import print_table
from service.auth.tokens import Role as TokenRole

tokens_app = typer.Typer(
    help="Bearer tokens: a token is shown once at creation and stored hashed.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


Role = Annotated[
    str, typer.Option(help="user: acts only for its user ids; operator: reads any user, deletes, ops tools")
]


def _is_role(value: str) -> TypeGuard[TokenRole]:
    return value in ("user", "operator")


@tokens_app.command("create")
def token_create(
    user_id: Annotated[list[int] | None, typer.Option(min=1, help="A user this token acts for (repeatable)")] = None,
    role: Role = "user",
    label: Annotated[str | None, typer.Option(help="A note for 'token list' (who or what holds it)")] = None,
    rate_limit_per_minute: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Calls per minute for this token, 0 = no limit (default: the server's MEMORY_RATE_LIMIT_PER_MINUTE)",
        ),
    ] = None,
    data_dir: DataDir = None,
    token_file: TokenFile = None,
) -> None:
    """Create a token and print it once on stdout (keep it: only its hash is stored)."""
    if not _is_role(role):
        fail("--role must be user or operator")
    store = token_store(settings_from(data_dir=data_dir, token_file=token_file))
    try:
        token, record = store.create(role, list(user_id or []), label, rate_limit_per_minute)
    except ValueError as exc:
        fail(str(exc))
    users = ", ".join(map(str, record.user_ids)) or "none"
    err.print(
        f"created {record.role} token {record.token_id} (users: {users}) in {escape(str(store.path))}; "
        "it is shown once, below:"
    )
    sys.stdout.write(token + "\n")


@tokens_app.command("list")
def token_list(data_dir: DataDir = None, token_file: TokenFile = None, as_json: AsJson = False) -> None:
    """Every token: id, role, users, label, created, revoked (never the secret)."""
    rows = token_store(settings_from(data_dir=data_dir, token_file=token_file)).listing()
    if as_json:
        # A list, indented: the shape this command has always printed, which scripts already read.
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    else:
        print_table(
            ["token id", "role", "users", "label", "calls/min", "created", "revoked"],
            (
                [
                    row["token_id"],
                    row["role"],
                    ", ".join(map(str, row["user_ids"])),
                    row["label"] or "",
                    _limit(row.get("rate_limit_per_minute")),
                    row["created_at"],
                    row["revoked_at"] or "",
                ]
                for row in rows
            ),
        )
    revoked = sum(1 for row in rows if row["revoked_at"])
    err.print(f"{len(rows)} tokens, {len(rows) - revoked} active, {revoked} revoked")


def _limit(per_minute: int | None) -> str:
    return "server default" if per_minute is None else "no limit" if per_minute == 0 else str(per_minute)


@tokens_app.command("revoke")
def token_revoke(
    token_id: Annotated[str, typer.Argument(help="The id shown by 'token list' (not the secret)")],
    data_dir: DataDir = None,
    token_file: TokenFile = None,
) -> None:
    """Revoke a token; a running server refuses it from its next call."""
    store = token_store(settings_from(data_dir=data_dir, token_file=token_file))
    try:
        record = store.revoke(token_id)
    except KeyError:
        fail(f"no token with id {token_id} in {store.path}")
    err.print(f"token {record.token_id} revoked at {record.revoked_at}")
