"""Reads without mongomock's cursor: lazy, limited before copying, sorted with native keys."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import datetime
from operator import itemgetter
from typing import Any

import mongomock.helpers as mock_helpers

from service.storage.embedded.tuning.copies import dates_made_aware
from service.storage.embedded.tuning.user_index import by_user

_NUMBERS = {int, float}
_SORTABLE = ({str}, {datetime}, _NUMBERS, {int}, {float})


def _sorted_natively(documents: list[dict[str, Any]], sort: list[tuple[str, int]]) -> list[dict[str, Any]] | None:
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


def find_documents(
    motor_collection: Any, filter_: Any, projection: Any, sort: Any, limit: int
) -> Iterator[dict[str, Any]]:
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
            return (dates_made_aware(collection._copy_only_fields(d, projection, dict)) for d in chosen)
    dataset = collection._get_dataset(spec, sort, projection, dict)
    return (dates_made_aware(document) for document in (itertools.islice(dataset, limit) if limit else dataset))


def stored_document(motor_collection: Any, filter_: Any) -> dict[str, Any] | None:
    """The first stored document matching the filter, itself (no copy)."""
    collection = motor_collection._AsyncMongoMockCollection__collection
    return next(iter(collection._iter_documents(mock_helpers.patch_datetime_awareness_in_document(filter_))), None)


def stored_documents(motor_collection: Any, filter_: Any) -> list[dict[str, Any]]:
    """Every stored document matching the filter, themselves (no copies)."""
    collection = motor_collection._AsyncMongoMockCollection__collection
    return list(collection._iter_documents(mock_helpers.patch_datetime_awareness_in_document(filter_)))


def documents_per_user(motor_collection: Any) -> dict[int, int]:
    """How many documents each user has in a collection, from the per-user index alone."""
    store = motor_collection._AsyncMongoMockCollection__collection._store
    store._remove_expired_documents()
    return {user: len(keys) for user, keys in by_user(store).items() if keys}
