"""Copies and date normalisation that treat strings, numbers and dates as immutable values."""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import mongomock.helpers as mock_helpers
from bson import Decimal128, Int64, ObjectId

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


class CopyModule:
    """Stands in for the ``copy`` module inside mongomock.collection."""

    deepcopy = staticmethod(fast_deepcopy)

    @staticmethod
    def copy(value: Any) -> Any:
        return value if type(value) in _ATOMS else copy.copy(value)


def copy_field(obj: Any, container: type) -> Any:
    if container is dict:
        return fast_deepcopy(obj)
    if isinstance(obj, list):
        return [copy_field(item, container) for item in obj]
    if isinstance(obj, dict):
        new = container()
        for key, value in obj.items():
            new[key] = copy_field(value, container)
        return new
    return CopyModule.copy(obj)


_patch_datetimes: Callable[[Any], Any] = mock_helpers.patch_datetime_awareness_in_document
_NO_DATES = _ATOMS - {datetime}


def patch_datetime_awareness(value: Any) -> Any:
    """mongomock walks every value written or queried to truncate dates to milliseconds; a list
    without dates (track IDs) needs no walk. Returns new containers (a copy safe to store)."""
    kind = type(value)
    if kind in _NO_DATES:
        return value
    if kind is list or kind is tuple:
        if set(map(type, value)) <= _NO_DATES:
            return list(value)
        return [patch_datetime_awareness(item) for item in value]
    if kind is dict:
        return {k: patch_datetime_awareness(v) for k, v in value.items()}
    return _patch_datetimes(value)


def dates_made_aware(value: Any) -> Any:
    """What a ``tz_aware`` client returns: dates tagged UTC. It is applied to the cursor's own
    copies, so a list without dates is handed on as it is."""
    kind = type(value)
    if kind is dict or kind is OrderedDict:
        return {k: dates_made_aware(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        if set(map(type, value)) <= _NO_DATES:
            return value
        return [dates_made_aware(item) for item in value]
    if kind is datetime:
        return value.replace(tzinfo=UTC)
    return _make_aware(value)


_make_aware: Callable[[Any], Any] = mock_helpers.make_datetime_timezone_aware_in_document
