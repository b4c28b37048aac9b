"""An update's change event as MongoDB sends it to a stream opened with ``updateLookup``: the
document as it is now rides along. Its entry names the document's owner (an event's key does not),
and its stamp is the update's own, never the document's earlier author or importer."""

from __future__ import annotations

from datetime import UTC, datetime

from service.audit.entries import UNSTAMPED, entry_from_change
from tests.audit.change_events import update

WHEN = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
AUTHOR = {"principal": "alice-token", "tool": "memory_append_preference_event", "request_id": "r1"}
IMPORTER = {"principal": "ops", "tool": "memory_import_user_data", "request_id": "r0"}
MARKER = {"principal": "alice-token", "tool": "memory_append_preference_event", "request_id": "r2"}


def _with_document(change: dict, document: dict) -> dict:
    return {**change, "fullDocument": document}


def test_an_update_with_its_looked_up_document_is_the_owners_entry_with_the_updates_stamp() -> None:
    document = {"_id": "e1", "user_id": 7, "type": "like", "written_by": AUTHOR, "imported_by": IMPORTER}
    marked = _with_document(update("preference_events", "e1", {"superseded_by": "e2"}, WHEN), document)
    entry = entry_from_change(marked, via="watcher")
    assert entry is not None and entry["user_id"] == 7 and entry["document_key"] == "e1"
    assert (entry["principal"], entry["tool"], entry["request_id"]) == tuple(UNSTAMPED.values())
    stamped = update("preference_events", "e1", {"superseded_by": "e2", "written_by": MARKER}, WHEN)
    entry = entry_from_change(_with_document(stamped, document), via="watcher")
    assert entry is not None and (entry["user_id"], entry["request_id"]) == (7, "r2")


def test_without_the_document_an_events_update_names_no_user() -> None:
    """What an update event carried before the stream asked for the document: no owner to name."""
    entry = entry_from_change(update("preference_events", "e1", {"superseded_by": "e2"}, WHEN), via="watcher")
    assert entry is not None and entry["user_id"] is None
