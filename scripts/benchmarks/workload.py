"""The arguments of each tool's n-th call in session s, on a store built by ``build_store``."""

from __future__ import annotations

import collections
import itertools
import random
from typing import Any

from .calling import Call
from .data import QUERIES, artist, playlist_id, preference_text, track
from .loader import WRITER
from .plan import UserSize

TOOLS = [
    "ops_list_users",
    "memory_get_profile",
    "memory_update_profile",
    "memory_append_preference_event",
    "memory_log_playlist_create",
    "memory_log_playlist_mutation",
    "memory_get_playlists",
    "memory_get_playlist",
    "memory_reconstruct_playlist",
    "memory_search",
    "memory_export_user_data",
    "memory_delete_user_data",  # last: it consumes the victim users
]
VICTIM_BASE = 1_000_000  # small users memory_delete_user_data deletes, one per call


class Workload:
    """Reads address user 1, writes the writer user; deletes consume victims made by ``prepare``."""

    def __init__(self, size: UserSize) -> None:
        self.size = size
        self.victims: collections.deque[int] = collections.deque()
        self.next_victim = itertools.count(VICTIM_BASE)
        self.created = itertools.count()
        self.mutations: dict[int, int] = {}
        self.rng = random.Random(5)

    def args(self, tool: str, session: int, i: int) -> dict[str, Any]:
        size = self.size
        if tool == "ops_list_users":
            return {"limit": 50}
        if tool == "memory_get_profile":
            return {"user_id": 1}
        if tool == "memory_update_profile":
            return {
                "user_id": 1,
                "patch": {"energy_preferences": {"bench_level": (i + session) % 5}},
                "reason": "User feedback: bench",
                "source": "user",
            }
        if tool == "memory_append_preference_event":
            _, payload = preference_text(self.rng, i)
            return {"user_id": WRITER, "type": "feedback", "payload": payload, "source": "user"}
        if tool == "memory_log_playlist_create":
            n = next(self.created)
            return {
                "user_id": WRITER,
                "playlist_id": f"benchcreate{n:09d}",
                "name": f"bench {n}",
                "track_ids": [track(500_000_000 + n * 100 + j) for j in range(40)],
                "intent_tags": ["upbeat", "breathers"],
                "seed_context": {"days": 60, "top_artists": [artist(n), artist(n + 1)]},
            }
        if tool == "memory_log_playlist_mutation":
            k = self.mutations.get(session, 0)
            self.mutations[session] = k + 1
            kind = "ADD_TRACKS" if k % 2 == 0 else "REMOVE_TRACKS"
            return {
                "user_id": WRITER,
                "playlist_id": playlist_id(WRITER, session),
                "type": kind,
                "payload": {"track_ids": [track(999_000_000 + session)]},
            }
        if tool == "memory_get_playlists":
            return {"user_id": 1, "limit": 20}
        if tool in ("memory_get_playlist", "memory_reconstruct_playlist"):
            return {"user_id": 1, "playlist_id": playlist_id(1, (i + session) % size.playlists)}
        if tool == "memory_search":
            return {"user_id": 1, "query": QUERIES[(i + session) % len(QUERIES)]}
        if tool == "memory_export_user_data":
            return {"user_id": 1}
        if tool == "memory_delete_user_data":
            victim = self.victims.popleft() if self.victims else next(self.next_victim)
            return {"user_id": victim, "confirm": True}
        raise KeyError(tool)

    async def prepare(self, call: Call, tool: str, calls: int) -> None:
        """Before ``memory_delete_user_data`` is timed: ``calls`` small users to delete (profile, two
        preference events, one playlist), made untimed through the same connection."""
        if tool != "memory_delete_user_data":
            return
        rng = random.Random(calls)
        for _ in range(calls):
            user = next(self.next_victim)
            await call("memory_update_profile", {"user_id": user, "patch": {"core_genres": ["folk"]}})
            for i in range(2):
                await call(
                    "memory_append_preference_event",
                    {"user_id": user, "type": "like", "payload": preference_text(rng, i)[1]},
                )
            await call(
                "memory_log_playlist_create",
                {
                    "user_id": user,
                    "playlist_id": playlist_id(user, 0),
                    "name": "to delete",
                    "track_ids": [track(user * 100 + j) for j in range(10)],
                },
            )
            self.victims.append(user)
