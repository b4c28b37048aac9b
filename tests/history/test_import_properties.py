"""Property test: however a history is split into files and however its rows and files are
ordered, an import stores what a plain model says (each distinct music row of a public session
once, a play or a skip by its time played) and counts each row in exactly one class."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from tests.history.history_fixtures import START, episode, extended, minutes, write_json
from tests.history.history_support import run_import, stored
from tests.support import connected

WHOLE, SPLIT = 1, 2
POOL = 12  # distinct rows; a drawn index more than once is a duplicate row
_runs = itertools.count()


def pool_row(i: int) -> dict[str, Any]:
    """Row ``i`` of the pool, always the same: a few episodes, a few private, short and long streams."""
    at = START + minutes(i * 7 + (i % 3) * 60 * 24 * 31)  # spread over three months
    if i % 6 == 5:
        return episode(at)
    return extended(i % 8, at, ms=(10_000 if i % 4 == 1 else 180_000), private=(i % 5 == 4))


def model(drawn: list[int]) -> dict[str, int]:
    """What the import must count: the first of each identity stored, every later copy a duplicate."""
    counts = dict.fromkeys(("entries", "plays", "skips", "private_skipped", "not_music", "duplicates"), 0)
    seen: set[int] = set()
    for i in drawn:
        row = pool_row(i)
        counts["entries"] += 1
        if row["master_metadata_track_name"] is None:
            counts["not_music"] += 1
        elif row["incognito_mode"]:
            counts["private_skipped"] += 1
        elif i in seen:
            counts["duplicates"] += 1
        else:
            seen.add(i)
            counts["skips" if row["ms_played"] < 30_000 else "plays"] += 1
    return counts


def total(reports: list[dict[str, Any]]) -> dict[str, int]:
    return {k: sum(r[k] for r in reports) for k in model([])}


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    drawn=st.lists(st.integers(0, POOL - 1), min_size=1, max_size=30),
    cuts=st.lists(st.integers(0, 30), max_size=4),
    order=st.randoms(use_true_random=False),
)
async def test_split_and_reordered_files_store_the_same(
    settings_factory: Any, tmp_path: Path, drawn: list[int], cuts: list[int], order: Any
) -> None:
    folder = tmp_path / f"run{next(_runs)}"
    write_json(folder / "whole" / "Streaming_History_Audio_0.json", [pool_row(i) for i in drawn])
    bounds = sorted({0, len(drawn), *(c for c in cuts if c < len(drawn))})
    pieces = [[pool_row(i) for i in drawn[a:b]] for a, b in itertools.pairwise(bounds)]
    order.shuffle(pieces)
    for n, piece in enumerate(pieces):
        order.shuffle(piece)
        write_json(folder / "split" / f"Streaming_History_Audio_{n}.json", piece)

    async with connected(settings_factory()) as call:
        whole = await run_import(call, WHOLE, folder / "whole")
        split = [
            await run_import(call, SPLIT, folder / "split" / f"Streaming_History_Audio_{n}.json")
            for n in range(len(pieces))
        ]
        expected = model(drawn)
        assert total([whole]) == expected
        assert total(split) == expected
        assert await stored(call, WHOLE) == await stored(call, SPLIT)
        plays, skips = await stored(call, WHOLE)
        assert (len(plays), len(skips)) == (expected["plays"], expected["skips"])
        status = [await call.ok("memory_status", {"user_id": u}) for u in (WHOLE, SPLIT)]
        assert status[0]["counts"] == status[1]["counts"]
