"""What the copy-a-user tests share: more of a rich user than ``write_rich_user`` writes (a
chain of superseding opinions, a recorded choice, a restated and a validated memory, switches),
every read a client can make of a user, and two users' answers made comparable.

The reads are asked of every read-only tool that takes a ``user_id`` (the test checks the served
list against ``ASKS``) and of every resource template, so a new read is compared once it is
listed here."""

from __future__ import annotations

import json
import re
from typing import Any

from mcp.shared.exceptions import MCPError

from tests.support import Caller, every_tool, track
from tests.support.rich_user import FORKED, MIX, NOW, ROAD, T

PLAYLISTS = (MIX, ROAD, FORKED)
MOMENTS = (None, T.format(12), T.format(16), T.format(30))


async def write_more(call: Caller, user: int) -> None:
    """Opinions that supersede one another twice over, a choice, a restated memory, a validated
    recommendation, and switches that were turned off and on again."""
    for day, kind in ((6, "like"), (7, "dislike"), (8, "like")):
        await call.ok(
            "memory_append_preference_event",
            {
                "user_id": user,
                "type": kind,
                "source": "assistant",
                "timestamp": T.format(day),
                "payload": {"raw_text": f"{kind}s Nick Drake", "artist": "Nick Drake"},
            },
        )
    await call.ok(  # memory_explain of this field lists the opinions above, superseded ones marked
        "memory_update_profile",
        {"user_id": user, "patch": {"artists": ["Nick Drake"]}, "reason": "asked for more", "source": "assistant"},
    )
    await call.ok(
        "memory_record_choice",
        {
            "user_id": user,
            "chose": {"kind": "track", "id": track(2), "name": "Song 2"},
            "over": {"kind": "track", "id": track(3), "name": "Song 3"},
            "dimensions": ["calmer"],
            "context": "late night",
        },
    )
    added = await call.ok(
        "memory_add",
        {
            "user_id": user,
            "type": "recommendation",
            "entities": ["Nick Drake", "Pink Moon"],
            "summary": "Recommended Pink Moon for quiet evenings.",
            "importance": 7,
            "timestamp": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
    )
    await call.ok("memory_validate_recommendation", {"user_id": user, "memory_id": added["memory_id"]})
    restated = await call.ok(
        "memory_add",
        {
            "user_id": user,
            "type": "recommendation",
            "entities": ["Pink Moon", "Nick Drake"],
            "summary": "Recommended Pink Moon again, for quiet evenings.",
            "importance": 8,
            "timestamp": NOW.strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
    )
    assert restated["memory_id"] == added["memory_id"], restated  # a restatement, not a twin
    await call.ok("memory_set_enabled", {"user_id": user, "enabled": False})
    await call.ok("memory_set_enabled", {"user_id": user, "enabled": True})


def _per_playlist(**extra: Any) -> list[dict[str, Any]]:
    return [{"playlist_id": pid, **extra} for pid in PLAYLISTS]


# Read tool → the arguments it is asked with (user_id added). memory_get_context comes before
# memory_inspect, which shows the last block served.
ASKS: dict[str, list[dict[str, Any]]] = {
    "memory_get_profile": [{}],
    "memory_get_playlists": [{"limit": 50}, {"limit": 1}],
    "memory_get_playlist": _per_playlist(include_events_limit=50, include_tracks=True),
    "memory_reconstruct_playlist": [
        {"playlist_id": pid, "include_tracks": True, **({"at_time": at} if at else {})}
        for pid in PLAYLISTS
        for at in MOMENTS
    ],
    "memory_diff_playlist": _per_playlist(from_time=T.format(12), to_time=T.format(30)),
    "memory_get_playlist_timeline": _per_playlist(),
    "memory_playlist_portability": _per_playlist(target="spotify") + _per_playlist(target="isrc"),
    "memory_search": [
        {"query": q, "limit": 20, "detail": d}
        for q in ("blue", "miles davis", "nick drake", "calm", "nickelback", "pink moon")
        for d in ("lean", "full")
    ],
    "memory_query": [{}, {"text": "memory"}, {"entity": "Nick Drake"}, {"type": "recommendation"}],
    "memory_resolve_track": [{"text": "that blue song"}, {"text": "Song 3"}],
    "memory_check_playlist": [{"track_ids": [track(n) for n in range(1, 7)]}],
    "memory_rotation_report": [{}, {"days": 3650}],
    "memory_feedback_summary": [{"limit": 20}],
    "memory_open_followups": [{}],
    "memory_status": [{}],
    "memory_get_context": [{"budget_tokens": 2000}, {"budget_tokens": 400, "focus": "Nick Drake"}],
    "memory_inspect": [{}],
    "memory_explain": [{"path": p} for p in ("/genres", "/rules/max_tracks_per_artist", "/avoid/0", "/artists/0")],
    "memory_export_user_data": [{}],
    "memory_list_conflicts": [{}],
}
# Read tools whose answer is this store's history rather than the user's data, and so differs
# for a copy by design: the audit trail names the calls that wrote (the original's own calls,
# the copy's import).
NOT_COMPARED = {"ops_audit"}
# When an answer was made, not what it says.
MOMENT_KEYS = {"as_of", "exported_at", "window_start", "served_at"}
# Opaque and fresh on every call: compared as whether there is more (the pages are followed).
CURSOR_KEYS = {"next_cursor"}


async def read_tools(call: Caller) -> set[str]:
    """The served read-only tools that read one user."""
    listed = await every_tool(call.client)
    return {
        t.name
        for t in listed
        if t.annotations is not None and t.annotations.read_only_hint and "user_id" in t.input_schema["properties"]
    }


async def answers(call: Caller, user: int) -> dict[str, Any]:
    """Every read of ``user``: each tool's envelope, each resource's text, the user's row of
    ops_list_users."""
    out: dict[str, Any] = {}
    for tool, asks in ASKS.items():
        for arguments in asks:
            out[f"{tool} {sorted(arguments.items())}"] = await call(tool, {"user_id": user, **arguments})
    templates = (await call.client.list_resource_templates()).resource_templates
    for template in templates:
        uri = template.uri_template.replace("{user_id}", str(user))
        for pid in PLAYLISTS if "{playlist_id}" in uri else [None]:
            at = uri.replace("{playlist_id}", pid or "").replace("{iso_time}", T.format(16))
            out[f"resource {template.name} {pid}"] = await _resource(call, at)
    cursor = out["memory_get_playlists [('limit', 1)]"]["result"]["next_cursor"]
    while cursor is not None:
        page = await call("memory_get_playlists", {"user_id": user, "limit": 1, "cursor": cursor})
        out[f"memory_get_playlists page {len(out)}"] = page
        cursor = page["result"]["next_cursor"]
    rows = (await call.ok("ops_list_users", {"limit": 100}))["users"]
    out["ops_list_users"] = [r for r in rows if r["user_id"] == user]
    return out


async def _resource(call: Caller, uri: str) -> Any:
    try:
        contents = (await call.client.read_resource(uri)).contents
    except MCPError as exc:  # a playlist before it was forked: refused alike for both users
        return {"refused": exc.code, "message": exc.message, "data": exc.data}
    return [json.loads(c.text) if c.mime_type == "application/json" else c.model_dump() for c in contents]


def event_tokens(export: dict[str, Any]) -> dict[str, str]:
    """A user's preference event ids → "E<n>", n its place in the export (recording order)."""
    return {e["event_id"]: f"E{n}" for n, e in enumerate(export["preference_events"])}


def comparable(value: Any, user: int, tokens: dict[str, str]) -> Any:
    """``value`` with the user's id written "U" (as a user_id, and in resource URIs), its event ids
    as their tokens, and the moments of answering left out."""
    pattern = re.compile("|".join(re.escape(i) for i in sorted(tokens, key=len, reverse=True)) or "(?!)")

    def walk(item: Any, key: str | None = None) -> Any:
        if isinstance(item, dict):
            return {k: walk(v, k) for k, v in item.items() if k not in MOMENT_KEYS}
        if isinstance(item, list):
            return [walk(v) for v in item]
        if key in CURSOR_KEYS:
            return item is not None
        if key == "user_id" and item == user:
            return "U"
        if isinstance(item, str):
            return pattern.sub(lambda m: tokens[m.group(0)], item.replace(f"users/{user}/", "users/U/"))
        return item

    return walk(value)
