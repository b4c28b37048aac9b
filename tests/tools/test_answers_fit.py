"""Answers that fit: on a large user every read beyond the PRD answers at most 16 KB (the compact
JSON of its whole envelope) with its default arguments, every answer validates against the
tool's result schema, and each paged list, followed to its end, gives every item exactly once.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from service.settings import Settings
from tests.support import Caller, connected
from tests.support.contract import assert_valid_success
from tests.support.large_user import BIG, LargeUser, large_export

USER = 77
FIT = 16_384


def _bytes(envelope: dict[str, Any]) -> int:
    return len(json.dumps(envelope, ensure_ascii=False, separators=(",", ":")).encode())


async def _read(call: Caller, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    envelope = await call(tool, {"user_id": USER, **arguments})
    result = assert_valid_success(tool.replace("memory_", "memory.").replace("ops_", "ops."), envelope)
    assert _bytes(envelope) <= FIT, f"{tool}({sorted(arguments)}) answered {_bytes(envelope):,} bytes"
    return result


async def _pages(
    call: Caller, tool: str, arguments: dict[str, Any], *keys: str, most: int = 100
) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]:
    """Every page of a read (the first ``most``), each within 16 KB and valid; the items of each of
    ``keys`` in order."""
    pages: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = await _read(call, tool, {**arguments, **({"cursor": cursor} if cursor else {})})
        pages.append(page)
        cursor = page["next_cursor"]
        if cursor is None or len(pages) == most:
            return pages, {k: [item for p in pages for item in p[k]] for k in keys}


async def test_every_read_beyond_the_prd_fits_and_pages_exactly(settings: Settings) -> None:
    user = LargeUser()
    data = large_export(user)
    async with connected(settings) as call:
        await call.service.transfer.import_user([data], USER)
        for tool, arguments in (
            ("memory_status", {}),
            ("memory_resolve_track", {"text": "song 12 of the night"}),
            ("memory_query", {}),
            ("memory_open_followups", {}),
            ("memory_feedback_summary", {}),
        ):
            await _read(call, tool, arguments)

        context = await _read(call, "memory_get_context", {})
        assert len(context["diagnostics"]["kept"]) <= 10 and len(context["diagnostics"]["dropped"]) <= 10
        full = await _read(call, "memory_get_context", {"detail": "full"})
        for part in ("kept", "dropped"):  # the same rows in all, cut later; the counts stay exact
            listed = len(full["diagnostics"][part]) + full["diagnostics"]["unlisted"][part]
            assert listed == len(context["diagnostics"][part]) + context["diagnostics"]["unlisted"][part]

        pages, items = await _pages(call, "memory_inspect", {}, "profile_fields")
        assert [f["path"] for f in items["profile_fields"]] == user.profile_paths
        assert pages[0]["last_context"] is not None and all(p["last_context"] is None for p in pages[1:])
        assert all(p["field_count"] == len(user.profile_paths) for p in pages)
        # detail "full" is the way to more than 16 KB: every field with five rows of each list, in one page.
        full_inspect = await call.ok("memory_inspect", {"user_id": USER, "detail": "full"})
        assert [f["path"] for f in full_inspect["profile_fields"]] == user.profile_paths
        assert (
            full_inspect["next_cursor"] is None and max(len(f["evidence"]) for f in full_inspect["profile_fields"]) == 5
        )

        before = {"playlist_id": BIG, "from_time": "2024-12-01T00:00:00Z"}
        pages, items = await _pages(call, "memory_diff_playlist", before, "added", "removed", "moved", "events")
        assert [(a["track_id"], a["index"]) for a in items["added"]] == [(t, i) for i, t in enumerate(user.tracks)]
        assert items["removed"] == [] and items["moved"] == []
        seqs = sorted(e["seq"] for e in items["events"])
        assert seqs == list(range(1, user.changes + 1)) and pages[0]["counts"]["events"] == user.changes

        pages, items = await _pages(call, "memory_get_playlist_timeline", {"playlist_id": BIG}, "points")
        points = items["points"]
        assert len(points) == pages[0]["point_count"] and len(pages) > 1
        assert points[0]["seq_from"] == 0 and points[-1]["seq_to"] == user.changes
        assert all(a["seq_to"] + 1 == b["seq_from"] for a, b in itertools.pairwise(points))
        assert points[-1]["track_count_end"] == len(user.tracks)

        pages, items = await _pages(
            call, "memory_check_playlist", {"track_ids": user.tracks}, "violations", "unverified", "unknown_tracks"
        )
        assert len(items["violations"]) == pages[0]["violation_count"] > 0
        assert len({json.dumps(v, sort_keys=True) for v in items["violations"]}) == len(items["violations"])

        pages, items = await _pages(call, "memory_rotation_report", {}, "new", "staples", most=300)
        ids = [e["track_id"] for e in items["new"] + items["staples"]]
        totals = pages[0]["totals"]
        assert len(ids) == len(set(ids)) == totals["new"] + totals["staples"] > 0

        for path in ("/likes/artists/1", "Artist 001"):
            pages, items = await _pages(call, "memory_explain", {"path": path}, "set_by", "evidence")
            assert len(pages) > 1
            assert len(items["evidence"]) == pages[0]["evidence_count"] == 50
            assert len(items["set_by"]) == pages[0]["set_by_count"]
            ids = [e.get("id") or e.get("memory_id") for e in items["evidence"]]
            assert len(set(ids)) == len(ids)

        # The import wrote an audit entry per record (tens of thousands): five pages show the paging.
        pages, items = await _pages(call, "ops_audit", {}, "entries", most=5)
        entries = [e["entry_id"] for e in items["entries"]]
        assert len(entries) == len(set(entries)) and pages[-1]["next_cursor"] is not None


async def test_a_cursor_not_issued_by_the_read_is_invalid_argument_naming_it(settings: Settings) -> None:
    user = LargeUser()
    data = large_export(user)
    async with connected(settings) as call:
        await call.service.transfer.import_user([data], USER)
        timeline = await call.ok("memory_get_playlist_timeline", {"user_id": USER, "playlist_id": BIG})
        for tool, arguments in (
            ("memory_inspect", {}),
            ("memory_diff_playlist", {"playlist_id": BIG, "from_time": "2024-12-01T00:00:00Z"}),
            ("memory_check_playlist", {"track_ids": user.tracks[:10]}),
            ("memory_rotation_report", {}),
            ("memory_explain", {"path": "Artist 001"}),
        ):
            for cursor in ("not-a-cursor", timeline["next_cursor"]):  # garbage, and another read's cursor
                error = await call.error(tool, {"user_id": USER, **arguments, "cursor": cursor}, "INVALID_ARGUMENT")
                assert error["details"]["field"] == "cursor", error
