"""The output schemas the tools publish: self-contained, true of every PRD result, cheap to check.

The stock MCP client validates every successful result against the published ``outputSchema`` with
``jsonschema``; a per-item subschema costs a sub-validator per item (~10 µs), so arrays of strings
(track IDs, intent tags) are published without one. These tests hold the published schemas to three
promises: a strict client can compile them with no registry; they differ from the full PRD result
schema only by dropping the per-item schema of string arrays (so every PRD-valid result is valid
against them); and a 10,000-track answer costs the client a fixed number of sub-validations.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from models.schema_files import envelope_schema, published_output_schema, success_envelope_schema
from service.settings import Settings
from tests.support import connected, playlist, track
from tests.tools.contract import TOOLS, errors_of, result_validator, wire
from tests.tools.published import published_schemas, refs, strict_validator, unresolvable_refs

TRACK_ID_DEFINITION = {"type": "string", "minLength": 10, "maxLength": 80}  # SpotifyTrackId, inlined
STRING_ITEMS = [TRACK_ID_DEFINITION, {"type": "string"}]  # the item schemas of string arrays in the PRD results


def _differences(prd: Any, published: Any, path: str = "") -> list[str]:
    """Where the published schema departs from the PRD's, except by dropping string arrays' item schemas
    (and saying in ``description`` what the items are)."""
    if isinstance(prd, dict) and isinstance(published, dict):
        if prd.get("type") == "array" and prd.get("items") in STRING_ITEMS:
            rest = {k: v for k, v in published.items() if k != "description"}
            expected = {k: v for k, v in prd.items() if k != "items"}
            described = json.dumps(prd["items"], separators=(", ", ": ")) in published.get("description", "")
            return [] if rest == expected and described else [f"{path}: {published} is not {expected} + description"]
        if set(prd) != set(published):
            return [f"{path}: keys {sorted(prd)} became {sorted(published)}"]
        return [d for k in prd for d in _differences(prd[k], published[k], f"{path}/{k}")]
    if isinstance(prd, list) and isinstance(published, list) and len(prd) == len(published):
        return [d for a, b in zip(prd, published) for d in _differences(a, b, path)]
    return [] if prd == published else [f"{path}: {prd!r} became {published!r}"]


@pytest.mark.parametrize("prd_name", TOOLS)
def test_published_schema_compiles_without_a_registry(prd_name: str) -> None:
    schema = published_output_schema(prd_name)
    strict_validator(schema)  # metaschema check, the client's empty registry
    assert unresolvable_refs(schema) == []
    assert all(ref.startswith("#") for ref in refs(schema)), "only document-local $refs"
    assert "$id" not in json.dumps(schema), "an $id would change how the client resolves $refs"


@pytest.mark.parametrize("prd_name", TOOLS)
def test_published_schema_only_drops_track_id_item_schemas(prd_name: str) -> None:
    prd = success_envelope_schema(prd_name)
    published = published_output_schema(prd_name)
    assert _differences(prd, published) == []
    # Dropping a subschema of `items` can only admit more instances: every PRD-valid envelope
    # stays valid. The tools with string lists do publish the lighter form.
    if prd_name in ("memory.reconstruct_playlist", "memory.get_playlist", "memory.get_playlists"):
        assert published != prd


def test_schemas_handed_out_are_copies() -> None:
    for build in (published_output_schema, success_envelope_schema):
        first = build("memory.reconstruct_playlist")
        first["properties"]["result"]["properties"]["track_ids"]["maxItems"] = 1
        assert "maxItems" not in build("memory.reconstruct_playlist")["properties"]["result"]["properties"]["track_ids"]


async def test_tools_list_publishes_these_schemas(settings: Settings) -> None:
    async with connected(settings) as call:
        published = await published_schemas(call.client)
    assert set(published.schemas) == {wire(name) for name in TOOLS}
    for prd_name in TOOLS:
        assert published.schemas[wire(prd_name)] == published_output_schema(prd_name)


def test_error_envelopes_satisfy_every_published_schema() -> None:
    """isError answers are not validated by the client, but the schema still describes them."""
    failure = {"success": False, "error": {"code": "NOT_FOUND", "message": "no such playlist", "details": {"x": 1}}}
    assert errors_of(Draft202012Validator(envelope_schema()), failure) == []
    for prd_name in TOOLS:
        assert list(strict_validator(published_output_schema(prd_name)).iter_errors(failure)) == []
    bad = {"success": False, "error": {"code": "NOPE", "message": "x"}}
    assert list(strict_validator(published_output_schema("memory.reconstruct_playlist")).iter_errors(bad))


def _big_reconstruction(tracks: int) -> dict[str, Any]:
    return {"success": True, "result": {
        "playlist_id": playlist(1), "as_of": "2025-01-01T00:00:00.000Z",
        "track_ids": [track(i) for i in range(tracks)],
        "reconstruction": {"used_snapshot_id": None, "applied_event_count": 0},
    }}


def test_a_big_track_list_costs_the_client_no_per_track_work(monkeypatch: pytest.MonkeyPatch) -> None:
    validator = strict_validator(published_output_schema("memory.reconstruct_playlist"))
    descents: list[int] = []
    original = type(validator).descend

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        descents.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(validator), "descend", counted)
    small, big = _big_reconstruction(10), _big_reconstruction(10_000)
    assert list(validator.iter_errors(small)) == []
    for_small = len(descents)
    descents.clear()
    assert list(validator.iter_errors(big)) == []
    assert len(descents) == for_small < 20


def test_the_prd_schema_still_checks_every_track_id() -> None:
    """What the published schema no longer checks, the PRD result schema (used by the tests) does."""
    envelope = _big_reconstruction(3)
    envelope["result"]["track_ids"][1] = "short"
    envelope["result"]["track_ids"][2] = 7
    published = strict_validator(published_output_schema("memory.reconstruct_playlist"))
    assert list(published.iter_errors(envelope)) == []  # looser, by design
    problems = errors_of(result_validator("memory.reconstruct_playlist"), envelope["result"])
    assert len(problems) == 2 and {p.split(":")[0] for p in problems} == {"track_ids/1", "track_ids/2"}
    # ... and the published one still checks everything around the list.
    for broken in ({**envelope["result"], "extra": 1}, {**envelope["result"], "track_ids": "x"},
                   {k: v for k, v in envelope["result"].items() if k != "as_of"}):
        assert list(published.iter_errors({"success": True, "result": broken})), broken


async def test_big_answers_validate_against_both_schemas(settings: Settings) -> None:
    """A 2,000-track playlist through the client: its answers satisfy the published and the PRD schema."""
    ids = [track(i) for i in range(2_000)]
    async with connected(settings) as call:
        published = await published_schemas(call.client)
        await call.ok("memory_log_playlist_create", {"user_id": 1, "playlist_id": playlist(1), "name": "big", "track_ids": ids})
        await call.ok("memory_log_playlist_mutation", {
            "user_id": 1, "playlist_id": playlist(1), "type": "ADD_TRACKS", "payload": {"track_ids": [track(5000)]},
        })
        answers = {
            "memory.reconstruct_playlist": await call("memory_reconstruct_playlist", {"user_id": 1, "playlist_id": playlist(1)}),
            "memory.get_playlist": await call("memory_get_playlist", {"user_id": 1, "playlist_id": playlist(1)}),
        }
    for prd_name, envelope in answers.items():
        assert envelope["success"], envelope
        assert published.problem(wire(prd_name), envelope) is None
        assert errors_of(result_validator(prd_name), envelope["result"]) == []
    assert answers["memory.reconstruct_playlist"]["result"]["track_ids"] == [*ids, track(5000)]
