"""Writes without mongomock's defensive copies: updates in place, deletes without copying."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import mongomock.helpers as mock_helpers
from mongomock.collection import Collection as MockCollection

from service.storage.embedded.tuning.copies import patch_datetime_awareness

_mock_delete: Callable[..., dict[str, Any]] = MockCollection._delete
_mock_update: Callable[..., dict[str, Any]] = MockCollection._update

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


def _applies_cleanly(document: dict[str, Any], update: dict[str, Any]) -> bool:
    """Whether every part of the update fits the document as it is (else mongomock decides)."""
    for operator, operation in update.items():
        for name, value in operation.items():
            current = document.get(name, _MISSING)
            if operator == "$push" and current is not _MISSING and type(current) is not list:
                return False
            if operator == "$inc" and not (
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and (current is _MISSING or isinstance(current, int | float))
            ):
                return False
            if (
                operator == "$max"
                and current is not _MISSING
                and current is not None
                and type(patch_datetime_awareness(value)) is not type(current)
            ):
                return False
    return True


def _apply_in_place(document: dict[str, Any], update: dict[str, Any]) -> None:
    for operator, operation in update.items():
        for name, value in operation.items():
            if operator == "$set":
                document[name] = patch_datetime_awareness(value)
            elif operator == "$inc":
                document[name] = document.get(name, 0) + value
            elif operator == "$max":
                value = patch_datetime_awareness(value)
                current = document.get(name, _MISSING)
                if current is _MISSING or current is None or value > current:
                    document[name] = value
            else:  # $push, plain or {$each, $slice}
                modifiers = _push_modifiers(value)
                each = value["$each"] if "$each" in modifiers else [value]
                array = document.setdefault(name, [])
                array.extend(patch_datetime_awareness(item) for item in each)
                cut = value.get("$slice") if "$slice" in modifiers else None
                if cut is not None:
                    array[:] = array[cut:] if cut < 0 else array[:cut]


def update(
    self: MockCollection,
    spec: Any,
    document: Any,
    upsert: bool = False,
    manipulate: bool = False,
    multi: bool = False,
    check_keys: bool = False,
    hint: Any = None,
    session: Any = None,
    collation: Any = None,
    let: Any = None,
    array_filters: Any = None,
    **kwargs: Any,
) -> dict[str, Any]:
    unique = {key for index in self._store.indexes.values() if index.get("unique") for key, _ in index.get("key", ())}
    plain = (
        not (upsert or hint or session or collation or let or array_filters or kwargs)
        and isinstance(spec, dict)
        and _plain_update(document, {k.split(".", 1)[0] for k in unique})
    )
    targets = list(self._iter_documents(mock_helpers.patch_datetime_awareness_in_document(spec))) if plain else []
    if not plain or not all(_applies_cleanly(existing, document) for existing in targets[: None if multi else 1]):
        return _mock_update(
            self,
            spec,
            document,
            upsert,
            manipulate,
            multi,
            check_keys,
            hint,
            session,
            collation,
            let,
            array_filters,
            **kwargs,
        )
    matched = 0
    for existing in targets:
        _apply_in_place(existing, document)
        matched += 1
        if not multi:
            break
    return {
        "connectionId": self.database.client._id,
        "err": None,
        "n": matched,
        "nModified": matched,
        "ok": 1,
        "upserted": None,
        "updatedExisting": bool(matched),
    }


def delete(
    self: MockCollection, filter: Any, collation: Any = None, hint: Any = None, multi: bool = False, session: Any = None
) -> dict[str, Any]:
    """mongomock's delete, without first copying every document it is about to delete."""
    if collation or hint or session or not isinstance(filter, dict):
        return _mock_delete(self, filter, collation, hint, multi, session)
    found = self._iter_documents(mock_helpers.patch_datetime_awareness_in_document(filter))
    doomed = [document["_id"] for document in found]
    doomed = doomed if multi else doomed[:1]
    for doc_id in doomed:
        del self._store[mock_helpers.hashdict(doc_id) if isinstance(doc_id, dict) else doc_id]
    return {"connectionId": self.database.client._id, "n": len(doomed), "ok": 1.0, "err": None}
