"""Search hits are lean by default (short snippet, the metadata that tells hits apart) and full on
request (``detail: "full"``, an extension of the PRD input schema); both validate against the PRD
result schema and rank identically."""

from __future__ import annotations

from service.search.ranking import LEAN_METADATA, LEAN_SNIPPET_CHARS
from service.settings import Settings
from tests.support import connected, playlist, track
from tests.support.contract import assert_valid_success

LONG = ("An intro that goes on " * 20) + "and then the Mötley Crüe encore everybody waited for" + (" outro" * 40)


async def _seed(call) -> dict[str, str]:
    await call.ok("memory_update_profile", {"user_id": 1, "patch": {"notes": "glam metal, Mötley Crüe forever"}})
    short = await call.ok(
        "memory_append_preference_event",
        {"user_id": 1, "type": "like", "payload": {"raw_text": "more Mötley Crüe please"}, "source": "user"},
    )
    long = await call.ok(
        "memory_append_preference_event",
        {"user_id": 1, "type": "feedback", "payload": {"raw_text": LONG}, "source": "user"},
    )
    await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": 1,
            "playlist_id": playlist(1),
            "name": "Crüe night",
            "track_ids": [track(1)],
            "intent_tags": ["glam", "party"],
            "description": "Mötley Crüe and friends",
            "seed_context": {"days": 30},
        },
    )
    return {"short": short["event_id"], "long": long["event_id"]}


async def test_hits_are_lean_by_default_and_full_on_request(settings: Settings) -> None:
    async with connected(settings) as call:
        ids = await _seed(call)
        lean = assert_valid_success(
            "memory.search", await call("memory_search", {"user_id": 1, "query": "motley crue"})
        )
        full = assert_valid_success(
            "memory.search", await call("memory_search", {"user_id": 1, "query": "motley crue", "detail": "full"})
        )
        explicit = await call.ok("memory_search", {"user_id": 1, "query": "motley crue", "detail": "lean"})
    assert explicit == lean
    assert [(h["kind"], h["id"], h["score"]) for h in lean["results"]] == [
        (h["kind"], h["id"], h["score"]) for h in full["results"]
    ]  # the same ranking either way
    assert {h["kind"] for h in lean["results"]} == {"playlist", "preference_event", "profile"}
    for hit in lean["results"]:
        assert set(hit) == {"kind", "id", "score", "snippet", "metadata"}
        assert set(hit["metadata"]) == set(LEAN_METADATA[hit["kind"]]), hit
        assert len(hit["snippet"]) <= LEAN_SNIPPET_CHARS
    by_id = {h["id"]: h for h in lean["results"]}
    assert by_id[playlist(1)]["metadata"] == {"name": "Crüe night"}
    assert by_id[ids["short"]]["metadata"]["type"] == "like"
    assert by_id[ids["short"]]["metadata"]["timestamp"].endswith("Z")
    assert by_id["profile:notes"]["metadata"] == {"key": "notes"}
    # A long field is cut around the first matched word, in lean and full alike.
    assert "Mötley Crüe" in by_id[ids["long"]]["snippet"] and by_id[ids["long"]]["snippet"].startswith("…")
    full_by_id = {h["id"]: h for h in full["results"]}
    assert "Mötley Crüe" in full_by_id[ids["long"]]["snippet"]
    assert set(full_by_id[playlist(1)]["metadata"]) == {
        "name",
        "intent_tags",
        "created_at",
        "updated_at",
        "matched_words",
    }
    assert full_by_id[playlist(1)]["metadata"]["intent_tags"] == ["glam", "party"]
    assert set(full_by_id[ids["short"]]["metadata"]) == {"type", "source", "timestamp", "matched_words"}
    assert full_by_id[ids["short"]]["metadata"]["matched_words"] == ["Mötley", "Crüe"]
    assert set(full_by_id["profile:notes"]["metadata"]) == {"key", "version", "updated_at", "matched_words"}


async def test_an_unknown_detail_is_an_invalid_argument(settings: Settings) -> None:
    async with connected(settings) as call:
        error = await call.error(
            "memory_search", {"user_id": 1, "query": "x", "detail": "everything"}, "INVALID_ARGUMENT"
        )
    assert error["details"]["field"] == "detail"


async def test_the_snippet_comes_from_the_field_that_matched_most(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": 1,
                "playlist_id": playlist(2),
                "name": "Evening",
                "track_ids": [track(1)],
                "description": "slow marimba pieces for a quiet evening",
            },
        )
        hits = (await call.ok("memory_search", {"user_id": 1, "query": "marimba"}))["results"]
    assert hits[0]["snippet"] == "slow marimba pieces for a quiet evening"
    assert hits[0]["metadata"] == {"name": "Evening"}
