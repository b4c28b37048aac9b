"""Situations through the MCP tools: "metal only at the gym" in memory_check_playlist and
memory_get_context, the refusal of a situation the profile does not define, and a property: with a
situation, both tools answer as they do for a user whose profile is the RFC 7396 merge of the
situation over the base profile (a plain reference model of the merge, written here).
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from service.context.quoting import OPEN
from service.settings import Settings
from tests.support import Caller, connected, track
from tests.support.contract import assert_valid_success
from tests.support.merge_model import reference_merge

USER = 3
GYM_LINE = 'Built for the situation "gym"'
PROFILE = {
    "core_genres": ["symphonic rock"],
    "avoid": ["metal"],
    "situations": {"gym": {"avoid": [], "core_genres": ["metal"]}, "work": {"secondary_vibes": ["instrumental"]}},
}
CATALOG = [
    {"track_id": track(i), "name": f"Riff {i}", "artists": [f"Band {i}"], "genres": ["metal"]} for i in range(1, 5)
]


async def with_profile(call: Caller, user_id: int, profile: dict[str, Any]) -> None:
    await call.ok(
        "memory_update_profile", {"user_id": user_id, "patch": profile, "source": "user", "create_if_missing": True}
    )


async def checked(call: Caller, user_id: int, **arguments: Any) -> dict[str, Any]:
    ids = [t["track_id"] for t in CATALOG]
    envelope = await call("memory_check_playlist", {"user_id": user_id, "track_ids": ids, **arguments})
    return assert_valid_success("memory.check_playlist", envelope)


async def block(call: Caller, user_id: int, **arguments: Any) -> str:
    envelope = await call("memory_get_context", {"user_id": user_id, "budget_tokens": 4000, **arguments})
    result = assert_valid_success("memory.get_context", envelope)
    assert result["tokens"] <= 4000
    text: str = result["block"]
    return text


async def test_metal_only_at_the_gym(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": CATALOG})
        await with_profile(call, USER, PROFILE)

        anywhere = await checked(call, USER)
        assert not anywhere["ok"] and [v["rule"] for v in anywhere["violations"]] == ["avoid_genres"]
        assert anywhere["rules"]["avoid_genres"] == ["metal"]
        at_gym = await checked(call, USER, situation="gym")
        assert at_gym["ok"] and at_gym["violations"] == [] and "avoid_genres" not in at_gym["rules"]

        base = await block(call, USER)
        lines = base.splitlines()
        assert lines[1] == 'Situations with their own preferences, not shown (ask with situation): "gym", "work"'
        assert '- profile "avoid": "metal"' in lines and not any("instrumental" in line for line in lines)
        assert not any('"core_genres": "metal"' in line for line in lines)
        gym = (await block(call, USER, situation="gym")).splitlines()
        assert gym[:2] == [OPEN, GYM_LINE]
        assert '- profile "core_genres": "metal"' in gym and not any('"avoid"' in line for line in gym)
        assert not any("instrumental" in line or "Situations" in line for line in gym)
        smallest = (await block(call, USER, situation="gym", budget_tokens=50)).splitlines()
        assert smallest[:2] == [OPEN, GYM_LINE]


async def test_an_unknown_situation_is_refused_naming_the_ones_there_are(settings: Settings) -> None:
    async with connected(settings) as call:
        await with_profile(call, USER, PROFILE)
        for tool, arguments in (("memory_get_context", {}), ("memory_check_playlist", {"track_ids": [track(1)]})):
            error = await call.error(tool, {"user_id": USER, "situation": "car", **arguments}, "INVALID_ARGUMENT")
            assert error["details"]["field"] == "situation"
            assert error["details"]["situations"] == ["gym", "work"]
            assert "'car'" in error["message"] and "'gym', 'work'" in error["message"]
        nobody = await call.error("memory_get_context", {"user_id": 99, "situation": "gym"}, "INVALID_ARGUMENT")
        assert "defines none" in nobody["message"] and nobody["details"]["situations"] == []
        both = await call.error(
            "memory_check_playlist",
            {"user_id": USER, "track_ids": [track(1)], "rules": {"no_duplicates": True}, "situation": "gym"},
            "INVALID_ARGUMENT",
        )
        assert both["details"]["field"] == "situation"


async def test_a_profile_without_situations_gives_the_block_it_always_gave(settings: Settings) -> None:
    async with connected(settings) as call:
        plain = {k: v for k, v in PROFILE.items() if k != "situations"}
        await with_profile(call, USER, plain)
        lines = (await block(call, USER)).splitlines()
        assert lines[:2] == [OPEN, "## Prefer"] and not any("ituation" in line for line in lines)


async def test_the_situation_line_fits_the_smallest_budget_whatever_the_length_of_an_ascii_name(
    settings: Settings,
) -> None:
    name = "while working late at the office, headphones on"
    async with connected(settings) as call:
        await with_profile(call, USER, {"avoid": ["metal"], "situations": {name: {"avoid": ["jazz"]}}})
        lines = (await block(call, USER, situation=name, budget_tokens=50)).splitlines()
        assert lines[1] == 'Built for the situation "while working late at th…"'


# Keys the tools read (the check's rules, the block's sections) and one neither reads, values that
# overlap between base and situation so that merges, replacements and deletions all happen.
KEYS = ["avoid", "core_genres", "playlist_rules", "energy_preferences", "notes"]
leaf = st.one_of(
    st.sampled_from(["metal", "Band 1", "Band 2", "jazz"]),
    st.lists(st.sampled_from(["metal", "Band 1", "Band 2", "jazz", "mid"]), max_size=3),
    st.integers(1, 4),
)
INNER = ["max_tracks_per_artist", "avoid_artists", "avoid_genres", "break_placement", "genres"]
value = st.one_of(leaf, st.dictionaries(st.sampled_from(INNER), leaf, max_size=3))
profiles = st.dictionaries(st.sampled_from(KEYS), value, max_size=4)
users = itertools.count(1000, 2)


@hsettings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(base=profiles, situation=profiles)
async def test_a_situation_answers_as_the_merged_profile_would(
    settings: Settings, base: dict[str, Any], situation: dict[str, Any]
) -> None:
    """For random base profiles and situations (no nulls: a merge patch cannot store one; the
    merge's null deletions are tested on the domain function), the block and the check built for
    the situation are those of a user whose whole profile is the reference merge."""
    situated = next(users)
    merged = situated + 1
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": situated, "tracks": CATALOG})
        await call.ok("memory_upsert_tracks", {"user_id": merged, "tracks": CATALOG})
        await with_profile(call, situated, {**base, "situations": {"gym": situation}})
        await with_profile(call, merged, reference_merge(base, situation))
        got = (await block(call, situated, situation="gym")).splitlines()  # 4,000 tokens hold every profile drawn
        want = (await block(call, merged)).splitlines()
        assert got[1] == GYM_LINE and [got[0], *got[2:]] == want
        got_check = await checked(call, situated, situation="gym")
        want_check = await checked(call, merged)
        assert got_check["rules"] == want_check["rules"]
        assert got_check["violations"] == want_check["violations"]
