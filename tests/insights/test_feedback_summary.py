"""memory_feedback_summary: recurring rules in varied wording group with exact counts, unrelated ones
do not merge, patches count once per rule, and the answer is bounded, ordered and deterministic."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from service.settings import Settings
from tests.support import Caller, connected
from tests.support.contract import assert_valid_success

USER = 3
T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


def at(hours: int) -> str:
    return (T0 + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


async def said(call: Caller, kind: str, text: str | None, hours: int, user: int = USER, **fields: Any) -> str:
    payload = {**({"raw_text": text} if text is not None else {}), **fields}
    done = await call.ok(
        "memory_append_preference_event",
        {"user_id": user, "type": kind, "payload": payload, "source": "user", "timestamp": at(hours)},
    )
    return done["event_id"]


async def summary(call: Caller, user: int = USER, **arguments: Any) -> dict[str, Any]:
    return assert_valid_success(
        "memory.feedback_summary", await call("memory_feedback_summary", {"user_id": user, **arguments})
    )


def by_key(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["key"]: g for g in result["groups"]}


async def test_recurring_rules_in_different_words_group_with_exact_counts(settings: Settings) -> None:
    async with connected(settings) as call:
        cap = [
            await said(call, "rule", "No more than 3 songs per artist!", 1),
            await said(call, "feedback", "Too many tracks from one band again...", 30),
            await said(call, "rule", "please don't overweight a single artist", 50),
        ]
        xmas = [
            await said(call, "dislike", "I can't stand Christmas songs", 2),
            await said(call, "dislike", None, 40, genre="christmas"),
        ]
        await said(call, "feedback", "more Nightwish please", 3, artist="Nightwish")
        await said(call, "rule", "Keep playlists under 2 hours", 4)
        await said(call, "feedback", "less pop", 5)
        await said(call, "like", "no more than 3 songs per artist", 6)  # likes are tastes: left out
        await said(call, "note", "christmas party on friday", 7)  # notes too
        await call.ok(
            "memory_update_profile",
            {
                "user_id": USER,
                "reason": "User feedback: artist cap",
                "patch": {"playlist_rules": {"max_tracks_per_artist": 3}},
            },
        )
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"avoid": ["christmas music"]}})
        result = await summary(call)
    groups = by_key(result)
    assert result["totals"] == {"preference_events": 8, "profile_patches": 2, "groups": 5, "recurring_groups": 2}
    artist_cap = groups["max: artist"]
    assert artist_cap["count"] == 4 and artist_cap["basis"] == "same_words"
    assert artist_cap["types"] == {"feedback": 1, "profile_patch": 1, "rule": 2}
    assert artist_cap["subjects"] == ["profile:playlist_rules.max_tracks_per_artist"]
    assert artist_cap["label"] == "please don't overweight a single artist"  # the newest words of the user's
    assert [e.get("event_id") for e in artist_cap["examples"]] == [None, cap[2], cap[1]]  # newest first
    assert artist_cap["examples"][0]["profile_version"] == 1
    assert artist_cap["first_seen"] == at(1)
    christmas = groups["avoid: christmas"]
    assert christmas["count"] == 3 and christmas["types"] == {"dislike": 2, "profile_patch": 1}
    assert {e.get("event_id") for e in christmas["examples"]} >= set(xmas)
    assert christmas["subjects"] == ["profile:avoid", "genre:christmas"]
    assert {k: g["count"] for k, g in groups.items()} == {
        "max: artist": 4,
        "avoid: christmas": 3,
        "about: nightwish": 1,
        "max: duration": 1,
        "max: pop": 1,
    }
    # Most recurring first, then the most recent.
    assert [g["key"] for g in result["groups"]] == [
        "max: artist",
        "avoid: christmas",
        "max: pop",
        "max: duration",
        "about: nightwish",
    ]


async def test_typos_and_similar_words_join_and_say_so(settings: Settings) -> None:
    async with connected(settings) as call:
        await said(call, "rule", "no Nightwish please", 1)
        await said(call, "rule", "No NIGHTWSH!!", 2)
        await said(call, "dislike", "Nightwish or Epica, never", 3)
        await said(call, "rule", "no Epica", 4)  # no word in common with the Nightwish group's key: its own
        await said(call, "rule", "Mötley Crüe is too much", 5)
        await said(call, "feedback", "less motley crue", 6)
        result = await summary(call)
    groups = by_key(result)
    assert groups["avoid: nightwish"]["count"] == 3 and groups["avoid: nightwish"]["basis"] == "similar_words"
    assert groups["max: crue motley"]["count"] == 2 and groups["max: crue motley"]["basis"] == "same_words"
    assert groups["avoid: epica"]["count"] == 1


async def test_a_whole_profile_resent_does_not_repeat_its_rules(settings: Settings) -> None:
    profile = {
        "core_genres": ["power metal", "symphonic metal"],
        "playlist_rules": {
            "max_tracks_per_artist": 3,
            "target_duration_minutes": {"min": 90, "max": 180},
            "arc": "drive, breather, drive",
        },
        "energy_preferences": {"default": "upbeat", "contemplative_breaks": True},
        "avoid": ["christmas"],
    }
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": USER, "patch": profile, "reason": "onboarding"})
        resent = {**profile, "avoid": ["christmas", "screamo"], "core_genres": ["power metal", "symphonic metal"]}
        await call.ok("memory_update_profile", {"user_id": USER, "patch": resent})  # adds only screamo
        await call.ok(
            "memory_update_profile", {"user_id": USER, "patch": {"playlist_rules": {"max_tracks_per_artist": 2}}}
        )  # focused: counts although only the value changed
        result = await summary(call)
    counts = {k: g["count"] for k, g in by_key(result).items()}
    assert counts["max: artist"] == 2
    assert counts["avoid: christmas"] == 1 and counts["avoid: screamo"] == 1
    assert counts["about: duration"] == 1  # min and max of one range: one patch, counted once
    assert result["totals"]["profile_patches"] == 3


async def test_bounded_ordered_and_deterministic(settings: Settings) -> None:
    async with connected(settings) as call:
        for n in range(30):
            await said(call, "rule", f"no {'abcdefghijklmnopqrstuvwxyz'[n % 26]}{n}zzq genre", n)
            await said(call, "rule", "no more than 3 songs per artist", 100 + n)
        first = await summary(call, limit=5)
        again = await summary(call, limit=5)
        full = await summary(call, limit=200)
    assert len(first["groups"]) == 5 and first["truncated"] is True
    assert first["groups"] == again["groups"]
    assert first["groups"][0]["key"] == "max: artist" and first["groups"][0]["count"] == 30
    assert len(first["groups"][0]["examples"]) == 3
    assert full["totals"]["groups"] == 31 and len(full["groups"]) == 31 and full["truncated"] is False
    tail = full["groups"][1:]
    assert [g["last_seen"] for g in tail] == sorted((g["last_seen"] for g in tail), reverse=True)


async def test_patches_that_followed_the_feedback_leave_its_event_ids_in_the_examples(settings: Settings) -> None:
    """Patches are stamped when applied, after the events they came from: the newest three members
    of this group are patches, yet its examples still name the events."""
    async with connected(settings) as call:
        events = [
            await said(call, "dislike", "no more Motörhead", 1),
            await said(call, "dislike", None, 2, artist="motörhead"),
            await said(call, "feedback", "Motorhead again? skip it", 3),
        ]
        for patch in (
            {"avoid": ["Motörhead"]},
            {"playlist_rules": {"avoid_artists": ["motörhead"]}},
            {"avoid": ["Motörhead", "Motorhead"]},
        ):
            await call.ok("memory_update_profile", {"user_id": USER, "patch": patch})
        result = await summary(call)
    (motorhead,) = result["groups"]
    assert motorhead["key"] == "avoid: motorhead" and motorhead["count"] == 6
    assert [e["source"] for e in motorhead["examples"]] == ["profile_patch", "preference_event", "preference_event"]
    assert [e.get("event_id") for e in motorhead["examples"][1:]] == [events[2], events[1]]
    assert motorhead["examples"][0]["profile_version"] == 3


async def test_a_user_without_feedback_gets_an_empty_summary(settings: Settings) -> None:
    async with connected(settings) as call:
        result = await summary(call)
        await call.error("memory_feedback_summary", {"user_id": USER, "limit": 0}, "INVALID_ARGUMENT")
        await call.error("memory_feedback_summary", {"user_id": USER, "days": 3}, "INVALID_ARGUMENT")
    assert result["groups"] == [] and result["truncated"] is False
    assert result["totals"] == {"preference_events": 0, "profile_patches": 0, "groups": 0, "recurring_groups": 0}


# Rules the user keeps repeating, each in several wordings; no two share a key.
WORDINGS = {
    "max: artist": [
        "No more than 3 songs per artist",
        "max three tracks from one band please",
        "don't overweight one artist",
        "Cap every artist at two tracks",
        "too many songs by the same band",
    ],
    "avoid: christmas": [
        "no Christmas songs",
        "I hate christmas music",
        "never any Christmas tracks",
        "skip the christmas stuff",
    ],
    "max: duration": ["keep it under 90 minutes", "playlists no longer than 2 hours", "max length 3 hours"],
    "max: pop": ["less pop", "keep pop as an accent", "too much pop"],
    "about: breather": ["contemplative breaks please", "I like a breather", "add breathers"],
}
EXAMPLE_USERS = itertools.count(1000)
noise = st.sampled_from(["", "Remember: ", "hey, ", "PLEASE ", "ok so "])


@hsettings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    said_=st.lists(
        st.tuples(st.sampled_from(sorted(WORDINGS)), st.integers(0, 4), noise, st.booleans()), min_size=1, max_size=14
    )
)
async def test_planted_rules_group_exactly_whatever_the_wording(settings: Settings, said_: list) -> None:
    expected: dict[str, int] = {}
    user = next(EXAMPLE_USERS)  # the store outlives one example: each its own user
    async with connected(settings) as call:
        for n, (key, which, prefix, shout) in enumerate(said_):
            options = WORDINGS[key]
            text = prefix + options[which % len(options)]
            await said(call, "rule" if n % 2 else "feedback", text.upper() if shout else text, n, user)
            expected[key] = expected.get(key, 0) + 1
        result = await summary(call, user, limit=200)
    assert {g["key"]: g["count"] for g in result["groups"]} == expected
