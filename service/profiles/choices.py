"""Pairwise choices (seed 003: "pairwise > unary"): "chose A over B" as a preference event.

Stored through the ordinary preference-event write path (so it is audited, counted, searchable,
exported, imported and forgotten like any event), as type ``feedback`` — the PRD's event types are
a closed enum that real-MongoDB validators enforce — with ``source`` "user" and a payload that
marks it a choice (``choice_payload``). An event is a choice when its type is ``feedback`` and its
payload holds a ``choice`` of that shape (``choice_of``); anything else is left alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from service.errors import InvalidArgument
from service.text.entities import folded_entity
from service.timeutil import as_utc

EVENT_TYPE = "feedback"
SOURCE = "user"
KINDS = ("track", "artist", "playlist")


def _side(value: dict[str, Any], name: str) -> dict[str, Any]:
    side = {k: value[k] for k in ("id", "name") if isinstance(value.get(k), str) and value[k].strip()}
    if not side:
        raise InvalidArgument(f"{name} needs an id or a name (not blank)", {"field": name})
    return side


def choice_payload(
    chose: dict[str, Any], over: dict[str, Any], dimensions: list[str] | None, context: str | None
) -> dict[str, Any]:
    """The event payload for one choice; INVALID_ARGUMENT for sides of different kinds, a side
    with neither id nor name, or the same subject on both sides::

        {"choice": {"kind": "artist", "chose": {"name": "Nightwish"}, "over": {"name": "Epica"},
                    "dimensions": ["vocals"]},
         "raw_text": "Chose artist \\"Nightwish\\" over \\"Epica\\" (vocals)",
         "context": "late-night symphonic metal"}

    ``kind`` is track | artist | playlist (the same on both sides); a side names ``id`` (a track or
    playlist ID), ``name`` or both."""
    if chose["kind"] != over["kind"]:
        raise InvalidArgument("chose and over must be of the same kind", {"field": "over"})
    kind = chose["kind"]
    winner, loser = _side(chose, "chose"), _side(over, "over")
    if subject_key(kind, winner) == subject_key(kind, loser):
        raise InvalidArgument("chose and over name the same thing", {"field": "over"})
    choice: dict[str, Any] = {"kind": kind, "chose": winner, "over": loser}
    if dimensions:
        choice["dimensions"] = list(dict.fromkeys(d.strip() for d in dimensions if d.strip()))
    payload: dict[str, Any] = {"choice": choice, "raw_text": sentence(choice)}
    if context is not None:
        payload["context"] = context
    return payload


def label(side: dict[str, Any]) -> str:
    return side.get("name") or side["id"]


def sentence(choice: dict[str, Any]) -> str:
    """``Chose artist "Nightwish" over "Epica" (vocals, energy)``: the event's raw_text."""
    text = (
        f"Chose {choice['kind']} {json.dumps(label(choice['chose']), ensure_ascii=False)} over "
        f"{json.dumps(label(choice['over']), ensure_ascii=False)}"
    )
    if choice.get("dimensions"):
        text += f" ({', '.join(choice['dimensions'])})"
    return text


def subject_key(kind: str, side: dict[str, Any]) -> tuple[str, str]:
    if isinstance(side.get("id"), str):
        return kind, "id:" + side["id"].strip()
    return kind, "name:" + folded_entity(side["name"])


def choice_of(event: dict[str, Any]) -> dict[str, Any] | None:
    """The event's choice when it is a well-formed one (imported data is not trusted blindly)."""
    if event.get("type") != EVENT_TYPE or not isinstance(event.get("payload"), dict):
        return None
    choice = event["payload"].get("choice")
    if not isinstance(choice, dict) or choice.get("kind") not in KINDS:
        return None
    for name in ("chose", "over"):
        side = choice.get(name)
        if not isinstance(side, dict) or not any(
            isinstance(side.get(k), str) and side[k].strip() for k in ("id", "name")
        ):
            return None
    return choice


def side_names(choice: dict[str, Any]) -> list[str]:
    """Every id and name of both sides (for explain's subject matching)."""
    return [
        side[k] for side in (choice["chose"], choice["over"]) for k in ("id", "name") if isinstance(side.get(k), str)
    ]


@dataclass
class Standing:
    kind: str
    label: str  # the newest name (or id) it was given
    wins: int = 0
    losses: int = 0
    beat: dict[tuple[str, str], str] = field(default_factory=dict)  # chosen over them: subject → name
    lost_to: dict[tuple[str, str], str] = field(default_factory=dict)  # they were chosen over it (newest first)
    newest_event: str = ""  # the newest choice it took part in
    newest: float = 0.0  # its POSIX seconds


def tally(events: Iterable[dict[str, Any]]) -> dict[tuple[str, str], Standing]:
    """Standings per subject over the choice events (others are ignored), newest events first.

    A side's subject is (kind, ``id`` as written when it has one, else the folded ``name``, folded
    as memories fold entities). Per subject: wins (times chosen), losses (times passed over), the
    subjects it beat and lost to (newest first) and its newest choice. A pure function of the
    events, so the context block is the same for the same store."""
    choices = [(e, c) for e in events if (c := choice_of(e)) is not None]
    choices.sort(
        key=lambda ec: (as_utc(ec[0]["timestamp"]), ec[0].get("recorded_ns") or 0, str(ec[0]["_id"])), reverse=True
    )
    standings: dict[tuple[str, str], Standing] = {}
    for event, choice in choices:
        moment = as_utc(event["timestamp"]).timestamp()
        for mine, theirs, won in (("chose", "over", True), ("over", "chose", False)):
            key = subject_key(choice["kind"], choice[mine])
            standing = standings.get(key)
            if standing is None:
                standing = standings[key] = Standing(
                    choice["kind"], label(choice[mine]), newest_event=str(event["_id"]), newest=moment
                )
            if won:
                standing.wins += 1
            else:
                standing.losses += 1
            (standing.beat if won else standing.lost_to).setdefault(
                subject_key(choice["kind"], choice[theirs]), label(choice[theirs])
            )
    return standings


class Choices:
    """``memory_record_choice``: validated, then written by the facade's own preference-event write
    (``ProfileService.append_event``: size limit, audit, counters, search index)."""

    def __init__(self, append_event: Any) -> None:
        self._append_event = append_event

    async def record(
        self,
        user_id: int,
        chose: dict[str, Any],
        over: dict[str, Any],
        dimensions: list[str] | None,
        context: str | None,
    ) -> dict[str, Any]:
        payload = choice_payload(chose, over, dimensions, context)
        stored = await self._append_event(user_id, EVENT_TYPE, payload, SOURCE, None)
        return {**stored, "type": EVENT_TYPE, "source": SOURCE, "payload": payload}
