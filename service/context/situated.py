"""Which profile the block is built from, and the line that says so: with a ``situation``, the
profile that holds there (``service.profiles.situations``) and a first line naming it; without one,
the base profile, so no situation's preferences read as if they held everywhere, and a first line
naming the situations there are (when the profile defines any).
"""

from __future__ import annotations

from typing import Any

from service.context.quoting import quote
from service.profiles.situations import KEY, base, defined, for_situation

NAME_CHARS = 24  # of a situation's name on the line: it must fit the smallest budget
NAMED = 5  # situations named on the base block's line, the rest counted


def situated(view: dict[str, Any], situation: str | None) -> tuple[dict[str, Any], str | None]:
    """The profile view to build the block from, and its first line (None: no line)."""
    profile = view["profile"]
    if situation is not None:
        line = f"Built for the situation {quote(situation, NAME_CHARS)}"
        return {**view, "profile": for_situation(profile, situation)}, line
    if KEY not in profile:  # the block as it was before situations existed
        return view, None
    names = defined(profile)
    if not names:
        return {**view, "profile": base(profile)}, None
    listed = ", ".join(quote(n, NAME_CHARS) for n in names[:NAMED])
    more = f" and {len(names) - NAMED} more" if len(names) > NAMED else ""
    line = f"Situations with their own preferences, not shown (ask with situation): {listed}{more}"
    return {**view, "profile": base(profile)}, line
