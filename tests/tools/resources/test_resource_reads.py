"""Every resource template, read through the in-memory MCP client: listed with its name,
description and type; each body the same as the tool it stands for; refusals as deliberate
JSON-RPC errors."""

from __future__ import annotations

import json
from typing import Any

from mcp_types import INVALID_PARAMS, INVALID_REQUEST

from service.auth.policy import Principal
from service.auth.ratelimit import RateLimiter
from service.settings import Settings
from tests.support import playlist, track
from tests.tools.resources.support import (
    MINE,
    OTHER,
    T_BETWEEN,
    USER,
    memory_server,
    refusal,
    seed,
    session,
    uri,
    without_uri,
)
from tools.calls.policy import CallPolicy
from tools.resources.reading import CONTEXT_BUDGET_TOKENS, PLAYLISTS_LIMIT

TEMPLATES = {
    "profile": ("memory://users/{user_id}/profile", "application/json"),
    "playlists": ("memory://users/{user_id}/playlists", "application/json"),
    "playlist": ("memory://users/{user_id}/playlists/{playlist_id}", "application/json"),
    "playlist_at": ("memory://users/{user_id}/playlists/{playlist_id}/at/{iso_time}", "application/json"),
    "context": ("memory://users/{user_id}/context", "text/plain"),
}


async def read(call: Any, address: str) -> str:
    answer = await call.client.read_resource(address)
    [content] = answer.contents
    assert content.uri == address
    return content.text


async def test_the_five_templates_are_listed_with_name_description_and_type(settings: Settings) -> None:
    async with memory_server(settings) as server, session(server) as call:
        listed = (await call.client.list_resource_templates()).resource_templates
        assert {t.name: (t.uri_template, t.mime_type) for t in listed} == TEMPLATES
        for template in listed:
            assert template.title and len(template.description or "") > 40, template
        assert (await call.client.list_resources()).resources == []  # per user: templates only
        assert call.client.server_capabilities.resources is not None


async def test_each_template_reads_as_the_tool_it_stands_for(settings: Settings) -> None:
    async with memory_server(settings) as server, session(server) as call:
        await seed(call)
        profile = json.loads(await read(call, uri(USER, "profile")))
        assert profile == await call.ok("memory_get_profile", {"user_id": USER})
        assert profile["profile"] == {"core_genres": ["polka"]}

        listed = json.loads(await read(call, uri(USER, "playlists")))
        assert listed == await call.ok("memory_get_playlists", {"user_id": USER, "limit": PLAYLISTS_LIMIT})
        assert [p["playlist_id"] for p in listed["items"]] == [MINE]

        now = json.loads(await read(call, uri(USER, f"playlists/{MINE}")))
        tool = await call.ok(
            "memory_reconstruct_playlist", {"user_id": USER, "playlist_id": MINE, "include_tracks": True}
        )
        assert {k: v for k, v in now.items() if k != "as_of"} == {k: v for k, v in tool.items() if k != "as_of"}
        assert now["track_ids"] == [track(1), track(2), track(3)]
        assert [t["name"] for t in now["tracks"]] == ["Polka 1", "Polka 2", "Polka 3"]  # the catalog's names

        before = json.loads(await read(call, uri(USER, f"playlists/{MINE}/at/{T_BETWEEN}")))
        assert before == await call.ok(
            "memory_reconstruct_playlist",
            {"user_id": USER, "playlist_id": MINE, "at_time": T_BETWEEN, "include_tracks": True},
        )
        assert before["track_ids"] == [track(1), track(2)] and before["as_of"] == "2025-01-01T12:00:00.000Z"
        assert [t["name"] for t in before["tracks"]] == ["Polka 1", "Polka 2"]

        block = await read(call, uri(USER, "context"))
        context = await call.ok("memory_get_context", {"user_id": USER, "budget_tokens": CONTEXT_BUDGET_TOKENS})
        assert block == context["block"] and '"polka"' in block


async def test_nothing_to_read_is_one_not_found_whatever_is_missing(settings: Settings) -> None:
    async with memory_server(settings) as server, session(server) as call:
        await seed(call)
        await seed(call, OTHER)
        missing = [
            uri(USER, f"playlists/{playlist(9)}"),  # not logged
            uri(USER, f"playlists/{playlist(9)}/at/{T_BETWEEN}"),
            uri(USER, f"playlists/{MINE}/at/2024-12-31T00:00:00Z"),  # before it was created
            uri(999, f"playlists/{MINE}"),  # a user with nothing
            uri(USER, "settings"),  # no such template
        ]
        errors = [await refusal(lambda u=u: call.client.read_resource(u)) for u in missing]
        for address, error in zip(missing, errors):
            assert error == {
                "code": INVALID_PARAMS,
                "message": "resource not found",
                "data": {"code": "NOT_FOUND", "uri": address},
            } or address.endswith("settings"), error
        assert errors[-1]["code"] == INVALID_PARAMS  # the SDK's own answer for a URI no template fills
        assert len({json.dumps(without_uri(e)) for e in errors[:-1]}) == 1


async def test_a_malformed_uri_names_what_is_wrong(settings: Settings) -> None:
    async with memory_server(settings) as server, session(server) as call:
        cases = {
            uri(0, "profile"): "user_id",  # type: ignore[arg-type]
            "memory://users/abc/profile": "user_id",
            "memory://users/-1/playlists": "user_id",
            uri(USER, "playlists/short"): "playlist_id",  # 10 to 80 characters
            uri(USER, f"playlists/{MINE}/at/yesterday"): "iso_time",
            uri(USER, f"playlists/{MINE}/at/2025-01-01"): "iso_time",
        }
        for address, field in cases.items():
            error = await refusal(lambda a=address: call.client.read_resource(a))
            assert error["code"] == INVALID_PARAMS, error
            assert error["data"]["code"] == "INVALID_ARGUMENT" and error["data"]["field"] == field, error
            assert field in error["message"], error


async def test_a_user_whose_memory_is_off_reads_as_a_user_with_no_data(settings: Settings) -> None:
    async with memory_server(settings) as server, session(server) as call:
        await seed(call)
        await call.ok("memory_set_enabled", {"user_id": USER, "enabled": False})
        profile = json.loads(await read(call, uri(USER, "profile")))
        assert profile["profile"] == {} and profile["version"] == 0
        assert json.loads(await read(call, uri(USER, "playlists")))["items"] == []
        error = await refusal(lambda: call.client.read_resource(uri(USER, f"playlists/{MINE}")))
        assert error["data"]["code"] == "NOT_FOUND"
        assert await read(call, uri(USER, "context")) == await read(call, uri(999, "context"))
        await call.ok("memory_set_enabled", {"user_id": USER, "enabled": True})
        assert json.loads(await read(call, uri(USER, f"playlists/{MINE}")))["track_ids"][0] == track(1)


class OneUserToken:
    """The caller a user token for USER makes, without HTTP: the identity seam the transports fill."""

    def resolve(self, context: Any) -> Principal:
        return Principal(name="t-user", role="user", user_ids=frozenset({USER}))


async def test_a_user_token_reads_within_its_users_and_its_rate(settings: Settings) -> None:
    policy = CallPolicy(identity=OneUserToken(), limiter=RateLimiter(per_minute=60, burst=5))
    async with memory_server(settings, policy) as server, session(server) as call:
        await seed(call)  # 4 calls of the burst of 5
        assert json.loads(await read(call, uri(USER, "profile")))["version"] == 1
        refused = await refusal(lambda: call.client.read_resource(uri(OTHER, "profile")))
        assert refused["code"] == INVALID_REQUEST and refused["data"]["code"] == "RATE_LIMITED"
        assert 0 < refused["data"]["retry_after_s"] <= 1


async def test_a_user_token_reads_another_user_as_nothing(settings: Settings) -> None:
    async with memory_server(settings) as server, session(server) as call:
        await seed(call, OTHER)
    async with memory_server(settings, CallPolicy(identity=OneUserToken())) as server, session(server) as call:
        others = [
            await refusal(lambda p=p: call.client.read_resource(uri(OTHER, p)))
            for p in ("profile", "playlists", f"playlists/{MINE}", f"playlists/{MINE}/at/{T_BETWEEN}", "context")
        ]
        missing = await refusal(lambda: call.client.read_resource(uri(USER, f"playlists/{MINE}")))
        assert {json.dumps(without_uri(e)) for e in [*others, missing]} == {json.dumps(without_uri(missing))}
        assert missing["data"]["code"] == "NOT_FOUND"
