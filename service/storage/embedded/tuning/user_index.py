"""The per-user index, kept by mongomock's collection store, and the lookups that use it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mongomock.collection import Collection as MockCollection
from mongomock.filtering import filter_applies
from mongomock.store import CollectionStore


def _user_key(document: Any) -> int | None:
    user = document.get("user_id") if isinstance(document, dict) else None
    return user if type(user) is int else None


def by_user(store: CollectionStore) -> dict[int, dict[Any, None]]:
    index = store.__dict__.get("by_user")
    if index is None:
        index = store.__dict__["by_user"] = {}
        for key, document in store._documents.items():
            user = _user_key(document)
            if user is not None:
                index.setdefault(user, {})[key] = None
    return index


_store_set: Callable[[CollectionStore, Any, Any], None] = CollectionStore.__setitem__
_store_del: Callable[[CollectionStore, Any], None] = CollectionStore.__delitem__
_store_drop: Callable[[CollectionStore], None] = CollectionStore.drop


def _unindex(store: CollectionStore, key: Any) -> None:
    previous = store._documents.get(key)
    user = _user_key(previous)
    if user is not None:
        keys = by_user(store).get(user)
        if keys is not None:
            keys.pop(key, None)
            if not keys:
                del by_user(store)[user]


def indexed_set(self: CollectionStore, key: Any, value: Any) -> None:
    _unindex(self, key)
    _store_set(self, key, value)
    user = _user_key(value)
    if user is not None:
        by_user(self).setdefault(user, {})[key] = None


def indexed_del(self: CollectionStore, key: Any) -> None:
    _unindex(self, key)
    _store_del(self, key)


def rebuild_user_index(store: CollectionStore) -> None:
    """After documents were put in the store's dict directly (loading the journal)."""
    store.__dict__.pop("by_user", None)
    by_user(store)


def indexed_drop(self: CollectionStore) -> None:
    _store_drop(self)
    self.__dict__.pop("by_user", None)


def user_documents(store: CollectionStore, user_id: int) -> Iterator[dict[str, Any]]:
    """The stored documents of one user, in insertion order."""
    documents = store._documents
    for key in list(by_user(store).get(user_id, ())):
        document = documents.get(key)
        # An update in place can move a document to another user (the service never does); the
        # filter below still decides, so a stale entry can only cost a lookup, never a wrong row.
        if document is not None:
            yield document


def iter_documents(self: MockCollection, filter_: Any) -> Iterator[dict[str, Any]]:
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
            # The index answers the user_id condition; mongomock's generic matcher (microseconds a
            # document) runs only for the rest of the filter, if there is any.
            rest = {k: v for k, v in filter_.items() if k != "user_id"}
            mine = [d for d in user_documents(store, user) if d.get("user_id") == user]
            return iter(mine) if not rest else (d for d in mine if filter_applies(rest, d))
    return _scan_documents(self, filter_)


_scan_documents: Callable[[MockCollection, Any], Iterator[dict[str, Any]]] = MockCollection._iter_documents
