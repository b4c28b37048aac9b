"""Property: the tracks ``rest`` reports are those a plain timeline model says were played at least
``max_plays`` times in the closed window [now - days, now], on random plays (by id, or only named
as a scrobble names them, or of another id under the same names) whose moments cluster on the
window's edges: exactly ``days`` ago, a millisecond either side, now, the future, long ago.
"""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from service.settings import Settings
from tests.support import Caller, connected, track
from tests.support.contract import assert_valid_success
from tests.tracks.rest_support import COVER, HALO, NOW, SIGN, SONG2, frozen, iso, message, play, prepared, rested

DAY_MS = 86_400_000
STRANGER = track(99)  # another id under Song 2's names (a live version): counts for no catalog track
PLAYLIST = [SONG2, COVER, HALO, SIGN]
NAME_KEY = {SONG2: "song 2|blur", STRANGER: "song 2|blur", COVER: "song 2|cover band", HALO: "halo", SIGN: "sign"}
users = itertools.count(5000)


def moments(days: int) -> st.SearchStrategy[int]:
    """How long ago a play was, in ms (negative: logged for a moment still to come)."""
    edge = days * DAY_MS
    return st.one_of(
        st.sampled_from([edge - 1, edge, edge + 1, 0, -1, edge + DAY_MS]),
        st.integers(0, edge),
        st.integers(-DAY_MS, edge + 40 * DAY_MS),
    )


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    days = draw(st.sampled_from([1, 2, 7, 30, 31, 365]))
    plays = draw(
        st.lists(
            st.tuples(st.sampled_from([*PLAYLIST, STRANGER]), st.booleans(), moments(days)), min_size=0, max_size=40
        )
    )
    return {"days": days, "max_plays": draw(st.integers(1, 4)), "plays": plays}


def model(plays: list[tuple[str, bool, int]], max_plays: int, days: int) -> dict[str, str]:
    """The first of plays with the same names at the same moment is the one stored (play identity)."""
    stored: dict[tuple[str, int], str] = {}
    for who, _, ago in plays:
        stored.setdefault((NAME_KEY[who], ago), who)
    counts = Counter(who for (_, ago), who in stored.items() if who != STRANGER and 0 <= ago <= days * DAY_MS)
    return {t: message(t, n, max_plays, days) for t, n in counts.items() if n >= max_plays}


def logged(who: str, by_id: bool, ago: int) -> dict[str, Any]:
    at = NOW - timedelta(milliseconds=ago)
    if who == STRANGER:
        return {"artist": "Blur", "track": "Song 2", "track_id": STRANGER, "played_at": iso(at)}
    return play(who, at, by_id)


async def checked(call: Caller, user_id: int, **arguments: Any) -> dict[str, Any]:
    envelope = await call("memory_check_playlist", {"user_id": user_id, "track_ids": PLAYLIST, **arguments})
    return assert_valid_success("memory.check_playlist", envelope)


@hsettings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(drawn=scenarios())
async def test_rest_reports_what_the_timeline_model_does(settings: Settings, drawn: dict[str, Any]) -> None:
    user_id, rule = next(users), {"max_plays": drawn["max_plays"], "days": drawn["days"]}
    want = model(drawn["plays"], drawn["max_plays"], drawn["days"])
    with frozen():
        async with connected(settings) as call:
            plays = [logged(*p) for p in drawn["plays"]]
            await prepared(call, user_id, plays, {"playlist_rules": {"rest": rule}})
            inline = await checked(call, user_id, rules={"rest": rule})
            from_profile = await checked(call, user_id)
    assert rested(inline) == want
    assert rested(from_profile) == want
    assert inline["rules"]["rest"] == from_profile["rules"]["rest"] == rule
    assert [v["track_ids"][0] for v in inline["violations"]] == [t for t in PLAYLIST if t in want]  # playlist order


@hsettings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(max_plays=st.integers(1, 5), days=st.sampled_from([1, 7, 30, 3650]))
async def test_exactly_max_plays_in_the_window_rests_and_one_fewer_does_not(
    settings: Settings, max_plays: int, days: int
) -> None:
    """The boundary drawn on purpose: ``max_plays`` plays of Halo, the oldest exactly ``days`` ago
    (in the window); ``max_plays`` of Song 2, the oldest a millisecond before that (out of it)."""
    user_id, edge = next(users), timedelta(days=days)
    halo = [play(HALO, NOW - edge)] + [play(HALO, NOW - timedelta(minutes=i)) for i in range(max_plays - 1)]
    song = [play(SONG2, NOW - edge - timedelta(milliseconds=1), by_id=False)]
    song += [play(SONG2, NOW - timedelta(minutes=i)) for i in range(max_plays - 1)]
    with frozen():
        async with connected(settings) as call:
            await prepared(call, user_id, halo + song)
            answer = await checked(call, user_id, rules={"rest": {"max_plays": max_plays, "days": days}})
    assert rested(answer) == {HALO: message(HALO, max_plays, max_plays, days)}
