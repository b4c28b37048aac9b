"""Whether a playlist can be carried to another service: per track, the id it has there.

Matched: the catalog knows ``external_ids.<target>``, or for Spotify the track's own id has a
Spotify id's shape (the ledger's ids are Spotify ids in this service). Unmatched says what is
known instead: ``other_ids_only`` (other external ids, e.g. an ISRC the target can be searched
by), ``name_only`` (title and artists, no external id) or ``no_external_id`` (not in the catalog).
"""

from __future__ import annotations

from typing import Any, Literal

from service.tracks.identity import spotify_id_of

Target = Literal["spotify", "apple_music", "isrc"]


def portability_row(position: int, track_id: str, known: dict[str, Any] | None, target: Target) -> dict[str, Any]:
    """One track of the playlist (``known``: the catalog's description with its external ids)."""
    ids: dict[str, str] = (known or {}).get("external_ids") or {}
    found = spotify_id_of(track_id, ids) if target == "spotify" else ids.get(target)
    if found is not None:
        reason = "external_id" if target in ids else "track_id"
    elif ids:
        reason = "other_ids_only"
    elif known is not None:
        reason = "name_only"
    else:
        reason = "no_external_id"
    return {
        "position": position,
        "track_id": track_id,
        "name": known["name"] if known else None,
        "artists": known["artists"] if known else None,
        "target_id": found,
        "status": "matched" if found is not None else "unmatched",
        "reason": reason,
    }


def portability_rows(
    track_ids: list[str], known: dict[str, dict[str, Any]], target: Target, first: int = 0
) -> list[dict[str, Any]]:
    """The rows of ``track_ids``, which stand at positions ``first``, ``first + 1``… of the playlist."""
    return [portability_row(first + i, t, known.get(t), target) for i, t in enumerate(track_ids)]
