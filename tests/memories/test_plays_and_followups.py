"""Play history and recommendation follow-up through the tools: plays stored once however often
sent, bounded and validated, bucketed by month and split past 5,000; a recommendation checked
against plays before and after it (work or artist level), every kind of suggestion, NOT_FOUND
that leaks nothing, and the follow-ups that are due, oldest first, until validated."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from service.memories import plays as plays_module
from service.memories.followups import FollowUpService
from service.settings import Settings
from service.timeutil import as_utc, format_iso
from service.tracks.signals import played_counts
from tests.support import connected, track
from tests.support.backends import stores_on_both_paths
from tests.support.contract import assert_valid_error, assert_valid_success

ALICE, BOB = 1, 2
NOW = datetime.now(UTC)
ZOMBIES, ODESSEY = "The Zombies", "Odessey and Oracle"


def ago(days: float) -> str:
    return format_iso(NOW - timedelta(days=days))


def play(artist: str, track_name: str | None = None, at: str = "2025-01-02T10:00:00Z", **extra: Any) -> dict:
    return {"artist": artist, **({"track": track_name} if track_name else {}), "played_at": at, **extra}


async def ok(call: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return assert_valid_success(tool.replace("_", ".", 1), await call(tool, arguments))


async def log(call: Any, user_id: int, plays: list[dict]) -> dict[str, Any]:
    return await ok(call, "memory_log_plays", {"user_id": user_id, "plays": plays})


async def remember(
    call: Any, user_id: int, entities: list[str], days_ago: float, kind: str = "recommendation", **metadata: Any
) -> str:
    added = await ok(
        call,
        "memory_add",
        {
            "user_id": user_id,
            "type": kind,
            "entities": entities,
            "summary": f"Suggested {' '.join(entities)}",
            "importance": 8,
            "metadata": metadata,
            "timestamp": ago(days_ago),
            "skip_dedup": True,
        },
    )
    return added["memory_id"]


async def validate(call: Any, user_id: int, memory_id: str) -> dict[str, Any]:
    return await ok(call, "memory_validate_recommendation", {"user_id": user_id, "memory_id": memory_id})


async def stored_plays(call: Any, user_id: int) -> list[list[dict]]:
    buckets = await call.service.database.plays.find({"user_id": user_id}, sort=[("_id", 1)])
    return [b["plays"] for b in buckets]


async def test_the_same_play_is_stored_once_within_a_call_and_across_calls(settings: Settings) -> None:
    first = [
        play(ZOMBIES, "Care of Cell 44", album=ODESSEY),
        play("zombies", "CARE OF CELL 44"),  # folded twin
        play("The Zombies", "Care of Cell 44", "2025-01-02T11:00:00.0004+01:00"),  # same instant and ms
        play(ZOMBIES, "Care of Cell 44", "2025-01-02T10:00:00.001Z"),  # a millisecond later: another play
        play(ZOMBIES, "Beechwood Park"),  # another track at the same instant
        play("Beyoncé", at="2025-01-01T09:00:00Z"),
        play("beyonce", at="2025-01-01T09:00:00Z"),
    ]  # no track
    async with connected(settings) as call:
        assert await log(call, ALICE, first) == {"user_id": ALICE, "logged": 4, "duplicates": 3}
        assert await log(call, ALICE, first) == {"user_id": ALICE, "logged": 0, "duplicates": 7}
        again = [play("ZOMBIES", "care of cell 44"), play("Nightwish", "Nemo", "2024-12-31T23:59:59Z")]
        assert await log(call, ALICE, again) == {"user_id": ALICE, "logged": 1, "duplicates": 1}
        assert await log(call, BOB, first[:1]) == {"user_id": BOB, "logged": 1, "duplicates": 0}  # Bob's own
        buckets = await call.service.database.plays.find({"user_id": ALICE}, sort=[("_id", 1)])
    assert [(b["month"], b["part"], len(b["plays"])) for b in buckets] == [("2024-12", 0, 1), ("2025-01", 0, 4)]
    january = buckets[1]["plays"]
    assert [p["played_at"] for p in january] == sorted(p["played_at"] for p in january)
    assert {**january[0], "played_at": as_utc(january[0]["played_at"])} == {
        "artist": "Beyoncé",
        "track": None,
        "album": None,
        "track_id": None,
        "played_at": datetime(2025, 1, 1, 9, tzinfo=UTC),
    }
    assert january[1] == {**january[1], "artist": ZOMBIES, "track": "Care of Cell 44", "album": ODESSEY}


async def test_plays_are_bounded_and_checked_and_a_refused_call_writes_nothing(settings: Settings) -> None:
    fine = play(ZOMBIES, "Care of Cell 44")
    bad: list[tuple[list[dict], str]] = [
        ([fine] * 1001, "plays"),
        ([], "plays"),
        ([fine, fine, fine, play("   ")], "plays[3].artist"),
        ([play("x" * 201)], "plays[0].artist"),
        ([play(ZOMBIES, "t" * 301)], "plays[0].track"),
        ([{**fine, "album": "a" * 301}], "plays[0].album"),
        ([{**fine, "track_id": "short"}], "plays[0].track_id"),
        ([fine, {**fine, "track_id": None}], "plays[1].track_id"),  # leave an unknown id out
        ([{**fine, "played_at": "2025-01-02T10:00:00"}], "plays[0].played_at"),
        ([{**fine, "played_at": "yesterday"}], "plays[0].played_at"),
        ([{**fine, "rating": 5}], "plays[0].rating"),
        ([{"track": "Care of Cell 44", "played_at": "2025-01-02T10:00:00Z"}], "plays[0].artist"),
    ]
    async with connected(settings) as call:
        for plays, field in bad:
            error = assert_valid_error(await call("memory_log_plays", {"user_id": ALICE, "plays": plays}))
            assert (error["code"], error["details"]["field"]) == ("INVALID_ARGUMENT", field), (field, error)
        assert await call.service.database.plays.count_documents({}) == 0
        at_most = [play("Band", f"Song {n}") for n in range(1000)]
        assert await log(call, ALICE, at_most) == {"user_id": ALICE, "logged": 1000, "duplicates": 0}
        nulls = {**fine, "album": None, "played_at": "2025-03-01T00:00:00Z"}
        assert (await log(call, ALICE, [nulls, {**nulls, "track": None}]))["logged"] == 2


async def test_a_month_splits_into_parts_past_5000_plays_and_dedup_reads_every_part(settings: Settings) -> None:
    start = datetime(2025, 5, 31, tzinfo=UTC)
    async with connected(settings) as call:
        for chunk in range(6):  # newest first: every part must still come out ordered
            batch = [
                play("Band", f"Song {n}", format_iso(start - timedelta(minutes=n)))
                for n in range(chunk * 1000, chunk * 1000 + 1000)
            ]
            assert (await log(call, ALICE, batch))["logged"] == 1000
        parts = await stored_plays(call, ALICE)
        assert [len(p) for p in parts] == [5000, 1000]
        assert all([x["played_at"] for x in p] == sorted(x["played_at"] for x in p) for p in parts)
        resent = [
            play("band", "song 0", format_iso(start)),
            play("BAND", "Song 5999", format_iso(start - timedelta(minutes=5999))),
            play("Band", "Song 6000", format_iso(start - timedelta(minutes=6000))),
        ]
        assert await log(call, ALICE, resent) == {"user_id": ALICE, "logged": 1, "duplicates": 2}
        assert [len(p) for p in await stored_plays(call, ALICE)] == [5000, 1001]
        stats = await call.service.database.user_stats.find_one({"_id": ALICE})
        listed = await ok(call, "ops_list_users", {})
    assert stats["play_bucket_count"] == 2
    assert [u["user_id"] for u in listed["users"]] == [ALICE]  # plays alone make a user listed


async def test_a_write_that_lost_a_race_reads_the_month_again(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with connected(settings) as call:
        await log(call, ALICE, [play("Band", "Old")])
        real_append, raced, writes = plays_module._append, [], []

        async def racing(db: Any, user_id: int, month: str, parts: list, pending: list, written: set) -> bool:
            writes.append(len(parts[0]["plays"]))  # the part as each write attempt read it
            if not raced:  # another process logs a play between this call's read and its write
                raced.append(True)
                await plays_module.log_plays(db, user_id, [play("Band", "Other", "2025-01-03T00:00:00Z")])
            return await real_append(db, user_id, month, parts, pending, written)

        monkeypatch.setattr(plays_module, "_append", racing)
        answer = await log(call, ALICE, [play("Band", "Mine", "2025-01-04T00:00:00Z"), play("band", "old")])
        monkeypatch.undo()
        assert answer == {"user_id": ALICE, "logged": 1, "duplicates": 1}
        assert writes == [1, 1, 2]  # the call's stale attempt, the racer's, the call's after reading again
        assert [p["track"] for p in (await stored_plays(call, ALICE))[0]] == ["Old", "Other", "Mine"]


async def test_work_level_counts_plays_of_the_work_before_and_after(settings: Settings) -> None:
    async with connected(settings) as call:
        rec = await remember(call, ALICE, [ZOMBIES, ODESSEY], 10)
        await log(
            call,
            ALICE,
            [
                play("the zombies", "Care of Cell 44", ago(20), album="Odessey & Oracle"),  # not the album's spelling
                play(ZOMBIES, "This Will Be Our Year", ago(15), album=ODESSEY),
                play(ZOMBIES, "Care of Cell 44", ago(3), album="odessey and oracle"),
                play("The Zombies", "A Rose for Emily", ago(6), album=ODESSEY),
                play(ZOMBIES, "She's Not There", ago(2), album="Begin Here"),  # the artist, not the work
                play("Cover Band", ODESSEY, ago(1)),  # the work's name by another artist
            ],
        )
        await log(call, BOB, [play(ZOMBIES, "x", ago(1), album=ODESSEY)])  # Bob's plays are not Alice's
        answer = await validate(call, ALICE, rec)
    assert answer["memory_id"] == rec and answer["user_id"] == ALICE
    assert answer["recommendation"] == {
        "entities": [ZOMBIES, ODESSEY],
        "summary": f"Suggested {ZOMBIES} {ODESSEY}",
        "recommended_at": ago(10),
        "days_since": 10,
        "check_after_days": 7,
    }
    assert answer["validation"] == {
        "plays_since_rec": 2,
        "plays_before_rec": 1,
        "user_heard_before": True,
        "first_play_after": ago(6),
        "matched_on": "work",
        "plays_logged": True,
    }
    assert "already knew" in answer["follow_up_suggestion"] and "1 play" in answer["follow_up_suggestion"]


async def test_artist_level_when_the_work_was_never_played(settings: Settings) -> None:
    async with connected(settings) as call:
        rec = await remember(call, ALICE, [ZOMBIES, ODESSEY], 10)
        await log(call, ALICE, [play("zombies", "She's Not There", ago(d)) for d in (12, 5, 4, 3)])
        answer = await validate(call, ALICE, rec)
        artist_only = await remember(call, ALICE, ["Nightwish"], 10)
        await log(call, ALICE, [play("Nightwish", "Nemo", ago(2))])
        nightwish = await validate(call, ALICE, artist_only)
    assert answer["validation"] == {
        "plays_since_rec": 3,
        "plays_before_rec": 1,
        "user_heard_before": True,
        "first_play_after": ago(5),
        "matched_on": "artist",
        "plays_logged": True,
    }
    text = answer["follow_up_suggestion"]
    assert f"No play of {ODESSEY} itself" in text and f"{ZOMBIES} got 3 plays" in text and "1 play before" in text
    assert nightwish["validation"]["matched_on"] == "artist"
    assert nightwish["follow_up_suggestion"].startswith("Nightwish was played once")


@pytest.mark.parametrize(
    "label, days_ago, check_after, played_days, expected",
    [
        ("never", 10, 7, [], "haven't touched it"),
        ("too early", 2, 7, [], "Too early to tell"),
        ("once", 10, 7, [3], "played once"),
        ("a few", 10, 7, [3, 2, 1], "got 3 plays"),
        ("repeat", 10, 7, [6, 5, 4, 3, 1], "On repeat"),
        ("already knew", 10, 7, [30, 20], "already knew"),
    ],
)
async def test_each_kind_of_follow_up_suggestion(
    settings: Settings, label: str, days_ago: int, check_after: int, played_days: list[int], expected: str
) -> None:
    async with connected(settings) as call:
        rec = await remember(call, ALICE, ["Arthur Russell"], days_ago, check_after_days=check_after)
        await log(
            call,
            ALICE,
            [play("Someone Else", "Other", ago(1))]  # the user has play data
            + [play("Arthur Russell", f"Track {d}", ago(d)) for d in played_days],
        )
        answer = await validate(call, ALICE, rec)
    since = sum(1 for d in played_days if d < days_ago)
    assert answer["validation"]["plays_since_rec"] == since
    assert answer["validation"]["plays_before_rec"] == len(played_days) - since
    assert answer["validation"]["matched_on"] == ("artist" if played_days else None)
    assert expected in answer["follow_up_suggestion"] and "Arthur Russell" in answer["follow_up_suggestion"]


async def test_without_any_play_data_the_suggestion_says_there_is_nothing_to_check(settings: Settings) -> None:
    async with connected(settings) as call:
        rec = await remember(call, ALICE, [ZOMBIES], 10)
        await log(call, BOB, [play(ZOMBIES, "x", ago(1))])
        answer = await validate(call, ALICE, rec)
    assert answer["validation"] == {
        "plays_since_rec": 0,
        "plays_before_rec": 0,
        "user_heard_before": False,
        "first_play_after": None,
        "matched_on": None,
        "plays_logged": False,
    }
    assert "nothing to check" in answer["follow_up_suggestion"] and "memory_log_plays" in answer["follow_up_suggestion"]


async def test_unknown_foreign_and_non_recommendation_ids_are_refused(settings: Settings) -> None:
    async with connected(settings) as call:
        alices = await remember(call, ALICE, [ZOMBIES], 10)
        insight = await remember(call, BOB, [ZOMBIES], 10, kind="insight")

        async def refused(memory_id: str) -> dict[str, Any]:  # Bob asks
            arguments = {"user_id": BOB, "memory_id": memory_id}
            return assert_valid_error(await call("memory_validate_recommendation", arguments))

        foreign, unknown, malformed = await refused(alices), await refused("mem_" + "0" * 24), await refused("mem_x")
        too_long, not_rec = await refused("m" * 65), await refused(insight)
        still_open = await ok(call, "memory_open_followups", {"user_id": ALICE})
        stored = await call.service.database.memories.find({"validated_at": {"$ne": None}})
    assert foreign["code"] == "NOT_FOUND" and foreign == unknown  # nothing tells the two apart
    for bad in (malformed, too_long):  # not an id memory_add ever returns: the argument is wrong
        assert (bad["code"], bad["details"]["field"]) == ("INVALID_ARGUMENT", "memory_id")
    assert not_rec["code"] == "INVALID_ARGUMENT"
    assert not_rec["details"] == {"field": "memory_id", "reason": "not_a_recommendation"}
    assert [f["memory_id"] for f in still_open["followups"]] == [alices] and stored == []


async def test_open_followups_are_the_due_ones_oldest_first_until_validated(settings: Settings) -> None:
    async with connected(settings) as call:
        oldest = await remember(call, ALICE, ["A"], 20)  # default 7 days: due
        short = await remember(call, ALICE, ["B"], 10, check_after_days=3)
        await remember(call, ALICE, ["C"], 10, check_after_days=30)  # not due for 20 days
        await remember(call, ALICE, ["D"], 2)  # not due for 5 days
        await remember(call, ALICE, ["E"], 20, kind="insight")  # not a recommendation
        at_once = await remember(call, ALICE, ["F"], 0.001, check_after_days=0)
        await remember(call, BOB, ["G"], 30)
        far = await ok(
            call,
            "memory_add",
            {  # due past the calendar's end
                "user_id": ALICE,
                "type": "recommendation",
                "entities": ["H"],
                "summary": "Far ahead",
                "importance": 8,
                "timestamp": "9999-12-30T00:00:00Z",
                "metadata": {"check_after_days": 3650},
            },
        )
        everything = await ok(call, "memory_open_followups", {"user_id": ALICE, "limit": 100})
        first_two = await ok(call, "memory_open_followups", {"user_id": ALICE, "limit": 2})
        first = await validate(call, ALICE, short)
        again = await validate(call, ALICE, short)
        marked = await call.service.database.memories.find_one({"_id": f"{ALICE}:{short}", "user_id": ALICE})
        await validate(call, ALICE, short)
        marked_again = await call.service.database.memories.find_one({"_id": f"{ALICE}:{short}", "user_id": ALICE})
        after = await ok(call, "memory_open_followups", {"user_id": ALICE})
        bobs = await ok(call, "memory_open_followups", {"user_id": BOB})
        too_early = await validate(call, ALICE, far["memory_id"])
    assert [f["memory_id"] for f in everything["followups"]] == [oldest, short, at_once] and everything["total"] == 3
    assert everything["followups"][0] == {
        "memory_id": oldest,
        "entities": ["A"],
        "summary": "Suggested A",
        "recommended_at": ago(20),
        "days_since": 20,
        "check_after_days": 7,
        "due_at": ago(13),
    }
    assert everything["followups"][1]["due_at"] == ago(7) and everything["followups"][1]["check_after_days"] == 3
    assert first_two["followups"] == everything["followups"][:2] and first_two["total"] == 3
    assert first == again and marked["validated_at"] is not None
    assert marked_again["validated_at"] == marked["validated_at"]  # validated once, not again
    assert [f["memory_id"] for f in after["followups"]] == [oldest, at_once] and after["total"] == 2
    assert len(bobs["followups"]) == 1 and bobs["followups"][0]["entities"] == ["G"]
    assert too_early["recommendation"]["days_since"] == 0 and "check H" in too_early["follow_up_suggestion"]


async def test_plays_with_a_track_id_strengthen_track_resolution(settings: Settings) -> None:
    async with connected(settings) as call:
        await log(
            call,
            ALICE,
            [play("Nightwish", "Nemo", f"2025-01-0{d}T00:00:00Z", track_id=track(1)) for d in range(1, 4)]
            + [play("Nightwish", "Amaranth", track_id=track(2)), play("Nightwish", "Unknown id")],
        )
        alice = await played_counts(call.service.database, ALICE)
        bob = await played_counts(call.service.database, BOB)
    assert alice == {track(1): 3, track(2): 1} and not bob


async def test_open_followups_read_the_same_without_the_kept_copy(tmp_path: Any) -> None:
    """On real MongoDB nothing is kept between calls and only open recommendations are read (a
    narrowed query); driven on the embedded storage told it is MongoDB, the answers are the same."""
    answers = []
    async for _, told, settings, store in stores_on_both_paths(tmp_path):
        followups = FollowUpService(told, settings, store)
        ids = [
            (await store.add(ALICE, kind, [name], name, 8, None, NOW - timedelta(days=days), True))["memory_id"]
            for kind, name, days in (
                ("recommendation", "A", 20),
                ("recommendation", "B", 9),
                ("insight", "C", 30),
                ("recommendation", "D", 1),
            )
        ]
        await followups.validate_recommendation(ALICE, ids[1])
        answer = await followups.open_followups(ALICE, 10)
        answers.append([(f["entities"], f["days_since"]) for f in answer["followups"]])
    assert answers[0] == answers[1] == [(["A"], 20)]
