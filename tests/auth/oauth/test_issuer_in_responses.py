"""RFC 9207: an authorization response names the server that sent it (``iss``), so a client that
talks to several authorization servers can tell which one answered. The domain builds the answer;
the SDK's own error redirects from /authorize get it on the way out."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from service.auth.oauth.checks import s256
from service.auth.oauth.server import Audience, AuthorizationServer
from service.auth.oauth.store import OAuthStore
from tests.auth.oauth.oauth_http import BASE, REDIRECT, VERIFIER, oauth_settings, register, serving

RESOURCE = BASE + "/mcp"


def query(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def test_the_answer_to_a_consent_names_the_issuer_beside_the_code_and_state(tmp_path: Path) -> None:
    server = AuthorizationServer(OAuthStore(tmp_path / "oauth.json"), Audience(RESOURCE), issuer=BASE)
    client = server.register([REDIRECT + "?app=1"], "c", {"token_endpoint_auth_method": "none"})
    request = server.begin(client.client_id, REDIRECT + "?app=1", s256(VERIFIER), None, RESOURCE, "st")
    answered, code = server.approve(request.request_id, 1)
    assert query(server.response_to(answered, code=code)) == {
        "app": ["1"], "code": [code], "state": ["st"], "iss": [BASE]
    }  # fmt: skip
    denied = server.begin(client.client_id, REDIRECT + "?app=1", s256(VERIFIER), None, RESOURCE, None)
    answer = server.response_to(server.deny(denied.request_id), error="access_denied")
    assert query(answer) == {"app": ["1"], "error": ["access_denied"], "iss": [BASE]}
    unnamed = AuthorizationServer(OAuthStore(tmp_path / "oauth.json"), Audience(RESOURCE))
    assert "iss" not in query(unnamed.response_to(answered, code=code))


async def test_an_error_sent_back_from_authorize_names_the_issuer(tmp_path: Path) -> None:
    async with serving(oauth_settings(tmp_path)) as client:
        client_id = await register(client)
        params = {
            "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "xyz",
            "code_challenge": s256(VERIFIER), "code_challenge_method": "S256", "resource": RESOURCE,
        }  # fmt: skip
        refused = await client.get("/authorize", params={**params, "scope": "memory:admin"})
        assert refused.status_code == 302, refused.text
        location = refused.headers["location"]
        assert location.startswith(REDIRECT)
        assert query(location) == {
            "error": ["invalid_scope"], "error_description": query(location)["error_description"],
            "state": ["xyz"], "iss": [BASE],
        }  # fmt: skip
        to_consent = await client.get("/authorize", params=params)
        assert to_consent.status_code == 302 and "iss=" not in to_consent.headers["location"]  # not an answer yet
