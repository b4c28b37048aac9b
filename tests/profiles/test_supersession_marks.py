"""Stored ``superseded_by`` marks on the write path: a newer like/dislike of the same subject marks
the older one, forgetting the newer one lifts the mark, an import recomputes them (the export
carries none), and over random sequences of likes, dislikes and forgets the stored marks are what
a plain model of the rule says."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from host.running import ServiceHolder, running_service
from service.facade import MemoryService
from service.settings import Settings
from tests.support import Caller, connected

USER, OTHER = 1, 2


async def marks(service: MemoryService, user_id: int) -> dict[str, str]:
    """The stored marks of a user's events: event id → the id of the event superseding it."""
    events = await service.database.preference_events.find({"user_id": user_id}, {"superseded_by": 1})
    return {e["_id"]: e["superseded_by"] for e in events if "superseded_by" in e}


async def opinion(call: Caller, kind: str, payload: dict[str, Any], user_id: int = USER) -> str:
    result = await call.ok("memory_append_preference_event", {"user_id": user_id, "type": kind, "payload": payload})
    return result["event_id"]


async def test_a_newer_opinion_marks_the_older_and_forgetting_it_lifts_the_mark(settings: Settings) -> None:
    async with connected(settings) as call:
        liked = await opinion(call, "like", {"artist": "The Beatles", "raw_text": "love the beatles"})
        await opinion(call, "rule", {"artist": "beatles", "raw_text": "max two beatles songs"})  # no opinion
        await opinion(call, "like", {"artist": "Beatles"}, OTHER)  # another user's opinion is not newer
        assert await marks(call.service, USER) == {}
        disliked = await opinion(call, "dislike", {"artist": "beatles", "raw_text": "over the beatles now"})
        assert await marks(call.service, USER) == {liked: disliked}
        assert await marks(call.service, OTHER) == {}

        # The export holds the records, not the derived mark; an import (here over the same user)
        # recomputes it.
        exported = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
        assert all("superseded_by" not in e for e in exported["preference_events"])
        await call.ok("memory_import_user_data", {"user_id": USER, "data": exported, "confirm": True, "replace": True})
        assert await marks(call.service, USER) == {liked: disliked}

        await call.ok("memory_forget", {"user_id": USER, "kind": "preference_event", "id": disliked, "confirm": True})
        assert await marks(call.service, USER) == {}  # the like is in force again


async def test_an_import_replaces_marks_an_export_should_not_carry(settings: Settings) -> None:
    async with connected(settings) as call:
        first = await opinion(call, "like", {"genre": "Metal"})
        exported = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
        exported["preference_events"][0]["superseded_by"] = "made-up"
        exported["preference_events"].append(
            {
                **exported["preference_events"][0],
                "event_id": "a-note-marked",
                "type": "note",
                "superseded_by": "made-up",
            }
        )
        await call.ok("memory_delete_user_data", {"user_id": USER, "confirm": True})
        await call.ok("memory_import_user_data", {"user_id": USER, "data": exported, "confirm": True})
        assert await marks(call.service, USER) == {}
        second = await opinion(call, "dislike", {"genre": "metal"})
        assert await marks(call.service, USER) == {first: second}


# --- the property --------------------------------------------------------------------------------
# Payloads, and the subject each has under the rule written out by hand (folded: case and "the").
SUBJECTS: list[tuple[dict[str, Any], Any]] = [
    ({"artist": "The Beatles"}, ("artist", "beatles")),
    ({"artist": "beatles"}, ("artist", "beatles")),
    ({"artist": "Nightwish"}, ("artist", "nightwish")),
    ({"genre": "nightwish"}, ("genre", "nightwish")),  # the same word in another field: another subject
    ({"artist": "Nightwish", "album": "Once"}, ("artist+album", "nightwish/once")),
    ({"raw_text": "something"}, None),  # no subject: supersedes nothing
]
MOMENTS = [datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=d) for d in (0, 1, 2)]

append = st.tuples(
    st.just("append"),
    st.sampled_from(["like", "dislike", "rule"]),
    st.integers(0, len(SUBJECTS) - 1),
    st.integers(0, len(MOMENTS) - 1),
)
forget = st.tuples(st.just("forget"), st.integers(0, 20))
_users = itertools.count(100)


def expected_marks(remaining: list[tuple[str, str, Any, int]]) -> dict[str, str]:
    """The rule on its own: among like/dislike events with a subject, ordered by time then by the
    order of recording, each older one is superseded by the next of the same subject."""
    opinions = sorted(
        (e for e in remaining if e[1] in ("like", "dislike") and e[2] is not None),
        key=lambda e: (e[3], remaining.index(e)),
    )
    expected: dict[str, str] = {}
    for i, (event_id, _, subject, _) in enumerate(opinions):
        newer = next((o for o in opinions[i + 1 :] if o[2] == subject), None)
        if newer is not None:
            expected[event_id] = newer[0]
    return expected


@hsettings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(steps=st.lists(st.one_of(append, append, forget), min_size=1, max_size=12))
async def test_stored_marks_follow_the_rule_over_any_sequence(settings: Settings, steps: list[Any]) -> None:
    user = next(_users)  # one store for every example, a new user each
    async with running_service(settings, ServiceHolder()) as service:
        remaining: list[tuple[str, str, Any, int]] = []  # (id, type, subject, moment) in recording order
        for step in steps:
            if step[0] == "append":
                _, kind, subject, moment = step
                result = await service.profiles.append_event(user, kind, SUBJECTS[subject][0], "user", MOMENTS[moment])
                remaining.append((result["event_id"], kind, SUBJECTS[subject][1], moment))
            elif remaining:
                gone = remaining.pop(step[1] % len(remaining))
                await service.forgetter.forget(user, "preference_event", gone[0])
            assert await marks(service, user) == expected_marks(remaining)
        assert (await service.rederiver.rederive(user))["differences"] == 0
