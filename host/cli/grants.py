"""``memory-service token grants | revoke-grant``: what OAuth clients were granted, beside the
bearer tokens (kept in ``oauth.json`` next to the token file, hashes only)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import Annotated

import typer

from host.cli.base import AsJson, DataDir, TokenFile, err, fail, settings_from
from host.cli.output import print_table
from host.cli.tokens import tokens_app
from service.auth.oauth.store import OAuthStore, grants_listing
from service.timeutil import format_iso, utc_now


def _store(data_dir: object, token_file: object) -> OAuthStore:
    path = settings_from(data_dir=data_dir, token_file=token_file).tokens_path.with_name("oauth.json")
    err.print(f"store: OAuth grants at {path.resolve()}", markup=False, highlight=False)
    return OAuthStore(path)


@tokens_app.command("grants")
def token_grants(data_dir: DataDir = None, token_file: TokenFile = None, as_json: AsJson = False) -> None:
    """Every OAuth grant: client, user, scopes, created, last use, revoked (never a token)."""
    rows = grants_listing(_store(data_dir, token_file).state())
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    else:
        print_table(
            ["grant id", "client", "user", "scopes", "created", "last use", "revoked"],
            (
                [
                    str(row["grant_id"]),
                    str(row["client_name"] or row["client_id"]),
                    str(row["user_id"]),
                    " ".join(row["scopes"]),  # type: ignore[arg-type]
                    str(row["created_at"]),
                    str(row["last_used_at"] or ""),
                    str(row["revoked_at"] or ""),
                ]
                for row in rows
            ),
        )
    revoked = sum(1 for row in rows if row["revoked_at"])
    err.print(f"{len(rows)} grants, {len(rows) - revoked} active, {revoked} revoked")


@tokens_app.command("revoke-grant")
def token_revoke_grant(
    grant_id: Annotated[str, typer.Argument(help="The id shown by 'token grants'")],
    data_dir: DataDir = None,
    token_file: TokenFile = None,
) -> None:
    """End an OAuth grant: its access and refresh tokens are refused from their next use."""
    store = _store(data_dir, token_file)
    with store.changing() as state:
        grant = state.grants.get(grant_id)
        if grant is not None and grant.active:
            state.grants[grant_id] = replace(grant, revoked_at=format_iso(utc_now()))
    if grant is None:
        fail(f"no grant with id {grant_id} in {store.path}")
    err.print(f"grant {grant_id} revoked")
