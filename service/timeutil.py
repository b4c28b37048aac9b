"""UTC timestamps at millisecond precision, the precision BSON dates keep.

Every time that enters the service is truncated to whole milliseconds so that what is stored,
compared and returned is the same value on both storage engines.
"""

from __future__ import annotations

from datetime import UTC, datetime


def truncate_ms(moment: datetime) -> datetime:
    return moment.replace(microsecond=moment.microsecond - moment.microsecond % 1000)


def utc_now() -> datetime:
    return truncate_ms(datetime.now(UTC))


def parse_iso(text: str) -> datetime:
    """Parse an RFC 3339 date-time with an offset (``Z`` or ``±hh:mm``) into aware UTC."""
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError("date-time needs a UTC offset such as 'Z'")
    return truncate_ms(moment.astimezone(UTC))


def as_utc(moment: datetime) -> datetime:
    """Stored dates come back naive (BSON has no zone); they are UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def format_iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    utc = as_utc(moment)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def is_rfc3339(text: str) -> bool:
    try:
        parse_iso(text)
    except (ValueError, TypeError):
        return False
    return "T" in text or "t" in text
