"""UTC timestamps at millisecond precision, the precision BSON dates keep.

Every time that enters the service is truncated to whole milliseconds so that what is stored,
compared and returned is the same value on both storage engines.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime


def truncate_ms(moment: datetime) -> datetime:
    return moment.replace(microsecond=moment.microsecond - moment.microsecond % 1000)


def utc_now() -> datetime:
    return truncate_ms(datetime.now(UTC))


_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def parse_iso(text: str) -> datetime:
    """Parse an RFC 3339 date-time (offset ``Z`` or ``±hh:mm`` required) into aware UTC."""
    if not _RFC3339.fullmatch(text):
        raise ValueError("date-time must look like 2026-01-31T12:00:00Z (RFC 3339, with an offset)")
    value = text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text
    try:
        return truncate_ms(datetime.fromisoformat(value.replace("t", "T")).astimezone(UTC))
    except OverflowError:
        raise ValueError("date-time is out of range once converted to UTC") from None


def as_utc(moment: datetime) -> datetime:
    """Stored dates come back naive (BSON has no zone); they are UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def format_iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    utc = as_utc(moment)
    # strftime("%Y") drops the leading zeros of years before 1000.
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
        f".{utc.microsecond // 1000:03d}Z"
    )


def is_rfc3339(text: str) -> bool:
    try:
        parse_iso(text)
    except (ValueError, TypeError):
        return False
    return True
