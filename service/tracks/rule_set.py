"""The rules a playlist is checked against: given inline, or read from the taste profile.

Inline rules (``memory_check_playlist``'s ``rules``) are the whole rule set: the profile is not
read. Otherwise ``from_profile`` maps the profile's playlist rules, avoid list and energy
preferences onto the same rules. Duplicates are always checked unless ``no_duplicates`` is false.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from service.text.words import folded_text
from service.tracks.rest import rest_of

BREATHER_ENERGY = 0.4
DEFAULT_TOLERANCE = 0.10  # a bare target allows ± 10 %


def duration_bounds(value: Any) -> tuple[float | None, float | None] | None:
    """(min, max) minutes from any of the accepted shapes; None if there is no usable bound."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        value = {"target": value}
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("target"), int | float) and not isinstance(value.get("target"), bool):
        target = float(value["target"])
        tolerance = value.get("tolerance")
        spread = float(tolerance) if isinstance(tolerance, int | float) else target * DEFAULT_TOLERANCE
        low, high = _finite(target - spread), _finite(target + spread)
    else:
        low, high = value.get("min"), value.get("max")
        low = _finite(float(low)) if isinstance(low, int | float) and not isinstance(low, bool) else None
        high = _finite(float(high)) if isinstance(high, int | float) and not isinstance(high, bool) else None
    return (low, high) if low is not None or high is not None else None


def _finite(minutes: float) -> float | None:
    """A bound JSON can carry: 1e308 minutes ± 10 % overflows to infinity, which is no bound (and
    would be answered as null in structured content but as Infinity in the text)."""
    return minutes if math.isfinite(minutes) else None


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def normalised_inline(rules: dict[str, Any]) -> dict[str, Any]:
    """Inline rules as checked: defaults filled in (duplicates checked, breathers at 0.4)."""
    effective: dict[str, Any] = {"no_duplicates": rules.get("no_duplicates", True)}
    if "max_tracks_per_artist" in rules:
        effective["max_tracks_per_artist"] = rules["max_tracks_per_artist"]
    bounds = duration_bounds(rules.get("target_duration_minutes"))
    if bounds is not None:
        effective["target_duration_minutes"] = {"min": bounds[0], "max": bounds[1]}
    for name in ("avoid_artists", "avoid_tracks", "avoid_genres"):
        if rules.get(name):
            effective[name] = list(rules[name])
    breathers = rules.get("breathers")
    if isinstance(breathers, dict) and breathers.get("placement", "mid") == "mid":
        effective["breathers"] = {"placement": "mid", "max_energy": breathers.get("max_energy", BREATHER_ENERGY)}
    rest = rest_of(rules.get("rest"))
    if rest is not None:
        effective["rest"] = {"max_plays": rest.max_plays, "days": rest.days}
    return effective


def from_profile(
    profile: dict[str, Any],
    catalog_artists: set[str],
    catalog_genres: set[str],
    names_tracks: Callable[[str], list[str]],
) -> dict[str, Any]:
    """The rules a stored profile asks for; the catalog's folded artist and genre names, and the
    catalog tracks an entry names (``names_tracks``), decide which free-text avoid entries are
    machine rules:

    * ``playlist_rules.max_tracks_per_artist`` → ``max_tracks_per_artist``;
    * ``playlist_rules.target_duration_minutes``: ``{min, max}``, ``{target, tolerance}`` or a number
      (a target, ± 10 %) → ``target_duration_minutes``;
    * ``playlist_rules.avoid_artists`` / ``avoid_tracks`` / ``avoid_genres`` when present, and the
      profile's ``avoid`` list: an entry that names an artist, a genre or a track of the user's
      catalog ("Nickelback", "dubstep", "Macarena", "Macarena – Los del Río") becomes an avoid rule
      (in that order of precedence); free text ("over-weighting a single artist in
      one playlist") is not a machine rule and is left to the assistant;
    * ``playlist_rules.rest``: ``{max_plays, days}`` (whole numbers, days 1..3650; anything else is no
      rule) → ``rest``;
    * a breather wanted mid-way — ``playlist_rules.arc`` mentioning a breather or break, or
      ``energy_preferences.break_placement`` "mid…" — → ``breathers {placement: "mid", max_energy: 0.4}``.
    """
    rules = _object(profile.get("playlist_rules"))
    inline: dict[str, Any] = {}
    limit = rules.get("max_tracks_per_artist")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 1:
        inline["max_tracks_per_artist"] = limit
    if "target_duration_minutes" in rules:
        inline["target_duration_minutes"] = rules["target_duration_minutes"]
    if "rest" in rules:
        inline["rest"] = rules["rest"]
    avoid = {name: _strings(rules.get(name)) for name in ("avoid_artists", "avoid_tracks", "avoid_genres")}
    listed = profile.get("avoid")
    if isinstance(listed, dict):  # a structured avoid: {artists, tracks, genres}
        for key in ("artists", "tracks", "genres"):
            avoid[f"avoid_{key}"] += _strings(listed.get(key))
    for entry in _strings(listed):
        folded = folded_text(entry)
        if folded in catalog_artists:
            avoid["avoid_artists"].append(entry)
        elif folded in catalog_genres:
            avoid["avoid_genres"].append(entry)
        elif names_tracks(entry):
            avoid["avoid_tracks"].append(entry)
    inline.update({name: values for name, values in avoid.items() if values})
    energy = _object(profile.get("energy_preferences"))
    arc = _text(rules.get("arc"))
    placement = _text(energy.get("break_placement"))
    if "breather" in arc.lower() or "break" in arc.lower() or placement.lower().startswith("mid"):
        inline["breathers"] = {"placement": "mid", "max_energy": BREATHER_ENERGY}
    return normalised_inline(inline)
