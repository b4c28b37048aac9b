"""The rest window slid forward (``service.tracks.rest_window.Window``) against counting afresh: for
random plays and a random walk of windows moving forward, the counts by key after each slide are
those of the plays inside the window, edges included, as a plain count says."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import settings as examples
from hypothesis import strategies as st

from service.settings import Settings
from service.tracks.rest_window import Window, key_of
from tests.support import connected, track

T0 = datetime(2026, 1, 1, tzinfo=UTC)
KEYS = [
    {"artist": "A", "track": "One"},
    {"artist": "B", "track": "Two"},
    {"artist": "C"},
    {"artist": "D", "track_id": "x"},
]

plays = st.lists(
    st.tuples(st.integers(0, 200), st.integers(0, len(KEYS) - 1)).map(
        lambda p: {**KEYS[p[1]], "played_at": T0 + timedelta(minutes=p[0])}
    ),
    max_size=60,
)
steps = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=12)


def plain(stored: list[dict], since: datetime, until: datetime) -> Counter:
    return Counter(k for p in stored if since <= p["played_at"] <= until and (k := key_of(p)) is not None)


@examples(max_examples=150, deadline=None)
@given(plays, st.integers(0, 100), st.integers(1, 80), steps)
def test_a_slid_window_counts_what_a_fresh_count_does(stored: list[dict], start: int, span: int, moves: list) -> None:
    since = T0 + timedelta(minutes=start)
    until = since + timedelta(minutes=span)
    window = Window([{"plays": stored}], since, until)
    assert +window.counts == plain(stored, since, until)
    for grow_start, grow_end in moves:
        new_since = since + timedelta(minutes=grow_start)
        new_until = max(until + timedelta(minutes=grow_end), new_since)
        version = window.version
        assert window.slide(new_since, new_until)
        assert +window.counts == plain(stored, new_since, new_until)
        if +window.counts != plain(stored, since, until):
            assert window.version > version  # what was derived from the old counts is not reused
        since, until = new_since, new_until
    assert not window.slide(since - timedelta(minutes=1), until)  # backwards: rebuilt instead


async def test_the_kept_window_sees_every_play_logged_or_forgotten_after_it(settings: Settings) -> None:
    """Through the tools: a check keeps the window; a play logged, then one forgotten, after it
    change the next check's answer (the window is counted again when its buckets change)."""
    now = datetime.now(UTC)
    song = {"track_id": track(1), "name": "Song 2", "artists": ["Blur"]}
    at = [(now - timedelta(hours=h)).isoformat().replace("+00:00", "Z") for h in (1, 2, 3)]
    async with connected(settings) as call:
        await call.ok("memory_upsert_tracks", {"user_id": 1, "tracks": [song]})
        rest = {"playlist_rules": {"rest": {"max_plays": 3, "days": 7}}}
        await call.ok("memory_update_profile", {"user_id": 1, "patch": rest, "reason": "r"})

        async def rested() -> list[str]:
            checked = await call.ok("memory_check_playlist", {"user_id": 1, "track_ids": [track(1)]})
            return [v["rule"] for v in checked["violations"]]

        played = [{"artist": "Blur", "track": "Song 2", "played_at": moment} for moment in at]
        await call.ok("memory_log_plays", {"user_id": 1, "plays": played[:2]})
        assert await rested() == []
        await call.ok("memory_log_plays", {"user_id": 1, "plays": played[2:]})
        assert await rested() == ["rest"]
        forgotten = f"Blur|Song 2|{at[0]}"
        await call.ok("memory_forget", {"user_id": 1, "kind": "play", "id": forgotten, "confirm": True})
        assert await rested() == []
