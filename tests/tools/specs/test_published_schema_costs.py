"""What the published output schemas cost a strict client, and what the PRD schemas still check.

The client's check of a 1,000-row answer of any tool with a described array costs as many
sub-validations as a 1-row one; what the published schema no longer checks (each row, each track
id) the PRD schema the tests use does; big answers and full pages validate against both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from models.schema_files import published_output_schema
from service.settings import Settings
from tests.support import connected, playlist, track
from tests.support.contract import errors_of, result_validator, wire
from tests.tools.specs.answers import PLAYLIST_ANSWERS
from tests.tools.specs.answers_memories import MEMORY_ANSWERS
from tests.tools.specs.published import DESCRIBED_ARRAYS, published_schemas, strict_validator

# A PRD-valid result of each tool with a described array, its lists `rows` long.
ANSWERS: dict[str, Callable[[int], dict[str, Any]]] = {**PLAYLIST_ANSWERS, **MEMORY_ANSWERS}

# Sub-validations of an answer's fixed part (its fields outside arrays): memory_inspect nests the
# context block's diagnostics, the switch counts and what is kept out of sight, so its fixed part is
# bigger; none grows with rows.
FIXED_DESCENTS = {"memory.inspect": 48}


@pytest.mark.parametrize("prd_name", sorted(DESCRIBED_ARRAYS))
def test_a_long_answer_costs_the_client_what_a_short_one_does(prd_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One row or 1,000 (track IDs, users, hits, playlists, audit entries, events): the same sub-validations."""
    short, long = ANSWERS[prd_name](1), ANSWERS[prd_name](1_000)
    for result in (short, long):  # real answers: they satisfy the full PRD schema
        assert errors_of(result_validator(prd_name), result) == []
    validator = strict_validator(published_output_schema(prd_name))
    descents: list[int] = []
    original = type(validator).descend

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        descents.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(validator), "descend", counted)
    assert list(validator.iter_errors({"success": True, "result": short})) == []
    for_short = len(descents)
    descents.clear()
    assert list(validator.iter_errors({"success": True, "result": long})) == []
    assert len(descents) == for_short < FIXED_DESCENTS.get(prd_name, 20)


def test_the_prd_schema_still_checks_every_track_id() -> None:
    """What the published schema no longer checks, the PRD result schema (used by the tests) does."""
    result = ANSWERS["memory.reconstruct_playlist"](3)
    result["track_ids"][1] = "short"
    result["track_ids"][2] = 7
    published = strict_validator(published_output_schema("memory.reconstruct_playlist"))
    assert list(published.iter_errors({"success": True, "result": result})) == []  # looser, by design
    problems = errors_of(result_validator("memory.reconstruct_playlist"), result)
    assert len(problems) == 2 and {p.split(":")[0] for p in problems} == {"track_ids/1", "track_ids/2"}
    # ... and the published one still checks everything around the list.
    for broken in (
        {**result, "extra": 1},
        {**result, "track_ids": "x"},
        {k: v for k, v in result.items() if k != "as_of"},
    ):
        assert list(published.iter_errors({"success": True, "result": broken})), broken


def test_the_prd_schema_still_checks_every_field_of_every_row() -> None:
    """Rows of objects: a missing, an extra and a mistyped field pass the published schema, not the PRD's."""
    result = ANSWERS["ops.list_users"](4)
    del result["users"][1]["playlist_count"]
    result["users"][2]["extra"] = 1
    result["users"][3]["profile_version"] = -1
    published = strict_validator(published_output_schema("ops.list_users"))
    assert list(published.iter_errors({"success": True, "result": result})) == []  # looser, by design
    problems = errors_of(result_validator("ops.list_users"), result)
    assert {"/".join(p.split(":")[0].split("/")[:2]) for p in problems} == {"users/1", "users/2", "users/3"}, problems
    hits = ANSWERS["memory.search"](2)
    hits["results"][1]["kind"] = "song"
    assert (
        list(strict_validator(published_output_schema("memory.search")).iter_errors({"success": True, "result": hits}))
        == []
    )
    assert [p.split(":")[0] for p in errors_of(result_validator("memory.search"), hits)] == ["results/1/kind"]
    # ... and the published one still checks everything around the rows.
    for broken in ({**result, "extra": 1}, {"users": {"user_id": 1}}, {}):
        assert list(published.iter_errors({"success": True, "result": broken})), broken


async def test_big_answers_validate_against_both_schemas(settings: Settings) -> None:
    """A 2,000-track playlist through the client: its answers satisfy the published and the PRD schema."""
    ids = [track(i) for i in range(2_000)]
    async with connected(settings) as call:
        published = await published_schemas(call.client)
        await call.ok(
            "memory_log_playlist_create", {"user_id": 1, "playlist_id": playlist(1), "name": "big", "track_ids": ids}
        )
        await call.ok(
            "memory_log_playlist_mutation",
            {"user_id": 1, "playlist_id": playlist(1), "type": "ADD_TRACKS", "payload": {"track_ids": [track(5000)]}},
        )
        answers = {
            "memory.reconstruct_playlist": await call(
                "memory_reconstruct_playlist", {"user_id": 1, "playlist_id": playlist(1)}
            ),
            "memory.get_playlist": await call("memory_get_playlist", {"user_id": 1, "playlist_id": playlist(1)}),
        }
    for prd_name, envelope in answers.items():
        assert envelope["success"], envelope
        assert published.problem(wire(prd_name), envelope) is None
        assert errors_of(result_validator(prd_name), envelope["result"]) == []
    assert answers["memory.reconstruct_playlist"]["result"]["track_ids"] == [*ids, track(5000)]


async def test_full_pages_validate_against_both_schemas(settings: Settings) -> None:
    """Full pages of object rows through the client (50 users, 50 playlists with 8 tags, 25 search hits,
    an audit page): they satisfy the published and the PRD schema."""
    tags = ["calm", "late night", "focus", "rainy day", "jazz", "soul", "piano", "slow"]
    async with connected(settings) as call:
        published = await published_schemas(call.client)
        for user in range(2, 51):
            await call.ok("memory_update_profile", {"user_id": user, "patch": {"genres": ["jazz"]}})
        for n in range(50):
            await call.ok(
                "memory_log_playlist_create",
                {
                    "user_id": 1,
                    "playlist_id": playlist(n),
                    "name": f"Saxophone nights {n}",
                    "track_ids": [track(n)],
                    "intent_tags": tags,
                },
            )
        answers = {
            "ops.list_users": await call("ops_list_users", {"limit": 50}),
            "memory.get_playlists": await call("memory_get_playlists", {"user_id": 1, "limit": 50}),
            "memory.search": await call("memory_search", {"user_id": 1, "query": "saxophone nights", "limit": 25}),
            "ops.audit": await call("ops_audit", {"limit": 100}),
        }
    for prd_name, envelope in answers.items():
        assert envelope["success"], envelope
        assert published.problem(wire(prd_name), envelope) is None
        assert errors_of(result_validator(prd_name), envelope["result"]) == []
    assert len(answers["ops.list_users"]["result"]["users"]) == 50
    assert len(answers["memory.get_playlists"]["result"]["items"]) == 50
    assert len(answers["memory.search"]["result"]["results"]) == 25
