"""Avoiding a track by name: a profile avoid entry, ``playlist_rules.avoid_tracks`` or inline
``avoid_tracks`` that names a catalog track (its title, or "title – artist") is a machine rule like
artists and genres; ids keep working beside names; only the user's own catalog is read."""

from __future__ import annotations

from typing import Any

from service.settings import Settings
from tests.support import Caller, connected, track
from tests.support.contract import assert_valid_success

USER, OTHER = 7, 8
CATALOG = [
    {"track_id": track(1), "name": "Macarena", "artists": ["Los del Río"]},
    {"track_id": track(2), "name": "Macarena - Bayside Boys Remix", "artists": ["Los del Río"]},
    {"track_id": track(3), "name": "Macarena", "artists": ["Cover Band"]},  # another artist's cover
    {"track_id": track(4), "name": "Song 2", "artists": ["Blur"]},
    {"track_id": track(5), "name": "Ace of Spades", "artists": ["Motörhead"]},
]
PLAYLIST = [track(n) for n in range(1, 6)]


async def checked(call: Caller, user: int = USER, track_ids: list[str] = PLAYLIST, **args: Any) -> dict[str, Any]:
    envelope = await call("memory_check_playlist", {"user_id": user, "track_ids": track_ids, **args})
    return assert_valid_success("memory.check_playlist", envelope)


async def avoiding(call: Caller, patch: dict[str, Any]) -> dict[str, Any]:
    await call.ok("memory_update_profile", {"user_id": USER, "patch": patch})
    return await checked(call)


def found(result: dict[str, Any]) -> list[tuple[str, list[str]]]:
    return [(v["rule"], v["track_ids"]) for v in result["violations"]]


async def test_a_title_alone_avoids_every_track_so_titled(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": CATALOG})
        result = await avoiding(call, {"avoid": ["macarena"]})
    assert result["rules"]["avoid_tracks"] == ["macarena"]
    assert found(result) == [("avoid_tracks", [track(1), track(2), track(3)])]
    assert result["violations"][0]["message"] == "3 track(s) named macarena, which the user avoids"


async def test_title_and_artist_avoid_only_that_artists_tracks(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": CATALOG})
        en_dash = await avoiding(call, {"avoid": ["Macarena – Los del Rio"]})
        hyphen = await avoiding(call, {"avoid": ["MACARENA - los del río"]})
        rules = await avoiding(call, {"avoid": None, "playlist_rules": {"avoid_tracks": ["Ace of Spades – Motorhead"]}})
    assert found(en_dash) == [("avoid_tracks", [track(1), track(2)])]  # not Cover Band's Macarena
    assert found(hyphen) == [("avoid_tracks", [track(1), track(2)])]
    assert found(rules) == [("avoid_tracks", [track(5)])]


async def test_an_entry_naming_no_track_artist_or_genre_stays_free_text(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": CATALOG})
        result = await avoiding(
            call, {"avoid": ["Never Gonna Give You Up", "Macarena – Someone Else", "over-weighting one artist"]}
        )
    assert "avoid_tracks" not in result["rules"]
    assert result["ok"] and result["violations"] == [] and result["unverified"] == []


async def test_inline_names_and_ids_mixed(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": CATALOG})
        avoid = [track(4), "ace of spades - motorhead", "Macarena – Cover Band"]
        result = await checked(call, track_ids=[*PLAYLIST, track(99)], rules={"avoid_tracks": avoid})
    assert result["rules"]["avoid_tracks"] == avoid
    assert found(result) == [("avoid_tracks", [track(4)]), ("avoid_tracks", [track(5)]), ("avoid_tracks", [track(3)])]
    assert result["violations"][0]["message"] == "1 track(s) the user avoids"  # ids as before
    # A track the catalog does not know may carry an avoided name: not passed silently.
    assert result["unknown_tracks"] == [track(99)]
    assert [(u["rule"], u["track_ids"]) for u in result["unverified"]] == [("avoid_tracks", [track(99)])]


async def test_another_users_catalog_never_matches(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": OTHER, "tracks": CATALOG})
        await call.ok("memory_upsert_tracks", {"user_id": USER, "tracks": [CATALOG[3]]})
        inline = await checked(call, rules={"avoid_tracks": ["Macarena", "Ace of Spades – Motörhead"]})
        from_profile = await avoiding(call, {"avoid": ["Macarena"]})
    assert inline["violations"] == [] and inline["unverified"] == []
    assert inline["unknown_tracks"] == [track(1), track(2), track(3), track(5)]
    assert "avoid_tracks" not in from_profile["rules"] and from_profile["violations"] == []


async def test_an_entry_with_no_letters_or_digits_names_nothing(settings: Settings) -> None:
    async with connected(settings) as call:
        await call.ok(
            "memory_upsert_tracks",
            {"user_id": USER, "tracks": [{"track_id": track(6), "name": "!!!", "artists": ["Chk Chk Chk"]}]},
        )
        result = await checked(call, track_ids=[track(6)], rules={"avoid_tracks": ["?", "- –"]})
    assert result["ok"] and result["violations"] == []
