"""Deduplication: when a new memory is a restatement of one already stored, and what the
merged memory then says.

A restatement has the same type, the same entities once folded (as a set), a summary sharing at
least a third of the shorter one's stemmed words, and lies within 30 days of the stored memory's
latest statement (either side: an agent may record an earlier conversation late).
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import Any

import json_merge_patch

from service.memories.keys import summaries_overlap, summary_terms
from service.text.analysis import fold
from service.timeutil import as_utc

WINDOW = timedelta(days=30)


def restated(candidates: list[dict[str, Any]], summary: str, timestamp: datetime) -> dict[str, Any] | None:
    """The stored memory the new statement repeats (the most recently seen of several), or None."""
    moment = as_utc(timestamp)
    matching = [
        doc
        for doc in candidates
        if abs(as_utc(doc["last_seen_at"]) - moment) <= WINDOW and summaries_overlap(doc["summary"], summary)
    ]
    return max(matching, key=lambda d: (as_utc(d["last_seen_at"]), d["memory_id"]), default=None)


def merged_summary(old: str, new: str, limit: int) -> str:
    """Keep what both say once: the longer when one contains the other, else both, in order of
    statement (the newer alone if both together would pass the limit)."""
    folded_old, folded_new = " ".join(fold(old).split()), " ".join(fold(new).split())
    if folded_new in folded_old or summary_terms(new) <= summary_terms(old):
        return old
    if folded_old in folded_new or summary_terms(old) <= summary_terms(new):
        return new
    joined = f"{old.rstrip()} {new.strip()}"
    return joined if len(joined) <= limit else new


def merged_metadata(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """RFC 7396, as profile patches: the new statement's keys win, null deletes a key."""
    merged: dict[str, Any] = json_merge_patch.merge(copy.deepcopy(old), copy.deepcopy(new))  # an untyped library
    return merged
