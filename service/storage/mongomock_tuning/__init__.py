"""What makes mongomock fit to be the embedded engine: indexed lookups, cheap copies, updates in
place.

mongomock answers every query by scanning the whole collection and deep-copies documents on
every read and update, so a call's cost grew with every other user's data and with the size of a
playlist. These changes, installed once at import, keep its semantics (a property test checks
them against the originals: tests/service/test_embedded_engine_equivalence.py) and remove those
costs:

* ``copies``: copies treat strings, numbers and dates as the immutable values they are: a list of
  5,000 track IDs is copied as a list, not element by element through ``copy.deepcopy``;
* ``user_index``: a plain ``_id`` or ``_id: {$in}`` lookup goes straight to the stored documents,
  and a filter with a top-level ``user_id`` equality visits only that user's documents, through a
  per-user index kept by the collection store itself (so every path that writes the store keeps
  it exact);
* ``reads``: finds produced lazily, limited before copying, sorted with native keys;
* ``writes``: plain ``$set``/``$push``/``$inc``/``$max`` updates applied in place, deletes
  without copying first.
"""

from __future__ import annotations

import mongomock.collection as mock_collection
import mongomock.helpers as mock_helpers
from mongomock.collection import Collection as MockCollection
from mongomock.store import CollectionStore

from service.storage.mongomock_tuning import copies, user_index, writes
from service.storage.mongomock_tuning.reads import documents_per_user, find_documents, stored_document
from service.storage.mongomock_tuning.user_index import _scan_documents, rebuild_user_index
from service.storage.mongomock_tuning.writes import _mock_delete, _mock_update

__all__ = ["_mock_delete", "_mock_update", "_scan_documents", "documents_per_user", "find_documents",
           "rebuild_user_index", "stored_document"]


def _install() -> None:
    if getattr(CollectionStore, "_taste_memory_tuned", False):
        return
    CollectionStore.__setitem__ = user_index.indexed_set  # type: ignore[method-assign]
    CollectionStore.__delitem__ = user_index.indexed_del  # type: ignore[method-assign]
    CollectionStore.drop = user_index.indexed_drop  # type: ignore[method-assign]
    CollectionStore._taste_memory_tuned = True  # type: ignore[attr-defined]
    MockCollection._iter_documents = user_index.iter_documents  # type: ignore[method-assign]
    MockCollection._delete = writes.delete  # type: ignore[method-assign]
    MockCollection._update = writes.update  # type: ignore[method-assign]
    mock_collection.copy = copies.CopyModule  # type: ignore[assignment]
    mock_collection._copy_field = copies.copy_field
    mock_helpers.patch_datetime_awareness_in_document = copies.patch_datetime_awareness
    mock_helpers.make_datetime_timezone_aware_in_document = copies.dates_made_aware


_install()
