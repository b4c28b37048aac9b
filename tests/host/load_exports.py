"""The exports and deletes of a load-test session (``load_model.SessionModel`` mixes them in).

They run on a fixed schedule, so every session makes both even in a short run: an export of the
session's own user (whatever the others wrote concurrently, it holds everything this session had
been acknowledged), and a cycle on a scratch user of the session's own (``scratch_user_of``, which
its token also covers): write a little, export it and check it, delete it, export again and find
nothing. Deleting only scratch users keeps the deletes from fighting the checks of the other
users' acknowledged writes; each scratch user ends empty, with one audit tombstone per delete.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

# Every EXPORT_EVERY-th step of a session exports its user, every SCRATCH_EVERY-th runs a scratch
# cycle (export + delete), the first ones early (offsets spread by session) so a short run has them.
EXPORT_EVERY, SCRATCH_EVERY = 30, 30
SCRATCH_BASE = 100  # scratch user of session s: SCRATCH_BASE + s (never one of the load's users)

# (kind for the latency table, tool, arguments) -> the result of a successful envelope; anything
# else (a failed envelope, a broken envelope, a timeout) raises.
Call = Callable[[str, str, dict[str, Any]], Awaitable[Any]]


class Mismatch(Exception):
    """A read disagreed with what this session had been acknowledged."""


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Mismatch(message)


def scratch_user_of(session: int) -> int:
    return SCRATCH_BASE + session


def is_empty_export(data: dict[str, Any]) -> bool:
    return (
        data.get("profile") is None
        and not data.get("preference_events")
        and not data.get("playlists")
        and not data.get("chunks")
    )


class ExportsAndDeletes:
    """Uses the session model's ``session``, ``user``, ``shared_pid``, ``tag``, ``owned``,
    ``shared_event_ids``, ``preference_ids``, ``profile_patches``, ``exports``, ``scratch_cycles``,
    ``new_track``, ``client_event_id`` and ``check_profile``; counts ``steps``."""

    @property
    def scratch_user(self) -> int:
        return scratch_user_of(self.session)

    async def scheduled(self, call: Call) -> bool:
        """Run this step's export or scratch cycle if one is due; False if the step is free."""
        self.steps += 1
        if self.steps % EXPORT_EVERY == 2 + self.session % 6:
            await self.op_export(call)
            return True
        if self.steps % SCRATCH_EVERY == 5 + self.session % 6:
            await self.op_scratch(call)
            return True
        return False

    async def export(self, call: Call, user: int, kind: str) -> dict[str, Any]:
        """Every part of ``user``'s export, joined (playlists split across parts merged by id)."""
        arguments: dict[str, Any] = {"user_id": user}
        joined: dict[str, Any] = {"profile": None, "preference_events": [], "playlists": {}, "chunks": []}
        for _ in range(1000):
            data = (await call(kind, "memory_export_user_data", arguments))["data"]
            if data.get("profile") is not None:
                joined["profile"] = data["profile"]
            joined["preference_events"] += data.get("preference_events", [])
            joined["chunks"] += data.get("chunks", [])
            for part in data.get("playlists", []):
                entry = joined["playlists"].setdefault(part["playlist_id"], {"snapshots": [], "events": []})
                entry.update({k: v for k, v in part.items() if k not in ("snapshots", "events")})
                entry["snapshots"] += part.get("snapshots", [])
                entry["events"] += part.get("events", [])
            cursor = data["continuation"]["next_cursor"]
            if cursor is None:
                return joined
            arguments = {"user_id": user, "cursor": cursor}
        raise Mismatch(f"{self.tag}: the export of user {user} did not end after 1000 parts")

    async def op_export(self, call: Call) -> None:
        """Export the session's own user while the others write: the export is taken at the moment
        of its first part, after every write this session was acknowledged, so it holds them all."""
        exported = await self.export(call, self.user, "export own user")
        expect(not exported["chunks"], f"{self.tag}: unexpected chunked pieces in a small user's export")
        for plist in self.owned:
            stored = exported["playlists"].get(plist.pid)
            expect(stored is not None, f"{self.tag}: export lacks acknowledged playlist {plist.pid}")
            ids = [e["event_id"] for e in stored["events"]]
            expect(
                ids == plist.event_ids,
                f"{self.tag}: export of {plist.pid} holds {len(ids)} events, "
                f"not the {len(plist.event_ids)} acknowledged, in order",
            )
        shared = exported["playlists"].get(self.shared_pid, {"events": []})
        missing = set(self.shared_event_ids) - {e["event_id"] for e in shared["events"]}
        expect(not missing, f"{self.tag}: export lacks {len(missing)} acknowledged shared appends")
        missing = set(self.preference_ids) - {e["event_id"] for e in exported["preference_events"]}
        expect(not missing, f"{self.tag}: export lacks {len(missing)} acknowledged preference events")
        if self.profile_patches:
            self.check_profile(exported["profile"], "export")
        self.exports += 1

    async def op_scratch(self, call: Call) -> None:
        """Fill the scratch user, export and check it, delete it, and find its export empty."""
        user, cycle = self.scratch_user, self.scratch_cycles + 1
        pid = f"{self.tag}scratch{cycle:04d}"
        tracks = [self.new_track() for _ in range(4)]
        created = await call(
            "create scratch",
            "memory_log_playlist_create",
            {
                "user_id": user,
                "playlist_id": pid,
                "name": f"scratch {self.tag} {cycle}",
                "track_ids": tracks,
                "idempotency_key": f"load-scratch-{pid}",
            },
        )
        added = [self.new_track() for _ in range(2)]
        event_ids = []
        for track_id in added:
            result = await call(
                "mutation scratch",
                "memory_log_playlist_mutation",
                {
                    "user_id": user,
                    "playlist_id": pid,
                    "type": "ADD_TRACKS",
                    "payload": {"track_ids": [track_id]},
                    "client_event_id": self.client_event_id(),
                },
            )
            event_ids.append(result["event_id"])
        await call(
            "update_profile scratch",
            "memory_update_profile",
            {"user_id": user, "patch": {"scratch": {self.tag: cycle}}, "reason": "load test scratch"},
        )
        preference = await call(
            "append_preference_event scratch",
            "memory_append_preference_event",
            {"user_id": user, "type": "note", "source": "user", "payload": {"raw_text": f"scratch {self.tag} {cycle}"}},
        )

        exported = await self.export(call, user, "export scratch user")
        where = f"{self.tag}: export of scratch user {user}, cycle {cycle}"
        expect(list(exported["playlists"]) == [pid], f"{where}: playlists {list(exported['playlists'])}")
        stored = exported["playlists"][pid]
        expect([e["event_id"] for e in stored["events"]] == event_ids, f"{where}: events differ")
        expect(stored["snapshots"][0]["snapshot_id"] == created["snapshot_id"], f"{where}: creation snapshot")
        expect(stored["snapshots"][0]["track_ids"] == tracks, f"{where}: creation tracks")
        profile = exported["profile"] or {}
        expect(
            (profile.get("profile"), profile.get("version")) == ({"scratch": {self.tag: cycle}}, 1),
            f"{where}: profile {profile.get('profile')} v{profile.get('version')} (a delete leaves none)",
        )
        expect(
            [e["event_id"] for e in exported["preference_events"]] == [preference["event_id"]],
            f"{where}: preference events differ",
        )

        deleted = await call("delete scratch user", "memory_delete_user_data", {"user_id": user, "confirm": True})
        expect(deleted["user_id"] == user and deleted["deleted"] is True, f"{where}: delete answered {deleted}")
        after = await self.export(call, user, "export deleted scratch user")
        expect(is_empty_export(after), f"{where}: the export after the delete is not empty: {str(after)[:300]}")
        self.scratch_cycles += 1
