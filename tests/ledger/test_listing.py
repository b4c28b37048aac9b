"""memory_get_playlists: newest-updated first, and a cursor that neither skips nor repeats."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.support import Caller, connected, playlist, track
from tests.support.ledger_model import iso_to_ms, ms_to_iso

USER = 21
T0 = 1_710_000_000_000  # 2024-03-09


async def _create(call: Caller, n: int, created_ms: int | None = None, user_id: int = USER) -> None:
    arguments: dict[str, Any] = {
        "user_id": user_id,
        "playlist_id": playlist(n),
        "name": f"mix {n}",
        "track_ids": [track(n)] * (1 + n % 3),
    }
    if created_ms is not None:
        arguments["created_at"] = ms_to_iso(created_ms)
    await call.ok("memory_log_playlist_create", arguments)


async def _mutate(call: Caller, n: int, kind: str, payload: dict[str, Any], ts_ms: int | None = None) -> dict[str, Any]:
    arguments: dict[str, Any] = {"user_id": USER, "playlist_id": playlist(n), "type": kind, "payload": payload}
    if ts_ms is not None:
        arguments["timestamp"] = ms_to_iso(ts_ms)
    return await call.ok("memory_log_playlist_mutation", arguments)


async def _page(call: Caller, limit: int, cursor: str | None = None, user_id: int = USER) -> dict[str, Any]:
    arguments: dict[str, Any] = {"user_id": user_id, "limit": limit}
    if cursor is not None:
        arguments["cursor"] = cursor
    return await call.ok("memory_get_playlists", arguments)


async def _all_pages(call: Caller, limit: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    for _ in range(1000):
        page = await _page(call, limit, cursor)
        assert len(page["items"]) <= limit
        items.extend(page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            return items
        assert page["items"], "an empty page with a next cursor"
    raise AssertionError("paging never ended")


def _ids(items: list[dict[str, Any]]) -> list[str]:
    return [i["playlist_id"] for i in items]


def _assert_newest_first(items: list[dict[str, Any]]) -> None:
    times = [iso_to_ms(i["updated_at"]) for i in items]
    assert times == sorted(times, reverse=True), times


async def test_newest_updated_first_and_any_mutation_moves_to_top(settings: Any) -> None:
    async with connected(settings) as call:
        for n in range(6):
            await _create(call, n, T0 + n * 1000)
        listing = await _page(call, 50)
        assert _ids(listing["items"]) == [playlist(n) for n in (5, 4, 3, 2, 1, 0)]
        assert listing["next_cursor"] is None
        for item, n in zip(listing["items"], (5, 4, 3, 2, 1, 0)):
            assert item == {
                "playlist_id": playlist(n),
                "name": f"mix {n}",
                "created_at": ms_to_iso(T0 + n * 1000),
                "updated_at": ms_to_iso(T0 + n * 1000),
                "intent_tags": [],
                "track_count": 1 + n % 3,
            }

        # Each kind of mutation, timestamped later than everything, moves its playlist to the top.
        moves: list[tuple[int, str, dict[str, Any]]] = [
            (0, "ADD_TRACKS", {"track_ids": [track(50), track(50)]}),
            (2, "REMOVE_TRACKS", {"track_ids": [track(2)]}),
            (1, "UPDATE_META", {"intent_tags": ["late night"]}),
            (3, "REORDER", {"track_ids": [track(3)]}),
            (4, "REMOVE_TRACKS", {"track_ids": [track(999)]}),  # removes nothing, still a change
        ]
        expected_counts = {0: 3, 1: 2, 2: 0, 3: 1, 4: 2, 5: 3}
        ts = T0 + 60_000
        for n, kind, payload in moves:
            ts += 1
            await _mutate(call, n, kind, payload, ts)
            items = (await _page(call, 50))["items"]
            assert items[0]["playlist_id"] == playlist(n), (kind, _ids(items))
            assert items[0]["updated_at"] == ms_to_iso(ts)
            _assert_newest_first(items)
            assert len(items) == 6
        items = (await _page(call, 50))["items"]
        assert _ids(items) == [playlist(n) for n in (4, 3, 1, 2, 0, 5)]
        counts = {playlist(n): c for n, c in expected_counts.items()}
        assert {i["playlist_id"]: i["track_count"] for i in items} == counts
        assert items[2]["intent_tags"] == ["late night"]
        assert items[2]["created_at"] == ms_to_iso(T0 + 1000)

        # A mutation without a timestamp is dated now, later than every explicit one here.
        await _mutate(call, 5, "UPDATE_META", {"name": "renamed"})
        items = (await _page(call, 50))["items"]
        assert items[0]["playlist_id"] == playlist(5)
        assert items[0]["name"] == "renamed"
        _assert_newest_first(items)

        # New playlists rank by their creation time among the rest.
        await _create(call, 6, T0 + 10**9)
        await _create(call, 7, T0 + 2 * 10**9)
        top = (await _page(call, 2))["items"]
        assert _ids(top) == [playlist(5), playlist(7)]


@pytest.mark.parametrize("limit", [1, 3, 4, 7, 25, 26])
async def test_paging_over_identical_updated_at_neither_skips_nor_repeats(settings: Any, limit: int) -> None:
    count = 25
    async with connected(settings) as call:
        for n in range(count):
            await _create(call, n, T0)  # the very same created_at, so the same updated_at
        items = await _all_pages(call, limit)
        assert sorted(_ids(items)) == [playlist(n) for n in range(count)]
        assert len(set(_ids(items))) == count
        # The order is a total order: the same on every listing, whatever the page size.
        assert _ids(items) == _ids((await _page(call, 200))["items"])


async def test_paging_with_ties_inside_a_mix_of_timestamps(settings: Any) -> None:
    async with connected(settings) as call:
        for n in range(30):
            await _create(call, n, T0 + (n % 4) * 1000)  # four groups of tied timestamps
        for n in range(0, 30, 5):
            await _mutate(call, n, "ADD_TRACKS", {"track_ids": [track(77)]}, T0 + 3000)  # ties with the newest group
        whole = _ids((await _page(call, 200))["items"])
        for limit in (1, 2, 5, 8):
            items = await _all_pages(call, limit)
            assert _ids(items) == whole
            _assert_newest_first(items)
        assert sorted(whole) == [playlist(n) for n in range(30)]


@pytest.mark.parametrize("timestamped", [True, False], ids=["client-timestamps", "server-timestamps"])
async def test_writes_between_pages_neither_skip_nor_repeat(settings_factory: Any, timestamped: bool) -> None:
    # A tiny recent-events cap: a playlist changed several times between pages has dropped from
    # its document the events that say where it stood when the first page was read.
    settings = settings_factory(recent_events_cap=2, snapshot_every=2, snapshot_min_event_share=0.0)
    count, limit = 20, 3
    async with connected(settings) as call:
        for n in range(count):
            await _create(call, n, T0 + (n // 2) * 1000)  # pairs of ties
        for n in range(0, count, 3):  # some history before the first page
            for i in range(3):
                await _mutate(call, n, "ADD_TRACKS", {"track_ids": [track(500 + i)]}, T0 + (n // 2) * 1000 + i)
        existing = {playlist(n) for n in range(count)}

        seen: list[str] = []
        cursor: str | None = None
        late = T0 + 10**8
        created = count
        for page_number in range(100):
            page = await _page(call, limit, cursor)
            seen.extend(_ids(page["items"]))
            cursor = page["next_cursor"]
            if cursor is None:
                break
            # Between pages: change one playlist already listed, one not yet listed (several times,
            # past the recent-events cap), and log a brand-new playlist.
            done = [int(p[len("playlist") :]) for p in seen if int(p[len("playlist") :]) < count]
            pending = sorted(int(p[len("playlist") :]) for p in existing - set(seen))
            targets = [done[page_number % len(done)]] + ([pending[-1]] if pending else [])
            for n in targets:
                for _ in range(3):
                    late += 1
                    await _mutate(call, n, "UPDATE_META", {"name": f"moved {late}"}, late if timestamped else None)
            await _create(call, created, late + 1 if timestamped else None)
            created += 1
        else:
            raise AssertionError("paging never ended")

        assert len(seen) == len(set(seen)), [p for p in seen if seen.count(p) > 1]
        assert existing <= set(seen), sorted(existing - set(seen))
        assert set(seen) <= existing | {playlist(n) for n in range(count, created)}

        # A fresh listing shows everything, the latest changes first.
        fresh = await _all_pages(call, limit)
        assert sorted(_ids(fresh)) == sorted(existing | {playlist(n) for n in range(count, created)})
        _assert_newest_first(fresh)


@pytest.mark.parametrize("cap", [1, 2, 50])
async def test_playlists_changed_past_the_event_cap_between_pages_keep_their_place(
    settings_factory: Any, cap: int
) -> None:
    settings = settings_factory(recent_events_cap=cap, snapshot_every=2, snapshot_min_event_share=0.0)
    a, b, c, d = 1, 2, 3, 4
    async with connected(settings) as call:
        await _create(call, a, T0)
        for i in range(3):
            await _mutate(call, a, "ADD_TRACKS", {"track_ids": [track(60 + i)]}, T0 + 5000 + i)
        await _create(call, b, T0 + 3000)
        await _create(call, c, T0 + 1000)
        for i in range(3):
            await _mutate(call, c, "UPDATE_META", {"name": f"c{i}"}, T0 + 2000 + i)
        await _create(call, d, T0 + 4000)

        first = await _page(call, 1)
        assert _ids(first["items"]) == [playlist(a)]
        # A (already listed) and C (not yet listed) change more often than the cap keeps events.
        for n in (a, c):
            for i in range(3):
                await _mutate(call, n, "UPDATE_META", {"intent_tags": [str(i)]}, T0 + 10**6 + 10 * n + i)
        rest: list[str] = []
        cursor = first["next_cursor"]
        while cursor is not None:
            page = await _page(call, 1, cursor)
            rest.extend(_ids(page["items"]))
            cursor = page["next_cursor"]
        assert rest == [playlist(d), playlist(b), playlist(c)]
        assert _ids((await _page(call, 50))["items"]) == [playlist(n) for n in (c, a, d, b)]


async def test_listing_is_per_user(settings: Any) -> None:
    async with connected(settings) as call:
        for n in range(3):
            await _create(call, n, T0)
        await _create(call, 50, T0, user_id=USER + 1)
        assert _ids((await _page(call, 50))["items"]) and playlist(50) not in _ids((await _page(call, 50))["items"])
        assert _ids((await _page(call, 50, user_id=USER + 1))["items"]) == [playlist(50)]
        assert (await _page(call, 50, user_id=USER + 2)) == {"items": [], "next_cursor": None}
        # A cursor from one user's listing is refused for another user.
        cursor = (await _page(call, 1))["next_cursor"]
        assert cursor is not None
        error = await call.error(
            "memory_get_playlists", {"user_id": USER + 1, "limit": 50, "cursor": cursor}, "INVALID_ARGUMENT"
        )
        assert error["details"]["field"] == "cursor"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage",
        "",
        "!!!!",
        "ü",
        "%%%=",
        _b64(b"\xff\xfe\xfd"),
        _b64(b"not json"),
        _b64(json.dumps([1, 2, 3]).encode()),
        _b64(json.dumps(17).encode()),
        _b64(json.dumps({"x": 1}).encode()),
        _b64(json.dumps({"t": "soon", "u": 1, "p": "x"}).encode()),
        _b64(json.dumps({"t": 1, "u": "late", "p": "x"}).encode()),
        _b64(json.dumps({"t": None}).encode()),
    ],
)
async def test_garbage_cursor_is_invalid_argument(settings: Any, cursor: str) -> None:
    async with connected(settings) as call:
        for n in range(3):
            await _create(call, n, T0 + n)
        arguments = {"user_id": USER, "limit": 1, "cursor": cursor}
        error = await call.error("memory_get_playlists", arguments, "INVALID_ARGUMENT")
        assert error.get("details", {}).get("field") == "cursor"
