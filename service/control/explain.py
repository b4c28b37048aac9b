"""``memory_explain``: "why do you think I like X", answered with the records that say so.

``path`` is a JSON Pointer into the profile (``/likes/artists/0``; NOT_FOUND when the current
profile has no such field) or else a subject ("Nightwish"; nothing known about it is an empty
answer, not NOT_FOUND). ``set_by`` are the stored profile patches that wrote it, ``evidence`` the
preference events and typed memories about it; ``Provenance.explain`` says how each is matched.
Rows are newest first, at most ``MAX_ROWS`` each (``truncated`` says some were left out).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from service.errors import NotFound
from service.limits import json_bytes
from service.memories.service import MemoryStore
from service.paging import PAGE_BYTES, decode_cursor, encode_cursor, offset_of, shares
from service.pointers import MISSING as _MISSING
from service.pointers import parse_pointer, pointer, resolve
from service.profiles.choices import choice_of, side_names
from service.profiles.opinions import superseded
from service.storage.database import Database
from service.text.entities import folded_entity
from service.text.sensitive import SUBJECT_FIELDS
from service.timeutil import as_utc

MAX_ROWS = 50
MAX_SUBJECTS = 20  # strings of one field's value looked up as subjects


def patch_sets(patch: Any, parts: list[str]) -> tuple[list[str], Any] | None:
    """(the pointer the patch wrote, the value it set at ``parts``) when this merge patch sets the
    field; None when it leaves it alone."""
    node = patch
    for depth, part in enumerate(parts):
        if not isinstance(node, dict):  # replaced whole (or deleted, null) at this ancestor
            found = resolve(node, parts[depth:])
            return parts[:depth], None if found is _MISSING else found
        if part not in node:
            return None
        node = node[part]
    return parts, node


def strings(value: Any, parts: list[str] | None = None) -> Iterator[tuple[list[str], str]]:
    """Every string leaf of a JSON value, with its path."""
    parts = parts or []
    if isinstance(value, str):
        yield parts, value
    elif isinstance(value, dict):
        for key in sorted(value):
            yield from strings(value[key], [*parts, key])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from strings(item, [*parts, str(i)])


@dataclass(frozen=True)
class EventTerms:
    """What an event can be matched on, folded once (``memory_inspect`` matches every profile field
    against every event)."""

    exact: frozenset[str]  # the payload's subject values and a choice's sides, as written (trimmed)
    folded: frozenset[str]  # the same, folded
    raw: str | None  # " <folded raw_text> ", to find whole words in
    keys: frozenset[str]  # the payload's keys


def event_terms(event: dict[str, Any]) -> EventTerms | None:
    payload = event.get("payload")
    if not isinstance(payload, dict):
        return None
    named = [payload[f] for f in SUBJECT_FIELDS if isinstance(payload.get(f), str)]
    choice = choice_of(event)
    if choice is not None:
        named += side_names(choice)
    raw = payload.get("raw_text")
    return EventTerms(
        frozenset(n.strip() for n in named),
        frozenset(folded_entity(n) for n in named),
        f" {folded_entity(raw)} " if isinstance(raw, str) else None,
        frozenset(payload),
    )


def terms_match(found: EventTerms | None, folded: set[str], exact: set[str], key: str | None) -> bool:
    if found is None:
        return False
    if key is not None and key in found.keys:
        return True
    if exact & found.exact or folded & found.folded:
        return True
    return found.raw is not None and any(f" {s} " in found.raw for s in folded)


def event_matches(event: dict[str, Any], folded: set[str], exact: set[str], key: str | None) -> bool:
    return terms_match(event_terms(event), folded, exact, key)


def event_row(event: dict[str, Any], replaced: dict[str, str]) -> dict[str, Any]:
    raw = (event.get("payload") or {}).get("raw_text")
    row = {
        "kind": "preference_event",
        "id": str(event["_id"]),
        "timestamp": event["timestamp"],
        "type": event["type"],
        "source": event.get("source"),
        "raw_text": raw if isinstance(raw, str) else None,
    }
    if choice_of(event) is not None:
        row["choice"] = True
    if str(event["_id"]) in replaced:
        row["superseded_by"] = replaced[str(event["_id"])]
    return row


def memory_row(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "memory",
        "id": row["memory_id"],
        "timestamp": row["timestamp"],
        "type": row["type"],
        "summary": row["summary"],
        "entities": row["entities"],
        "importance": row["importance"],
        "fuzzy": row["fuzzy"],
    }


def _newest_first(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (as_utc(r["timestamp"]).timestamp(), r["id"]), reverse=True)


class Provenance:
    def __init__(self, db: Database, memories: MemoryStore) -> None:
        self._db = db
        self._memories = memories

    async def explain(self, user_id: int, path: str, cursor: str | None = None) -> dict[str, Any]:
        """Two forms of ``path``:

        - A JSON Pointer into the profile (RFC 6901, ``/likes/artists/0``, ``/rules/max_tracks_per_artist``).
          Not in the current profile: NOT_FOUND. ``set_by`` are the profile patches of the stored history
          (``Profiles``: capped at ``profile_history_cap`` entries) that set this field: a patch sets it when
          it holds the path itself, or replaces an ancestor whole (a merge patch replaces arrays and scalars
          whole, so ``{"likes": {"artists": [...]}}`` sets ``/likes/artists/0``). Each row: version,
          applied_at, source, reason, ``path`` (the pointer the patch wrote) and ``value`` (what it set at
          the asked path; null when it deleted it or its value has no such element). ``evidence`` are the
          preference events whose subject matches the field's value: their payload's ``artist``,
          ``track_id``, ``album``, ``genre`` or ``subject``, or a pairwise choice's sides, equal to one of the
          value's strings once folded (``folded_entity``: case, accents, "the"), or whose ``raw_text``
          holds one of them as whole words; for a value without strings (a rule such as 2), the events whose
          payload has a key named as the field (``max_tracks_per_artist``). Plus the typed memories about
          the value's strings (``memory_query`` by entity).
        - Anything else is a subject ("Nightwish"): ``value`` is null, ``set_by`` the patches that wrote
          that subject somewhere (a string of the patch equal to it once folded; ``path`` says where), and
          ``evidence`` the matching events (as above) and the memories ``memory_query`` finds by entity.
          Nothing about it is an empty answer, not NOT_FOUND.

        Rows are newest first, at most ``MAX_ROWS`` each (``truncated`` says some were left out; events
        before memories when both are many). ``history_complete`` is false when the history cap has
        dropped older patches (its oldest kept entry is not version 1). Like and dislike events a newer one
        of the same subject supersedes carry ``superseded_by`` (``service.profiles.opinions.superseded``).
        """
        document = await self._db.profiles.find_one({"_id": user_id, "user_id": user_id})
        history = list((document or {}).get("history") or [])
        complete = not history or min(int(h.get("version", 0)) for h in history) <= 1
        if path.startswith("/"):
            parts = parse_pointer(path)
            value = resolve((document or {}).get("profile", {}), parts)
            if value is _MISSING or document is None:
                raise NotFound(f"the profile has no field {path}", {"field": "path"})
            set_by = [
                self._patch_row(entry, *found)
                for entry in history
                if (found := patch_sets(entry.get("patch"), parts)) is not None
            ]
            names = [s for _, s in strings(value)][:MAX_SUBJECTS]
            key = next((p for p in reversed(parts) if not p.isdigit()), None) if not names else None
        else:
            subject = folded_entity(path)
            value, names, key = None, [path], None
            set_by = [
                self._patch_row(entry, at, text)
                for entry in history
                for at, text in strings(entry.get("patch"))
                if folded_entity(text) == subject
            ]
        evidence = await self._events(user_id, names, key) + await self._memory_rows(user_id, names)
        set_by.sort(key=lambda r: r["version"], reverse=True)
        lists = {"set_by": set_by[:MAX_ROWS], "evidence": evidence[:MAX_ROWS]}
        # A page of each list within PAGE_BYTES; the cursor goes on where it stopped (what was
        # written between pages may shift a row across a page's edge).
        at = dict.fromkeys(lists, 0)
        if cursor is not None:
            state = decode_cursor(cursor, "explain")
            at = {k: offset_of(state, k, end=len(v)) for k, v in lists.items()}
        taken = shares(lists, at, PAGE_BYTES - json_bytes(value))
        after = {k: at[k] + taken[k] for k in lists}
        more = any(after[k] < len(v) for k, v in lists.items())
        return {
            "user_id": user_id,
            "path": path,
            "value": value,
            **{k: v[at[k] : after[k]] for k, v in lists.items()},
            "set_by_count": min(len(set_by), MAX_ROWS),
            "evidence_count": min(len(evidence), MAX_ROWS),
            "history_complete": complete,
            "truncated": len(set_by) > MAX_ROWS or len(evidence) > MAX_ROWS,
            "next_cursor": encode_cursor("explain", after) if more else None,
        }

    @staticmethod
    def _patch_row(entry: dict[str, Any], written: list[str], value: Any) -> dict[str, Any]:
        return {
            "version": entry["version"],
            "applied_at": entry.get("applied_at"),
            "source": entry.get("source"),
            "reason": entry.get("reason"),
            "path": pointer(written),
            "value": value,
        }

    async def _events(self, user_id: int, names: list[str], key: str | None) -> list[dict[str, Any]]:
        folded = {folded_entity(n) for n in names} - {""}
        exact = {n.strip() for n in names} - {""}
        if not exact and key is None:
            return []
        events = await self._db.preference_events.find(
            {"user_id": user_id}, {"type": 1, "source": 1, "payload": 1, "timestamp": 1, "recorded_ns": 1}
        )
        replaced = superseded(
            [e for e in events if e.get("type") in ("like", "dislike") and isinstance(e.get("payload"), dict)]
        )
        return _newest_first([event_row(e, replaced) for e in events if event_matches(e, folded, exact, key)])

    async def _memory_rows(self, user_id: int, names: list[str]) -> list[dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for name in names:
            if name.strip():
                rows = await self._memories.query(user_id, name[:200], None, None, None, None, MAX_ROWS)
                for row in rows["memories"]:
                    found.setdefault(row["memory_id"], memory_row(row))
        return _newest_first(list(found.values()))
