"""The ledger-move, catalog and insight tools end to end: the PRD stories they serve, played by the
official MCP SSE client (which validates every answer against the tool's published outputSchema)
against a real ``serve`` process with tokens; then every write they made is in the audit trail,
attributed to its tool and token, and every call has its log line.

The stories (seed 000 §5, §10.5-§10.8): name the tracks of a playlist, resolve "that nightwsh song",
confirm the user's pick, check a draft against the profile's rules, undo the last change and redo
it, resync after the user edited the playlist in the app, fork a v2, diff since last time, what is
newly in rotation, which rules keep recurring.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.support import every_tool, playlist, track
from tests.support.audit_checks import assert_logged_and_audited, settled_entries, tool_call_lines
from tests.support.mcp_sessions import sse_session
from tests.support.server_process import assert_rederive_clean, running_server
from tests.support.tokens import create_token, token_env

pytestmark = pytest.mark.slow

USER = 11
DRIVE, DRIVE_V2 = playlist(301), playlist(302)
CATALOG = [
    {
        "track_id": track(1),
        "name": "Ghost Love Score",
        "artists": ["Nightwish"],
        "duration_ms": 600_000,
        "genres": ["symphonic metal"],
        "energy": 0.8,
    },
    {"track_id": track(2), "name": "Nemo", "artists": ["Nightwish"], "duration_ms": 280_000, "energy": 0.5},
    {"track_id": track(3), "name": "Sleeping Sun", "artists": ["Nightwish"], "duration_ms": 240_000, "energy": 0.2},
    {"track_id": track(4), "name": "Primo Victoria", "artists": ["Sabaton"], "duration_ms": 250_000, "energy": 0.9},
    {
        "track_id": track(5),
        "name": "Blind and Frozen",
        "artists": ["Beast In Black"],
        "duration_ms": 240_000,
        "energy": 0.9,
    },
    {"track_id": track(6), "name": "Viva la Vida", "artists": ["Coldplay"], "duration_ms": 242_000, "energy": 0.6},
]
WRITES = {
    "memory.upsert_tracks",
    "memory.confirm_track",
    "memory.log_playlist_create",
    "memory.log_playlist_mutation",
    "memory.undo_last_mutation",
    "memory.resync_playlist",
    "memory.fork_playlist",
    "memory.update_profile",
    "memory.append_preference_event",
}


async def test_the_stories_over_sse_are_validated_audited_and_logged(settings: Settings, tmp_path: Path) -> None:
    token_file = tmp_path / "tokens.json"
    token, token_id = create_token(token_file, USER)
    operator, _ = create_token(token_file, role="operator")
    made: list[str] = []
    with running_server(settings, tmp_path, extra_env=token_env(token_file)) as server:
        async with sse_session(server, token) as wire:

            async def ok(tool: str, arguments: dict[str, Any]) -> Any:
                made.append(tool)
                return await wire.ok(tool, arguments)

            listed = await every_tool(wire.client)
            new_tools = {
                t.name: t
                for t in listed
                if t.name
                in {
                    "memory_upsert_tracks",
                    "memory_resolve_track",
                    "memory_confirm_track",
                    "memory_check_playlist",
                    "memory_undo_last_mutation",
                    "memory_fork_playlist",
                    "memory_resync_playlist",
                    "memory_diff_playlist",
                    "memory_rotation_report",
                    "memory_feedback_summary",
                }
            }
            assert len(new_tools) == 10
            for tool in new_tools.values():
                hints = tool.annotations
                assert tool.title and tool.description and tool.output_schema and hints is not None
                assert None not in (
                    hints.read_only_hint,
                    hints.destructive_hint,
                    hints.idempotent_hint,
                    hints.open_world_hint,
                ), tool.name

            await ok(
                "memory_update_profile",
                {
                    "user_id": USER,
                    "patch": {"playlist_rules": {"max_tracks_per_artist": 2, "arc": "drive → breather → drive"}},
                    "reason": "User feedback",
                },
            )
            for said in ("no more than two songs per artist", "max 2 tracks by the same artist please"):
                await ok(
                    "memory_append_preference_event", {"user_id": USER, "type": "rule", "payload": {"raw_text": said}}
                )
            assert (await ok("memory_upsert_tracks", {"user_id": USER, "tracks": CATALOG}))["inserted"] == 6

            # "Play that nightwsh song": resolved from the catalog; the user picks Nemo, and it sticks.
            resolved = await ok("memory_resolve_track", {"user_id": USER, "text": "that nightwsh song"})
            assert resolved["best"]["artists"] == ["Nightwish"]
            await ok("memory_confirm_track", {"user_id": USER, "text": "that nightwsh song", "track_id": track(2)})
            again = await ok("memory_resolve_track", {"user_id": USER, "text": "that nightwsh song"})
            assert again["resolved"] and again["best"]["track_id"] == track(2)
            missing = await ok("memory_resolve_track", {"user_id": USER, "text": "bohemian rhapsody queen"})
            assert missing["resolved"] is False

            # A draft with three Nightwish songs breaks the profile's rule; the logged one does not.
            draft = [track(1), track(2), track(3), track(4)]
            checked = await ok("memory_check_playlist", {"user_id": USER, "track_ids": draft})
            assert not checked["ok"] and any(v["rule"] == "max_tracks_per_artist" for v in checked["violations"])
            tracks = [track(1), track(4), track(3), track(2), track(5)]
            await ok(
                "memory_log_playlist_create",
                {
                    "user_id": USER,
                    "playlist_id": DRIVE,
                    "name": "Drive",
                    "track_ids": tracks,
                    "created_at": "2025-01-01T10:00:00Z",
                },
            )
            named = await ok(
                "memory_reconstruct_playlist", {"user_id": USER, "playlist_id": DRIVE, "include_tracks": True}
            )
            assert [t["name"] for t in named["tracks"]] == [
                "Ghost Love Score",
                "Primo Victoria",
                "Sleeping Sun",
                "Nemo",
                "Blind and Frozen",
            ]

            # "Undo the last change", then redo it.
            await ok(
                "memory_log_playlist_mutation",
                {
                    "user_id": USER,
                    "playlist_id": DRIVE,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track(6)]},
                    "timestamp": "2025-02-01T10:00:00Z",
                },
            )
            undone = await ok("memory_undo_last_mutation", {"user_id": USER, "playlist_id": DRIVE})
            assert (await ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": DRIVE}))[
                "track_ids"
            ] == tracks
            await ok(
                "memory_undo_last_mutation", {"user_id": USER, "playlist_id": DRIVE, "event_id": undone["event_id"]}
            )
            assert (await ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": DRIVE}))["track_ids"] == [
                *tracks,
                track(6),
            ]

            # The user reordered it in the app: resync, then a v2 from before the resync.
            in_app = [track(5), track(1), track(4), track(3), track(2)]
            await ok(
                "memory_resync_playlist",
                {"user_id": USER, "playlist_id": DRIVE, "track_ids": in_app, "reason": "reordered in Spotify"},
            )
            fork = await ok(
                "memory_fork_playlist",
                {
                    "user_id": USER,
                    "playlist_id": DRIVE,
                    "new_playlist_id": DRIVE_V2,
                    "name": "Drive v2",
                    "at_time": "2025-01-15T00:00:00Z",
                },
            )
            assert fork["stored_track_count"] == len(tracks)
            details = await ok("memory_get_playlist", {"user_id": USER, "playlist_id": DRIVE_V2})
            assert details["playlist"]["forked_from"]["playlist_id"] == DRIVE

            diff = await ok(
                "memory_diff_playlist", {"user_id": USER, "playlist_id": DRIVE, "from_time": "2025-01-15T00:00:00Z"}
            )
            assert [e["type"] for e in diff["events"]] == ["ADD_TRACKS", "UNDO", "UNDO", "RESYNC"]
            assert [a["track_id"] for a in diff["removed"]] == [] and diff["counts"]["moved"] >= 1

            # Everything was first logged in 2025: nothing is new this month; the five tracks still in
            # the playlists are staples (track 6 came and went), named from the catalog.
            rotation = await ok("memory_rotation_report", {"user_id": USER, "days": 30})
            assert rotation["new"] == []
            assert sorted(t["track_id"] for t in rotation["staples"]) == sorted(tracks)
            assert {t["track_id"]: t["name"] for t in rotation["staples"]}[track(2)] == "Nemo"
            recurring = await ok("memory_feedback_summary", {"user_id": USER})
            assert recurring["groups"] and recurring["groups"][0]["count"] >= 2

        logged = tool_call_lines(server)
        async with sse_session(server, operator) as audit_reader:
            trail = await settled_entries(audit_reader, settings, lambda e: len(e) >= len(made) // 2, user_id=USER)

    # One log line per call, in order; every write call has audit entries naming its tool and token.
    assert_logged_and_audited(made, logged, trail, WRITES, token_id, USER, settings)
    assert {e["collection"] for e in trail} >= {"tracks", "track_choices", "playlist_history"}
    assert_rederive_clean(settings, tmp_path)  # every derived view is what the records say
