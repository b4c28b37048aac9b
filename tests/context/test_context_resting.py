"""The Resting section of memory_get_context: under a rest rule (the profile's or the situation's),
the tracks at or over the limit in its window, most played first, at most five lines, without those
the person likes by name; within the budget (its lines are the first to go, the turn after every
other section); the same on the embedded engine's kept-lines path as when every event is read; and
without a rest rule, the block and diagnostics of before.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from service.settings import Settings
from tests.context.test_context_kept import read_whole
from tests.support import Caller, connected
from tests.support.contract import assert_valid_success
from tests.tracks.rest_support import DAY, HALO, NOW, SIGN, SONG2, frozen, iso, play, prepared

USER = 21
REST = {"max_plays": 3, "days": 7}


def named(title: str, artist: str, times: int) -> list[dict[str, Any]]:
    """Plays of a track the catalog does not hold, by name only, within the last days."""
    return [
        {"artist": artist, "track": title, "played_at": iso(NOW - timedelta(hours=5 * i + 1))} for i in range(times)
    ]


PLAYS = [
    *(play(SONG2, NOW - timedelta(hours=i), by_id=i % 2 == 0) for i in range(7)),  # 7: by id and by name, joined
    *(play(HALO, NOW - timedelta(days=i)) for i in range(4)),  # 4
    *(play(SIGN, NOW - timedelta(days=i)) for i in range(3)),  # 3: at the limit
    *(play(SIGN, NOW - 8 * DAY - timedelta(hours=i)) for i in range(9)),  # out of the window
    *named("Wannabe", "Spice Girls", 6),
    *named("Zombie", "The Cranberries", 5),
    *named("Yellow", "Coldplay", 3),  # at the limit, but the sixth line: left out
    *named("Creep", "Radiohead", 2),  # under the limit
]
RESTING = [
    '- "Song 2" – "Blur": 7 plays in 7 days',
    '- "Wannabe" – "Spice Girls": 6 plays in 7 days',
    '- "Zombie" – "The Cranberries": 5 plays in 7 days',
    '- "Halo" – "Beyoncé": 4 plays in 7 days',
    '- "The Sign" – "Ace of Base": 3 plays in 7 days',
]


async def context(call: Caller, **arguments: Any) -> dict[str, Any]:
    envelope = await call("memory_get_context", {"user_id": USER, "budget_tokens": 4000, **arguments})
    result = assert_valid_success("memory.get_context", envelope)
    assert result["tokens"] <= result["diagnostics"]["budget_tokens"]
    return result


def resting_lines(block: str) -> list[str]:
    lines = block.splitlines()
    if "## Resting" not in lines:
        return []
    start = lines.index("## Resting") + 1
    return [line for line in lines[start:] if line.startswith("- ")]


def section(result: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((s for s in result["diagnostics"]["sections"] if s["section"] == name), None)


async def test_resting_names_what_was_played_most_in_the_window(settings: Settings) -> None:
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, PLAYS, {"playlist_rules": {"rest": REST}, "likes": ["Zombie"]})
            liked_zombie = await context(call)
            await call.ok("memory_update_profile", {"user_id": USER, "patch": {"likes": ["Creep"]}})
            result = await context(call)
            inspected = await call("memory_inspect", {"user_id": USER, "detail": "full"})
    assert resting_lines(liked_zombie["block"]) == [line for line in RESTING if "Zombie" not in line] + [
        '- "Yellow" – "Coldplay": 3 plays in 7 days'
    ]
    assert resting_lines(result["block"]) == RESTING
    assert result["block"].splitlines()[-2] == RESTING[-1]  # the last section of the block
    assert section(result, "resting") == {
        "section": "resting",
        "kept": 5,
        "dropped": 0,
        "tokens": section(result, "resting")["tokens"],
    }
    kept = [row for row in result["diagnostics"]["kept"] if row["section"] == "resting"]
    assert [row["kind"] for row in kept] == ["track"] * 5
    assert [row["id"] for row in kept] == [SONG2, "Wannabe – Spice Girls", "Zombie – The Cranberries", HALO, SIGN]
    last = assert_valid_success("memory.inspect", inspected)["last_context"]
    assert last["block"] == result["block"]


async def test_resting_follows_the_situation(settings: Settings) -> None:
    profile = {
        "core_genres": ["britpop"],
        "situations": {"gym": {"playlist_rules": {"rest": {"max_plays": 6, "days": 1}}}},
    }
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, PLAYS, profile)
            base = await context(call)
            gym = await context(call, situation="gym")
    assert resting_lines(base["block"]) == [] and section(base, "resting") is None
    assert len(base["diagnostics"]["sections"]) == 5  # without a rest rule: the diagnostics of before
    assert gym["block"].splitlines()[1] == 'Built for the situation "gym"'
    # One day back: Song 2's seven plays of the last hours, and Wannabe's five within 21 hours (one is older).
    assert resting_lines(gym["block"]) == ['- "Song 2" – "Blur": 7 plays in 1 day']


async def test_a_rest_rule_with_nothing_over_it_shows_no_section(settings: Settings) -> None:
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, PLAYS, {"playlist_rules": {"rest": {"max_plays": 50, "days": 7}}})
            result = await context(call)
    assert "## Resting" not in result["block"]
    assert section(result, "resting") == {"section": "resting", "kept": 0, "dropped": 0, "tokens": 0}


async def test_resting_fits_the_budget_and_goes_first_when_it_is_tight(settings: Settings) -> None:
    profile = {"playlist_rules": {"rest": REST}, "core_genres": ["britpop", "trip hop"], "avoid": ["Nickelback"]}
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, PLAYS, profile)
            full = resting_lines((await context(call))["block"])
            for budget in range(50, 400, 10):
                result = await context(call, budget_tokens=budget)
                shown = resting_lines(result["block"])
                # In their order; a longer line that does not fit leaves room for a shorter one after it.
                assert shown == [line for line in full if line in shown], budget
                counts = section(result, "resting")
                assert counts is not None and counts["kept"] == len(shown) and counts["kept"] + counts["dropped"] == 5
                if shown:  # a Resting line is only there once every other section has had its turn
                    assert all(
                        s["kept"]
                        for s in result["diagnostics"]["sections"]
                        if s["section"] in ("prefer", "avoid", "rules")
                    )
                else:
                    assert any(
                        r["section"] == "resting" and r["reason"] == "budget" for r in result["diagnostics"]["dropped"]
                    )
    assert full == RESTING


async def test_the_kept_lines_path_gives_the_resting_section_reading_everything_gives(settings: Settings) -> None:
    with frozen():
        async with connected(settings) as call:
            await prepared(call, USER, PLAYS, {"playlist_rules": {"rest": REST}, "likes": ["Halo"]})
            await call.ok(
                "memory_append_preference_event", {"user_id": USER, "type": "like", "payload": {"artist": "Blur"}}
            )
            service = call.service
            for focus in (None, "blur", "spice girls"):
                for budget in (50, 120, 300, 4000):
                    kept = await service.context.get_context(USER, budget, focus)
                    with read_whole(service):
                        whole = await service.context.get_context(USER, budget, focus)
                    assert kept == whole, (budget, focus)
            focused = await context(call, focus="spice girls", budget_tokens=120)
    assert resting_lines(focused["block"])[0] == RESTING[1]  # focus orders Resting as every section
