"""Answers that fit: the reads beyond the PRD answer at most ``ANSWER_BYTES`` by default, and a
longer list goes on in pages named by an opaque cursor.

The cursor is stateless (base64url of a small JSON: which read, where the page stops, and what
pins the answer, such as the moment "now" meant on the first page): a read writes nothing, so
paging costs no storage, needs no expiry and works on a read-only store. It selects no user: the
call's ``user_id`` still does, and a cursor that is not one of these is INVALID_ARGUMENT.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from service.errors import InvalidArgument
from service.limits import json_bytes
from service.timeutil import parse_iso

ANSWER_BYTES = 16_384
# What a page's list may take: the rest of an answer (counts, echoes, the envelope) fits beside it.
PAGE_BYTES = 12_000
# A page asked for with detail "full" by a reader that wants everything at once (the memory page):
# one answer well within the stock client's 1 MiB, so a big profile is a call or two, not thirty.
FULL_PAGE_BYTES = 400_000


def encode_cursor(kind: str, state: dict[str, Any]) -> str:
    body = json.dumps({"k": kind, **state}, separators=(",", ":"), default=str).encode()
    return base64.urlsafe_b64encode(body).decode().rstrip("=")


def decode_cursor(cursor: str, kind: str, field: str = "cursor") -> dict[str, Any]:
    """The state ``encode_cursor`` put in a cursor of this ``kind``; INVALID_ARGUMENT naming
    ``field`` for anything else (another read's cursor, a cut or edited one)."""
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(body, dict) or body.pop("k", None) != kind:
            raise ValueError("another read's cursor")
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise InvalidArgument(f"{field} is not one this read issued; call again without it", {"field": field}) from None
    return body


def offset_of(state: dict[str, Any], name: str, field: str = "cursor", end: int | None = None) -> int:
    """A non-negative whole number of the cursor's state (at most ``end`` when given)."""
    value = state.get(name)
    if type(value) is not int or value < 0 or (end is not None and value > end):
        raise InvalidArgument(f"{field} is not one this read issued; call again without it", {"field": field})
    return value


def pinned_time(text: str, field: str = "cursor") -> datetime:
    """A moment a cursor pinned (``datetime.isoformat`` of an aware UTC time)."""
    try:
        return parse_iso(text)
    except ValueError:
        raise InvalidArgument(f"{field} is not one this read issued; call again without it", {"field": field}) from None


def fitting(items: Sequence[Any], budget: int, start: int = 0) -> int:
    """How many items from ``start`` fit ``budget`` bytes of compact JSON (at least one, so a page
    always moves on)."""
    used = 0
    for count in range(len(items) - start):  # by index: a list read lazily is read only as far as it fits
        used += json_bytes(items[start + count]) + 1
        if used > budget and count > 0:
            return count
    return len(items) - start


def _window(items: Sequence[Any], start: int, budget: int, at_least_one: bool) -> int:
    """How many items from ``start`` fit ``budget`` bytes (at least one when any is left and
    ``at_least_one``)."""
    if start >= len(items) or (not at_least_one and json_bytes(items[start]) + 1 > budget):
        return 0
    return fitting(items, budget, start)


def shares(lists: Mapping[str, Sequence[Any]], offsets: Mapping[str, int], budget: int) -> dict[str, int]:
    """How many items of each list one page shows, going on from ``offsets``: each list with items
    left gets an equal share of ``budget``, and what a short list leaves over goes to the longer
    ones in a second round. Every list with items left shows one at least, so paging ends."""
    taken = dict.fromkeys(lists, 0)
    for _ in range(2):
        open_lists = [k for k in lists if offsets[k] + taken[k] < len(lists[k])]
        used = sum(json_bytes(lists[k][offsets[k] : offsets[k] + taken[k]]) for k in lists)
        if not open_lists or (used >= budget and all(taken[k] for k in open_lists)):
            break
        share = max(0, budget - used) // len(open_lists)
        for k in open_lists:
            taken[k] += _window(lists[k], offsets[k] + taken[k], share, taken[k] == 0)
    return taken
