"""New ids for the preference events of a copied user (``service/transfer/importer.py`` decides when).

Every stored key of an import is derived from the importing user (``<user_id>:…``) except a
preference event's, which is the event id the export carries. A copy of a user whose events are
still stored under those ids gets ids of its own: derived from the target user and the original
id alone, so the same export imported again (with replace) gives the same ids. Nothing else in an
export names a preference event (their ``superseded_by`` marks are derived again after writing).
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any

# A canonical UUID: its last group is what a copy changes.
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# For ids that are not UUIDs (a hand-made export): a fixed namespace keeps uuid5 ids stable.
_NAMESPACE = uuid.UUID("6f1c3a52-2d7e-4c2b-9a51-3e0b8f4d7c19")


def copied_id(user_id: int, event_id: str) -> str:
    """The id of ``event_id``'s copy for ``user_id``.

    A UUID keeps its first four groups and gets a new last one: a copy's events then sort among
    themselves as the original's do, and every read that breaks ties by event id (supersession,
    search, feedback, inspect, context) orders the copy as it orders the original."""
    digest = hashlib.sha256(f"{user_id}:{event_id}".encode()).hexdigest()
    if _UUID.fullmatch(event_id):
        return event_id[:24] + digest[:12]
    return str(uuid.uuid5(_NAMESPACE, f"{user_id}:{event_id}"))


def rekey_events(user_id: int, events: list[dict[str, Any]]) -> dict[str, str]:
    """Give ``events`` (built documents, keyed by ``_id``) the ids of their copy for ``user_id``, in
    place; the mapping old id → new id."""
    mapping = {str(e["_id"]): copied_id(user_id, str(e["_id"])) for e in events}
    for event in events:
        event["_id"] = mapping[str(event["_id"])]
    return mapping
