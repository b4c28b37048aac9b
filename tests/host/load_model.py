"""One session of the load test: its weighted mix of calls and a model of what it had acknowledged.

Each session owns its playlists, so their exact contents follow from its own acknowledged
mutations; reads of them are checked against the model on the spot (read-your-writes). The only
data two sessions write together is their user's shared playlist (ADD_TRACKS appends only) and
their user's profile (each patch sets keys unique to the session), so the expected end state is
deterministic as well.

Exports and deletes are in the mix on a fixed schedule (``load_exports``).
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from typing import Any

from tests.host.load_exports import Call, ExportsAndDeletes, expect

SESSIONS = 32
USERS = 8
SESSIONS_PER_USER = SESSIONS // USERS
MAX_OWNED = 5  # playlists one session creates at most; then its creates turn into mutations
MIN_LENGTH, MAX_LENGTH = 3, 30  # owned playlists are kept in this range so calls stay cheap
SHARED_INITIAL = 5
WORDS = ["upbeat", "breather", "metal", "symphonic", "drive", "calm", "pop", "night", "road", "trip"]
# Besides the scheduled exports and deletes, about 55% reads, 45% writes. ops_list_users is kept
# rare: it counts every user's data, so it is by far the most expensive call and would otherwise
# dominate the server's time.
MIX: dict[str, int] = {
    "get_profile": 10,
    "get_playlists": 7,
    "get_playlist": 8,
    "reconstruct": 12,
    "search": 8,
    "list_users": 1,
    "create": 3,
    "mutate": 20,
    "shared_append": 8,
    "profile": 8,
    "preference": 8,
    "retry": 2,
}


def user_of(session: int) -> int:
    return session // SESSIONS_PER_USER + 1


def shared_playlist_id(user: int) -> str:
    return f"user{user:02d}shared"


def shared_initial_tracks(user: int) -> list[str]:
    return [f"u{user:02d}shared{i:05d}" for i in range(SHARED_INITIAL)]


def apply(
    tracks: list[str], meta: dict[str, Any], kind: str, payload: dict[str, Any]
) -> tuple[list[str], dict[str, Any]]:
    """The README's mutation semantics for the forms this test sends, independent of the service's code."""
    if kind == "ADD_TRACKS":
        at = payload.get("insert_at", len(tracks))
        return tracks[:at] + payload["track_ids"] + tracks[at:], meta
    if kind == "REMOVE_TRACKS":
        return [t for t in tracks if t not in payload["track_ids"]], meta
    if kind == "REORDER":
        assert sorted(payload["track_ids"]) == sorted(tracks), "the test sent a REORDER that is not a permutation"
        return list(payload["track_ids"]), meta
    return tracks, {**meta, **payload}


@dataclass
class Owned:
    pid: str
    create_args: dict[str, Any]
    snapshot_id: str
    tracks: list[str]
    meta: dict[str, Any]
    event_ids: list[str] = field(default_factory=list)  # acknowledged, in order


@dataclass
class SessionModel(ExportsAndDeletes):
    session: int
    rng: random.Random
    owned: list[Owned] = field(default_factory=list)
    shared_snapshot_id: str | None = None
    shared_appends: list[str] = field(default_factory=list)  # acknowledged appended tracks, in order
    shared_event_ids: list[str] = field(default_factory=list)
    profile_keys: dict[str, int] = field(default_factory=dict)  # "load" key -> value, all acknowledged
    profile_patches: int = 0
    profile_last: int = 0  # the number this session's latest acknowledged patch wrote under "last"
    preference_ids: list[str] = field(default_factory=list)
    last_keyed: tuple[dict[str, Any], str] | None = None  # a mutation's arguments and its event_id
    counter: int = 0
    steps: int = 0
    exports: int = 0  # exports of the session's own user, each checked
    scratch_cycles: int = 0  # scratch user filled, exported, deleted and found empty: one delete each

    @property
    def user(self) -> int:
        return user_of(self.session)

    @property
    def shared_pid(self) -> str:
        return shared_playlist_id(self.user)

    @property
    def tag(self) -> str:
        return f"s{self.session:02d}"

    def fresh(self) -> int:
        self.counter += 1
        return self.counter

    def new_track(self) -> str:
        return f"{self.tag}track{self.fresh():07d}"

    def client_event_id(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))  # reproducible from the seed

    async def join_shared(self, call: Call) -> None:
        """All sessions of a user log the same creation at once: one playlist, one result for all."""
        user = self.user
        result = await call(
            "create shared (same key)",
            "memory_log_playlist_create",
            {
                "user_id": user,
                "playlist_id": shared_playlist_id(user),
                "name": f"shared list of user {user}",
                "description": "appended to by every session of its user",
                "track_ids": shared_initial_tracks(user),
                "intent_tags": ["shared"],
                "idempotency_key": f"load-shared-{user}",
            },
        )
        self.shared_snapshot_id = result["snapshot_id"]

    async def step(self, call: Call) -> None:
        if await self.scheduled(call):
            return
        op = self.rng.choices(list(MIX), weights=list(MIX.values()))[0]
        if op == "create" and len(self.owned) >= MAX_OWNED:
            op = "mutate"
        if op in ("mutate", "retry") and not self.owned:
            op = "create"
        await getattr(self, f"op_{op}")(call)

    # --- writes ---------------------------------------------------------------------------

    async def op_create(self, call: Call) -> None:
        pid = f"{self.tag}list{len(self.owned):04d}"
        arguments = {
            "user_id": self.user,
            "playlist_id": pid,
            "name": f"load {self.tag} list {len(self.owned)}",
            "description": f"{self.rng.choice(WORDS)} mix",
            "track_ids": [self.new_track() for _ in range(5)],
            "intent_tags": self.rng.sample(WORDS, 2),
            "seed_context": {"session": self.session},
            "idempotency_key": f"load-create-{pid}",
        }
        result = await call("create", "memory_log_playlist_create", arguments)
        meta = {k: arguments[k] for k in ("name", "description", "intent_tags")}
        self.owned.append(Owned(pid, arguments, result["snapshot_id"], list(arguments["track_ids"]), meta))

    def next_mutation(self, plist: Owned) -> tuple[str, dict[str, Any]]:
        n = len(plist.tracks)
        choices = ["insert_at", "append", "meta"] + (["reorder", "remove"] if n >= 2 else [])
        if n > MAX_LENGTH:
            choices = ["remove", "reorder", "meta"]
        elif n < MIN_LENGTH:
            choices = ["insert_at", "append"]
        choice = self.rng.choice(choices)
        if choice in ("insert_at", "append"):
            new = [self.new_track() for _ in range(self.rng.randint(1, 3))]
            if n and self.rng.random() < 0.3:
                new[-1] = self.rng.choice(plist.tracks)  # a duplicate, so REMOVE_TRACKS meets several occurrences
            payload: dict[str, Any] = {"track_ids": new}
            if choice == "insert_at":
                payload["insert_at"] = self.rng.randint(0, n)
            return "ADD_TRACKS", payload
        if choice == "remove":
            distinct = sorted(set(plist.tracks))
            return "REMOVE_TRACKS", {"track_ids": self.rng.sample(distinct, min(self.rng.randint(1, 3), len(distinct)))}
        if choice == "reorder":
            order = list(plist.tracks)  # our own model: a permutation of the current contents by construction
            self.rng.shuffle(order)
            return "REORDER", {"track_ids": order}
        return "UPDATE_META", self.rng.choice(
            [
                {"name": f"load {self.tag} take {self.fresh()}"},
                {"description": f"{self.rng.choice(WORDS)} rev {self.fresh()}"},
                {"intent_tags": self.rng.sample(WORDS, self.rng.randint(0, 3))},
                {"name": f"load {self.tag} both {self.fresh()}", "intent_tags": self.rng.sample(WORDS, 1)},
            ]
        )

    async def op_mutate(self, call: Call) -> None:
        plist = self.rng.choice(self.owned)
        kind, payload = self.next_mutation(plist)
        arguments = {
            "user_id": self.user,
            "playlist_id": plist.pid,
            "type": kind,
            "payload": payload,
            "client_event_id": self.client_event_id(),
        }
        result = await call(f"mutation {kind}", "memory_log_playlist_mutation", arguments)
        plist.tracks, plist.meta = apply(plist.tracks, plist.meta, kind, payload)
        plist.event_ids.append(result["event_id"])
        self.last_keyed = (arguments, result["event_id"])

    async def op_retry(self, call: Call) -> None:
        """Resend an acknowledged mutation, as a client that lost the answer would: applied once only."""
        if self.last_keyed is None:
            return await self.op_mutate(call)
        arguments, event_id = self.last_keyed
        result = await call("mutation retry", "memory_log_playlist_mutation", arguments)
        expect(result["event_id"] == event_id, f"{self.tag}: retry of {event_id} answered {result['event_id']}")

    async def op_shared_append(self, call: Call) -> None:
        new = [self.new_track() for _ in range(self.rng.randint(1, 3))]
        result = await call(
            "mutation shared append",
            "memory_log_playlist_mutation",
            {
                "user_id": self.user,
                "playlist_id": shared_playlist_id(self.user),
                "type": "ADD_TRACKS",
                "payload": {"track_ids": new},
                "client_event_id": self.client_event_id(),
            },
        )
        self.shared_appends.extend(new)
        self.shared_event_ids.append(result["event_id"])

    async def op_profile(self, call: Call) -> None:
        number, value = self.fresh(), self.rng.randint(0, 10**6)
        key = f"{self.tag}n{number:06d}"  # unique to this session and call
        # "last" is rewritten by every patch of this session: a stale merge would roll it back.
        patch = {"load": {key: value}, "last": {self.tag: number}}
        result = await call(
            "update_profile",
            "memory_update_profile",
            {"user_id": self.user, "patch": patch, "reason": f"load test {self.tag}", "source": "assistant"},
        )
        self.profile_keys[key], self.profile_last = value, number
        self.profile_patches += 1
        self.check_profile(result, "update_profile")

    async def op_preference(self, call: Call) -> None:
        number = self.fresh()
        result = await call(
            "append_preference_event",
            "memory_append_preference_event",
            {
                "user_id": self.user,
                "type": self.rng.choice(["like", "dislike", "rule", "feedback", "note"]),
                "source": "user",
                "payload": {
                    "raw_text": f"{' '.join(self.rng.sample(WORDS, 3))} from {self.tag}",
                    "marker": f"{self.tag}-pref-{number}",
                },
            },
        )
        expect(result["user_id"] == self.user, f"{self.tag}: preference event stored for user {result['user_id']}")
        self.preference_ids.append(result["event_id"])

    # --- reads, each checked against this session's own acknowledged writes --------------

    def check_profile(self, result: dict[str, Any], via: str) -> None:
        profile = result["profile"]
        lost = [k for k, v in self.profile_keys.items() if profile.get("load", {}).get(k) != v]
        expect(not lost, f"{self.tag}: {via} lacks acknowledged profile keys {lost[:5]}")
        if self.profile_patches:
            shown = profile.get("last", {}).get(self.tag)
            expect(shown == self.profile_last, f"{self.tag}: {via} shows last={shown}, not {self.profile_last}")
        expect(
            result["version"] >= self.profile_patches,
            f"{self.tag}: {via} version {result['version']} "
            f"< {self.profile_patches} patches acknowledged to this session alone",
        )

    async def op_get_profile(self, call: Call) -> None:
        self.check_profile(await call("get_profile", "memory_get_profile", {"user_id": self.user}), "get_profile")

    async def op_get_playlists(self, call: Call) -> None:
        """Walk every page; writes between pages must neither skip nor repeat an item."""
        arguments: dict[str, Any] = {"user_id": self.user, "limit": self.rng.choice([5, 10, 50])}
        seen: list[str] = []
        counts: dict[str, int | None] = {}
        for _ in range(100):
            page = await call("get_playlists", "memory_get_playlists", arguments)
            seen += [item["playlist_id"] for item in page["items"]]
            counts.update({item["playlist_id"]: item.get("track_count") for item in page["items"]})
            if page["next_cursor"] is None:
                break
            arguments = {"user_id": self.user, "cursor": page["next_cursor"], "limit": arguments["limit"]}
        expect(len(seen) == len(set(seen)), f"{self.tag}: get_playlists repeated an item: {sorted(seen)}")
        missing = [pid for pid in [shared_playlist_id(self.user), *(p.pid for p in self.owned)] if pid not in counts]
        expect(not missing, f"{self.tag}: get_playlists skipped acknowledged playlists {missing}")
        wrong = [(p.pid, counts[p.pid], len(p.tracks)) for p in self.owned if counts[p.pid] != len(p.tracks)]
        expect(not wrong, f"{self.tag}: get_playlists track_count (shown, expected): {wrong}")

    async def op_get_playlist(self, call: Call) -> None:
        limit = self.rng.choice([0, 5, 20, 50])
        if not self.owned or self.rng.random() < 0.25:
            result = await call(
                "get_playlist",
                "memory_get_playlist",
                {"user_id": self.user, "playlist_id": shared_playlist_id(self.user), "include_events_limit": limit},
            )
            expect(result["playlist"]["name"] == f"shared list of user {self.user}", f"{self.tag}: shared name")
            return
        plist = self.rng.choice(self.owned)
        result = await call(
            "get_playlist",
            "memory_get_playlist",
            {"user_id": self.user, "playlist_id": plist.pid, "include_events_limit": limit},
        )
        shown = {k: result["playlist"].get(k, "") for k in ("name", "description", "intent_tags")}
        expect(shown == plist.meta, f"{self.tag}: {plist.pid} metadata {shown} != {plist.meta}")
        recent = [e["event_id"] for e in result["recent_events"]]
        expected = plist.event_ids[-limit:] if limit else []
        expect(
            recent == expected,
            f"{self.tag}: {plist.pid} recent_events {len(recent)} ids differ from "
            f"the last {len(expected)} acknowledged",
        )

    async def op_reconstruct(self, call: Call) -> None:
        if not self.owned or self.rng.random() < 0.25:
            shared = shared_playlist_id(self.user)
            tracks = (
                await call("reconstruct", "memory_reconstruct_playlist", {"user_id": self.user, "playlist_id": shared})
            )["track_ids"]
            mine = set(self.shared_appends)
            expect(tracks[:SHARED_INITIAL] == shared_initial_tracks(self.user), f"{self.tag}: {shared} lost its head")
            expect(
                [t for t in tracks if t in mine] == self.shared_appends,
                f"{self.tag}: {shared} does not hold this session's {len(self.shared_appends)} appends in order",
            )
            return
        plist = self.rng.choice(self.owned)
        tracks = (
            await call("reconstruct", "memory_reconstruct_playlist", {"user_id": self.user, "playlist_id": plist.pid})
        )["track_ids"]
        expect(tracks == plist.tracks, f"{self.tag}: {plist.pid} reconstructs to {tracks}, expected {plist.tracks}")

    async def op_search(self, call: Call) -> None:
        query = self.rng.choice(
            [" ".join(self.rng.sample(WORDS, 2)), f"load {self.tag}", "shared list", self.rng.choice(WORDS)[:-1] + "x"]
        )  # the last one exercises typo tolerance
        await call("search", "memory_search", {"user_id": self.user, "query": query, "limit": 25})

    async def op_list_users(self, call: Call) -> None:
        users = {u["user_id"]: u for u in (await call("list_users", "ops_list_users", {}))["users"]}
        shown = users.get(self.user, {"playlist_count": 0, "profile_version": 0, "preference_event_count": 0})
        expect(
            shown["playlist_count"] >= len(self.owned) + 1
            and shown["profile_version"] >= self.profile_patches
            and shown["preference_event_count"] >= len(self.preference_ids),
            f"{self.tag}: ops_list_users shows fewer writes than this session alone made: {shown}",
        )
