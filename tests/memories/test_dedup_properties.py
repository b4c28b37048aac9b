"""Property test: any run of memory_add calls leaves what the plain model in ``dedup_model`` says.

Each example draws statements of two types about subsets of three entities (in any of their
spellings), with summaries from two word groups, importances 1-10, some forced (skip_dedup), at
distinct times over 100 days in any order (an agent may record a conversation late). After every
call ``deduplicated`` must be the model's; at the end the stored memories (type, entity set,
summary group, first and latest statement, importance, seen_count) must be the model's, before and
after a restart.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from service.timeutil import format_iso, parse_iso
from tests.memories.dedup_model import DAY_MS, SPELLINGS, SUMMARIES, DedupModel
from tests.support import Caller, connected
from tests.support.contract import assert_valid_success

USER = 1
START_MS = 1_700_000_000_000

statement = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["recommendation", "feedback"]),
        "entities": st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=1, max_size=2),
        "summary": st.tuples(st.integers(0, 1), st.integers(0, 2)),
        # Days 30 apart often: with the minutes that keep times distinct, just inside or outside the window.
        "day": st.one_of(st.sampled_from([0, 30, 60, 90]), st.integers(0, 100)),
        "importance": st.integers(1, 10),
        "forced": st.sampled_from([False, False, False, False, True]),
    }
)


def _as_ms(text: Any) -> int:
    moment = parse_iso(text) if isinstance(text, str) else text
    return int(moment.timestamp() * 1000)


def _observed(memories: list[dict[str, Any]]) -> list[tuple[object, ...]]:
    rows = []
    for m in memories:
        entities = tuple(sorted({next(i for i, names in enumerate(SPELLINGS) if e in names) for e in m["entities"]}))
        group = next(g for g, texts in enumerate(SUMMARIES) if any(t in m["summary"] for t in texts))
        rows.append(
            (
                m["type"],
                entities,
                group,
                _as_ms(m["timestamp"]),
                _as_ms(m["last_seen_at"]),
                m["importance"],
                m["seen_count"],
            )
        )
    return sorted(rows)


async def _stored(call: Caller) -> list[tuple[object, ...]]:
    exported = (await call.ok("memory_export_user_data", {"user_id": USER}))["data"]
    return _observed(exported["memories"])


@hsettings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(statements=st.lists(statement, min_size=1, max_size=25))
async def test_deduplication_matches_the_reference_model(
    settings_factory: Any, statements: list[dict[str, Any]]
) -> None:
    settings = settings_factory()
    model = DedupModel([])
    async with connected(settings) as call:
        for step, s in enumerate(statements):
            at_ms = START_MS + s["day"] * DAY_MS + step * 60_000  # distinct times: no ties to break
            entities = frozenset(i for i, _ in s["entities"])
            names = [SPELLINGS[i][form % len(SPELLINGS[i])] for i, form in s["entities"]]
            group, variant = s["summary"]
            arguments = {
                "user_id": USER,
                "type": s["type"],
                "entities": names,
                "summary": SUMMARIES[group][variant % len(SUMMARIES[group])],
                "importance": s["importance"],
                "timestamp": format_iso(datetime.fromtimestamp(at_ms / 1000, tz=UTC)),
                "skip_dedup": s["forced"],
            }
            envelope = await call("memory_add", arguments)
            assert_valid_success("memory.add", envelope)
            expected = model.add(s["type"], entities, group, at_ms, s["importance"], s["forced"])
            assert envelope["result"]["deduplicated"] == expected, (step, arguments)
        assert await _stored(call) == sorted(m.observed() for m in model.memories)
    async with connected(settings) as call:  # what was acknowledged is what a restart loads
        assert await _stored(call) == sorted(m.observed() for m in model.memories)
        listed = await call.ok("memory_query", {"user_id": USER, "limit": 50})
        assert len(listed["memories"]) == len(model.memories)
