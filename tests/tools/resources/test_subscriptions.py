"""Subscriptions through the in-memory MCP client: ``resources/subscribe`` on a 2025-era session
(legacy mode) and ``subscriptions/listen`` on a 2026 one, each told after a write through its own
session or another one, about exactly the resources the write may have changed."""

from __future__ import annotations

import warnings
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning

from service.settings import Settings
from tests.support import playlist, track
from tests.tools.resources.support import (
    MINE,
    OTHER,
    T_BETWEEN,
    USER,
    WAIT_SECONDS,
    Inbox,
    memory_server,
    refusal,
    seed,
    session,
    uri,
)

pytestmark = pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")

PROFILE, PLAYLISTS, CONTEXT = uri(USER, "profile"), uri(USER, "playlists"), uri(USER, "context")
PLAYLIST, PLAYLIST_AT = uri(USER, f"playlists/{MINE}"), uri(USER, f"playlists/{MINE}/at/{T_BETWEEN}")
OTHERS = uri(USER, f"playlists/{playlist(2)}")
EVERY = [PROFILE, PLAYLISTS, CONTEXT, PLAYLIST, PLAYLIST_AT, OTHERS, uri(OTHER, "profile")]


def add_track(n: int) -> dict[str, Any]:
    return {"user_id": USER, "playlist_id": MINE, "type": "ADD_TRACKS", "payload": {"track_ids": [track(n)]}}


async def test_a_subscriber_is_told_after_a_write_through_any_session(settings: Settings) -> None:
    inbox = Inbox()
    async with (
        memory_server(settings) as server,
        session(server, mode="legacy", message_handler=inbox) as mine,
        session(server) as other,
    ):
        assert mine.client.server_capabilities.resources.subscribe is True  # type: ignore[union-attr]
        await seed(mine)
        for address in EVERY:
            await mine.client.subscribe_resource(address)

        await other.ok("memory_update_profile", {"user_id": USER, "patch": {"avoid": ["jazz"]}})
        assert await inbox.until(PROFILE, CONTEXT) == [PROFILE, CONTEXT]

        await mine.ok("memory_log_playlist_mutation", add_track(4))
        changed = [PLAYLISTS, PLAYLIST, PLAYLIST_AT, CONTEXT]  # not OTHERS: another playlist
        assert sorted(await inbox.until(*changed)) == sorted(changed)

        await other.ok(
            "memory_upsert_tracks",
            {"user_id": USER, "tracks": [{"track_id": track(4), "name": "Four", "artists": ["Band"]}]},
        )
        named = [PLAYLIST, PLAYLIST_AT, OTHERS]  # track names: every playlist of the user
        assert sorted(await inbox.until(*named)) == sorted(named)

        await other.ok(
            "memory_append_preference_event", {"user_id": OTHER, "type": "like", "payload": {"raw_text": "tuba"}}
        )
        await other.ok("memory_get_profile", {"user_id": USER})  # a read changes nothing
        await other.ok(
            "memory_add",
            {"user_id": USER, "type": "insight", "entities": ["Tuba"], "summary": "Likes tuba", "importance": 5},
        )
        assert await inbox.until(CONTEXT) == [CONTEXT]  # and nothing about OTHER before it

        await mine.client.unsubscribe_resource(CONTEXT)
        await other.ok("memory_update_profile", {"user_id": USER, "patch": {"avoid": ["kazoo"]}})
        await other.ok("memory_log_playlist_mutation", add_track(5))
        assert await inbox.until(PROFILE) == [PROFILE]
        assert sorted(await inbox.until(*changed[:3])) == sorted(changed[:3])

        await other.ok("memory_set_enabled", {"user_id": USER, "enabled": False})  # reads change: all
        everything = sorted(set(EVERY) - {CONTEXT, uri(OTHER, "profile")})
        assert sorted(await inbox.until(*everything)) == everything


async def test_subscriptions_end_with_their_session(settings: Settings) -> None:
    inbox, later = Inbox(), Inbox()
    async with memory_server(settings) as server, session(server) as writer:
        async with session(server, mode="legacy", message_handler=inbox) as gone:
            await gone.client.subscribe_resource(PROFILE)
        async with session(server, mode="legacy", message_handler=later) as still:
            await still.client.subscribe_resource(PROFILE)
            await writer.ok("memory_update_profile", {"user_id": USER, "patch": {"a": 1}})
            assert await later.until(PROFILE) == [PROFILE]
        assert inbox.uris == []
        await writer.ok("memory_update_profile", {"user_id": USER, "patch": {"a": 2}})  # nobody left to tell


async def test_a_listen_stream_is_told_about_the_uris_it_named(settings: Settings) -> None:
    async with memory_server(settings) as server, session(server) as mine, session(server) as other:
        await seed(mine)
        async with mine.client.listen(resource_subscriptions=[PLAYLIST_AT, PROFILE]) as stream:
            await other.ok("memory_log_playlist_mutation", add_track(4))
            await other.ok("memory_update_profile", {"user_id": USER, "patch": {"a": 1}})
            received = []
            with anyio.fail_after(WAIT_SECONDS):
                async for event in stream:
                    received.append(event.uri)  # type: ignore[union-attr]
                    if event.uri == PROFILE:  # type: ignore[union-attr]
                        break
            assert received == [PLAYLIST_AT, PROFILE]


async def test_subscribing_to_a_malformed_uri_is_refused_as_reading_it_would_be(settings: Settings) -> None:
    async with memory_server(settings) as server, session(server, mode="legacy") as call:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            bad = await refusal(lambda: call.client.subscribe_resource("memory://users/x/profile"))
            assert bad["data"] == {"code": "INVALID_ARGUMENT", "uri": "memory://users/x/profile", "field": "user_id"}
            unknown = await refusal(lambda: call.client.subscribe_resource("memory://users/1/nothing"))
            assert unknown["data"]["code"] == "NOT_FOUND" and unknown["message"] == "resource not found"
            await call.client.subscribe_resource(uri(USER, f"playlists/{playlist(7)}"))  # not logged yet: fine
