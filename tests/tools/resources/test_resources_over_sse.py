"""Resources over SSE against a real ``serve`` process with bearer tokens: a user token
reads another user's resource exactly as it reads a missing one, and a subscriber is told about a
write made on another connection, both on a 2025-era session (``resources/subscribe``, as the
TypeScript SDK speaks) and on a 2026 one (``subscriptions/listen``, the Python SDK's default)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.client.sse import sse_client
from mcp_types import INVALID_PARAMS, INVALID_REQUEST

from service.auth.tokens import TokenStore
from service.settings import Settings
from tests.support import playlist, track
from tests.support.mcp_sessions import WireCaller
from tests.support.server_process import CALL_TIMEOUT, ServerProcess, running_server
from tests.support.tokens import token_env
from tests.tools.resources.support import MINE, T_BETWEEN, WAIT_SECONDS, Inbox, refusal, seed, uri, without_uri

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")]

ALICE, BOB, NOBODY = 1, 2, 999


def create_token(path: Path, *user_ids: int, role: str = "user") -> tuple[str, str]:
    """In process, not with the CLI as tests/auth/test_auth_over_sse.py does: a CLI start costs seconds."""
    token, record = TokenStore(path).create(role, list(user_ids))  # type: ignore[arg-type]
    return token, record.token_id


PATHS = ["profile", "playlists", f"playlists/{MINE}", f"playlists/{MINE}/at/{T_BETWEEN}", "context"]


@asynccontextmanager
async def sse(
    server: ServerProcess, token: str | None, inbox: Inbox | None = None, mode: str = "auto"
) -> AsyncIterator[WireCaller]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else None
    async with Client(
        sse_client(server.sse_url, headers=headers),
        cache=None,
        read_timeout_seconds=CALL_TIMEOUT,
        message_handler=inbox,
        mode=mode,
    ) as client:  # type: ignore[arg-type]
        yield WireCaller(client)


async def listen(call: WireCaller, address: str) -> None:
    async with call.client.listen(resource_subscriptions=[address]):
        pass


async def reads(call: WireCaller, user_id: int) -> list[dict[str, Any]]:
    return [await refusal(lambda p=p: call.client.read_resource(uri(user_id, p))) for p in PATHS]


async def test_a_user_token_reads_another_users_resource_as_a_missing_one(settings: Settings, tmp_path: Path) -> None:
    tokens = tmp_path / "secrets" / "tokens.json"
    alice, _ = create_token(tokens, ALICE)
    bob, _ = create_token(tokens, BOB)
    operator, _ = create_token(tokens, role="operator")
    # OAuth off: a tokenless read is refused in band (with it on, the default, by a 401 first).
    with running_server(settings, tmp_path, extra_env={**token_env(tokens), "MEMORY_OAUTH": "off"}) as server:
        async with sse(server, bob) as call:
            await seed(call, BOB)
        async with sse(server, alice) as call:
            await seed(call, ALICE)
            own = (await call.client.read_resource(uri(ALICE, f"playlists/{MINE}"))).contents[0]
            assert track(3) in own.text and "Polka 3" in own.text  # type: ignore[union-attr]

            of_bob, of_nobody = await reads(call, BOB), await reads(call, NOBODY)
            missing = await refusal(lambda: call.client.read_resource(uri(ALICE, f"playlists/{playlist(9)}")))
            answers = {repr(without_uri(e)) for e in [*of_bob, *of_nobody, missing]}
            assert answers == {
                repr({"code": INVALID_PARAMS, "message": "resource not found", "data": {"code": "NOT_FOUND"}})
            }
            # Listening is refused the same way, and nothing about BOB reaches ALICE.
            for user_id in (BOB, NOBODY):
                refused = await refusal(lambda u=user_id: listen(call, uri(u, f"playlists/{MINE}")))
                assert without_uri(refused) == without_uri(missing)
        async with sse(server, alice, mode="legacy") as call:  # and so is a 2025-era subscription
            for user_id in (BOB, NOBODY):
                refused = await refusal(lambda u=user_id: call.client.subscribe_resource(uri(u, "profile")))
                assert without_uri(refused) == without_uri(missing)
        async with sse(server, None) as call:
            unauthenticated = await refusal(lambda: call.client.read_resource(uri(ALICE, "profile")))
            assert unauthenticated["code"] == INVALID_REQUEST
            assert unauthenticated["data"]["code"] == "UNAUTHORIZED" and "bearer token" in unauthenticated["message"]
        async with sse(server, operator) as call:  # an operator reads any user, as with the tools
            profile = (await call.client.read_resource(uri(BOB, "profile"))).contents[0]
            assert "polka" in profile.text  # type: ignore[union-attr]


async def test_a_subscriber_over_sse_is_told_about_a_write_on_another_connection(
    settings: Settings, tmp_path: Path
) -> None:
    tokens = tmp_path / "secrets" / "tokens.json"
    assistant, _ = create_token(tokens, ALICE)
    backfill, _ = create_token(tokens, ALICE)  # another connection, another token of the same user
    inbox = Inbox()
    playlist_uri, profile_uri = uri(ALICE, f"playlists/{MINE}"), uri(ALICE, "profile")
    with running_server(settings, tmp_path, extra_env=token_env(tokens)) as server:
        async with (
            sse(server, assistant, inbox, mode="legacy") as mine,
            sse(server, backfill) as other,
            sse(server, assistant) as modern,
        ):
            assert mine.client.server_capabilities.resources.subscribe is True  # type: ignore[union-attr]
            await seed(mine, ALICE)
            await mine.client.subscribe_resource(playlist_uri)
            await mine.client.subscribe_resource(profile_uri)
            change = {
                "user_id": ALICE,
                "playlist_id": MINE,
                "type": "REMOVE_TRACKS",
                "payload": {"track_ids": [track(1)]},
            }
            async with modern.client.listen(resource_subscriptions=[playlist_uri]) as stream:
                await other.ok("memory_log_playlist_mutation", change)
                assert await inbox.until(playlist_uri) == [playlist_uri]
                with anyio.fail_after(WAIT_SECONDS):
                    assert (await anext(aiter(stream))).uri == playlist_uri  # type: ignore[union-attr]
            body = (await mine.client.read_resource(playlist_uri)).contents[0]
            assert track(1) not in body.text  # type: ignore[union-attr]

            await mine.client.unsubscribe_resource(playlist_uri)
            await other.ok("memory_log_playlist_mutation", {**change, "payload": {"track_ids": [track(2)]}})
            await other.ok("memory_update_profile", {"user_id": ALICE, "patch": {"avoid": ["jazz"]}})
            assert await inbox.until(profile_uri) == [profile_uri]  # and not the unsubscribed playlist before it
