"""Authentication and per-user authorization, over SSE with the official MCP client against a
real ``serve`` process whose tokens were made with ``memory-service token create``."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.support import playlist, track
from tests.support.audit_checks import settled_entries
from tests.support.mcp_sessions import WireCaller, sse_session
from tests.support.server_process import free_port, run_cli, running_server
from tests.support.tokens import create_token, revoke_token, token_env

pytestmark = pytest.mark.slow

ALICE, BOB, NOBODY = 1, 2, 999  # NOBODY never has data: a refusal must not differ from BOB's
SHARED = playlist(1)  # logged by both ALICE and BOB


def calls_for(user_id: int) -> dict[str, dict[str, Any]]:
    """One valid call of every tool that names a user, for ``user_id``."""
    return {
        "memory_get_profile": {"user_id": user_id},
        "memory_update_profile": {"user_id": user_id, "patch": {"genres": ["polka"]}},
        "memory_append_preference_event": {"user_id": user_id, "type": "like", "payload": {"raw_text": "polka"}},
        "memory_log_playlist_create": {
            "user_id": user_id,
            "playlist_id": playlist(50),
            "name": "New",
            "track_ids": [track(1)],
        },
        "memory_log_playlist_mutation": {
            "user_id": user_id,
            "playlist_id": SHARED,
            "type": "ADD_TRACKS",
            "payload": {"track_ids": [track(7)]},
        },
        "memory_get_playlists": {"user_id": user_id},
        "memory_get_playlist": {"user_id": user_id, "playlist_id": SHARED},
        "memory_reconstruct_playlist": {"user_id": user_id, "playlist_id": SHARED},
        "memory_search": {"user_id": user_id, "query": "polka"},
        "memory_export_user_data": {"user_id": user_id},
        "memory_delete_user_data": {"user_id": user_id, "confirm": True},
        "ops_audit": {"user_id": user_id},
        "memory_undo_last_mutation": {"user_id": user_id, "playlist_id": SHARED},
        "memory_resync_playlist": {"user_id": user_id, "playlist_id": SHARED, "track_ids": [track(2)]},
        "memory_fork_playlist": {"user_id": user_id, "playlist_id": SHARED, "new_playlist_id": playlist(51)},
        "memory_diff_playlist": {"user_id": user_id, "playlist_id": SHARED, "from_time": "2020-01-01T00:00:00Z"},
        "memory_get_playlist_timeline": {"user_id": user_id, "playlist_id": SHARED, "max_points": 10},
        "memory_playlist_portability": {"user_id": user_id, "playlist_id": SHARED, "target": "isrc"},
        "memory_upsert_tracks": {
            "user_id": user_id,
            "tracks": [{"track_id": track(1), "name": "Polka", "artists": ["Band"]}],
        },
        "memory_resolve_track": {"user_id": user_id, "text": "polka"},
        "memory_confirm_track": {"user_id": user_id, "text": "polka", "track_id": track(1)},
        "memory_check_playlist": {"user_id": user_id, "track_ids": [track(1)]},
        "memory_rotation_report": {"user_id": user_id, "days": 30, "limit": 10},
        "memory_feedback_summary": {"user_id": user_id, "limit": 10},
        "memory_add": {
            "user_id": user_id,
            "type": "insight",
            "entities": ["Polka"],
            "summary": "Loves polka",
            "importance": 8,
        },
        "memory_query": {"user_id": user_id, "entity": "polka"},
        "memory_log_plays": {
            "user_id": user_id,
            "plays": [{"artist": "Polka Band", "played_at": "2025-01-01T00:00:00Z"}],
        },
        "memory_validate_recommendation": {"user_id": user_id, "memory_id": "mem_" + "0" * 24},
        "memory_open_followups": {"user_id": user_id},
        "memory_set_enabled": {"user_id": user_id, "enabled": True},
        "memory_pause": {"user_id": user_id, "until": None},
        "memory_status": {"user_id": user_id},
        "memory_inspect": {"user_id": user_id},
        "memory_get_context": {"user_id": user_id, "budget_tokens": 500},
        "memory_import_user_data": {
            "user_id": user_id,
            "data": {"format": "taste-memory-export/1"},
            "confirm": True,
            "replace": True,
        },
        "memory_record_choice": {
            "user_id": user_id,
            "chose": {"kind": "artist", "name": "Polka Band"},
            "over": {"kind": "artist", "name": "Jazz Band"},
        },
        "memory_explain": {"user_id": user_id, "path": "Polka Band"},
        "memory_list_conflicts": {"user_id": user_id},
        "memory_resolve_conflict": {"user_id": user_id, "conflict_id": "cf_0", "resolution": "dismiss"},
        "memory_forget": {"user_id": user_id, "kind": "profile_field", "id": "/genres", "confirm": True},
    }


ALL_TOOLS = {*calls_for(ALICE), "ops_list_users", "memory_enable_toolsets"}  # the last two name no user


def _without_moment(export: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in export.items() if k != "as_of"}


async def _seed(call: WireCaller, user_id: int) -> None:
    await call.ok("memory_update_profile", {"user_id": user_id, "patch": {"likes": [f"user {user_id}"]}})
    await call.ok(
        "memory_log_playlist_create",
        {"user_id": user_id, "playlist_id": SHARED, "name": "Mine", "track_ids": [track(1), track(2)]},
    )


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    return tmp_path / "secrets" / "tokens.json"


async def test_calls_without_a_valid_token_are_unauthorized(
    settings: Settings, tmp_path: Path, token_file: Path
) -> None:
    alice, _ = create_token(token_file, ALICE, label="alice's assistant")
    forged = alice[:-4] + ("AAAA" if not alice.endswith("AAAA") else "BBBB")  # right id, wrong secret
    # OAuth off: a call without a token is answered in band (with it on, the default, it is a 401
    # that starts discovery: tests/auth/test_default_oauth_challenge.py).
    env = {**token_env(token_file), "MEMORY_OAUTH": "off"}
    with running_server(settings, tmp_path, extra_env=env) as server:
        for token in (None, "not-a-token", "tm_000000000000_" + "x" * 43, forged):
            async with sse_session(server, token) as call:
                for tool in sorted(ALL_TOOLS):
                    arguments = calls_for(ALICE).get(tool, {})
                    error = await call.error(tool, arguments, "UNAUTHORIZED")
                    assert "bearer token" in error["message"]
                # An invalid call is still answered UNAUTHORIZED first: nothing about the arguments leaks.
                await call.error("memory_get_profile", {"user_id": "x", "extra": 1}, "UNAUTHORIZED")
        async with sse_session(server, alice) as call:
            assert (await call.ok("memory_get_profile", {"user_id": ALICE}))["version"] == 0


async def test_a_revoked_token_stops_working_at_its_next_call(
    settings: Settings, tmp_path: Path, token_file: Path
) -> None:
    alice, alice_id = create_token(token_file, ALICE)
    other, _ = create_token(token_file, ALICE)
    with running_server(settings, tmp_path, extra_env=token_env(token_file)) as server:
        async with sse_session(server, alice) as call:
            await call.ok("memory_update_profile", {"user_id": ALICE, "patch": {"a": 1}})
            revoke_token(token_file, alice_id)
            # Same open session: the token is checked on every message, not once per connection.
            await call.error("memory_get_profile", {"user_id": ALICE}, "UNAUTHORIZED")
            await call.error("memory_update_profile", {"user_id": ALICE, "patch": {"a": 2}}, "UNAUTHORIZED")
        async with sse_session(server, alice) as call:
            await call.error("memory_get_profile", {"user_id": ALICE}, "UNAUTHORIZED")
        async with sse_session(server, other) as call:
            profile = await call.ok("memory_get_profile", {"user_id": ALICE})
    assert profile["profile"] == {"a": 1}, "the refused write after revocation must not have been applied"
    listed = run_cli(["token", "list", "--json"], cwd=tmp_path, env=token_env(token_file))
    assert alice_id in listed.stdout and "token_hash" not in listed.stdout and alice not in listed.stdout


async def test_a_user_token_is_forbidden_for_every_other_user_on_every_tool(
    settings: Settings, tmp_path: Path, token_file: Path
) -> None:
    alice, _ = create_token(token_file, ALICE)
    bob, _ = create_token(token_file, BOB)
    with running_server(settings, tmp_path, extra_env=token_env(token_file)) as server:
        async with sse_session(server, bob) as call:
            await _seed(call, BOB)
            bob_before = _without_moment(await call.export(BOB))
        async with sse_session(server, alice) as call:
            await _seed(call, ALICE)
            for tool, arguments in calls_for(BOB).items():
                refused = await call.error(tool, arguments, "FORBIDDEN")
                # The same answer for a user with data (BOB) and one without (NOBODY).
                assert refused == await call.error(tool, calls_for(NOBODY)[tool], "FORBIDDEN"), tool
            # The bootstrap call works for a user token, showing only its own user.
            users = await call.ok("ops_list_users", {})
            assert [u["user_id"] for u in users["users"]] == [ALICE]
        async with sse_session(server, bob) as call:
            assert _without_moment(await call.export(BOB)) == bob_before, "a refused call changed another user's data"


async def test_an_operator_token_reads_every_user_deletes_and_audits(
    settings: Settings, tmp_path: Path, token_file: Path
) -> None:
    alice, alice_id = create_token(token_file, ALICE)
    bob, _ = create_token(token_file, BOB)
    operator, operator_id = create_token(token_file, role="operator", label="on-call")
    with running_server(settings, tmp_path, extra_env=token_env(token_file)) as server:
        for token, user_id in ((alice, ALICE), (bob, BOB)):
            async with sse_session(server, token) as call:
                await _seed(call, user_id)
        async with sse_session(server, operator) as call:
            users = await call.ok("ops_list_users", {})
            assert [u["user_id"] for u in users["users"]] == [ALICE, BOB]
            for user_id in (ALICE, BOB):
                profile = await call.ok("memory_get_profile", {"user_id": user_id})
                assert profile["profile"] == {"likes": [f"user {user_id}"]}
                rebuilt = await call.ok("memory_reconstruct_playlist", {"user_id": user_id, "playlist_id": SHARED})
                assert rebuilt["track_ids"] == [track(1), track(2)]
                await call.ok("memory_search", {"user_id": user_id, "query": "mine"})
                await call.ok("memory_get_playlist", {"user_id": user_id, "playlist_id": SHARED})
            # Reading is not impersonating: an operator does not write into a user's memory.
            await call.error("memory_update_profile", {"user_id": ALICE, "patch": {"x": 1}}, "FORBIDDEN")
            # On MongoDB the change-stream watcher writes entries (and purges a deleted user's)
            # after the call answers: wait for it, within a bound.
            trail = await settled_entries(call, settings, lambda es: len(es) >= 2, user_id=ALICE)
            assert trail and {e["principal"] for e in trail} == {alice_id}
            deleted = await call.ok("memory_delete_user_data", {"user_id": BOB, "confirm": True})
            assert deleted["deleted"] is True
            tombstones = await settled_entries(call, settings, lambda es: len(es) == 1, user_id=BOB)
            assert [(e["operation"], e["principal"], e["playlist_id"]) for e in tombstones] == [
                ("delete_user_data", operator_id, None)
            ]
        async with sse_session(server, alice) as call:
            await call.error("ops_audit", {}, "FORBIDDEN")


async def test_calls_beyond_the_rate_limit_are_told_when_to_retry(
    settings: Settings, tmp_path: Path, token_file: Path
) -> None:
    alice, _ = create_token(token_file, ALICE)
    also_alice, _ = create_token(token_file, ALICE)
    limits = {"MEMORY_RATE_LIMIT_PER_MINUTE": "6", "MEMORY_RATE_LIMIT_BURST": "3"}
    with running_server(settings, tmp_path, extra_env={**token_env(token_file), **limits}) as server:
        async with sse_session(server, alice) as call:
            for _ in range(3):
                await call.ok("memory_get_profile", {"user_id": ALICE})
            error = await call.error("memory_get_profile", {"user_id": ALICE}, "RATE_LIMITED")
            # 6 per minute: the next call is allowed within about 10 s.
            assert 0 < error["details"]["retry_after_s"] <= 10
        async with sse_session(server, also_alice) as call:  # the budget is per token
            await call.ok("memory_get_profile", {"user_id": ALICE})


async def test_a_token_can_carry_its_own_rate_limit(settings: Settings, tmp_path: Path, token_file: Path) -> None:
    agent, _ = create_token(token_file, ALICE)
    backfill, backfill_id = create_token(token_file, ALICE, rate_limit_per_minute=600)
    unlimited, _ = create_token(token_file, ALICE, rate_limit_per_minute=0)
    strict, _ = create_token(token_file, ALICE, rate_limit_per_minute=2)
    listed = json.loads(run_cli(["token", "list", "--json"], cwd=tmp_path, env=token_env(token_file)).stdout)
    assert {r["token_id"]: r["rate_limit_per_minute"] for r in listed}[backfill_id] == 600
    limits = {"MEMORY_RATE_LIMIT_PER_MINUTE": "6", "MEMORY_RATE_LIMIT_BURST": "3"}
    with running_server(settings, tmp_path, extra_env={**token_env(token_file), **limits}) as server:
        async with sse_session(server, agent) as call:  # the server's limit: 3 at once
            for _ in range(3):
                await call.ok("memory_get_profile", {"user_id": ALICE})
            await call.error("memory_get_profile", {"user_id": ALICE}, "RATE_LIMITED")
        for token in (backfill, unlimited):  # more than the server's limit allows
            async with sse_session(server, token) as call:
                for _ in range(8):
                    await call.ok("memory_get_profile", {"user_id": ALICE})
        async with sse_session(server, strict) as call:  # fewer: its burst is its own 2 a minute
            for _ in range(2):
                await call.ok("memory_get_profile", {"user_id": ALICE})
            error = await call.error("memory_get_profile", {"user_id": ALICE}, "RATE_LIMITED")
            assert 0 < error["details"]["retry_after_s"] <= 30


def test_a_negative_token_rate_limit_is_refused(tmp_path: Path, token_file: Path) -> None:
    done = run_cli(
        ["token", "create", "--user-id=1", "--rate-limit-per-minute", "-1"], cwd=tmp_path, env=token_env(token_file)
    )
    assert done.returncode != 0 and "rate-limit-per-minute" in done.stderr


def test_a_non_loopback_server_without_tokens_refuses_to_start(tmp_path: Path) -> None:
    host = _non_loopback_address()
    done = run_cli(
        ["serve", "--host", host, "--port", str(free_port()), "--data-dir", str(tmp_path / "data")],
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2, (done.returncode, done.stderr)
    message = " ".join(done.stderr.split())
    assert f"refusing to listen on {host} without authentication" in message
    assert "memory-service token create" in message


def _non_loopback_address() -> str:
    # Never bound: the command must refuse before it listens. 0.0.0.0 is the container case.
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: no packet is sent for a UDP connect
            address = probe.getsockname()[0]
    except OSError:
        return "0.0.0.0"
    return "0.0.0.0" if address.startswith("127.") else address
