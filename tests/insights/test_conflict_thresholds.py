"""The thresholds of stated-versus-played detection, against a plain model written from the tool's
description: at exactly the boundary and one step (a millisecond, a play) past it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from service.insights.conflicts import Opinion, Play, Settled, detect

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
MS = timedelta(milliseconds=1)
DAY = timedelta(days=1)
SUBJECT = ("artist", "nickelback")


def dislike(at: datetime = NOW - 400 * DAY) -> Opinion:
    return Opinion("dislike", SUBJECT, "Nickelback", at, ("d1",), "I hate Nickelback")


def like(at: datetime) -> Opinion:
    return Opinion("like", ("genre", "jazz"), "Jazz", at, ("l1",), "love jazz")


def play(age: timedelta, artist: str = "nickelback", genres: frozenset[str] = frozenset()) -> Play:
    return Play(NOW - age, artist, genres, {"artist": artist, "track": None, "played_at": NOW - age})


# -- the plain model: the description's sentences, one by one -------------------------------------
def model_dislike(ages: list[timedelta], settled_age: timedelta | None) -> bool:
    """>= 5 plays within the last 30 days (a play exactly 30 days old counts, a future one does
    not), after the last settlement."""
    counted = [a for a in ages if timedelta(0) <= a <= 30 * DAY and (settled_age is None or a < settled_age)]
    return len(counted) >= 5


def model_like(stated_age: timedelta, play_ages: list[timedelta], logged: int) -> bool:
    """A like at least 180 days old, no play of it within the last 180 days, >= 100 plays logged."""
    return stated_age >= 180 * DAY and not any(timedelta(0) <= a <= 180 * DAY for a in play_ages) and logged >= 100


AGES = st.sampled_from([timedelta(0), 29 * DAY, 30 * DAY - MS, 30 * DAY, 30 * DAY + MS, 31 * DAY, -MS, 2 * DAY])


@given(ages=st.lists(AGES, max_size=9), settled=st.none() | AGES)
def test_played_despite_dislike_matches_the_model(ages: list[timedelta], settled: timedelta | None) -> None:
    settlements = {} if settled is None else {("played_despite_dislike", SUBJECT): Settled(NOW - settled, "s")}
    others = [play(timedelta(0), "someone else")] * 6  # another artist's plays never count
    found = detect([dislike()], [play(a) for a in ages] + others, 1000, settlements, NOW)
    assert bool(found) == model_dislike(ages, settled)
    if found:
        assert found[0].count == len(
            [a for a in ages if timedelta(0) <= a <= 30 * DAY and (settled is None or a < settled)]
        )
        assert found[0].days == 30 and len(found[0].examples) == 3


LIKE_AGES = st.sampled_from([179 * DAY, 180 * DAY - MS, 180 * DAY, 180 * DAY + MS, 400 * DAY])


@given(
    stated=LIKE_AGES,
    plays=st.lists(st.sampled_from([180 * DAY - MS, 180 * DAY, 180 * DAY + MS, 10 * DAY, -MS]), max_size=3),
    logged=st.sampled_from([0, 99, 100, 101]),
)
def test_liked_but_unplayed_matches_the_model(stated: timedelta, plays: list[timedelta], logged: int) -> None:
    jazz = [play(a, "anyone", frozenset({"jazz"})) for a in plays]
    found = detect([like(NOW - stated)], [*jazz, play(DAY, "other")], logged, {}, NOW)
    assert bool(found) == model_like(stated, plays, logged)
    if found:
        assert (found[0].kind, found[0].count, found[0].days, found[0].examples) == ("liked_but_unplayed", 0, 180, ())


def test_the_boundaries_one_by_one() -> None:
    five_at_the_edge = [play(30 * DAY)] + [play(DAY)] * 4
    assert detect([dislike()], five_at_the_edge, 0, {}, NOW)  # 5 plays, one exactly 30 days old: a conflict
    assert not detect([dislike()], [play(30 * DAY + MS)] + [play(DAY)] * 4, 0, {}, NOW)  # 30 days and 1 ms: 4
    assert not detect([dislike()], [play(DAY)] * 4, 0, {}, NOW)  # 4 plays: none
    settled = {("played_despite_dislike", SUBJECT): Settled(NOW - 2 * DAY, "s")}
    assert not detect([dislike()], [play(3 * DAY)] * 5, 0, settled, NOW)  # spent by the resolution
    assert detect([dislike()], [play(DAY)] * 5, 0, settled, NOW)  # five new plays after it
    assert detect([like(NOW - 180 * DAY)], [], 100, {}, NOW)  # 100 logged, unplayed 180 days: a conflict
    assert not detect([like(NOW - 180 * DAY)], [], 99, {}, NOW)  # 99: none
    assert not detect([like(NOW - 180 * DAY + MS)], [], 100, {}, NOW)  # said 1 ms too recently
    jazz_at_the_edge = play(180 * DAY, "x", frozenset({"jazz"}))
    assert not detect([like(NOW - 400 * DAY)], [jazz_at_the_edge], 100, {}, NOW)  # played exactly 180 days ago
    later = {("liked_but_unplayed", ("genre", "jazz")): Settled(NOW - 10 * DAY, "s")}
    assert not detect([like(NOW - 400 * DAY)], [], 100, later, NOW)  # kept 10 days ago: 180 more days to go
