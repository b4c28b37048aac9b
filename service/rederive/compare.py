"""How a stored view is compared with the one derived from the records: as values, not as stored
bytes (a date read back naive is the same moment as an aware one; BSON keeps tuples as lists)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from service.timeutil import as_utc

Difference = dict[str, Any]


def normal(value: Any) -> Any:
    if isinstance(value, datetime):
        return as_utc(value)
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normal(v) for v in value]
    return value


def differing(stored: dict[str, Any], derived: dict[str, Any], fields: Iterable[str]) -> list[str]:
    """The fields whose values differ (a field missing on one side counts as None)."""
    return [f for f in fields if normal(stored.get(f)) != normal(derived.get(f))]


def difference(view: str, key: Any, fields: list[str], detail: str, **more: Any) -> Difference:
    return {"view": view, "key": str(key), "fields": fields, "detail": detail, **more}


def json_safe(value: Any) -> Any:
    """A stored value for the report (dates as ISO-8601 text)."""
    if isinstance(value, datetime):
        return as_utc(value).isoformat().replace("+00:00", "Z")
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
