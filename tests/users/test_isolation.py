"""No call made for one user reads or changes another user's data (SPEC §5, Isolation).

Two users with profiles, preference events and playlists. User 2's data uses words and IDs that
appear nowhere in user 1's, so any leak is visible in a serialized answer. A playlist ID logged by
user 2 must look to user 1 exactly like an ID nobody ever logged.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from service.settings import Settings
from tests.support import Caller, connected, playlist, track
from tests.support.contract import assert_valid_error, strip_moment

U1, U2 = 1, 2
P1 = [playlist(101), playlist(102)]
P2 = [playlist(201), playlist(202)]
NEVER = playlist(999)
T1 = [track(1000 + i) for i in range(6)]
T2 = [track(2000 + i) for i in range(6)]
SECRET = "zebracore"  # the word only user 2 ever uses
U2_CREATE_KEY = "u2-create-key-001"
U2_EVENT_ID = str(uuid.uuid4())


async def _populate(call: Caller) -> dict[str, Any]:
    """Both users' data; returns user 2's identifiers that must never reach user 1."""
    await call.ok(
        "memory_update_profile",
        {"user_id": U1, "patch": {"genres": ["jazz"], "notes": "likes mellow music"}, "reason": "u1 seed"},
    )
    await call.ok(
        "memory_update_profile",
        {"user_id": U2, "patch": {"genres": [SECRET], "notes": f"{SECRET} music only"}, "reason": f"{SECRET} seed"},
    )
    await call.ok(
        "memory_append_preference_event",
        {"user_id": U1, "type": "like", "payload": {"raw_text": "mellow music for mornings"}},
    )
    u2_events = [
        (
            await call.ok(
                "memory_append_preference_event",
                {"user_id": U2, "type": kind, "payload": {"raw_text": f"{SECRET} music {kind}"}},
            )
        )["event_id"]
        for kind in ("like", "rule", "note")
    ]
    for pid, tracks in zip(P1, (T1[:3], T1[3:])):
        await call.ok(
            "memory_log_playlist_create",
            {"user_id": U1, "playlist_id": pid, "name": "Mellow music", "track_ids": tracks, "intent_tags": ["calm"]},
        )
    u2_created = await call.ok(
        "memory_log_playlist_create",
        {
            "user_id": U2,
            "playlist_id": P2[0],
            "name": f"{SECRET} music",
            "track_ids": T2[:3],
            "description": f"{SECRET} description",
            "intent_tags": [SECRET],
            "seed_context": {"genre": SECRET},
            "idempotency_key": U2_CREATE_KEY,
        },
    )
    await call.ok(
        "memory_log_playlist_create",
        {"user_id": U2, "playlist_id": P2[1], "name": f"{SECRET} two", "track_ids": T2[3:]},
    )
    mutation = await call.ok(
        "memory_log_playlist_mutation",
        {
            "user_id": U2,
            "playlist_id": P2[0],
            "type": "ADD_TRACKS",
            "payload": {"track_ids": [T2[5]]},
            "client_event_id": U2_EVENT_ID,
        },
    )
    return {"event_ids": [*u2_events, mutation["event_id"]], "created": u2_created}


def _leaks(answer: Any, secrets: dict[str, Any]) -> list[str]:
    text = json.dumps(answer)
    needles = [SECRET, *P2, *T2, U2_CREATE_KEY, U2_EVENT_ID, *secrets["event_ids"]]
    return [n for n in needles if n in text]


async def _user2_view(call: Caller) -> dict[str, Any]:
    return {
        "export": strip_moment(await call.ok("memory_export_user_data", {"user_id": U2})),
        "profile": await call.ok("memory_get_profile", {"user_id": U2}),
        "playlists": await call.ok("memory_get_playlists", {"user_id": U2}),
        "details": [await call.ok("memory_get_playlist", {"user_id": U2, "playlist_id": p}) for p in P2],
        "contents": [
            (await call.ok("memory_reconstruct_playlist", {"user_id": U2, "playlist_id": p}))["track_ids"] for p in P2
        ],
    }


def _same_error(theirs: dict[str, Any], never: dict[str, Any], pid: str) -> None:
    """The error for another user's playlist is the error for a never-logged one (IDs aside)."""
    assert theirs["code"] == "NOT_FOUND", theirs
    assert json.dumps(theirs, sort_keys=True).replace(pid, "<id>") == json.dumps(never, sort_keys=True).replace(
        NEVER, "<id>"
    ), (theirs, never)


async def test_reads_for_user_1_return_nothing_of_user_2(settings: Settings) -> None:
    async with connected(settings) as call:
        secrets = await _populate(call)
        answers = {
            "profile": await call.ok("memory_get_profile", {"user_id": U1}),
            "playlists": await call.ok("memory_get_playlists", {"user_id": U1, "limit": 200}),
            "search_secret": await call.ok("memory_search", {"user_id": U1, "query": SECRET, "limit": 200}),
            "search_shared": await call.ok("memory_search", {"user_id": U1, "query": "music", "limit": 200}),
            "search_ids": await call.ok("memory_search", {"user_id": U1, "query": " ".join(P2 + T2[:2]), "limit": 200}),
            "export": await call.ok("memory_export_user_data", {"user_id": U1}),
            "details": [await call.ok("memory_get_playlist", {"user_id": U1, "playlist_id": p}) for p in P1],
        }
        u2_search = await call.ok("memory_search", {"user_id": U2, "query": SECRET, "limit": 200})
    for name, answer in answers.items():
        assert not _leaks(answer, secrets), f"{name} for user 1 reveals user 2's data: {_leaks(answer, secrets)}"
    assert answers["search_secret"]["results"] == []
    shared = answers["search_shared"]["results"]
    assert shared, "the shared word should find user 1's own data"
    assert {h["id"] for h in shared if h["kind"] == "playlist"} == set(P1)
    assert {i["playlist_id"] for i in answers["playlists"]["items"]} == set(P1)
    assert answers["profile"]["profile"] == {"genres": ["jazz"], "notes": "likes mellow music"}
    # The control: user 2's own search does find the word, so the empty answer above means isolation.
    assert {h["kind"] for h in u2_search["results"]} == {"playlist", "preference_event", "profile"}


async def test_user_2s_playlist_is_not_found_for_user_1_exactly_like_a_never_logged_id(settings: Settings) -> None:
    async with connected(settings) as call:
        await _populate(call)
        for pid in P2:
            for tool, extra in (
                ("memory_get_playlist", {}),
                ("memory_get_playlist", {"include_events_limit": 500}),
                ("memory_reconstruct_playlist", {}),
                ("memory_reconstruct_playlist", {"at_time": "2099-01-01T00:00:00Z"}),
                ("memory_reconstruct_playlist", {"at_time": "2000-01-01T00:00:00Z"}),
            ):
                theirs = assert_valid_error(await call(tool, {"user_id": U1, "playlist_id": pid, **extra}))
                never = assert_valid_error(await call(tool, {"user_id": U1, "playlist_id": NEVER, **extra}))
                _same_error(theirs, never, pid)


async def test_mutating_user_2s_playlist_as_user_1_is_not_found_and_changes_nothing(settings: Settings) -> None:
    payloads = {
        "ADD_TRACKS": {"track_ids": [T1[0]]},
        "REMOVE_TRACKS": {"track_ids": [T2[0]]},
        "REORDER": {"track_ids": [T2[2], T2[1], T2[0], T2[5]]},
        "UPDATE_META": {"name": "hijacked"},
    }
    async with connected(settings) as call:
        await _populate(call)
        before = await _user2_view(call)
        for pid in P2:
            for kind, payload in payloads.items():
                for keyed in (False, True):
                    args = {"user_id": U1, "type": kind, "payload": payload}
                    # A fresh client_event_id per call: a key names one request.
                    key = (lambda: {"client_event_id": str(uuid.uuid4())}) if keyed else dict
                    theirs = assert_valid_error(
                        await call("memory_log_playlist_mutation", {**args, **key(), "playlist_id": pid})
                    )
                    never = assert_valid_error(
                        await call("memory_log_playlist_mutation", {**args, **key(), "playlist_id": NEVER})
                    )
                    _same_error(theirs, never, pid)
        # User 2's own client_event_id, sent by user 1 for user 2's playlist, finds nothing of user 2's.
        theirs = assert_valid_error(
            await call(
                "memory_log_playlist_mutation",
                {
                    "user_id": U1,
                    "playlist_id": P2[0],
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [T2[5]]},
                    "client_event_id": U2_EVENT_ID,
                },
            )
        )
        assert theirs["code"] == "NOT_FOUND", theirs
        after = await _user2_view(call)
        user1_lists = await call.ok("memory_get_playlists", {"user_id": U1})
    assert after == before, "user 2's data changed through calls made for user 1"
    assert {i["playlist_id"] for i in user1_lists["items"]} == set(P1)


async def test_user_1_reusing_user_2s_ids_and_keys_gets_its_own_data(settings: Settings) -> None:
    """Creating a playlist ID another user logged, with that user's idempotency key, reveals nothing:
    it behaves as for a fresh ID (no CONFLICT), and each user keeps their own contents."""
    async with connected(settings) as call:
        await _populate(call)
        before = await _user2_view(call)
        created = await call.ok(
            "memory_log_playlist_create",
            {
                "user_id": U1,
                "playlist_id": P2[0],
                "name": "Mine now",
                "track_ids": [T1[0]],
                "idempotency_key": U2_CREATE_KEY,
            },
        )
        mutated = await call.ok(
            "memory_log_playlist_mutation",
            {
                "user_id": U1,
                "playlist_id": P2[0],
                "type": "ADD_TRACKS",
                "payload": {"track_ids": [T1[1]]},
                "client_event_id": U2_EVENT_ID,
            },
        )
        mine = await call.ok("memory_reconstruct_playlist", {"user_id": U1, "playlist_id": P2[0]})
        detail = await call.ok("memory_get_playlist", {"user_id": U1, "playlist_id": P2[0]})
        after = await _user2_view(call)
    assert created["stored_track_count"] == 1
    assert mutated["event_id"] not in json.dumps(before)
    assert mine["track_ids"] == [T1[0], T1[1]]
    assert detail["playlist"]["user_id"] == U1 and detail["playlist"]["name"] == "Mine now"
    assert SECRET not in json.dumps(detail)
    assert after == before


async def test_export_of_user_1_contains_nothing_of_user_2(settings: Settings) -> None:
    async with connected(settings) as call:
        secrets = await _populate(call)
        export = await call.ok("memory_export_user_data", {"user_id": U1})
    data = export["data"]
    assert export["user_id"] == U1
    assert not _leaks(export, secrets)
    assert {p["playlist_id"] for p in data["playlists"]} == set(P1)
    assert len(data["preference_events"]) == 1
    assert data["profile"]["profile"] == {"genres": ["jazz"], "notes": "likes mellow music"}

    def user_ids(node: Any) -> set[Any]:
        found: set[Any] = set()
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "user_id":
                    found.add(value)
                found |= user_ids(value)
        elif isinstance(node, list):
            for value in node:
                found |= user_ids(value)
        return found

    assert user_ids(export) <= {U1}


async def test_deleting_user_1_leaves_user_2_intact(settings: Settings) -> None:
    async with connected(settings) as call:
        secrets = await _populate(call)
        before = await _user2_view(call)
        listed_before = {u["user_id"]: u for u in (await call.ok("ops_list_users", {}))["users"]}
        await call.ok("memory_delete_user_data", {"user_id": U1, "confirm": True})
        after = await _user2_view(call)
        listed_after = {u["user_id"]: u for u in (await call.ok("ops_list_users", {}))["users"]}
        u2_search = await call.ok("memory_search", {"user_id": U2, "query": SECRET, "limit": 200})
        # User 2's idempotent retries still answer with the original results.
        retry = await call(
            "memory_log_playlist_create",
            {
                "user_id": U2,
                "playlist_id": P2[0],
                "name": f"{SECRET} music",
                "track_ids": T2[:3],
                "description": f"{SECRET} description",
                "intent_tags": [SECRET],
                "seed_context": {"genre": SECRET},
                "idempotency_key": U2_CREATE_KEY,
            },
        )
    assert after == before
    assert set(listed_before) == {U1, U2}
    assert set(listed_after) == {U2} and listed_after[U2] == listed_before[U2]
    assert len(u2_search["results"]) >= 3
    assert retry["success"], retry.get("error")
    assert retry["result"] == secrets["created"]


async def test_profile_update_for_one_user_never_touches_the_other(settings: Settings) -> None:
    async with connected(settings) as call:
        await _populate(call)
        before = await call.ok("memory_get_profile", {"user_id": U2})
        await call.ok("memory_update_profile", {"user_id": U1, "patch": {"genres": None, "notes": None}})
        missing = await call("memory_update_profile", {"user_id": 3, "patch": {"x": 1}, "create_if_missing": False})
        after = await call.ok("memory_get_profile", {"user_id": U2})
        mine = await call.ok("memory_get_profile", {"user_id": U1})
    assert after == before
    assert mine["profile"] == {} and mine["version"] == 2
    assert assert_valid_error(missing)["code"] == "NOT_FOUND"


async def test_ledger_moves_on_user_2s_playlist_are_not_found_for_user_1_and_change_nothing(settings: Settings) -> None:
    """Undo, redo, resync, fork and diff name a playlist: another user's is a never-logged one."""
    async with connected(settings) as call:
        secrets = await _populate(call)
        u2_undo = await call.ok("memory_undo_last_mutation", {"user_id": U2, "playlist_id": P2[0]})
        secrets["event_ids"].append(u2_undo["event_id"])
        before = await _user2_view(call)
        moves = (
            ("memory_undo_last_mutation", {}),
            ("memory_undo_last_mutation", {"client_event_id": str(uuid.uuid4())}),
            ("memory_undo_last_mutation", {"event_id": u2_undo["event_id"]}),  # user 2's own UNDO, named by user 1
            ("memory_resync_playlist", {"track_ids": [T1[0]]}),
            ("memory_fork_playlist", {"new_playlist_id": playlist(150)}),
            ("memory_fork_playlist", {"new_playlist_id": playlist(151), "at_time": "2099-01-01T00:00:00Z"}),
            ("memory_diff_playlist", {"from_time": "2000-01-01T00:00:00Z"}),
        )
        for pid in P2:
            for tool, extra in moves:
                theirs = assert_valid_error(await call(tool, {"user_id": U1, "playlist_id": pid, **extra}))
                never = assert_valid_error(await call(tool, {"user_id": U1, "playlist_id": NEVER, **extra}))
                _same_error(theirs, never, pid)
        # Forking user 1's own playlist onto an ID user 2 logged makes user 1's own playlist there.
        forked = await call.ok("memory_fork_playlist", {"user_id": U1, "playlist_id": P1[0], "new_playlist_id": P2[0]})
        assert forked["forked_from"]["playlist_id"] == P1[0]
        diff = await call.ok(
            "memory_diff_playlist", {"user_id": U1, "playlist_id": P2[0], "from_time": "2000-01-01T00:00:00Z"}
        )
        after = await _user2_view(call)
        mine = await call.ok("memory_export_user_data", {"user_id": U1})
    assert after == before, "user 2's data changed through moves made for user 1"
    # User 1's answers name the reused playlist ID (now user 1's own) and nothing else of user 2's.
    for answer in (diff, mine):
        assert [n for n in _leaks(answer, secrets) if n != P2[0]] == [], answer
    assert [t["track_id"] for t in diff["added"]] == T1[:3], "the fork holds user 1's tracks only"
