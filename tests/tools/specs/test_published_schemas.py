"""The output schemas the tools publish: self-contained, true of every PRD result, cheap to check.

The stock MCP client validates every successful result against the published ``outputSchema`` with
``jsonschema``; a per-item subschema costs a sub-validator per item (~10 µs) and one per checked
field of an object item, so no array is published with one. These tests hold the published schemas
to four promises: a strict client can compile them with no registry; they differ from the full PRD
result schema only by moving each array's item schema (``items``) into its ``description``, verbatim,
on exactly the arrays listed here (so every PRD-valid result is valid against them, and the PRD rule
can be read back from them); the client's check of a 1,000-row answer costs as many sub-validations
as a 1-row one; and what the published schema no longer checks, the PRD schema the tests use does.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from models.schema_files import envelope_schema, published_output_schema, success_envelope_schema
from service.settings import Settings
from tests.support import connected, playlist, track
from tests.support.contract import TOOLS, errors_of, result_validator, wire
from tests.tools.specs.published import published_schemas, refs, strict_validator, unresolvable_refs

ITEM_RULE = "Every item: "  # how a published array's description quotes the PRD item schema it replaces

# The arrays published without their item schema, by result path: every array of the PRD results that is
# not itself inside an item schema (intent_tags of a get_playlists item goes with the item's schema).
DESCRIBED_ARRAYS = {
    "ops.list_users": ["users"],
    "memory.get_playlists": ["items"],
    "memory.get_playlist": [
        "playlist/intent_tags",
        "latest_snapshot/track_ids",
        "latest_snapshot/tracks",
        "recent_events",
    ],
    "memory.reconstruct_playlist": ["track_ids", "tracks"],
    "memory.search": ["results"],
    "ops.audit": ["entries"],
    "memory.undo_last_mutation": ["meta_fields"],
    "memory.resync_playlist": ["meta_fields"],
    "memory.diff_playlist": ["added", "removed", "moved", "meta_changes", "events"],
    "memory.resolve_track": ["best/artists", "alternatives"],
    "memory.confirm_track": ["track/artists"],
    "memory.check_playlist": [
        "violations",
        "unverified",
        "unknown_tracks",
        "rules/avoid_artists",
        "rules/avoid_tracks",
        "rules/avoid_genres",
    ],
    "memory.get_playlist_timeline": ["points"],
    "memory.rotation_report": ["new", "staples"],
    "memory.feedback_summary": ["groups"],
    "memory.add": ["memory/entities"],
    "memory.query": ["memories"],
    "memory.validate_recommendation": ["recommendation/entities"],
    "memory.open_followups": ["followups"],
    "memory.get_context": ["diagnostics/sections", "diagnostics/kept", "diagnostics/dropped"],
    "memory.record_choice": ["payload/choice/dimensions"],
    "memory.explain": ["set_by", "evidence"],
    "memory.inspect": [
        "last_context/diagnostics/sections",
        "last_context/diagnostics/kept",
        "last_context/diagnostics/dropped",
        "profile_fields",
    ],
}


def _arrays(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every array schema in a schema document, with its path of property names (``[]`` for an item)."""
    if isinstance(node, dict):
        if node.get("type") == "array":
            yield path, node
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    yield from _arrays(sub, f"{path}/{name}".lstrip("/"))
            elif key == "items":
                yield from _arrays(value, f"{path}[]")
            else:
                yield from _arrays(value, path)
    elif isinstance(node, list):
        for value in node:
            yield from _arrays(value, path)


def _restored(node: Any) -> Any:
    """The published schema with each array's quoted item rule put back as its ``items``."""
    if isinstance(node, dict):
        said = node.get("description")
        if node.get("type") == "array" and isinstance(said, str) and ITEM_RULE in said:
            start = said.index("{", said.index(ITEM_RULE))
            items, end = json.JSONDecoder().raw_decode(said, start)
            assert said[end:].startswith(". Not published as a per-item schema"), said
            own = said[: said.index(ITEM_RULE)].rstrip()  # the array's own description, if it had one
            restored = {**{k: _restored(v) for k, v in node.items() if k != "description"}, "items": items}
            return {**restored, "description": own} if own else restored
        return {k: _restored(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_restored(v) for v in node]
    return node


@pytest.mark.parametrize("prd_name", TOOLS)
def test_published_schema_compiles_without_a_registry(prd_name: str) -> None:
    schema = published_output_schema(prd_name)
    strict_validator(schema)  # metaschema check, the client's empty registry
    assert unresolvable_refs(schema) == []
    assert all(ref.startswith("#") for ref in refs(schema)), "only document-local $refs"
    assert "$id" not in json.dumps(schema), "an $id would change how the client resolves $refs"


@pytest.mark.parametrize("prd_name", TOOLS)
def test_published_schema_only_moves_item_schemas_into_descriptions(prd_name: str) -> None:
    prd = success_envelope_schema(prd_name)
    published = published_output_schema(prd_name)
    # Nothing else changed: putting the quoted item rules back gives the PRD schema, key for key.
    assert _restored(published) == prd
    # No array of the published schema keeps a per-item schema, and the arrays that lost one are exactly
    # the PRD's arrays with items (outside other items), each quoting its own rule.
    assert [path for path, array in _arrays(published) if "items" in array] == []
    described = [path.removeprefix("result/") for path, array in _arrays(published) if "description" in array]
    assert described == DESCRIBED_ARRAYS.get(prd_name, [])
    assert described == [
        path.removeprefix("result/") for path, array in _arrays(prd) if "items" in array and "[]" not in path
    ]
    # Dropping a subschema of `items` can only admit more instances: every PRD-valid envelope stays valid.
    assert (published != prd) == (prd_name in DESCRIBED_ARRAYS)


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


ISO = "2025-01-01T00:00:00.000Z"
MEMORY_ID = "mem_" + "0" * 24


def _event(i: int) -> dict[str, Any]:
    return {
        "event_id": str(uuid.UUID(int=i + 1)),
        "timestamp": ISO,
        "type": "ADD_TRACKS",
        "payload": {"track_ids": [track(i)]},
    }


# A PRD-valid result of each tool with a described array, its lists `rows` long.
ANSWERS: dict[str, Callable[[int], dict[str, Any]]] = {
    "ops.list_users": lambda rows: {
        "users": [
            {
                "user_id": i + 1,
                "profile_version": i,
                "playlist_count": 3,
                "preference_event_count": 4,
                "updated_at": ISO if i % 2 else None,
            }
            for i in range(rows)
        ]
    },
    "memory.get_playlists": lambda rows: {
        "items": [
            {
                "playlist_id": playlist(i),
                "name": f"List {i}",
                "created_at": ISO,
                "updated_at": ISO,
                "intent_tags": ["calm", "late night"],
                "track_count": 30,
            }
            for i in range(rows)
        ],
        "next_cursor": None,
    },
    "memory.get_playlist": lambda rows: {
        "playlist": {
            "playlist_id": playlist(1),
            "user_id": 1,
            "name": "P",
            "created_at": ISO,
            "updated_at": ISO,
            "intent_tags": [f"tag{i}" for i in range(rows)],
        },
        "latest_snapshot": {
            "snapshot_id": str(uuid.UUID(int=1)),
            "created_at": ISO,
            "track_ids": [track(i) for i in range(rows)],
        },
        "recent_events": [_event(i) for i in range(rows)],
    },
    "memory.reconstruct_playlist": lambda rows: {
        "playlist_id": playlist(1),
        "as_of": ISO,
        "track_ids": [track(i) for i in range(rows)],
        "reconstruction": {"used_snapshot_id": None, "applied_event_count": 0},
    },
    "memory.search": lambda rows: {
        "results": [
            {
                "kind": "playlist",
                "id": playlist(i),
                "score": 1 / (i + 1),
                "snippet": "late night synthwave",
                "metadata": {"name": f"List {i}"},
            }
            for i in range(rows)
        ]
    },
    "ops.audit": lambda rows: {
        "entries": [
            {
                "entry_id": f"entry{i}",
                "time": ISO,
                "collection": "playlists",
                "operation": "update",
                "user_id": 1,
                "playlist_id": playlist(1),
                "document_key": playlist(1),
                "tool": "memory.log_playlist_mutation",
                "request_id": f"req{i}",
                "principal": "local",
                "via": "write_path",
                "source": "mcp",
            }
            for i in range(rows)
        ],
        "next_cursor": None,
    },
    "memory.undo_last_mutation": lambda rows: {
        **_scripted(rows),
        "undid": {"event_id": str(uuid.UUID(int=2)), "type": "ADD_TRACKS", "redo": False},
    },
    "memory.resync_playlist": lambda rows: {**_scripted(rows), "new_snapshot_id": str(uuid.UUID(int=3))},
    "memory.resolve_track": lambda rows: {
        "user_id": 1,
        "resolved": True,
        "best": {
            "track_id": track(0),
            "name": "n",
            "artists": [f"a{i}" for i in range(rows)],
            "confidence": 0.9,
            "reason": "r",
        },
        "alternatives": [
            {"track_id": track(i), "name": "n", "artists": ["a"], "confidence": 0.5, "reason": "r"}
            for i in range(min(rows, 20))
        ],
    },  # at most 20 alternatives
    "memory.confirm_track": lambda rows: {
        "user_id": 1,
        "text": "t",
        "track": {"track_id": track(0), "name": "n", "artists": [f"a{i}" for i in range(rows)]},
        "confirmations": 1,
        "confirmed_at": ISO,
    },
    "memory.check_playlist": lambda rows: {
        "user_id": 1,
        "ok": False,
        "rules_source": "inline",
        "violation_count": rows,
        "unknown_count": rows,
        "violations": [
            {"rule": "no_duplicates", "track_ids": [track(i)], "message": "m", "suggestion": "s"}
            for i in range(min(rows, 50))
        ],
        "unverified": [{"rule": "breathers", "track_ids": [track(i)], "message": "m"} for i in range(min(rows, 10))],
        "unknown_tracks": [track(i) for i in range(min(rows, 500))],
        "rules": {
            "no_duplicates": True,
            "avoid_artists": ["a"] * rows,
            "avoid_tracks": [track(i) for i in range(rows)],
            "avoid_genres": ["g"] * rows,
        },
    },
    "memory.diff_playlist": lambda rows: {
        "playlist_id": playlist(1),
        "from_time": ISO,
        "to_time": ISO,
        "existed_at_from_time": True,
        "added": [{"track_id": track(i), "index": i} for i in range(rows)],
        "removed": [{"track_id": track(i), "index": i} for i in range(rows)],
        "moved": [{"track_id": track(i), "from_index": i, "to_index": i + 1} for i in range(rows)],
        "meta_changes": [{"field": "name", "from": f"n{i}", "to": None} for i in range(rows)],
        "events": [
            {k: v for k, v in _event(i).items() if k != "payload"} | {"seq": i, "detail": {}} for i in range(rows)
        ],
        "counts": {"added": rows, "removed": rows, "moved": rows, "events": rows},
        "truncated": False,
    },
    "memory.get_playlist_timeline": lambda rows: {
        "user_id": 1,
        "playlist_id": playlist(1),
        "events_total": rows,
        "track_count": rows,
        "points": [
            {
                "from": ISO,
                "to": ISO,
                "seq_from": i,
                "seq_to": i,
                "track_count_min": i,
                "track_count_max": i,
                "track_count_end": i,
                "types": {"ADD_TRACKS": 1},
            }
            for i in range(rows)
        ],
    },
    "memory.rotation_report": lambda rows: {
        "as_of": ISO,
        "days": 30,
        "window_start": ISO,
        "truncated": False,
        "totals": {"playlists": 3, "tracks_in_rotation": 2 * rows, "new": rows, "staples": rows, "other": 0},
        "new": [_rotated(i) for i in range(rows)],
        "staples": [_rotated(i) | {"reasons": ["in_3_or_more_playlists"]} for i in range(rows)],
    },
    "memory.add": lambda rows: {
        "user_id": 1,
        "memory_id": MEMORY_ID,
        "deduplicated": False,
        "memory": {
            "memory_id": MEMORY_ID,
            "type": "insight",
            "entities": [f"e{i}" for i in range(rows)],
            "summary": "s",
            "importance": 8,
            "metadata": {},
            "timestamp": ISO,
            "last_seen_at": ISO,
            "seen_count": 1,
            "fuzzy": False,
            "validated_at": None,
        },
    },
    "memory.query": lambda rows: {
        "user_id": 1,
        "memories": [
            {
                "memory_id": MEMORY_ID,
                "timestamp": ISO,
                "type": "event",
                "entities": ["e"],
                "summary": "s",
                "importance": 7,
                "days_ago": i,
                "fuzzy": False,
                "seen_count": 1,
                "metadata": {},
                "score": 1.0,
            }
            for i in range(rows)
        ],
    },
    "memory.validate_recommendation": lambda rows: {
        "user_id": 1,
        "memory_id": MEMORY_ID,
        "recommendation": {
            "entities": [f"e{i}" for i in range(rows)],
            "summary": "s",
            "recommended_at": ISO,
            "days_since": 3,
            "check_after_days": 7,
        },
        "validation": {
            "plays_since_rec": rows,
            "plays_before_rec": 0,
            "user_heard_before": False,
            "first_play_after": ISO,
            "matched_on": "work",
            "plays_logged": True,
        },
        "follow_up_suggestion": "f",
    },
    "memory.open_followups": lambda rows: {
        "user_id": 1,
        "total": rows,
        "followups": [
            {
                "memory_id": MEMORY_ID,
                "entities": ["e"],
                "summary": "s",
                "recommended_at": ISO,
                "days_since": 9,
                "check_after_days": 7,
                "due_at": ISO,
            }
            for _ in range(rows)
        ],
    },
    "memory.get_context": lambda rows: {
        "user_id": 1,
        "block": "b",
        "tokens": 30,
        "diagnostics": {
            "estimator": "e",
            "budget_tokens": 4000,
            "focus_matches": 0,
            "sections": [
                {"section": s, "kept": rows, "dropped": rows, "tokens": rows}
                for s in ("prefer", "avoid", "rules", "playlists", "followups")
            ],
            "kept": [
                {"section": "prefer", "kind": "profile_field", "id": f"/likes/{i}", "reason": "ranked"}
                for i in range(rows)
            ],
            "dropped": [
                {
                    "section": "avoid",
                    "kind": "preference_event",
                    "id": str(uuid.UUID(int=i + 1)),
                    "reason": "superseded",
                    "superseded_by": str(uuid.UUID(int=i + 2)),
                }
                for i in range(rows)
            ],
            "unlisted": {"kept": 0, "dropped": 0},
        },
    },
    "memory.record_choice": lambda rows: {
        "event_id": str(uuid.UUID(int=1)),
        "user_id": 1,
        "timestamp": ISO,
        "type": "feedback",
        "source": "user",
        "payload": {
            "choice": {
                "kind": "artist",
                "chose": {"name": "a"},
                "over": {"id": "b"},
                "dimensions": [f"d{i}" for i in range(rows)],
            },
            "raw_text": "r",
            "context": "c",
        },
    },
    "memory.explain": lambda rows: {
        "user_id": 1,
        "path": "/likes/0",
        "value": "a",
        "history_complete": True,
        "truncated": False,
        "set_by": [
            {"version": i + 1, "applied_at": ISO, "source": "user", "reason": "r", "path": "/likes", "value": "a"}
            for i in range(rows)
        ],
        "evidence": [
            {
                "kind": "preference_event",
                "id": str(uuid.UUID(int=i + 1)),
                "timestamp": ISO,
                "type": "like",
                "source": "user",
                "raw_text": "r",
                "superseded_by": str(uuid.UUID(int=i + 2)),
            }
            for i in range(rows)
        ],
    },
    "memory.inspect": lambda rows: {
        "user_id": 1,
        "enabled": True,
        "paused_until": None,
        "unlisted_fields": 0,
        "history_complete": True,
        "hidden": None,
        "counts": {
            "preference_events": rows,
            "playlists": 0,
            "tracks": 0,
            "memories": 0,
            "play_buckets": 0,
            "aging_records": 0,
            "profile_version": rows,
        },
        "last_context": {
            "served_at": ISO,
            "budget_tokens": 500,
            "focus": None,
            "block": "b",
            "tokens": 30,
            "diagnostics": {
                "estimator": "e",
                "budget_tokens": 500,
                "focus_matches": 0,
                "sections": [
                    {"section": s, "kept": rows, "dropped": 0, "tokens": rows}
                    for s in ("prefer", "avoid", "rules", "playlists", "followups")
                ],
                "kept": [
                    {"section": "prefer", "kind": "profile_field", "id": f"/likes/{i}", "reason": "ranked"}
                    for i in range(rows)
                ],
                "dropped": [],
                "unlisted": {"kept": 0, "dropped": 0},
            },
        },
        "profile_fields": [
            {
                "path": f"/likes/{i}",
                "value": "a",
                "set_by_count": 1,
                "evidence_count": 1,
                "set_by": [{"version": 1, "applied_at": ISO, "source": "user", "reason": None}],
                "evidence": [{"id": str(uuid.UUID(int=i + 1)), "type": "like", "timestamp": ISO}],
            }
            for i in range(min(rows, 200))
        ],
    },
    "memory.feedback_summary": lambda rows: {
        "as_of": ISO,
        "truncated": False,
        "totals": {"preference_events": 2 * rows, "profile_patches": 0, "groups": rows, "recurring_groups": rows},
        "groups": [
            {
                "key": f"max: artist{i}",
                "basis": "same_words",
                "count": 2,
                "types": {"rule": 2},
                "first_seen": ISO,
                "last_seen": ISO,
                "label": "max two songs per artist",
                "subjects": [],
                "examples": [
                    {
                        "source": "preference_event",
                        "event_id": str(uuid.UUID(int=i + 1)),
                        "type": "rule",
                        "at": ISO,
                        "text": "no more than 2 per artist",
                    }
                ],
            }
            for i in range(rows)
        ],
    },
}


def _rotated(i: int) -> dict[str, Any]:
    return {
        "track_id": track(i),
        "first_seen": ISO,
        "present_since": ISO,
        "playlist_count": 1,
        "playlists": [playlist(1)],
        "name": f"Song {i}",
        "artists": ["Band"],
    }


def _scripted(rows: int) -> dict[str, Any]:
    return {
        "event_id": str(uuid.UUID(int=1)),
        "playlist_id": playlist(1),
        "timestamp": ISO,
        "new_snapshot_id": None,
        "added_count": rows,
        "removed_count": 0,
        "meta_fields": ["name", "intent_tags"] * rows,
    }


# Sub-validations of an answer's fixed part (its fields outside arrays): memory_inspect nests the
# context block's diagnostics and the switch counts, so its fixed part is bigger; none grows with rows.
FIXED_DESCENTS = {"memory.inspect": 40}


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
