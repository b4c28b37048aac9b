"""The authorization server's flows through its public methods, on a real grants file and a
hand-moved clock: PKCE, single-use codes, exact redirects, audience, rotation, reuse, revocation."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from service.auth.oauth.checks import s256
from service.auth.oauth.errors import OAuthError
from service.auth.oauth.server import Audience, AuthorizationServer
from service.auth.oauth.store import OAuthStore

RESOURCE = "http://127.0.0.1:8765/mcp"
REDIRECT = "http://127.0.0.1:33418/callback"
VERIFIER = "v" * 43


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def server(tmp_path: Path, clock: Clock) -> AuthorizationServer:
    audience = Audience(RESOURCE, ("http://127.0.0.1:8765",))
    return AuthorizationServer(OAuthStore(tmp_path / "oauth.json"), audience, 3600, 30 * 86400, clock)


def consented(server: AuthorizationServer, user_id: int = 1, scopes: list[str] | None = None) -> tuple[str, str]:
    client = server.register([REDIRECT], "Test client", {"token_endpoint_auth_method": "none"})
    request = server.begin(client.client_id, REDIRECT, s256(VERIFIER), scopes, RESOURCE, "st")
    _, code = server.approve(request.request_id, user_id)
    return client.client_id, code


def test_code_exchange_issues_tokens_bound_to_user_client_scopes_and_resource(server: AuthorizationServer) -> None:
    client_id, code = consented(server, user_id=7, scopes=["memory:read"])
    tokens = server.exchange(client_id, code, VERIFIER, REDIRECT)
    grant = server.verify(tokens.access_token)
    assert grant is not None
    assert (grant.user_id, grant.client_id, grant.scopes, grant.resource) == (7, client_id, ["memory:read"], RESOURCE)
    assert tokens.expires_in == 3600 and tokens.scopes == ["memory:read"]


def test_no_scope_asked_grants_read_and_write_never_control(server: AuthorizationServer) -> None:
    client_id, code = consented(server)
    assert server.exchange(client_id, code, VERIFIER, REDIRECT).scopes == ["memory:read", "memory:write"]


def test_pkce_mismatch_is_invalid_grant_and_spends_the_code(server: AuthorizationServer) -> None:
    client_id, code = consented(server)
    with pytest.raises(OAuthError) as refused:
        server.exchange(client_id, code, "w" * 43, REDIRECT)
    assert refused.value.code == "invalid_grant"
    with pytest.raises(OAuthError, match="already used"):
        server.exchange(client_id, code, VERIFIER, REDIRECT)


def test_reused_code_is_invalid_grant_and_ends_the_grant_it_produced(server: AuthorizationServer) -> None:
    client_id, code = consented(server)
    tokens = server.exchange(client_id, code, VERIFIER, REDIRECT)
    with pytest.raises(OAuthError) as refused:
        server.exchange(client_id, code, VERIFIER, REDIRECT)
    assert refused.value.code == "invalid_grant"
    assert server.verify(tokens.access_token) is None
    with pytest.raises(OAuthError):
        server.refresh(client_id, tokens.refresh_token)


def test_expired_code_is_invalid_grant(server: AuthorizationServer, clock: Clock) -> None:
    client_id, code = consented(server)
    clock.now += 61
    with pytest.raises(OAuthError) as refused:
        server.exchange(client_id, code, VERIFIER, REDIRECT)
    assert refused.value.code == "invalid_grant"


def test_a_code_is_bound_to_its_client_and_redirect(server: AuthorizationServer) -> None:
    client_id, code = consented(server)
    other = server.register([REDIRECT], "Other", {})
    with pytest.raises(OAuthError, match=r"unknown"):
        server.exchange(other.client_id, code, VERIFIER, REDIRECT)
    client_id, code = consented(server)
    with pytest.raises(OAuthError) as refused:
        server.exchange(client_id, code, VERIFIER, "http://127.0.0.1:33418/elsewhere")
    assert refused.value.code == "invalid_grant"


def test_unregistered_redirect_is_refused_before_consent(server: AuthorizationServer) -> None:
    client = server.register(["https://app.example.com/cb"], "Web", {})
    for uri in ("https://app.example.com/cb/x", "https://evil.example.com/cb", "https://app.example.com:444/cb"):
        with pytest.raises(OAuthError) as refused:
            server.begin(client.client_id, uri, s256(VERIFIER), None, None, None)
        assert refused.value.code == "invalid_request"


def test_loopback_redirect_may_change_port_only(server: AuthorizationServer) -> None:
    client = server.register(["http://127.0.0.1/callback"], "Native", {})
    assert server.begin(client.client_id, "http://127.0.0.1:51000/callback", s256(VERIFIER), None, None, None)
    with pytest.raises(OAuthError):
        server.begin(client.client_id, "http://127.0.0.1:51000/other", s256(VERIFIER), None, None, None)


def test_unknown_scope_and_other_resource_are_refused(server: AuthorizationServer) -> None:
    client = server.register([REDIRECT], "C", {})
    with pytest.raises(OAuthError) as refused:
        server.begin(client.client_id, REDIRECT, s256(VERIFIER), ["operator"], None, None)
    assert refused.value.code == "invalid_scope"
    with pytest.raises(OAuthError) as refused:
        server.begin(client.client_id, REDIRECT, s256(VERIFIER), None, "https://other.example.com/mcp", None)
    assert refused.value.code == "invalid_target"


def test_refresh_rotates_and_a_replayed_refresh_token_revokes_the_grant(server: AuthorizationServer) -> None:
    client_id, code = consented(server)
    first = server.exchange(client_id, code, VERIFIER, REDIRECT)
    second = server.refresh(client_id, first.refresh_token)
    assert second.refresh_token != first.refresh_token
    assert server.verify(first.access_token) is None  # the old access token ends with its refresh
    assert server.verify(second.access_token) is not None
    with pytest.raises(OAuthError) as refused:
        server.refresh(client_id, first.refresh_token)
    assert refused.value.code == "invalid_grant"
    assert server.verify(second.access_token) is None
    with pytest.raises(OAuthError):
        server.refresh(client_id, second.refresh_token)


def test_refresh_may_narrow_scopes_never_widen(server: AuthorizationServer) -> None:
    client_id, code = consented(server, scopes=["memory:read"])
    tokens = server.exchange(client_id, code, VERIFIER, REDIRECT)
    with pytest.raises(OAuthError) as refused:
        server.refresh(client_id, tokens.refresh_token, ["memory:write"])
    assert refused.value.code == "invalid_scope"
    assert server.refresh(client_id, tokens.refresh_token, ["memory:read"]).scopes == ["memory:read"]


def test_access_token_expires(server: AuthorizationServer, clock: Clock) -> None:
    client_id, code = consented(server)
    tokens = server.exchange(client_id, code, VERIFIER, REDIRECT)
    clock.now += 3601
    assert server.verify(tokens.access_token) is None
    assert server.verify(server.refresh(client_id, tokens.refresh_token).access_token) is not None


def test_revoking_either_token_ends_the_grant(server: AuthorizationServer) -> None:
    for which in ("access_token", "refresh_token"):
        client_id, code = consented(server)
        tokens = server.exchange(client_id, code, VERIFIER, REDIRECT)
        server.revoke_token(getattr(tokens, which))
        assert server.verify(tokens.access_token) is None
        with pytest.raises(OAuthError):
            server.refresh(client_id, tokens.refresh_token)
    server.revoke_token("not a token")  # RFC 7009: an unknown token is no error


def test_denied_consent_issues_nothing_and_closes_the_request(server: AuthorizationServer) -> None:
    client = server.register([REDIRECT], "C", {})
    request = server.begin(client.client_id, REDIRECT, s256(VERIFIER), None, None, "st")
    assert server.deny(request.request_id).state == "st"
    assert server.pending(request.request_id) is None
    with pytest.raises(KeyError):
        server.approve(request.request_id, 1)
    assert server.connected_clients(1) == []


def test_connected_clients_are_per_user_and_revocable(server: AuthorizationServer, clock: Clock) -> None:
    client_id, code = consented(server, user_id=1)
    tokens = server.exchange(client_id, code, VERIFIER, REDIRECT)
    assert server.verify(tokens.access_token) is not None
    [row] = server.connected_clients(1)
    assert (row["client_name"], row["scopes"]) == ("Test client", ["memory:read", "memory:write"])
    assert row["last_used_at"] is not None
    assert server.connected_clients(2) == []
    with pytest.raises(KeyError):
        server.revoke_client(2, client_id)  # someone else's client answers as an unknown one
    assert server.verify(tokens.access_token) is not None
    assert server.revoke_client(1, client_id) == 1
    assert server.verify(tokens.access_token) is None and server.connected_clients(1) == []


def test_the_file_holds_hashes_only_and_is_private(server: AuthorizationServer, tmp_path: Path) -> None:
    client_id, code = consented(server)
    tokens = server.exchange(client_id, code, VERIFIER, REDIRECT)
    path = tmp_path / "oauth.json"
    text = path.read_text()
    assert tokens.access_token not in text and tokens.refresh_token not in text and code not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(text)["grants"][0]["user_id"] == 1


def test_a_token_for_another_resource_is_not_verified(
    server: AuthorizationServer, tmp_path: Path, clock: Clock
) -> None:
    client_id, code = consented(server)
    tokens = server.exchange(client_id, code, VERIFIER, REDIRECT)
    elsewhere = Audience("https://other.example.com/mcp")
    assert (
        AuthorizationServer(OAuthStore(tmp_path / "oauth.json"), elsewhere, clock=clock).verify(tokens.access_token)
        is None
    )


def test_a_second_process_sees_grants_and_revocations(
    server: AuthorizationServer, tmp_path: Path, clock: Clock
) -> None:
    client_id, code = consented(server)
    tokens = server.exchange(client_id, code, VERIFIER, REDIRECT)
    other = AuthorizationServer(OAuthStore(tmp_path / "oauth.json"), server.audience, clock=clock)
    assert other.verify(tokens.access_token) is not None
    other.revoke_token(tokens.refresh_token)
    assert server.verify(tokens.access_token) is None


def test_checking_a_replayed_refresh_token_ends_the_grant(server: AuthorizationServer) -> None:
    # The SDK's token endpoint loads a refresh token before exchanging it: the replay is caught there.
    client_id, code = consented(server)
    first = server.exchange(client_id, code, VERIFIER, REDIRECT)
    assert server.check_refresh(client_id, first.refresh_token) is not None
    second = server.refresh(client_id, first.refresh_token)
    assert server.check_refresh(client_id, first.refresh_token) is None
    assert server.verify(second.access_token) is None
    assert server.check_refresh(client_id, second.refresh_token) is None
