"""The crash test's model of what the service acknowledged: PRD and SPEC §5 semantics written
independently of the service (playlists with their undo stack, the profile, preference events)."""

from __future__ import annotations

import copy
import random
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tests.support import playlist

USER = 7
PLAYLISTS = 3
MAX_LENGTH = 24


# --- the model ----------------------------------------------------------------------------


def apply(
    tracks: list[str], meta: dict[str, Any], kind: str, payload: dict[str, Any]
) -> tuple[list[str], dict[str, Any]]:
    """PRD mutation semantics, written independently of the service."""
    meta = dict(meta)
    if kind == "ADD_TRACKS":
        new = payload["track_ids"]
        if "positions" in payload:
            placed = dict(zip(payload["positions"], new))
            rest = iter(tracks)
            tracks = [placed[i] if i in placed else next(rest) for i in range(len(tracks) + len(new))]
        else:
            at = payload.get("insert_at", len(tracks))
            tracks = tracks[:at] + new + tracks[at:]
    elif kind == "REMOVE_TRACKS":
        tracks = [t for t in tracks if t not in payload["track_ids"]]
    elif kind == "REORDER":
        assert Counter(payload["track_ids"]) == Counter(tracks)
        tracks = list(payload["track_ids"])
    elif kind in ("RESYNC", "UNDO"):  # the stored edit script: drop the removed, place the added
        for index, track_id in payload["removed"]:
            assert tracks[index] == track_id, f"{kind} removes {track_id} at {index}, which is not there"
        gone = {index for index, _ in payload["removed"]}
        kept = iter([t for i, t in enumerate(tracks) if i not in gone])
        placed = dict(payload["added"])
        tracks = [placed[j] if j in placed else next(kept) for j in range(len(tracks) - len(gone) + len(placed))]
        meta.update({k: v if v is not None else "" for k, v in payload.get("meta", {}).items()})
    else:
        meta.update(payload)
    return list(tracks), meta


@dataclass
class PlaylistModel:
    pid: str
    create_args: dict[str, Any]
    created: bool = False
    snapshot_id: str | None = None
    tracks: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    event_ids: list[str] = field(default_factory=list)  # acknowledged, in order
    client_event_ids: list[str] = field(default_factory=list)
    pending: dict[str, Any] | None = None  # the arguments of the call in flight
    pending_tool: str = ""
    fresh: int = 0
    states: list[tuple[list[str], dict[str, Any]]] = field(default_factory=list)  # after creation, each event
    done: list[int] = field(default_factory=list)  # events (1-based) an undo may still reverse, oldest first

    def initial_meta(self) -> dict[str, Any]:
        a = self.create_args
        return {"name": a["name"], "description": a["description"], "intent_tags": a["intent_tags"]}

    def next_call(self, rng: random.Random) -> tuple[str, dict[str, Any]]:
        if not self.created:
            return "memory_log_playlist_create", self.create_args
        n = len(self.tracks)
        choices = ["add_at", "add_positions", "append", "meta"]
        if n >= 2:
            choices += ["reorder", "remove"]
        if n > MAX_LENGTH:
            choices = ["remove", "remove", "reorder", "meta"]
        choices += ["resync"] + (["undo"] if self.done else [])
        choice = rng.choice(choices)
        k = rng.randint(1, 3)
        keyed = {"user_id": USER, "playlist_id": self.pid, "client_event_id": str(uuid.uuid4())}
        if choice == "resync":  # the user edited the playlist in the app: some gone, some new, shuffled
            kept = rng.sample(self.tracks, max(0, len(self.tracks) - k))
            order = kept + [self.new_track() for _ in range(rng.randint(0, 2))]
            rng.shuffle(order)
            return "memory_resync_playlist", {**keyed, "track_ids": order, "reason": "edited in the app"}
        if choice == "undo":
            return "memory_undo_last_mutation", keyed
        if choice in ("add_at", "add_positions", "append"):
            new = [self.new_track() for _ in range(k)]
            if choice == "append" and self.tracks and rng.random() < 0.5:
                new[-1] = rng.choice(self.tracks)  # duplicates are allowed
            if choice == "add_at":
                kind, payload = "ADD_TRACKS", {"track_ids": new, "insert_at": rng.randint(0, n)}
            elif choice == "add_positions":
                kind, payload = "ADD_TRACKS", {"track_ids": new, "positions": rng.sample(range(n + k), k)}
            else:
                kind, payload = "ADD_TRACKS", {"track_ids": new}
        elif choice == "remove":
            distinct = sorted(set(self.tracks))
            kind, payload = "REMOVE_TRACKS", {"track_ids": rng.sample(distinct, max(1, min(k, len(distinct) - 1)))}
        elif choice == "reorder":
            order = list(self.tracks)
            rng.shuffle(order)
            kind, payload = "REORDER", {"track_ids": order}
        else:
            kind = "UPDATE_META"
            payload = rng.choice(
                [
                    {"name": f"{self.pid} take {rng.randint(1, 10**6)}"},
                    {"description": f"rev {rng.randint(1, 10**6)}"},
                    {"intent_tags": rng.sample(["upbeat", "breathers", "metal", "pop", "drive", "calm"], 2)},
                ]
            )
        return "memory_log_playlist_mutation", {
            "user_id": USER,
            "playlist_id": self.pid,
            "type": kind,
            "payload": payload,
            "client_event_id": str(uuid.uuid4()),
        }

    def new_track(self) -> str:
        self.fresh += 1
        return f"{self.pid[-3:]}trk{self.fresh:012d}"

    def after(self, tool: str, arguments: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
        """The contents once this (acknowledged or landed) call applied: SPEC §5 semantics."""
        if tool == "memory_resync_playlist":
            return list(arguments["track_ids"]), dict(self.meta)
        if tool == "memory_undo_last_mutation":
            tracks, meta = self.states[self.done[-1] - 1]
            return list(tracks), dict(meta)
        return apply(self.tracks, self.meta, arguments["type"], arguments["payload"])

    def acknowledge(self, tool: str, arguments: dict[str, Any], result: dict[str, Any]) -> None:
        if tool == "memory_log_playlist_create":
            if self.created:  # a retried create must return the original result
                assert result["snapshot_id"] == self.snapshot_id
            self.created, self.snapshot_id = True, result["snapshot_id"]
            self.tracks, self.meta = list(arguments["track_ids"]), self.initial_meta()
            self.states = [(list(self.tracks), dict(self.meta))]
            return
        assert result["playlist_id"] == self.pid
        self.tracks, self.meta = self.after(tool, arguments)
        self.event_ids.append(result["event_id"])
        self.client_event_ids.append(arguments["client_event_id"])
        self.states.append((list(self.tracks), dict(self.meta)))
        if tool == "memory_undo_last_mutation":
            assert result["undid"]["event_id"] == self.event_ids[self.done.pop() - 1]
        else:
            self.done.append(len(self.event_ids))


@dataclass
class ProfileModel:
    profile: dict[str, Any] = field(default_factory=dict)
    version: int = 0
    pending: dict[str, Any] | None = None
    counter: int = 0

    def next_call(self, rng: random.Random) -> tuple[str, dict[str, Any]]:
        self.counter += 1
        patch: dict[str, Any] = {"crash": {"writes": self.counter}, f"k{self.counter % 5}": self.counter}
        return "memory_update_profile", {"user_id": USER, "patch": patch, "reason": f"write {self.counter}"}

    @staticmethod
    def merged(profile: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
        out = copy.deepcopy(profile)
        for key, value in patch.items():  # no nulls in these patches; one level of objects
            out[key] = {**out.get(key, {}), **value} if isinstance(value, dict) else value
        return out

    def acknowledge(self, tool: str, arguments: dict[str, Any], result: dict[str, Any]) -> None:
        self.profile = self.merged(self.profile, arguments["patch"])
        self.version += 1
        assert (result["profile"], result["version"]) == (self.profile, self.version)


@dataclass
class EventsModel:
    acked: dict[str, str] = field(default_factory=dict)  # event_id -> marker
    pending: dict[str, Any] | None = None
    counter: int = 0

    def next_call(self, rng: random.Random) -> tuple[str, dict[str, Any]]:
        self.counter += 1
        marker = f"crash-marker-{self.counter}-{uuid.uuid4().hex[:8]}"
        return "memory_append_preference_event", {
            "user_id": USER,
            "type": rng.choice(["like", "dislike", "feedback", "note"]),
            "source": "user",
            "payload": {"raw_text": f"note {self.counter}", "marker": marker},
        }

    def acknowledge(self, tool: str, arguments: dict[str, Any], result: dict[str, Any]) -> None:
        assert result["user_id"] == USER
        self.acked[result["event_id"]] = arguments["payload"]["marker"]


@dataclass
class Model:
    playlists: list[PlaylistModel]
    profile: ProfileModel = field(default_factory=ProfileModel)
    events: EventsModel = field(default_factory=EventsModel)

    @classmethod
    def fresh(cls) -> Model:
        lists = []
        for n in range(PLAYLISTS):
            pid = playlist(900 + n)
            lists.append(
                PlaylistModel(
                    pid,
                    {
                        "user_id": USER,
                        "playlist_id": pid,
                        "name": f"crash list {n}",
                        "description": "",
                        "track_ids": [f"{pid[-3:]}seed{i:012d}" for i in range(5)],
                        "intent_tags": ["crash", f"n{n}"],
                        "seed_context": {"round": 0},
                        "idempotency_key": f"create-{pid}",
                    },
                )
            )
        return cls(lists)
