"""Free-form content is bounded, so everything stored comes back in answers one SSE message
holds; a refused call names the field and writes nothing."""

from __future__ import annotations

import json

from service.settings import Settings
from tests.support import connected, playlist, track

USER = 1
TAGS_1KB = [f"tag-{n:04d}-" + "x" * 39 for n in range(20)]  # 1,021 bytes as JSON, just under the cap


async def test_oversized_free_form_content_is_refused_naming_the_field(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"a": "x" * 40_000}})
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": USER, "playlist_id": playlist(1), "name": "n", "track_ids": [track(1)]},
        )
        before = await call.ok("memory_export_user_data", {"user_id": USER})
        refusals = [
            ("memory_update_profile", {"user_id": USER, "patch": {"b": "x" * 70_000}}, "patch"),
            # Each patch fits, but the profile they make would not.
            ("memory_update_profile", {"user_id": USER, "patch": {"b": "x" * 40_000}}, "patch"),
            ("memory_update_profile", {"user_id": USER, "patch": {"c": 1}, "reason": "r" * 20_000}, "reason"),
            (
                "memory_append_preference_event",
                {"user_id": USER, "type": "note", "payload": {"raw_text": "w " * 10_000}},
                "payload",
            ),
            (
                "memory_log_playlist_create",
                {
                    "user_id": USER,
                    "playlist_id": playlist(2),
                    "name": "n",
                    "track_ids": [track(1)],
                    "intent_tags": [*TAGS_1KB, "one more"],
                },
                "intent_tags",
            ),
            (
                "memory_log_playlist_create",
                {
                    "user_id": USER,
                    "playlist_id": playlist(2),
                    "name": "n",
                    "track_ids": [track(1)],
                    "seed_context": {"notes": "n" * 17_000},
                },
                "seed_context",
            ),
            (
                "memory_log_playlist_mutation",
                {
                    "user_id": USER,
                    "playlist_id": playlist(1),
                    "type": "UPDATE_META",
                    "payload": {"intent_tags": TAGS_1KB * 2},
                },
                "payload.intent_tags",
            ),
        ]
        for tool, arguments, field in refusals:
            error = await call.error(tool, arguments, "INVALID_ARGUMENT")
            assert error["details"]["field"] == field, (tool, error)
            assert error["details"]["bytes"] > error["details"]["limit_bytes"], error
        after = await call.ok("memory_export_user_data", {"user_id": USER})
        # What fits is still accepted.
        await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": USER,
                "playlist_id": playlist(2),
                "name": "n",
                "track_ids": [track(1)],
                "intent_tags": TAGS_1KB,
            },
        )
    assert after["data"] | {"as_of": None} == before["data"] | {"as_of": None}, "a refused call wrote something"


async def test_a_page_of_long_named_many_tagged_playlists_stays_within_the_answer_budget(
    settings_factory: object,
) -> None:
    settings: Settings = settings_factory(result_budget_bytes=60_000)  # type: ignore[operator]
    names = {playlist(n): "ñ" * 200 for n in range(120)}  # 400 bytes of UTF-8 each, plus 1 KB of tags
    async with connected(settings) as call:
        for pid, name in names.items():
            await call.ok(
                "memory_log_playlist_create",
                {"user_id": USER, "playlist_id": pid, "name": name, "track_ids": [track(1)], "intent_tags": TAGS_1KB},
            )
        seen: list[str] = []
        pages: list[int] = []
        arguments: dict[str, object] = {"user_id": USER, "limit": 200}
        while True:
            page = await call.ok("memory_get_playlists", arguments)
            assert len(json.dumps(page["items"], ensure_ascii=False).encode()) <= 60_000 + 1_600
            pages.append(len(page["items"]))
            seen += [item["playlist_id"] for item in page["items"]]
            if page["next_cursor"] is None:
                break
            arguments = {"user_id": USER, "limit": 200, "cursor": page["next_cursor"]}
    assert len(pages) > 1 and all(count >= 1 for count in pages), pages
    assert sorted(seen) == sorted(names), "the budgeted pages skipped or repeated a playlist"


async def test_a_very_long_word_is_indexed_whole(settings: Settings) -> None:
    # The Snowball stemmer is quadratic on long runs of 'y' (a million took minutes, stalling
    # every session): tokens longer than any English word are indexed as they are.
    word = "y" * 5000
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"motto": f"{word} forever"}})
        hits = (await call.ok("memory_search", {"user_id": USER, "query": "y" * 400}))["results"]
        found = (await call.ok("memory_search", {"user_id": USER, "query": "forever"}))["results"]
    # (By meaning, a run of 400 'y' is near a run of 5,000: that hit, if any, says so.)
    assert [h for h in hits if h["metadata"].get("matched_by") != "meaning"] == [], (
        "a long token is not stemmed down to a shorter one"
    )
    assert [h["id"] for h in found] == ["profile:motto"]
