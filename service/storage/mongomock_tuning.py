"""What makes mongomock fit to be the embedded engine: indexed lookups and cheap copies.

mongomock answers every query by scanning the whole collection and deep-copies documents on
every read and update, so a call's cost grew with every other user's data and with the size of a
playlist. Three changes, applied once at import, keep its semantics and remove those costs:

* a plain ``_id`` lookup goes straight to the stored document;
* a filter with a top-level ``user_id`` equality visits only that user's documents, through a
  per-user index kept by the collection store itself (so every path that writes the store —
  inserts, updates, upserts, deletes, loading the journal — keeps it exact);
* copies treat strings, numbers and dates as the immutable values they are: a list of 5,000 track
  IDs is copied as a list, not element by element through ``copy.deepcopy``'s dispatch.
"""

from __future__ import annotations

import copy
import itertools
from operator import itemgetter
from collections import OrderedDict
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import mongomock.collection as mock_collection
import mongomock.helpers as mock_helpers
from bson import Decimal128, Int64, ObjectId
from mongomock.collection import Collection as MockCollection
from mongomock.filtering import filter_applies
from mongomock.store import CollectionStore

_ATOMS = frozenset({str, int, float, bool, type(None), bytes, datetime, ObjectId, Decimal128, Int64})


def fast_deepcopy(value: Any, memo: Any = None) -> Any:
    """``copy.deepcopy`` for BSON-shaped values; anything unusual goes to the real one."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is dict:
        return {k: fast_deepcopy(v) for k, v in value.items()}
    if kind is OrderedDict:  # what mongomock stores after an upsert or a replace
        return OrderedDict((k, fast_deepcopy(v)) for k, v in value.items())
    if kind is list:
        if set(map(type, value)) <= _ATOMS:  # C-level scan: track-id lists copy in microseconds
            return value.copy()
        return [fast_deepcopy(v) for v in value]
    return copy.deepcopy(value, memo)


class _CopyModule:
    """Stands in for the ``copy`` module inside mongomock.collection."""

    deepcopy = staticmethod(fast_deepcopy)

    @staticmethod
    def copy(value: Any) -> Any:
        return value if type(value) in _ATOMS else copy.copy(value)


def _copy_field(obj: Any, container: type) -> Any:
    if container is dict:
        return fast_deepcopy(obj)
    if isinstance(obj, list):
        return [_copy_field(item, container) for item in obj]
    if isinstance(obj, dict):
        new = container()
        for key, value in obj.items():
            new[key] = _copy_field(value, container)
        return new
    return _CopyModule.copy(obj)


_patch_datetimes = mock_helpers.patch_datetime_awareness_in_document
_NO_DATES = _ATOMS - {datetime}


def _patch_datetime_awareness(value: Any) -> Any:
    """mongomock walks every value written or queried to truncate dates to milliseconds; a list
    without dates (track IDs) needs no walk. Returns new containers (a copy safe to store)."""
    kind = type(value)
    if kind in _NO_DATES:
        return value
    if kind is list or kind is tuple:
        if set(map(type, value)) <= _NO_DATES:
            return list(value)
        return [_patch_datetime_awareness(item) for item in value]
    if kind is dict:
        return {k: _patch_datetime_awareness(v) for k, v in value.items()}
    return _patch_datetimes(value)


def _dates_made_aware(value: Any) -> Any:
    """What a ``tz_aware`` client returns: dates tagged UTC. It is applied to the cursor's own
    copies, so a list without dates is handed on as it is."""
    kind = type(value)
    if kind is dict or kind is OrderedDict:
        return {k: _dates_made_aware(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        if set(map(type, value)) <= _NO_DATES:
            return value
        return [_dates_made_aware(item) for item in value]
    if kind is datetime:
        return value.replace(tzinfo=UTC)
    return _make_aware(value)


_make_aware = mock_helpers.make_datetime_timezone_aware_in_document


# --- the per-user index, kept by the store --------------------------------------------------

def _user_key(document: Any) -> int | None:
    user = document.get("user_id") if isinstance(document, dict) else None
    return user if type(user) is int else None


def _by_user(store: CollectionStore) -> dict[int, dict[Any, None]]:
    index = store.__dict__.get("_by_user")
    if index is None:
        index = store.__dict__["_by_user"] = {}
        for key, document in store._documents.items():
            user = _user_key(document)
            if user is not None:
                index.setdefault(user, {})[key] = None
    return index


_store_set = CollectionStore.__setitem__
_store_del = CollectionStore.__delitem__
_store_drop = CollectionStore.drop


def _unindex(store: CollectionStore, key: Any) -> None:
    previous = store._documents.get(key)
    user = _user_key(previous)
    if user is not None:
        keys = _by_user(store).get(user)
        if keys is not None:
            keys.pop(key, None)
            if not keys:
                del _by_user(store)[user]


def _indexed_set(self: CollectionStore, key: Any, value: Any) -> None:
    _unindex(self, key)
    _store_set(self, key, value)
    user = _user_key(value)
    if user is not None:
        _by_user(self).setdefault(user, {})[key] = None


def _indexed_del(self: CollectionStore, key: Any) -> None:
    _unindex(self, key)
    _store_del(self, key)


def rebuild_user_index(store: CollectionStore) -> None:
    """After documents were put in the store's dict directly (loading the journal)."""
    store.__dict__.pop("_by_user", None)
    _by_user(store)


def _indexed_drop(self: CollectionStore) -> None:
    _store_drop(self)
    self.__dict__.pop("_by_user", None)


def user_documents(store: CollectionStore, user_id: int) -> Iterator[dict]:
    """The stored documents of one user, in insertion order."""
    documents = store._documents
    for key in list(_by_user(store).get(user_id, ())):
        document = documents.get(key)
        # An update in place can move a document to another user (the service never does); the
        # filter below still decides, so a stale entry can only cost a lookup, never a wrong row.
        if document is not None:
            yield document


_NUMBERS = {int, float}
_SORTABLE = ({str}, {datetime}, _NUMBERS, {int}, {float})


def _sorted_natively(documents: list[dict], sort: list[tuple[str, int]]) -> list[dict] | None:
    """Sorted as MongoDB sorts them when every sort field is top-level and holds one kind of
    plain value in every document (strings, numbers or dates), with C-speed keys; else None
    (mongomock's generic sort key then decides)."""
    for field, _ in sort:
        if "." in field:
            return None
        kinds = {type(d.get(field)) for d in documents}
        if not documents or kinds not in _SORTABLE:
            return None
    ordered = list(documents)
    for field, direction in reversed(sort):  # stable sorts, last key first
        ordered.sort(key=itemgetter(field), reverse=direction < 0)
    return ordered


def find_documents(motor_collection: Any, filter_: Any, projection: Any, sort: Any, limit: int) -> Iterator[dict]:
    """What mongomock's cursor returns, produced lazily: its cursor copies (and dates) every
    matching document before applying a limit, copies its result list again for every document
    it hands out (quadratic in the result), and sorts with a generic per-document key."""
    collection = motor_collection._AsyncMongoMockCollection__collection
    spec = mock_helpers.patch_datetime_awareness_in_document(filter_)
    if sort:
        found = list(collection._iter_documents(spec))
        ordered = _sorted_natively(found, sort)
        if ordered is not None:
            chosen = ordered[:limit] if limit else ordered
            return (_dates_made_aware(collection._copy_only_fields(d, projection, dict)) for d in chosen)
    dataset = collection._get_dataset(spec, sort, projection, dict)
    return (_dates_made_aware(document) for document in (itertools.islice(dataset, limit) if limit else dataset))


def stored_document(motor_collection: Any, filter_: Any) -> dict | None:
    """The first stored document matching the filter, itself (no copy)."""
    collection = motor_collection._AsyncMongoMockCollection__collection
    return next(iter(collection._iter_documents(mock_helpers.patch_datetime_awareness_in_document(filter_))), None)


def documents_per_user(motor_collection: Any) -> dict[int, int]:
    """How many documents each user has in a collection, from the per-user index alone."""
    store = motor_collection._AsyncMongoMockCollection__collection._store
    store._remove_expired_documents()
    return {user: len(keys) for user, keys in _by_user(store).items() if keys}


def _iter_documents(self: MockCollection, filter_: Any) -> Iterator[dict] | Any:
    if isinstance(filter_, dict):
        store = self._store
        if not filter_:  # everything: no matcher to run per document
            return iter(list(store.documents))
        key = filter_.get("_id")
        if isinstance(key, str | int) and not isinstance(key, bool):
            document = store._documents.get(key)
            found = document is not None and filter_applies(filter_, document)
            return iter([document] if found else [])
        if isinstance(key, dict) and key.keys() == {"$in"} and isinstance(key["$in"], list | tuple):
            rest = {k: v for k, v in filter_.items() if k != "_id"}
            found = (store._documents.get(k) for k in dict.fromkeys(key["$in"]) if isinstance(k, str | int))
            return iter([d for d in found if d is not None and filter_applies(rest, d)])
        user = filter_.get("user_id")
        if type(user) is int:
            store._remove_expired_documents()
            # The index answers the user_id condition; mongomock's generic matcher (~0.1 ms a
            # document) runs only for the rest of the filter, if there is any.
            rest = {k: v for k, v in filter_.items() if k != "user_id"}
            mine = [d for d in user_documents(store, user) if d.get("user_id") == user]
            return iter(mine) if not rest else (d for d in mine if filter_applies(rest, d))
    return _scan_documents(self, filter_)


_scan_documents = MockCollection._iter_documents
_mock_delete = MockCollection._delete
_mock_update = MockCollection._update

# --- updates in place ---------------------------------------------------------------------
# mongomock deep-copies a document before every update (to roll back on a unique-index clash,
# and to tell whether anything changed): appending one event to a history bucket copied all of
# its events, a cost that grew with the bucket. The service's updates are plain $set / $push /
# $inc / $max on named fields, none of which can fail half-way or touch a unique key, so they
# are applied to the stored document directly; anything else goes to mongomock's own path.
_IN_PLACE = {"$set", "$push", "$inc", "$max"}
_MISSING = object()


def _plain_update(update: Any, unique_keys: set[str]) -> bool:
    """Only top-level fields, no _id, no unique key: such an update cannot clash or half-apply."""
    if not isinstance(update, dict) or not update or not set(update) <= _IN_PLACE:
        return False
    for operator, operation in update.items():
        if not isinstance(operation, dict):
            return False
        for name, value in operation.items():
            if name == "_id" or name in unique_keys or "." in name or name.startswith("$"):
                return False
            if operator == "$push" and _push_modifiers(value) - {"$each", "$slice"}:
                return False
            if operator == "$max" and type(value) not in (int, float, str, datetime):
                return False
    return True


def _push_modifiers(value: Any) -> set[str]:
    """The modifiers of a $push value ($each, $slice, $position…); none for a plain value."""
    return {k for k in value if k.startswith("$")} if isinstance(value, dict) else set()


def _applies_cleanly(document: dict, update: dict) -> bool:
    """Whether every part of the update fits the document as it is (else mongomock decides)."""
    for operator, operation in update.items():
        for name, value in operation.items():
            current = document.get(name, _MISSING)
            if operator == "$push" and current is not _MISSING and type(current) is not list:
                return False
            if operator == "$inc" and not (isinstance(value, int | float) and not isinstance(value, bool)
                                           and (current is _MISSING or isinstance(current, int | float))):
                return False
            if operator == "$max" and current is not _MISSING and current is not None and \
                    type(_patch_datetime_awareness(value)) is not type(current):
                return False
    return True


def _apply_in_place(document: dict, update: dict) -> None:
    for operator, operation in update.items():
        for name, value in operation.items():
            if operator == "$set":
                document[name] = _patch_datetime_awareness(value)
            elif operator == "$inc":
                document[name] = document.get(name, 0) + value
            elif operator == "$max":
                value = _patch_datetime_awareness(value)
                current = document.get(name, _MISSING)
                if current is _MISSING or current is None or value > current:
                    document[name] = value
            else:  # $push, plain or {$each, $slice}
                modifiers = _push_modifiers(value)
                each = value["$each"] if "$each" in modifiers else [value]
                array = document.setdefault(name, [])
                array.extend(_patch_datetime_awareness(item) for item in each)
                cut = value.get("$slice") if "$slice" in modifiers else None
                if cut is not None:
                    array[:] = array[cut:] if cut < 0 else array[:cut]


def _update(self: MockCollection, spec: Any, document: Any, upsert: bool = False, manipulate: bool = False,
            multi: bool = False, check_keys: bool = False, hint: Any = None, session: Any = None,
            collation: Any = None, let: Any = None, array_filters: Any = None, **kwargs: Any) -> dict[str, Any]:
    unique = {key for index in self._store.indexes.values() if index.get("unique")
              for key, _ in index.get("key", ())}
    plain = (not (upsert or hint or session or collation or let or array_filters or kwargs)
             and isinstance(spec, dict) and _plain_update(document, {k.split(".", 1)[0] for k in unique}))
    targets = list(self._iter_documents(mock_helpers.patch_datetime_awareness_in_document(spec))) if plain else []
    if not plain or not all(_applies_cleanly(existing, document) for existing in targets[:None if multi else 1]):
        return _mock_update(self, spec, document, upsert, manipulate, multi, check_keys, hint, session,
                            collation, let, array_filters, **kwargs)
    matched = 0
    for existing in targets:
        _apply_in_place(existing, document)
        matched += 1
        if not multi:
            break
    return {"connectionId": self.database.client._id, "err": None, "n": matched,
            "nModified": matched, "ok": 1, "upserted": None, "updatedExisting": bool(matched)}


def _delete(self: MockCollection, filter: Any, collation: Any = None, hint: Any = None, multi: bool = False,
            session: Any = None) -> dict[str, Any]:
    """mongomock's delete, without first copying every document it is about to delete."""
    if collation or hint or session or not isinstance(filter, dict):
        return _mock_delete(self, filter, collation, hint, multi, session)
    found = self._iter_documents(mock_helpers.patch_datetime_awareness_in_document(filter))
    doomed = [document["_id"] for document in found]
    doomed = doomed if multi else doomed[:1]
    for doc_id in doomed:
        del self._store[mock_helpers.hashdict(doc_id) if isinstance(doc_id, dict) else doc_id]
    return {"connectionId": self.database.client._id, "n": len(doomed), "ok": 1.0, "err": None}


def _install() -> None:
    if getattr(CollectionStore, "_taste_memory_tuned", False):
        return
    CollectionStore.__setitem__ = _indexed_set  # type: ignore[method-assign]
    CollectionStore.__delitem__ = _indexed_del  # type: ignore[method-assign]
    CollectionStore.drop = _indexed_drop  # type: ignore[method-assign]
    CollectionStore._taste_memory_tuned = True  # type: ignore[attr-defined]
    MockCollection._iter_documents = _iter_documents  # type: ignore[method-assign]
    MockCollection._delete = _delete  # type: ignore[method-assign]
    MockCollection._update = _update  # type: ignore[method-assign]
    mock_collection.copy = _CopyModule  # type: ignore[assignment]
    mock_collection._copy_field = _copy_field
    mock_helpers.patch_datetime_awareness_in_document = _patch_datetime_awareness
    mock_helpers.make_datetime_timezone_aware_in_document = _dates_made_aware


_install()
