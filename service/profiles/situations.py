"""Situations: preferences that hold only somewhere ("metal only at the gym", "instrumental while I
work"). The profile's ``situations`` object names each one with its own profile fields; naming a
situation merges its fields over the base profile (the profile without ``situations``) by RFC 7396,
for that call only: null deletes a base field, objects merge, arrays and scalars replace.
"""

from __future__ import annotations

from typing import Any

from service.errors import InvalidArgument
from service.profiles.store import merge

KEY = "situations"
LISTED = 20  # situation names an error lists (a profile may define many)


def defined(profile: dict[str, Any]) -> list[str]:
    """The situations the profile defines, sorted: keys of ``situations`` whose value is an object
    (anything else there could not be merged over a profile, so it names no situation)."""
    situations = profile.get(KEY)
    if not isinstance(situations, dict):
        return []
    return sorted(name for name, fields in situations.items() if isinstance(fields, dict))


def base(profile: dict[str, Any]) -> dict[str, Any]:
    """The profile as it holds everywhere: without the situations' own fields."""
    return {key: value for key, value in profile.items() if key != KEY}


def for_situation(profile: dict[str, Any], situation: str | None) -> dict[str, Any]:
    """The profile that holds in ``situation``: its fields merged over the base profile; with no
    situation, the base profile. A name the profile does not define is refused, naming those it does."""
    if situation is None:
        return base(profile)
    names = defined(profile)
    if situation not in names:
        raise InvalidArgument(
            f"no situation {situation!r} in this user's profile; {_known(names)}",
            {"field": "situation", "situations": names[:LISTED]},
        )
    return merge(base(profile), profile[KEY][situation])


def _known(names: list[str]) -> str:
    if not names:
        return 'it defines none (add some with memory_update_profile: {"situations": {"gym": {...}}})'
    shown = ", ".join(repr(n) for n in names[:LISTED]) + (", …" if len(names) > LISTED else "")
    return f"the situations there are: {shown}"
