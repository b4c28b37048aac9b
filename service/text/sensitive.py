"""What is kept out of sight: preference events whose payload says ``sensitive: true`` and profile
fields the profile lists under ``sensitive_fields`` (JSON Pointers, RFC 6901). Such an item never
enters the context block or a search unless the asking text names it (``service.text.naming``):
an event by one of its subjects (artist, track, album, genre, subject), a profile field by its
key or its text. ``memory_inspect`` and the memory page show them, marked.
"""

from __future__ import annotations

from typing import Any

from service.errors import InvalidArgument
from service.pointers import parse_pointer

FIELDS_KEY = "sensitive_fields"
# What a like or dislike is about (``service.profiles.opinions``), and what names a hidden one
SUBJECT_FIELDS = ("artist", "track_id", "album", "genre", "subject")
MAX_FIELDS = 200


def sensitive_event(event: dict[str, Any]) -> bool:
    payload = event.get("payload")
    return isinstance(payload, dict) and payload.get("sensitive") is True


def event_names(payload: dict[str, Any]) -> list[str]:
    """The subjects a query must name for a sensitive event to come back."""
    return [v for name in SUBJECT_FIELDS if isinstance(v := payload.get(name), str)]


def checked_payload(payload: dict[str, Any]) -> None:
    """A payload's ``sensitive`` is a boolean when present: anything else is refused before writing."""
    if "sensitive" in payload and not isinstance(payload["sensitive"], bool):
        raise InvalidArgument("payload.sensitive must be true or false", {"field": "payload.sensitive"})


def checked_fields(profile: dict[str, Any]) -> None:
    """The profile's ``sensitive_fields``, when present, is a list of JSON Pointers: refused otherwise,
    before anything is written (a rule that cannot be read would expose what it meant to hide)."""
    if FIELDS_KEY not in profile:
        return
    value = profile[FIELDS_KEY]
    bad = not isinstance(value, list) or len(value) > MAX_FIELDS
    bad = bad or any(not isinstance(p, str) or not p.startswith("/") for p in value)
    if bad:
        raise InvalidArgument(
            f'sensitive_fields must be a list of at most {MAX_FIELDS} JSON Pointers such as "/likes/3"',
            {"field": f"patch.{FIELDS_KEY}"},
        )


def sensitive_paths(profile: dict[str, Any]) -> list[list[str]]:
    """The parsed pointers of ``sensitive_fields`` (ill-formed entries, which a stored profile from
    before the check may hold, are skipped)."""
    value = profile.get(FIELDS_KEY)
    if not isinstance(value, list):
        return []
    return [parse_pointer(p) for p in value if isinstance(p, str) and p.startswith("/")]


def marked_by(path: list[str], marked: list[list[str]]) -> list[str] | None:
    """The marked pointer a field at ``path`` is, is inside, or holds (a field shown whole, such as a
    list of objects, is hidden whole when a part of it is marked); None when it is not marked."""
    return next((m for m in marked if path[: len(m)] == m or m[: len(path)] == path), None)


def field_names(mark: list[str], value: Any) -> list[str]:
    """What names a marked profile field: the key the mark ends with (``funeral_songs`` read as
    "funeral songs"; an array index names nothing) and the field's text, when it is text."""
    key = [mark[-1].replace("_", " ")] if mark and not mark[-1].isdigit() else []
    return key + ([value] if isinstance(value, str) else [])


def split_marked(path: list[str], value: Any, marked: list[list[str]]) -> tuple[Any, list[tuple[list[str], Any]]]:
    """(the value at ``path`` without its marked parts — ``HIDDEN`` when all of it is marked —, and
    each marked part present with its path), for an index that must not hold what is kept out of sight."""
    if any(path[: len(m)] == m for m in marked):
        return HIDDEN, [(path, value)]
    if not any(m[: len(path)] == path for m in marked):
        return value, []
    parts: list[tuple[list[str], Any]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    kept: list[tuple[Any, Any]] = []
    for name, item in items:
        rest, found = split_marked([*path, str(name)], item, marked)
        parts += found
        if rest is not HIDDEN:
            kept.append((name, rest))
    if isinstance(value, dict):
        return dict(kept), parts
    return ([item for _, item in kept] if isinstance(value, list) else value), parts


def leaf_texts(value: Any) -> list[str]:
    """Every string in a JSON value (what a marked part may be named by)."""
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return [text for item in items for text in leaf_texts(item)]


HIDDEN = object()
