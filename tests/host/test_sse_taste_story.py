"""Taste that holds, as one listener's story told to a real ``serve`` process by the official MCP
SSE client: a situation ("metal only at the gym"), a write checked against the rules, a dislike
the plays contradict settled by the person, a memory kept out of sight, and a track rested after
it was played too often. Every envelope is checked against its tool's schema by ``WireCaller``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.support import playlist, track
from tests.support.mcp_sessions import serving

pytestmark = pytest.mark.slow

USER = 7
GYM = playlist(701)
METAL = [track(n) for n in range(1, 5)]  # Metallica and Slayer: metal
MACARENA = track(10)
SANDMAN = METAL[0]  # played past its rest limit this week
CATALOG = [
    {"track_id": METAL[0], "name": "Enter Sandman", "artists": ["Metallica"], "genres": ["metal"]},
    {"track_id": METAL[1], "name": "One", "artists": ["Metallica"], "genres": ["metal"]},
    {"track_id": METAL[2], "name": "Raining Blood", "artists": ["Slayer"], "genres": ["metal"]},
    {"track_id": METAL[3], "name": "Angel of Death", "artists": ["Slayer"], "genres": ["metal"]},
    {"track_id": MACARENA, "name": "Macarena", "artists": ["Los del Río"], "genres": ["latin pop"]},
    {"track_id": track(11), "name": "Macarena", "artists": ["Tyga"], "genres": ["hip hop"]},  # not the one avoided
]
PROFILE = {
    "core_genres": ["indie folk"],
    "avoid": ["metal", "Macarena – Los del Río"],
    "playlist_rules": {"rest": {"max_plays": 3, "days": 7}},
    "situations": {"gym": {"core_genres": ["metal"], "avoid": ["Macarena – Los del Río"]}},
}


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def rules_of(report: dict[str, Any]) -> set[str]:
    return {v["rule"] for v in report["violations"]}


async def test_taste_that_holds_over_sse(settings: Settings, tmp_path: Path) -> None:
    now = datetime.now(UTC)
    async with serving("sse", settings, tmp_path) as session, session() as call:
        await call.ok("memory_enable_toolsets", {"toolsets": ["all"]})
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": CATALOG})
        await call.ok(
            "memory_update_profile",
            {"user_id": USER, "patch": PROFILE, "reason": "metal only at the gym", "source": "user"},
        )

        # "Metal only at the gym": the gym list passes there, and breaks the base dislike elsewhere.
        at_gym = await call.ok("memory_check_playlist", {"user_id": USER, "track_ids": METAL[1:], "situation": "gym"})
        assert at_gym["violations"] == [], at_gym
        anywhere = await call.ok("memory_check_playlist", {"user_id": USER, "track_ids": METAL[1:]})
        assert rules_of(anywhere) == {"avoid_genres"}
        assert set(anywhere["violations"][0]["track_ids"]) == set(METAL[1:])
        gym_block = (await call.ok("memory_get_context", {"user_id": USER, "situation": "gym"}))["block"]
        assert '"gym"' in gym_block and '"metal"' in gym_block

        # A creation checked on request: the avoided track (by name) is reported, the playlist stored.
        created = await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": GYM,
                "name": "Gym",
                "track_ids": [*METAL[1:], MACARENA, track(11)],
                "intent_tags": ["gym"],
                "check_rules": True,
            },
        )
        report = created["rule_report"]
        assert report["ok"] is False and report["situation"] == "gym"  # the intent tag named it
        assert rules_of(report) == {"avoid_tracks"}
        assert report["violations"][0]["track_ids"] == [MACARENA]  # Tyga's "Macarena" is not avoided
        stored = await call.ok("memory_get_playlist", {"user_id": USER, "playlist_id": GYM})
        assert stored["latest_snapshot"]["track_ids"] == [*METAL[1:], MACARENA, track(11)]

        # Said one thing, played another: six plays of a disliked artist are a conflict to settle.
        await call.ok(
            "memory_append_preference_event",
            {
                "user_id": USER,
                "type": "dislike",
                "source": "user",
                "payload": {"artist": "Nickelback", "raw_text": "never Nickelback"},
                "timestamp": iso(now - timedelta(days=60)),
            },
        )
        nickelback = [
            {"artist": "Nickelback", "track": "Photograph", "played_at": iso(now - timedelta(days=1 + i))}
            for i in range(6)
        ]
        await call.ok("memory_log_plays", {"user_id": USER, "plays": nickelback})
        conflicts = (await call.ok("memory_list_conflicts", {"user_id": USER}))["conflicts"]
        assert [(c["kind"], c["subject"], c["played"]["count"]) for c in conflicts] == [
            ("played_despite_dislike", {"artist": "Nickelback"}, 6)
        ]
        events_before = (await call.ok("memory_status", {"user_id": USER}))["counts"]["preference_events"]
        resolved = await call.ok(
            "memory_resolve_conflict",
            {"user_id": USER, "conflict_id": conflicts[0]["conflict_id"], "resolution": "update_preference"},
        )
        assert resolved["event"]["source"] == "user" and resolved["event"]["type"] == "like"
        assert resolved["event"]["payload"]["artist"] == "Nickelback"
        counts = (await call.ok("memory_status", {"user_id": USER}))["counts"]
        assert counts["preference_events"] == events_before + 1
        assert (await call.ok("memory_list_conflicts", {"user_id": USER}))["conflicts"] == []
        block = (await call.ok("memory_get_context", {"user_id": USER, "budget_tokens": 2000}))["block"]
        assert 'like artist "Nickelback"' in block and 'dislike artist "Nickelback"' not in block

        # Kept out of sight: not in the block nor found by meaning; there when named.
        hidden = await call.ok(
            "memory_add",
            {
                "user_id": USER,
                "type": "insight",
                "entities": ["Dad's funeral"],
                "summary": "The hymns from Dad's funeral: only if they bring it up",
                "importance": 9,
                "sensitive": True,
            },
        )
        block = (await call.ok("memory_get_context", {"user_id": USER, "budget_tokens": 2000}))["block"]
        assert "funeral" not in block
        found = await call.ok("memory_search", {"user_id": USER, "query": "sad hymns to remember someone"})
        assert hidden["memory_id"] not in [h["id"] for h in found["results"]]
        named = await call.ok("memory_search", {"user_id": USER, "query": "Dad's funeral"})
        assert named["results"][0]["id"] == hidden["memory_id"]
        focused = await call.ok("memory_get_context", {"user_id": USER, "focus": "Dad's funeral"})
        assert "Dad's funeral" in focused["block"]

        # Rest: four plays this week of a track allowed three.
        sandman = [
            {
                "artist": "Metallica",
                "track": "Enter Sandman",
                "track_id": SANDMAN,
                "played_at": iso(now - timedelta(hours=h)),
            }
            for h in (2, 20, 50, 100)
        ]
        await call.ok("memory_log_plays", {"user_id": USER, "plays": sandman})
        rested = await call.ok(
            "memory_check_playlist", {"user_id": USER, "track_ids": [SANDMAN, METAL[2]], "situation": "gym"}
        )
        assert [(v["rule"], v["track_ids"]) for v in rested["violations"]] == [("rest", [SANDMAN])]
        block = (await call.ok("memory_get_context", {"user_id": USER, "budget_tokens": 2000}))["block"]
        resting = block.split("## Resting", 1)[1]
        assert '"Enter Sandman"' in resting and "4 plays in 7 days" in resting
