"""Rest through the MCP tools: ``playlist_rules.rest`` in the profile, in a situation and inline;
the like-by-name exemption (profile likes, like events, a like superseded by a dislike no longer
exempts); an ill-typed rule in the free-form profile is no rule; bad inline values are
INVALID_ARGUMENT naming the field; check_rules on the logging tools reports rest; another user's
plays count for nobody else.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from service.settings import Settings
from tests.support import Caller, connected
from tests.support.contract import assert_valid_error, assert_valid_success
from tests.tracks.rest_support import COVER, DAY, HALO, NOW, SIGN, SONG2, frozen, message, play, prepared, rested

USER, OTHER = 11, 12
PLAYLIST = [SONG2, COVER, HALO, SIGN]
REST = {"max_plays": 3, "days": 7}
# Song 2: 2 by id + 2 by name in the window, 5 more before it; Halo: exactly 3, the oldest at the
# edge; The Sign: 2; the Cover Band's Song 2: none (the plays named "Song 2" are Blur's).
PLAYS = [
    play(SONG2, NOW - timedelta(hours=1)),
    play(SONG2, NOW - 2 * DAY),
    play(SONG2, NOW - 3 * DAY, by_id=False),
    play(SONG2, NOW - 6 * DAY, by_id=False),
    *(play(SONG2, NOW - 8 * DAY - timedelta(hours=i)) for i in range(5)),
    play(HALO, NOW - 7 * DAY),
    play(HALO, NOW - DAY, by_id=False),
    play(HALO, NOW),
    play(SIGN, NOW - DAY),
    play(SIGN, NOW - 2 * DAY, by_id=False),
]
BOTH = {SONG2: message(SONG2, 4, 3, 7), HALO: message(HALO, 3, 3, 7)}


async def checked(call: Caller, user_id: int = USER, **arguments: Any) -> dict[str, Any]:
    envelope = await call("memory_check_playlist", {"user_id": user_id, "track_ids": PLAYLIST, **arguments})
    return assert_valid_success("memory.check_playlist", envelope)


async def test_a_track_over_its_rest_limit_is_reported(settings: Settings) -> None:
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, PLAYS, {"playlist_rules": {"rest": REST}})
            answer = await checked(call)
            inline = await checked(call, rules={"rest": REST, "no_duplicates": False})
            wider = await checked(call, rules={"rest": {"max_plays": 9, "days": 10}})
    assert answer["rules_source"] == "profile" and answer["rules"]["rest"] == REST
    assert rested(answer) == BOTH and not answer["ok"] and answer["violation_count"] == 2
    assert [v["track_ids"] for v in answer["violations"]] == [[SONG2], [HALO]]
    assert answer["violations"][0]["message"] == "Song 2 – Blur played 4 times in the last 7 days (rest limit 3)"
    assert (
        answer["violations"][0]["suggestion"]
        == "rest it: swap for a track played fewer than 3 times in the last 7 days"
    )
    assert rested(inline) == BOTH and inline["rules"] == {"no_duplicates": False, "rest": REST}
    assert rested(wider) == {SONG2: message(SONG2, 9, 9, 10)}


async def test_a_track_the_person_likes_by_name_is_not_rested(settings: Settings) -> None:
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, PLAYS, {"playlist_rules": {"rest": REST}, "likes": ["Song 2 – Blur"]})
            by_profile = await checked(call)
            await call.ok("memory_update_profile", {"user_id": USER, "patch": {"likes": ["Song 2 – Cover Band"]}})
            another_artists = await checked(call)
            like = {"user_id": USER, "type": "like", "payload": {"subject": "halo"}}
            await call.ok("memory_append_preference_event", like)
            by_event = await checked(call)
            # A later dislike of the same subject supersedes the like: Halo rests again.
            await call.ok("memory_append_preference_event", {**like, "type": "dislike"})
            superseded = await checked(call)
            await call.ok(
                "memory_append_preference_event", {"user_id": USER, "type": "like", "payload": {"track_id": HALO}}
            )
            by_id = await checked(call)
            # Inline rules replace the profile's rules, not the person's likes.
            inline = await checked(call, rules={"rest": REST})
    assert rested(by_profile) == {HALO: BOTH[HALO]}
    assert rested(another_artists) == BOTH  # a cover's artist names another track
    assert rested(by_event) == {SONG2: BOTH[SONG2]}
    assert rested(superseded) == BOTH
    assert rested(by_id) == rested(inline) == {SONG2: BOTH[SONG2]}


async def test_a_like_event_naming_title_and_artist_exempts_only_that_artists_track(settings: Settings) -> None:
    plays = [play(t, NOW - timedelta(hours=h)) for t in (SONG2, COVER) for h in range(3)]
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, plays, {"playlist_rules": {"rest": REST}})
            payload = {"track": "Song 2", "artist": "cover BAND", "raw_text": "love this cover"}
            await call.ok("memory_append_preference_event", {"user_id": USER, "type": "like", "payload": payload})
            answer = await checked(call)
    assert rested(answer) == {SONG2: message(SONG2, 3, 3, 7)}


async def test_rest_holds_where_its_situation_says(settings: Settings) -> None:
    profile = {
        "situations": {
            "gym": {"playlist_rules": {"rest": REST}},
            "work": {"playlist_rules": {"rest": {"max_plays": 5, "days": 7}}},
        }
    }
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, PLAYS, profile)
            base = await checked(call)
            gym = await checked(call, situation="gym")
            await call.ok("memory_update_profile", {"user_id": USER, "patch": {"playlist_rules": {"rest": REST}}})
            everywhere = await checked(call)
            work = await checked(call, situation="work")  # the situation's own limit replaces the base's
    assert rested(base) == {} and "rest" not in base["rules"]
    assert rested(gym) == BOTH and gym["rules"]["rest"] == REST
    assert rested(everywhere) == BOTH
    assert rested(work) == {} and work["rules"]["rest"] == {"max_plays": 5, "days": 7}


@pytest.mark.parametrize(
    "rest",
    [
        "often",
        [3, 7],
        {"max_plays": "3", "days": 7},
        {"max_plays": 0, "days": 7},
        {"max_plays": 3, "days": 0},
        {"max_plays": 3, "days": 3651},
        {"max_plays": 3.5, "days": 7},
        {"max_plays": True, "days": 7},
        {"days": 7},
    ],
)
async def test_an_ill_typed_rest_in_the_profile_is_no_rule(settings: Settings, rest: Any) -> None:
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, PLAYS, {"playlist_rules": {"rest": rest}})
            answer = await checked(call)
            context = await call.ok("memory_get_context", {"user_id": USER})
    assert answer["ok"] and "rest" not in answer["rules"]
    assert "## Resting" not in context["block"]


@pytest.mark.parametrize(
    ("rest", "field"),
    [
        ({"max_plays": 0, "days": 7}, "rules.rest.max_plays"),
        ({"max_plays": 3, "days": 0}, "rules.rest.days"),
        ({"max_plays": 3, "days": 3651}, "rules.rest.days"),
        ({"max_plays": "3", "days": 7}, "rules.rest.max_plays"),
        ({"max_plays": 3}, "rules.rest.days"),
        ({"max_plays": 3, "days": 7, "weeks": 1}, "rules.rest.weeks"),
        ([3, 7], "rules.rest"),
    ],
)
async def test_bad_inline_rest_values_are_refused_naming_the_field(settings: Settings, rest: Any, field: str) -> None:
    async with connected(settings) as call:
        envelope = await call(
            "memory_check_playlist", {"user_id": USER, "track_ids": PLAYLIST, "rules": {"rest": rest}}
        )
    error = assert_valid_error(envelope)
    assert error["code"] == "INVALID_ARGUMENT" and error["details"]["field"] == field


async def test_check_rules_on_a_write_reports_rest(settings: Settings) -> None:
    playlist_id = "restedplaylist00000001"
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, PLAYS, {"playlist_rules": {"rest": REST}})
            arguments = {"user_id": USER, "playlist_id": playlist_id, "name": "Again", "track_ids": [SIGN, HALO]}
            created = await call("memory_log_playlist_create", {**arguments, "check_rules": True})
            mutation = {"user_id": USER, "playlist_id": playlist_id, "type": "ADD_TRACKS", "check_rules": True}
            added = await call("memory_log_playlist_mutation", {**mutation, "payload": {"track_ids": [SONG2]}})
            stored = await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": playlist_id})
    created_report = assert_valid_success("memory.log_playlist_create", created)["rule_report"]
    added_report = assert_valid_success("memory.log_playlist_mutation", added)["rule_report"]
    assert [(v["rule"], v["track_ids"], v["message"]) for v in created_report["violations"]] == [
        ("rest", [HALO], BOTH[HALO])
    ]
    assert [(v["rule"], v["track_ids"]) for v in added_report["violations"]] == [("rest", [HALO]), ("rest", [SONG2])]
    assert stored["track_ids"] == [SIGN, HALO, SONG2]  # reported, never refused


async def test_another_users_plays_count_for_nobody_else(settings: Settings) -> None:
    with frozen():
        async with connected(settings) as call:
            await prepared(call, OTHER, PLAYS)
            await prepared(call, USER, [], {"playlist_rules": {"rest": REST}})
            mine = await checked(call)
            theirs = await checked(call, OTHER, rules={"rest": REST})
    assert rested(mine) == {} and mine["ok"]
    assert rested(theirs) == BOTH
