"""Installs the tuning into mongomock when the embedded engine starts (never on import).

mongomock scans every collection per query and deep-copies on every read and update; the
replacements keep its semantics (tests/storage/test_embedded_engine_equivalence.py checks them
against the originals) and remove those costs: cheap copies of immutable values (``copies``), a
per-user index kept by the collection store (``user_index``), lazy limited finds (``reads``) and
in-place updates and copy-free deletes (``writes``). A process on real MongoDB never installs it.
"""

from __future__ import annotations

import mongomock.collection as mock_collection
import mongomock.helpers as mock_helpers
from mongomock.collection import Collection as MockCollection
from mongomock.store import CollectionStore

from service.storage.embedded.tuning import copies, user_index, writes


def installed() -> bool:
    return bool(getattr(CollectionStore, "_taste_memory_tuned", False))


def install() -> None:
    """Install the tuning into mongomock, once per process; the embedded engine calls it as it starts."""
    if installed():
        return
    # Each assignment replaces one of mongomock's methods or names on purpose (monkeypatching).
    CollectionStore.__setitem__ = user_index.indexed_set  # type: ignore[method-assign]  # monkeypatch
    CollectionStore.__delitem__ = user_index.indexed_del  # type: ignore[method-assign]  # monkeypatch
    CollectionStore.drop = user_index.indexed_drop  # type: ignore[method-assign]  # monkeypatch
    CollectionStore._taste_memory_tuned = True  # type: ignore[attr-defined]  # our marker on mongomock's class
    MockCollection._iter_documents = user_index.iter_documents  # type: ignore[method-assign]  # monkeypatch
    MockCollection._delete = writes.delete  # type: ignore[method-assign]  # monkeypatch
    MockCollection._update = writes.update  # type: ignore[method-assign]  # monkeypatch
    # The copy module that mongomock.collection imports (a name it does not export), replaced.
    mock_collection.copy = copies.CopyModule  # type: ignore[attr-defined, assignment]  # a module swapped for a class
    mock_collection._copy_field = copies.copy_field
    mock_helpers.patch_datetime_awareness_in_document = copies.patch_datetime_awareness
    mock_helpers.make_datetime_timezone_aware_in_document = copies.dates_made_aware
