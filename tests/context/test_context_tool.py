"""memory_get_context through the MCP tools: sections and their order, focus, supersession, the
block of a user with nothing stored, isolation between users, and the argument bounds."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from service.context.quoting import CLOSE, NOTHING, OPEN
from service.settings import Settings
from tests.support import Caller, connected, playlist, track
from tests.support.contract import assert_valid_success

ALICE, BOB = 1, 2
HEADERS = ["## Prefer", "## Avoid", "## Rules", "## Recent playlists", "## Open follow-ups"]
SEED_PROFILE = json.loads((Path(__file__).parents[2] / "models" / "seed_profile.json").read_text())


def tokens_of(line: str) -> int:
    """The estimator the result's diagnostics.estimator states, for one line and its newline."""
    return math.ceil((len(line.encode()) + 1) / 4)


def day(n: int) -> str:
    return f"2025-01-{n:02d}T12:00:00Z"


async def context(call: Caller, **arguments: Any) -> dict[str, Any]:
    envelope = await call("memory_get_context", {"user_id": ALICE, "budget_tokens": 4000, **arguments})
    result = assert_valid_success("memory.get_context", envelope)
    assert result["tokens"] <= result["diagnostics"]["budget_tokens"]
    return result


def per_section(diagnostics: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["section"]: row for row in diagnostics["sections"]}


def items_of(block: str) -> dict[str, list[str]]:
    """The item lines under each header, in block order."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in block.splitlines():
        if line in HEADERS:
            current = sections.setdefault(line, [])
        elif line.startswith("- "):
            assert current is not None, line
            current.append(line)
    return sections


async def event(call: Caller, kind: str, payload: dict[str, Any], when: str, user_id: int = ALICE) -> str:
    answer = await call.ok(
        "memory_append_preference_event",
        {"user_id": user_id, "type": kind, "payload": payload, "source": "user", "timestamp": when},
    )
    return answer["event_id"]


async def remember(
    call: Caller, kind: str, entities: list[str], summary: str, importance: int, when: str, **metadata: Any
) -> str:
    answer = await call.ok(
        "memory_add",
        {
            "user_id": ALICE,
            "type": kind,
            "entities": entities,
            "summary": summary,
            "importance": importance,
            "timestamp": when,
            "metadata": metadata,
        },
    )
    return answer["memory_id"]


async def test_sections_come_in_order_most_important_and_newest_first(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": ALICE, "patch": SEED_PROFILE, "create_if_missing": True})
        await event(call, "like", {"artist": "Nightwish", "raw_text": "love the orchestras"}, day(2))
        await event(call, "like", {"genre": "power metal"}, day(3))
        await event(call, "dislike", {"artist": "Nickelback", "raw_text": "never again"}, day(4))
        await event(call, "rule", {"raw_text": "no more than 2 songs per artist"}, day(5))
        await remember(call, "insight", ["storytelling"], "Values narrative songwriting", 9, day(6))
        await remember(call, "feedback", ["Tame Impala"], "Too psychedelic", 9, day(7), sentiment="negative")
        zombies = await remember(call, "recommendation", ["The Zombies"], "Recommended baroque pop", 8, day(8))
        for n, name in ((1, "Older list"), (2, "Newer list")):
            await call.ok(
                "memory_log_playlist_create",
                {
                    "user_id": ALICE,
                    "playlist_id": playlist(n),
                    "name": name,
                    "track_ids": [track(1), track(2)],
                    "intent_tags": ["upbeat"],
                    "created_at": day(10 + n),
                },
            )
        result = await context(call)
    block = result["block"]
    lines = block.splitlines()
    assert lines[0] == OPEN and lines[-1] == CLOSE and block.endswith("\n")
    assert [line for line in lines if line.startswith("## ")] == HEADERS
    sections = items_of(block)
    prefer, avoid, rules = sections["## Prefer"], sections["## Avoid"], sections["## Rules"]
    # importance 9 (insight) > 8 (the profile, in its own order) > 7 (likes, newest first)
    assert prefer[0].startswith("- insight i9 2025-01-06") and '"Values narrative songwriting"' in prefer[0]
    assert prefer[1] == '- profile "core_genres": "symphonic metal"'
    assert prefer[-2:] == [
        '- like genre "power metal" 2025-01-03',
        '- like artist "Nightwish" 2025-01-02: "love the orchestras"',
    ]
    assert avoid[0] == '- profile "avoid": "over-weighting a single artist in one playlist"'  # the profile: 10
    assert avoid[1].startswith("- feedback i9 2025-01-07") and avoid[2].startswith(
        "- dislike artist"
    )  # 9, newest first
    assert '- profile "playlist_rules.max_tracks_per_artist": 3' in rules
    assert rules[-1] == '- rule 2025-01-05: "no more than 2 songs per artist"'
    playlists = sections["## Recent playlists"]
    assert [p.split(":")[0] for p in playlists] == ['- "Newer list"', '- "Older list"']
    assert playlists[0] == f'- "Newer list": 2 tracks, tags "upbeat", updated 2025-01-12, id "{playlist(2)}"'
    assert sections["## Open follow-ups"] == [
        f'- {zombies} "The Zombies": "Recommended baroque pop" recommended 2025-01-08, due 2025-01-15'
    ]
    diagnostics = result["diagnostics"]
    assert [c["section"] for c in diagnostics["sections"]] == ["prefer", "avoid", "rules", "playlists", "followups"]
    assert {s: c["kept"] for s, c in per_section(diagnostics).items()} == {
        "prefer": len(prefer),
        "avoid": len(avoid),
        "rules": len(rules),
        "playlists": 2,
        "followups": 1,
    }
    assert [r["reason"] for r in diagnostics["dropped"]] == []
    assert all(r["reason"] == "ranked" for r in diagnostics["kept"])
    frame = tokens_of(OPEN) + tokens_of(CLOSE)
    assert sum(c["tokens"] for c in diagnostics["sections"]) + frame == result["tokens"]


async def test_focus_pulls_matching_items_first_and_keeps_them_in_a_small_budget(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_update_profile",
            {"user_id": ALICE, "patch": {"likes": [f"genre {n}" for n in range(20)]}, "create_if_missing": True},
        )
        await event(call, "like", {"artist": "The Zombies", "raw_text": "baroque pop forever"}, day(2))
        await remember(call, "insight", ["Taylor Swift"], "Loves storytelling", 9, day(3))
        focused = await context(call, focus="zombie")
        small = await context(call, focus="Zombies", budget_tokens=60)
        unfocused = await context(call, budget_tokens=60)
    like = '- like artist "The Zombies" 2025-01-02: "baroque pop forever"'
    assert items_of(focused["block"])["## Prefer"][0] == like  # importance 7 over 9 and 8: it matches
    assert focused["diagnostics"]["focus_matches"] == 1
    assert focused["diagnostics"]["kept"][0] == {
        "section": "prefer",
        "kind": "preference_event",
        "id": focused["diagnostics"]["kept"][0]["id"],
        "reason": "focus",
    }
    kept = items_of(small["block"])["## Prefer"]
    assert kept[0] == like and 1 < len(kept) < 4
    assert like not in unfocused["block"] and "Taylor Swift" in unfocused["block"]
    assert {r["reason"] for r in small["diagnostics"]["dropped"]} == {"budget"}
    assert per_section(small["diagnostics"])["prefer"]["dropped"] == 22 - len(kept)


async def test_a_newer_dislike_of_an_artist_hides_the_older_like(settings: Settings) -> None:
    async with connected(settings) as call:
        liked = await event(call, "like", {"artist": "Nightwish", "raw_text": "love them"}, day(2))
        disliked = await event(call, "dislike", {"artist": "the NIGHTWISH", "raw_text": "gone off them"}, day(3))
        await event(call, "like", {"artist": "Nightwish", "album": "Oceanborn"}, day(1))  # another subject
        first = await context(call)
        liked_again = await event(call, "like", {"artist": "Nightwish ", "raw_text": "back on them"}, day(4))
        second = await context(call)
    sections = items_of(first["block"])
    assert "love them" not in first["block"]
    assert sections["## Avoid"] == ['- dislike artist "the NIGHTWISH" 2025-01-03: "gone off them"']
    assert sections["## Prefer"] == ['- like artist "Nightwish" album "Oceanborn" 2025-01-01']
    assert first["diagnostics"]["dropped"] == [
        {
            "section": "prefer",
            "kind": "preference_event",
            "id": liked,
            "reason": "superseded",
            "superseded_by": disliked,
        }
    ]
    assert per_section(first["diagnostics"])["prefer"]["dropped"] == 1
    assert "gone off them" not in second["block"] and "back on them" in second["block"]
    assert "## Avoid" not in second["block"]
    assert second["diagnostics"]["dropped"] == [
        {
            "section": "avoid",
            "kind": "preference_event",
            "id": disliked,
            "reason": "superseded",
            "superseded_by": liked_again,
        },
        {
            "section": "prefer",
            "kind": "preference_event",
            "id": liked,
            "reason": "superseded",
            "superseded_by": disliked,
        },
    ]


async def test_a_user_with_nothing_stored_gets_a_valid_minimal_block(settings: Settings) -> None:
    async with connected(settings) as call:
        result = await context(call, budget_tokens=50, focus="anything")
    assert result["block"] == f"{OPEN}\n{NOTHING}\n{CLOSE}\n"
    assert result["tokens"] == tokens_of(OPEN) + tokens_of(NOTHING) + tokens_of(CLOSE) <= 50
    diagnostics = result["diagnostics"]
    assert diagnostics["kept"] == [] and diagnostics["dropped"] == [] and diagnostics["focus_matches"] == 0
    assert all((c["kept"], c["dropped"], c["tokens"]) == (0, 0, 0) for c in diagnostics["sections"])


async def test_another_users_items_never_appear(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_update_profile",
            {"user_id": BOB, "patch": {"likes": ["bobsecret"], "rules": {"x": 1}}, "create_if_missing": True},
        )
        bobs = await event(call, "dislike", {"artist": "bobsecret"}, day(2), user_id=BOB)
        await call.ok(
            "memory_add",
            {
                "user_id": BOB,
                "type": "insight",
                "entities": ["bobsecret"],
                "summary": "bobsecret insight",
                "importance": 9,
            },
        )
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": BOB, "playlist_id": playlist(9), "name": "bobsecret", "track_ids": [track(1)]},
        )
        await event(call, "like", {"artist": "bobsecret"}, day(1))  # Alice's: Bob's newer dislike is not hers
        mine = await context(call, focus="bobsecret")
        bob = await context(call, user_id=BOB)
    assert mine["block"].count("bobsecret") == 1 and items_of(mine["block"]) == {
        "## Prefer": ['- like artist "bobsecret" 2025-01-01']
    }
    assert bobs not in json.dumps(mine["diagnostics"]) and playlist(9) not in mine["block"]
    assert mine["user_id"] == ALICE and bob["user_id"] == BOB and bob["block"].count("bobsecret") == 5


async def test_arguments_out_of_bounds_are_refused(settings: Settings) -> None:
    async with connected(settings) as call:
        for bad, field in (
            ({"budget_tokens": 49}, "budget_tokens"),
            ({"budget_tokens": 4001}, "budget_tokens"),
            ({"focus": ""}, "focus"),
            ({"focus": "x" * 201}, "focus"),
            ({"extra": 1}, "extra"),
        ):
            error = await call.error(
                "memory_get_context", {"user_id": ALICE, "budget_tokens": 100, **bad}, "INVALID_ARGUMENT"
            )
            assert field in json.dumps(error["details"])
        await call.error("memory_get_context", {"budget_tokens": 100}, "INVALID_ARGUMENT")  # no user


async def test_the_budget_has_a_default_and_the_instructions_start_with_the_block(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": ALICE, "patch": SEED_PROFILE, "source": "user"})
        envelope = await call("memory_get_context", {"user_id": ALICE})
        result = assert_valid_success("memory.get_context", envelope)
        assert result["diagnostics"]["budget_tokens"] == 800
        assert result == await context(call, budget_tokens=800)
        instructions = call.client.instructions or ""
    session_start = next(line for line in instructions.splitlines() if line.startswith("1. Session start"))
    assert "memory_get_context" in session_start + instructions.split("2. ")[0]
