"""``memory-service token grants`` lists what OAuth clients were granted (never a token) and
``token revoke-grant`` ends one, seen by a running server at the grant's next use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from service.auth.oauth.checks import s256
from service.auth.oauth.server import Audience, AuthorizationServer
from service.auth.oauth.store import OAuthStore
from tests.support.server_process import run_cli
from tests.support.tokens import token_env

pytestmark = pytest.mark.slow

REDIRECT = "http://127.0.0.1:40000/cb"
VERIFIER = "v" * 43


def test_grants_are_listed_and_revoked_from_the_cli(tmp_path: Path) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    server = AuthorizationServer(OAuthStore(token_file.with_name("oauth.json")), Audience("http://127.0.0.1:1/mcp"))
    client = server.register([REDIRECT], "[b]Bracketed[/b] connector", {})
    request = server.begin(client.client_id, REDIRECT, s256(VERIFIER), ["memory:read"], None, None)
    _, code = server.approve(request.request_id, 3)
    tokens = server.exchange(client.client_id, code, VERIFIER, REDIRECT)
    env = {**token_env(token_file), "COLUMNS": "400"}

    listed = run_cli(["token", "grants", "--json"], cwd=tmp_path, env=env)
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)
    assert (row["client_name"], row["user_id"], row["scopes"], row["revoked_at"]) == (
        "[b]Bracketed[/b] connector", 3, ["memory:read"], None,
    )  # fmt: skip
    assert tokens.access_token not in listed.stdout and "hash" not in listed.stdout
    table = run_cli(["token", "grants"], cwd=tmp_path, env=env)
    assert "[b]Bracketed[/b] connector" in table.stdout

    revoked = run_cli(["token", "revoke-grant", row["grant_id"]], cwd=tmp_path, env=env)
    assert revoked.returncode == 0, revoked.stderr
    assert server.verify(tokens.access_token) is None
    missing = run_cli(["token", "revoke-grant", "nope"], cwd=tmp_path, env=env)
    assert missing.returncode == 1 and "no grant with id nope" in missing.stderr
