"""The memory page's HTTP side in process: sign-in, the session cookie, CSRF, the security
headers, the Host/Origin guard and tool calls through the MCP call path (audit, isolation)."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from host.app import build_app
from service.auth.tokens import TokenStore
from service.settings import Settings
from tests.support import playlist, track
from ui.security import SECURITY_HEADERS, session_cookie
from ui.sessions import SessionStore

ORIGIN = "http://127.0.0.1:8765"
ALICE, BOB = 1, 2


def page_settings(tmp_path: Path, **overrides: Any) -> Settings:
    # No model, no background index build, no aging: only what the page needs.
    return Settings(
        data_dir=tmp_path / "data", semantic_search="off", search_warmup=False, aging_interval_s=0, **overrides
    )


@asynccontextmanager
async def page(settings: Settings, base_url: str = ORIGIN) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the app ``serve`` would run, its lifespan started (the store open)."""
    app, _, _ = build_app(settings)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url=base_url) as client,
    ):
        yield client


def tokens(settings: Settings) -> TokenStore:
    return TokenStore(settings.tokens_path)


async def sign_in(client: httpx.AsyncClient, token: str | None) -> httpx.Response:
    return await client.post("/ui/api/session", json={} if token is None else {"token": token})


async def call(client: httpx.AsyncClient, tool: str, arguments: dict[str, Any], csrf: str | None) -> httpx.Response:
    headers = {} if csrf is None else {"X-CSRF-Token": csrf}
    return await client.post(f"/ui/api/tools/{tool}", json=arguments, headers=headers)


async def ok(client: httpx.AsyncClient, tool: str, arguments: dict[str, Any], csrf: str) -> Any:
    answer = await call(client, tool, arguments, csrf)
    assert answer.status_code == 200, answer.text
    envelope = answer.json()
    assert envelope["success"], envelope
    return envelope["result"]


def create_call(user_id: int, n: int = 1) -> dict[str, Any]:
    return {"user_id": user_id, "playlist_id": playlist(n), "name": f"Mix {n}", "track_ids": [track(n)]}


def assert_security_headers(response: httpx.Response, api: bool) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.get(name) == value, (name, response.headers)
    assert "'unsafe-inline'" not in response.headers["content-security-policy"]
    assert (response.headers.get("cache-control") == "no-store") == api


async def test_sign_in_sets_a_strict_cookie_and_the_session_recovers_the_csrf(tmp_path: Path) -> None:
    settings = page_settings(tmp_path, ui_session_minutes=90, max_history_upload_bytes=3_000_000)
    token, record = tokens(settings).create("user", [ALICE, BOB])
    async with page(settings) as client:
        answer = await sign_in(client, token)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body == {
            "signed_in": True,
            "csrf": body["csrf"],
            "role": "user",
            "user_ids": [ALICE, BOB],
            "open_mode": False,
            "history_upload_bytes": 3_000_000,
        }
        assert len(body["csrf"]) >= 43  # 256 bits, URL-safe base64
        cookie = answer.headers["set-cookie"]
        flags = [part.strip() for part in cookie.split(";")]
        assert flags[0].startswith("tm_ui=") and len(flags[0]) > len("tm_ui=") + 40
        assert {"HttpOnly", "SameSite=Strict", "Path=/ui", "Max-Age=5400"} <= set(flags)
        assert "Secure" not in flags  # loopback: plain http
        session_id = flags[0].split("=", 1)[1]
        assert token not in cookie and record.token_id not in session_id

        recovered = await client.get("/ui/api/session")
        assert recovered.json() == body
        client.cookies.clear()
        assert (await client.get("/ui/api/session")).json() == {"signed_in": False, "open_mode": False}


def test_the_cookie_is_secure_beyond_loopback() -> None:
    assert session_cookie("abc", 60, secure=True).split("; ")[-1] == "Secure"
    assert "Secure" not in session_cookie("abc", 60, secure=False)


async def test_a_bad_token_is_refused_and_no_session_is_made(tmp_path: Path) -> None:
    settings = page_settings(tmp_path)
    good, _ = tokens(settings).create("user", [ALICE])
    async with page(settings) as client:
        for bad in [good[:-2] + "xx", "tm_nope_secret", "", None]:
            answer = await sign_in(client, bad)
            assert answer.status_code == 401
            assert answer.json()["error"]["code"] == "UNAUTHORIZED"
            assert "set-cookie" not in answer.headers
        assert (await call(client, "memory_get_playlists", {"user_id": ALICE}, "x")).status_code == 401


async def test_a_revoked_token_ends_its_session(tmp_path: Path) -> None:
    settings = page_settings(tmp_path)
    store = tokens(settings)
    token, record = store.create("user", [ALICE])
    async with page(settings) as client:
        csrf = (await sign_in(client, token)).json()["csrf"]
        await ok(client, "memory_get_playlists", {"user_id": ALICE}, csrf)
        store.revoke(record.token_id)
        refused = await call(client, "memory_get_playlists", {"user_id": ALICE}, csrf)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "UNAUTHORIZED"
        assert (await client.get("/ui/api/session")).json()["signed_in"] is False
        assert (await sign_in(client, token)).status_code == 401


async def test_csrf_is_required_and_a_refused_call_changes_nothing(tmp_path: Path) -> None:
    settings = page_settings(tmp_path)
    token, record = tokens(settings).create("user", [ALICE])
    operator, _ = tokens(settings).create("operator", [])
    async with page(settings) as client:
        csrf = (await sign_in(client, token)).json()["csrf"]
        for sent in [None, "", csrf[:-1] + ("A" if csrf[-1] != "A" else "B")]:
            refused = await call(client, "memory_log_playlist_create", create_call(ALICE), sent)
            assert refused.status_code == 403
            assert refused.json() == {"error": {"code": "FORBIDDEN", "message": "missing or wrong CSRF token"}}
        assert (await ok(client, "memory_get_playlists", {"user_id": ALICE}, csrf))["items"] == []

        created = await ok(client, "memory_log_playlist_create", create_call(ALICE), csrf)
        assert created["playlist_id"] == playlist(1)

        async with httpx.AsyncClient(transport=client._transport, base_url=ORIGIN) as ops:
            ops_csrf = (await sign_in(ops, operator)).json()["csrf"]
            entries = (await ok(ops, "ops_audit", {"user_id": ALICE}, ops_csrf))["entries"]
        assert entries, "the page's write left no audit entry"
        assert {entry["principal"] for entry in entries} == {f"ui:{record.token_id}"}
        assert {entry["source"] for entry in entries} == {"ui"}
        assert {entry["tool"] for entry in entries} == {"memory.log_playlist_create"}


async def test_another_users_data_gets_the_tools_own_refusal(tmp_path: Path) -> None:
    settings = page_settings(tmp_path)
    alice, _ = tokens(settings).create("user", [ALICE])
    bob, _ = tokens(settings).create("user", [BOB])
    async with page(settings) as client:
        csrf = (await sign_in(client, bob)).json()["csrf"]
        await ok(client, "memory_log_playlist_create", create_call(BOB, 2), csrf)
        client.cookies.clear()
        csrf = (await sign_in(client, alice)).json()["csrf"]
        for tool, arguments in [
            ("memory_get_playlists", {"user_id": BOB}),
            ("memory_get_playlist", {"user_id": BOB, "playlist_id": playlist(2)}),
            ("memory_log_playlist_create", create_call(BOB, 3)),
        ]:
            answer = await call(client, tool, arguments, csrf)
            assert answer.status_code == 200
            assert answer.json()["success"] is False
            assert answer.json()["error"]["code"] in ("FORBIDDEN", "NOT_FOUND"), answer.json()
        assert (await ok(client, "memory_get_playlists", {"user_id": ALICE}, csrf))["items"] == []


async def test_a_destructive_tool_needs_confirm_true_from_the_page(tmp_path: Path) -> None:
    settings = page_settings(tmp_path)
    token, _ = tokens(settings).create("user", [ALICE])
    async with page(settings) as client:
        csrf = (await sign_in(client, token)).json()["csrf"]
        await ok(client, "memory_log_playlist_create", create_call(ALICE), csrf)
        unconfirmed = (await call(client, "memory_delete_user_data", {"user_id": ALICE}, csrf)).json()
        assert unconfirmed["success"] is False and unconfirmed["error"]["code"] == "INVALID_ARGUMENT"
        assert len((await ok(client, "memory_get_playlists", {"user_id": ALICE}, csrf))["items"]) == 1
        await ok(client, "memory_delete_user_data", {"user_id": ALICE, "confirm": True}, csrf)
        assert (await ok(client, "memory_get_playlists", {"user_id": ALICE}, csrf))["items"] == []


async def test_unknown_tools_bad_bodies_and_sign_out(tmp_path: Path) -> None:
    settings = page_settings(tmp_path, toolsets="core")
    token, _ = tokens(settings).create("operator", [ALICE])
    async with page(settings) as client:
        csrf = (await sign_in(client, token)).json()["csrf"]
        for tool in ["memory_nothing", "memory.get_playlists"]:
            missing = await call(client, tool, {"user_id": ALICE}, csrf)
            assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
        # Toolsets shape what a model is listed, not what the page can do: memory_status is not in "core".
        assert (await call(client, "memory_status", {"user_id": ALICE}, csrf)).json()["success"] is True
        door = (await call(client, "memory_enable_toolsets", {"toolsets": ["all"]}, csrf)).json()
        assert door["error"]["code"] == "CONFLICT" and door["error"]["details"] == {"reason": "no_session"}
        bad = await client.post(
            "/ui/api/tools/memory_get_playlists",
            content=b"[1]",
            headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"},
        )
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "INVALID_ARGUMENT"
        invalid = (await call(client, "memory_get_playlists", {"user_id": "one"}, csrf)).json()
        assert invalid["error"]["code"] == "INVALID_ARGUMENT"

        assert (await client.delete("/ui/api/session")).status_code == 403  # no csrf
        out = await client.delete("/ui/api/session", headers={"X-CSRF-Token": csrf})
        assert out.status_code == 204 and "Max-Age=0" in out.headers["set-cookie"]
        assert (await call(client, "memory_get_playlists", {"user_id": ALICE}, csrf)).status_code == 401


async def test_security_headers_on_the_page_its_files_and_the_api(tmp_path: Path) -> None:
    settings = page_settings(tmp_path)
    tokens(settings).create("user", [ALICE])
    async with page(settings) as client:
        bare = await client.get("/ui")
        assert bare.status_code == 308 and bare.headers["location"] == "/ui/"
        assert_security_headers(bare, api=False)
        index = await client.get("/ui/")
        assert index.status_code == 200 and index.headers["content-type"].startswith("text/html")
        assert_security_headers(index, api=False)
        for name, kind in [("app.js", "text/javascript"), ("app.css", "text/css")]:
            asset = await client.get(f"/ui/static/{name}")
            assert asset.status_code == 200 and asset.headers["content-type"].startswith(kind)
            assert_security_headers(asset, api=False)
        for name in ["nothing.js", "..%2Fapi.py", "../routes.py", ".hidden.js"]:
            assert (await client.get(f"/ui/static/{name}")).status_code == 404
        assert_security_headers(await client.get("/ui/api/session"), api=True)
        refused = await sign_in(client, "tm_x_y")
        assert refused.status_code == 401
        assert_security_headers(refused, api=True)
        # The CSP forbids inline code, so the page must not need any: every script comes from a file.
        assert re.search(r"<script(?![^>]*\bsrc=)[^>]*>", index.text) is None, "inline script in index.html"
        assert re.search(r"\son[a-z]+\s*=", index.text) is None, "an inline event handler in index.html"
        assert "style=" not in index.text and "<style" not in index.text


async def test_host_origin_and_size_guards(tmp_path: Path) -> None:
    settings = page_settings(tmp_path, max_request_bytes=4096)
    token, _ = tokens(settings).create("user", [ALICE])
    async with page(settings) as client:
        foreign = await client.post("/ui/api/session", json={"token": token}, headers={"Origin": "http://evil.example"})
        assert foreign.status_code == 403 and "set-cookie" not in foreign.headers
        assert_security_headers(foreign, api=True)
        # An allowed origin that is not this server's own still cannot sign a browser in (login CSRF).
        other_port = await client.post(
            "/ui/api/session", json={"token": token}, headers={"Origin": "http://127.0.0.1:9999"}
        )
        assert other_port.status_code == 403 and "set-cookie" not in other_port.headers
        same = await client.post("/ui/api/session", json={"token": token}, headers={"Origin": ORIGIN})
        assert same.status_code == 200
        assert (await client.get("/ui/", headers={"Host": "evil.example"})).status_code == 421
        big = await call(client, "memory_get_playlists", {"user_id": ALICE, "pad": "x" * 5000}, same.json()["csrf"])
        assert big.status_code == 413 and big.json()["error"]["code"] == "INVALID_ARGUMENT"


async def test_the_page_is_gone_when_turned_off(tmp_path: Path) -> None:
    settings = page_settings(tmp_path, ui="off")
    async with page(settings) as client:
        for path in ["/ui", "/ui/", "/ui/static/app.js", "/ui/api/session"]:
            assert (await client.get(path)).status_code == 404
        assert (await client.post("/ui/api/session", json={})).status_code == 404
        assert (await client.get("/healthz")).status_code == 200  # the rest of the app still serves


async def test_open_mode_signs_in_without_a_token_on_loopback(tmp_path: Path) -> None:
    settings = page_settings(tmp_path)
    async with page(settings) as client:
        assert (await client.get("/ui/api/session")).json() == {"signed_in": False, "open_mode": True}
        body = (await client.post("/ui/api/session", content=b"")).json()
        assert body["signed_in"] is True and body["role"] == "open" and body["user_ids"] is None
        csrf = body["csrf"]
        await ok(client, "memory_log_playlist_create", create_call(ALICE), csrf)
        entries = (await ok(client, "ops_audit", {"user_id": ALICE}, csrf))["entries"]
        assert {entry["principal"] for entry in entries} == {"ui:open"}
        assert {entry["source"] for entry in entries} == {"ui"}
        # Creating a token closes open mode: the open session ends with it.
        tokens(settings).create("user", [ALICE])
        assert (await call(client, "memory_get_playlists", {"user_id": ALICE}, csrf)).status_code == 401
        assert (await client.post("/ui/api/session", json={})).status_code == 401


async def test_no_token_in_any_answer_or_log_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = page_settings(tmp_path)
    token, record = tokens(settings).create("user", [ALICE])
    secret = token.split("_", 2)[2]
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    async with page(settings) as client:
        answers = [await sign_in(client, token + "x"), await sign_in(client, token)]
        csrf = answers[-1].json()["csrf"]
        answers += [
            await client.get("/ui/api/session"),
            await call(client, "memory_log_playlist_create", create_call(ALICE), csrf),
            await call(client, "memory_get_playlists", {"user_id": ALICE}, csrf),
            await call(client, "memory_get_playlists", {"user_id": ALICE}, None),
        ]
        for answer in answers:
            seen += [answer.text, str(answer.request.url), *(f"{k}: {v}" for k, v in answer.headers.items())]
    lines = [record_.getMessage() + repr(record_.__dict__) for record_ in caplog.records]
    assert any("ui sign-in" in line for line in lines), "the sign-in was not logged at all"
    assert any(f"ui:{record.token_id}" in line for line in lines)
    for text in seen + lines:
        assert secret not in text


async def test_beyond_loopback_the_cookie_is_secure_and_nothing_is_open(tmp_path: Path) -> None:
    settings = page_settings(tmp_path, host="0.0.0.0")
    async with page(settings) as client:
        # No token on a non-loopback bind: closed, as the MCP endpoints are (serve would not even start).
        assert (await client.get("/ui/api/session")).json() == {"signed_in": False, "open_mode": False}
        assert (await client.post("/ui/api/session", json={})).status_code == 401
        token, _ = tokens(settings).create("user", [ALICE])
        answer = await sign_in(client, token)
        assert answer.status_code == 200
        assert "Secure" in [flag.strip() for flag in answer.headers["set-cookie"].split(";")]


async def test_page_calls_share_the_rate_limit(tmp_path: Path) -> None:
    settings = page_settings(tmp_path, rate_limit_per_minute=1, rate_limit_burst=1)
    token, _ = tokens(settings).create("user", [ALICE])
    async with page(settings) as client:
        csrf = (await sign_in(client, token)).json()["csrf"]
        await ok(client, "memory_get_playlists", {"user_id": ALICE}, csrf)
        limited = (await call(client, "memory_get_playlists", {"user_id": ALICE}, csrf)).json()
        assert limited["error"]["code"] == "RATE_LIMITED" and limited["error"]["details"]["retry_after_s"] > 0


def test_sessions_end_when_idle_or_old(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    token, _ = store.create("user", [ALICE])
    now = [1000.0]
    sessions = SessionStore(
        store, open_mode=lambda: False, absolute_seconds=3600, idle_seconds=600, clock=lambda: now[0]
    )
    idle = sessions.sign_in(token)
    busy = sessions.sign_in(token)
    assert idle is not None and busy is not None and idle.session_id != busy.session_id
    for _ in range(6):  # a request every 9 minutes keeps a session, up to its absolute end
        now[0] += 540
        assert sessions.lookup(busy.session_id) is not None
    assert sessions.lookup(idle.session_id) is None  # 54 minutes without a request
    now[0] += 540  # 63 minutes after sign-in
    assert sessions.lookup(busy.session_id) is None
    assert len(sessions) == 0


async def test_sign_in_attempts_are_rate_limited_per_address(tmp_path: Path) -> None:
    settings = page_settings(tmp_path)
    token, _ = tokens(settings).create("user", [ALICE])
    async with page(settings) as client:
        wrong = [await sign_in(client, "tm_" + "x" * 40) for _ in range(10)]  # the burst: each one checked
        assert {answer.status_code for answer in wrong} == {401}
        limited = await sign_in(client, token)  # the right token, but this address has spent its burst
        assert limited.status_code == 429, limited.text
        error = limited.json()["error"]
        assert error["code"] == "RATE_LIMITED" and error["details"]["retry_after_s"] > 0
        assert int(limited.headers["retry-after"]) >= 1 and "set-cookie" not in limited.headers
        assert (await client.get("/ui/api/session")).json()["signed_in"] is False
