"""Pure mutation semantics: a playlist state and the function that applies one event to it.

The writer, the projection and reconstruction all use ``apply_event``, so what is stored and
what is rebuilt can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import filterfalse
from typing import Any

from service.errors import InvalidArgument, NotAPermutation, PlaylistTooLong, PositionOutOfRange
from service.ledger.edits import apply_script

META_FIELDS = ("name", "description", "intent_tags")
# The PRD's four changes, the service's own (SPEC §5): RESYNC (the user edited the playlist in the
# music app) and UNDO (restores the contents before a change, or re-applies one: a redo) carry an
# exact edit script; FORK is the first event of a playlist made from another, applied as its creation.
CHANGE_TYPES = ("ADD_TRACKS", "REMOVE_TRACKS", "REORDER", "UPDATE_META", "RESYNC")
SCRIPTED_TYPES = ("RESYNC", "UNDO")


@dataclass
class PlaylistState:
    track_ids: list[str]
    meta: dict[str, Any] = field(default_factory=dict)

    def copy(self) -> PlaylistState:
        return PlaylistState(list(self.track_ids), dict(self.meta))


def current_state(head: dict[str, Any]) -> PlaylistState:
    """The state a playlist document holds (meta without unset fields)."""
    meta = {k: head.get(k) for k in META_FIELDS}
    return PlaylistState(head["track_ids"], {k: v for k, v in meta.items() if v is not None})


def _add_tracks(tracks: list[str], payload: dict[str, Any], max_tracks: int) -> list[str]:
    new = payload["track_ids"]
    final_length = len(tracks) + len(new)
    if final_length > max_tracks:
        raise PlaylistTooLong(
            f"the playlist would hold {final_length} tracks; the limit is {max_tracks}",
            {"field": "payload.track_ids", "limit": max_tracks, "current": len(tracks)},
        )
    positions = payload.get("positions")
    if positions is None:
        at = payload.get("insert_at", len(tracks))
        if at > len(tracks):
            raise PositionOutOfRange(
                f"insert_at {at} is past the end of a playlist of {len(tracks)} tracks",
                {"field": "payload.insert_at", "current_length": len(tracks)},
            )
        result = tracks.copy()
        result[at:at] = new  # one copy and a memmove, not three slices of the playlist
        return result
    # positions[i] is where track_ids[i] stands in the resulting playlist.
    out_of_range = [p for p in positions if p >= final_length]
    if out_of_range:
        raise PositionOutOfRange(
            f"positions {out_of_range} are past the end of the resulting playlist of {final_length} tracks",
            {"field": "payload.positions", "resulting_length": final_length},
        )
    placed = dict(zip(positions, new, strict=True))
    rest = iter(tracks)
    return [placed[i] if i in placed else next(rest) for i in range(final_length)]


def apply_event(
    state: PlaylistState, event_type: str, payload: dict[str, Any], max_tracks: int, replaying: bool = False
) -> PlaylistState:
    """Return the state after one event; raise a domain error if the event cannot apply.

    ``replaying``: the event is a stored one, checked when it was committed, so the checks that
    cost a pass over the playlist (REORDER's permutation test) are not repeated."""
    if event_type == "ADD_TRACKS":
        return PlaylistState(_add_tracks(state.track_ids, payload, max_tracks), state.meta)
    if event_type == "REMOVE_TRACKS":
        removed = set(payload["track_ids"])
        # filterfalse runs the loop in C: replaying a 5,000-track bucket is mostly these.
        return PlaylistState(list(filterfalse(removed.__contains__, state.track_ids)), state.meta)
    if event_type == "REORDER":
        order = payload["track_ids"]
        # Same multiset: sorted lists compare in C, about 15x faster than two Counters.
        if not replaying and (len(order) != len(state.track_ids) or sorted(order) != sorted(state.track_ids)):
            raise NotAPermutation(
                "REORDER must list exactly the current tracks (same IDs, same counts) in a new order",
                {"field": "payload.track_ids", "current_length": len(state.track_ids), "given_length": len(order)},
            )
        return PlaylistState(list(order), state.meta)
    if event_type == "UPDATE_META":
        return PlaylistState(state.track_ids, {**state.meta, **{k: payload[k] for k in META_FIELDS if k in payload}})
    if event_type in SCRIPTED_TYPES:
        tracks = apply_script(state.track_ids, payload["removed"], payload["added"], check=not replaying)
        meta = {**state.meta, **payload.get("meta", {})}
        return PlaylistState(tracks, {k: v for k, v in meta.items() if v is not None})
    raise InvalidArgument(f"unknown mutation type {event_type!r}", {"field": "type"})


def check_payload_shape(event_type: str, payload: dict[str, Any]) -> None:
    """Rules the JSON schema cannot express; independent of the stored state."""
    if event_type == "ADD_TRACKS":
        positions = payload.get("positions")
        if positions is not None:
            if "insert_at" in payload:
                raise InvalidArgument("give either insert_at or positions, not both", {"field": "payload.positions"})
            if len(positions) != len(payload["track_ids"]):
                raise InvalidArgument(
                    "positions needs exactly one position per track",
                    {"field": "payload.positions", "tracks": len(payload["track_ids"]), "positions": len(positions)},
                )
            if len(set(positions)) != len(positions):
                raise InvalidArgument("positions must be distinct", {"field": "payload.positions"})
    if event_type == "UPDATE_META" and not any(k in payload for k in META_FIELDS):
        raise InvalidArgument("UPDATE_META needs at least one of name, description, intent_tags", {"field": "payload"})


def track_id_volume(event_type: str, payload: dict[str, Any]) -> int:
    """How many track IDs an event carries (at least 1, so meta-only edits still count)."""
    if event_type in SCRIPTED_TYPES:
        return max(1, len(payload["removed"]) + len(payload["added"]))
    return max(1, len(payload.get("track_ids", ())))


def entering_tracks(event_type: str, payload: dict[str, Any]) -> list[str]:
    """Track IDs an event puts into the playlist (a creation's or fork's come from its snapshot)."""
    if event_type == "ADD_TRACKS":
        return list(payload["track_ids"])
    if event_type in SCRIPTED_TYPES:
        return [track for _, track in payload["added"]]
    return []


def meta_patch(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The ``meta`` of a scripted event: fields whose value differs (None: the field goes)."""
    return {k: after.get(k) for k in META_FIELDS if before.get(k) != after.get(k)}


def apply_event_to_counts(counts: dict[str, int], event_type: str, payload: dict[str, Any]) -> int:
    """The track-count projection of ``apply_event``: update ``counts`` (track ID → occurrences in
    the playlist) in place for one stored event and return the change in length.

    Exact for every stored event (REMOVE_TRACKS drops every occurrence, REORDER and UPDATE_META keep
    the length, RESYNC and UNDO apply their edit script), at the cost of the event's payload rather
    than the playlist's length: the timeline replays 10,000 events of a 5,000-track playlist with it.
    The property tests check it against ``apply_event`` on random histories."""
    if event_type == "ADD_TRACKS":
        for track in payload["track_ids"]:
            counts[track] = counts.get(track, 0) + 1
        return len(payload["track_ids"])
    if event_type == "REMOVE_TRACKS":
        return -sum(counts.pop(track, 0) for track in set(payload["track_ids"]))
    if event_type in SCRIPTED_TYPES:
        for _, track in payload["removed"]:
            left = counts[track] - 1
            if left:
                counts[track] = left
            else:
                del counts[track]
        for _, track in payload["added"]:
            counts[track] = counts.get(track, 0) + 1
        return len(payload["added"]) - len(payload["removed"])
    if event_type in ("REORDER", "UPDATE_META"):
        return 0
    raise InvalidArgument(f"unknown mutation type {event_type!r}", {"field": "type"})
