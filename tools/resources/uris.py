"""The ``memory://users/{user_id}/…`` addresses: the five templates, and which subscribed URI a
write changes.

Reading and subscribing both start from a URI; this module turns one into an ``Address`` (what
user, what view) without touching storage, so the subscription fan-out can decide which
subscribers to tell from the URI alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mcp.shared.uri_template import UriTemplate

from service.errors import InvalidArgument

Kind = Literal["profile", "playlists", "playlist", "playlist_at", "context"]

USER = "memory://users/{user_id}"
TEMPLATES: dict[Kind, str] = {
    "profile": USER + "/profile",
    "playlists": USER + "/playlists",
    "playlist": USER + "/playlists/{playlist_id}",
    "playlist_at": USER + "/playlists/{playlist_id}/at/{iso_time}",
    "context": USER + "/context",
}
_PARSED = {kind: UriTemplate.parse(template) for kind, template in TEMPLATES.items()}
_USER_ID = re.compile(r"[1-9][0-9]{0,15}")  # a positive integer, written plainly (no sign, no leading 0)


@dataclass(frozen=True)
class Address:
    kind: Kind
    user_id: int
    playlist_id: str | None = None
    iso_time: str | None = None


def user_id_in(raw: str) -> int:
    """The user id a URI names, or INVALID_ARGUMENT naming ``user_id``."""
    if not _USER_ID.fullmatch(raw):
        raise InvalidArgument(
            f"invalid user_id in the resource URI: {raw[:40]!r} is not a positive integer", {"field": "user_id"}
        )
    return int(raw)


def match(uri: str) -> tuple[Kind, dict[str, str]] | None:
    """Which template ``uri`` fills, with its variables (not yet checked); None when none."""
    for kind, template in _PARSED.items():
        params = template.match(uri)
        if params is not None:
            return kind, {k: v for k, v in params.items() if isinstance(v, str)}
    return None


def address_of(uri: str) -> Address | None:
    """The address ``uri`` names, or None when it is none of ours (or its user id is malformed)."""
    found = match(uri)
    if found is None:
        return None
    kind, values = found
    try:
        user_id = user_id_in(values.get("user_id", ""))
    except InvalidArgument:
        return None
    return Address(kind, user_id, values.get("playlist_id"), values.get("iso_time"))


@dataclass(frozen=True)
class Change:
    """What one successful write may have changed for one user: ``kinds`` of that user's resources;
    for ``playlist``/``playlist_at``, only the playlists named (None: every playlist)."""

    user_id: int
    kinds: frozenset[Kind]
    playlist_ids: frozenset[str] | None = None

    def touches(self, address: Address) -> bool:
        if address.user_id != self.user_id or address.kind not in self.kinds:
            return False
        if address.kind in ("playlist", "playlist_at") and self.playlist_ids is not None:
            return address.playlist_id in self.playlist_ids
        return True
