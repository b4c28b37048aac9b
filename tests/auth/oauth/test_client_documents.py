"""Client ID Metadata Documents through the ASGI app: a client_id that is a URL on a listed origin
needs no registration; its document, served here by a loopback HTTP server, is fetched once (size
limit, timeout, cache) and must name itself by that URL. Every refusal is answered before consent,
and leaves no client behind."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from service.auth.tokens import TokenStore
from tests.auth.oauth.oauth_http import (
    REDIRECT,
    McpSession,
    approve,
    authorize,
    exchange,
    oauth_settings,
    page_session,
    serving,
)

ALICE = 1


class Documents:
    """A loopback web server for client metadata documents: path -> (status, body, delay)."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[int, bytes, float]] = {}
        self.hits: list[str] = []
        pages, hits = self.pages, self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(self.path)
                status, body, delay = pages.get(self.path, (404, b"{}", 0.0))
                time.sleep(delay)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if status == 302:
                    self.send_header("Location", "/elsewhere")
                self.end_headers()
                # The server may stop reading (too slow, too large), as some tests intend.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.http.server_address[1]}"

    def serve(self, path: str, document: Any, status: int = 200, delay: float = 0.0) -> str:
        body = document if isinstance(document, bytes) else json.dumps(document).encode()
        self.pages[path] = (status, body, delay)
        return self.origin + path

    def client(self, path: str, **fields: Any) -> str:
        """A well-formed document at ``path`` naming itself, with ``fields`` over the defaults."""
        url = self.origin + path
        return self.serve(path, {"client_id": url, "client_name": "Doc client", "redirect_uris": [REDIRECT], **fields})


@contextmanager
def documents() -> Iterator[Documents]:
    served = Documents()
    thread = threading.Thread(target=served.http.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.http.shutdown()
        served.http.server_close()


def kept_clients(tmp_path: Path) -> list[str]:
    oauth_file = tmp_path / "data" / "oauth.json"
    return [c["client_id"] for c in json.loads(oauth_file.read_text())["clients"]] if oauth_file.exists() else []


async def test_a_url_client_connects_without_registration(tmp_path: Path) -> None:
    with documents() as docs:
        settings = oauth_settings(tmp_path, oauth_client_metadata_origins=[docs.origin])
        user_token, _ = TokenStore(settings.tokens_path).create("user", [ALICE])
        client_id = docs.client("/clients/doc.json")
        async with serving(settings) as client:
            metadata = (await client.get("/.well-known/oauth-authorization-server")).json()
            assert metadata["client_id_metadata_document_supported"] is True
            assert metadata["token_endpoint_auth_methods_supported"] == ["none"]

            request_id = await authorize(client, client_id)
            csrf = await page_session(client, user_token)
            shown = (await client.get(f"/ui/api/oauth/requests/{request_id}")).json()
            assert shown["client_name"] == "Doc client"  # from the document, not the URL
            tokens = await exchange(client, client_id, await approve(client, request_id, csrf))
            assert tokens.status_code == 200, tokens.text
            session = McpSession(client, tokens.json()["access_token"])
            await session.open()
            assert (await session.envelope("memory_get_profile", {"user_id": ALICE}))["success"]
            [row] = (await client.get("/ui/api/oauth/clients")).json()["clients"]
            assert (row["client_id"], row["client_name"]) == (client_id, "Doc client")
        assert docs.hits == ["/clients/doc.json"]  # authorize and token exchange: one fetch, then the cache


@pytest.mark.parametrize(
    ("document", "status", "reason"),
    [
        ({"client_id": "http://127.0.0.1:1/other", "redirect_uris": [REDIRECT]}, 200, "not its own URL"),
        ({"redirect_uris": [REDIRECT]}, 200, "not its own URL"),
        ({"client_id": "SELF", "redirect_uris": []}, 200, "no redirect_uris"),
        ({"client_id": "SELF", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "client_secret_basic"}, 200,
         "public client"),
        ({"client_id": "SELF", "redirect_uris": [REDIRECT], "client_name": "x" * 6000}, 200, "exceeds 5120 bytes"),
        ({"client_id": "SELF", "redirect_uris": ["not a url"]}, 200, "invalid URL"),
        (b"<html>not json</html>", 200, "not JSON"),
        ({"client_id": "SELF", "redirect_uris": [REDIRECT]}, 302, "answered 302"),  # redirects are not followed
        ({}, 404, "answered 404"),
    ],
)  # fmt: skip
async def test_a_document_that_does_not_describe_a_sound_client_is_refused(
    tmp_path: Path, document: Any, status: int, reason: str
) -> None:
    with documents() as docs:
        url = docs.origin + "/clients/bad.json"
        if isinstance(document, dict) and document.get("client_id") == "SELF":
            document = {**document, "client_id": url}
        docs.serve("/clients/bad.json", document, status)
        async with serving(oauth_settings(tmp_path, oauth_client_metadata_origins=[docs.origin])) as client:
            answer = await client.get("/authorize", params=authorize_params(url))
            assert answer.status_code == 400, answer.text
            assert answer.json()["error"] == "invalid_client" and reason in answer.json()["error_description"]
            token = await exchange(client, url, "any-code")
            assert token.status_code == 401 and token.json()["error"] == "invalid_client", token.text
    assert kept_clients(tmp_path) == []


async def test_an_origin_not_listed_is_never_fetched(tmp_path: Path) -> None:
    with documents() as docs:
        url = docs.client("/clients/doc.json")
        listed = oauth_settings(tmp_path, oauth_client_metadata_origins=["https://clients.example.com"])
        async with serving(listed) as client:
            answer = await client.get("/authorize", params=authorize_params(url))
            assert answer.status_code == 400 and "is not accepted here" in answer.json()["error_description"]
            assert (await exchange(client, url, "any-code")).status_code == 401
        async with serving(oauth_settings(tmp_path)) as client:  # no origin listed at all
            metadata = (await client.get("/.well-known/oauth-authorization-server")).json()
            assert "client_id_metadata_document_supported" not in metadata
            answer = await client.get("/authorize", params=authorize_params(url))
            assert answer.status_code == 400 and "register the client" in answer.json()["error_description"]
        assert docs.hits == []
    assert kept_clients(tmp_path) == []


@pytest.mark.parametrize(
    ("spelling", "reason"),
    [
        ("{origin}/", "has a path"),
        ("http://user:pw@{host}/clients/doc.json", "no credentials"),
        ("{origin}/clients/doc.json#x", "no credentials or fragment"),
        ("{origin}/clients/../clients/doc.json", "no dot segments"),
        ("http://memory-test.invalid/clients/doc.json", "must be https"),  # http beyond loopback
    ],
)
async def test_a_client_id_url_that_hides_something_is_refused_unfetched(
    tmp_path: Path, spelling: str, reason: str
) -> None:
    with documents() as docs:
        docs.client("/clients/doc.json")
        url = spelling.format(origin=docs.origin, host=docs.origin.split("//", 1)[1])
        async with serving(oauth_settings(tmp_path, oauth_client_metadata_origins=[docs.origin])) as client:
            answer = await client.get("/authorize", params=authorize_params(url))
            assert answer.status_code == 400 and reason in answer.json()["error_description"], answer.text
        assert docs.hits == []


async def test_a_redirect_the_document_does_not_list_is_refused_before_consent(tmp_path: Path) -> None:
    with documents() as docs:
        url = docs.client("/clients/doc.json", redirect_uris=["http://127.0.0.1:40999/elsewhere"])
        async with serving(oauth_settings(tmp_path, oauth_client_metadata_origins=[docs.origin])) as client:
            answer = await client.get("/authorize", params=authorize_params(url))
            assert answer.status_code == 400, answer.text  # shown to the person, not redirected
            assert "not registered" in answer.json()["error_description"]


async def test_a_slow_document_is_cut_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("host.oauth.client_documents.TIMEOUT_S", 0.3)
    with documents() as docs:
        url = docs.origin + "/clients/slow.json"
        docs.serve("/clients/slow.json", {"client_id": url, "redirect_uris": [REDIRECT]}, delay=1.0)
        async with serving(oauth_settings(tmp_path, oauth_client_metadata_origins=[docs.origin])) as client:
            started = time.monotonic()
            answer = await client.get("/authorize", params=authorize_params(url))
            assert answer.status_code == 400 and "took too long" in answer.json()["error_description"]
            assert time.monotonic() - started < 1.0


def authorize_params(client_id: str) -> dict[str, str]:
    return {
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "xyz",
        "code_challenge": "x" * 43, "code_challenge_method": "S256",
    }  # fmt: skip
