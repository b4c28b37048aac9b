"""Which rules and dislikes keep recurring: observations grouped by signature, counted.

Grouping, in three deterministic steps (the group's ``key`` and ``basis`` say which applied):
1. typo tolerance: a content word of 6+ letters within one edit (two from 10 letters) of a more
   frequent one of the same user, same first letter, is read as the nearest such word ("nightwsh");
2. ``same_words``: observations with equal signatures (cue and content words) form a group;
3. ``similar_words``: taking groups largest first (then oldest, then by key), a group joins the
   first kept group with the same cue sharing at least half of their content words together
   (Jaccard >= 0.5): "no Nightwish" and "no Nightwish or Epica".
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from service.insights.folding import Signature
from service.insights.observations import Observation, read_observations
from service.storage.database import Database
from service.timeutil import format_iso, utc_now

SIMILAR = 0.5
EXAMPLES = 3
SUBJECTS = 5
TEXT_CHARS = 160
YIELD_EVERY = 500  # words or groups handled between yields to the event loop


def _edits_allowed(word: str) -> int:
    return 0 if len(word) < 6 or ":" in word else 1 if len(word) < 10 else 2


async def canonical_words(observations: list[Observation]) -> dict[str, str]:
    """Each content word's canonical spelling: the nearest more frequent word within its edit
    budget (ties: the most frequent), else itself."""
    frequency = Counter(word for o in observations for word in o.signature.content)
    canonical: dict[str, str] = {}
    rank: dict[str, int] = {}  # canonical words in frequency order
    spellings: dict[tuple[str, int], list[str]] = {}  # canonical words by first letter and length
    for n, (word, _) in enumerate(sorted(frequency.items(), key=lambda item: (-item[1], item[0]))):
        if n % YIELD_EVERY == YIELD_EVERY - 1:
            await asyncio.sleep(0)  # a large vocabulary must not stall other sessions
        budget = _edits_allowed(word)
        match = None
        if budget:
            # Within ``budget`` edits the lengths differ by at most ``budget``.
            candidates = [
                c
                for size in range(len(word) - budget, len(word) + budget + 1)
                for c in spellings.get((word[0], size), ())
            ]
            found = process.extract(word, candidates, scorer=Levenshtein.distance, score_cutoff=budget, limit=None)
            match = min(found, key=lambda f: (f[1], rank[f[0]]))[0] if found else None
        canonical[word] = match or word
        if match is None and budget:
            rank[word] = len(rank)
            spellings.setdefault((word[0], len(word)), []).append(word)
    return canonical


@dataclass
class Group:
    signature: Signature
    surface: dict[str, str]
    basis: str = "same_words"
    members: dict[tuple[str, str | int], Observation] = field(default_factory=dict)  # one per event/patch

    @property
    def first_seen(self) -> datetime:
        return min(o.at for o in self.members.values())

    @property
    def last_seen(self) -> datetime:
        return max(o.at for o in self.members.values())

    def absorb(self, other: Group) -> None:
        for ref, observation in other.members.items():
            self.members.setdefault(ref, observation)
        self.basis = "similar_words"


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


async def group(observations: list[Observation]) -> list[Group]:
    canonical = await canonical_words(observations)
    surface: dict[str, str] = {}  # each stem as first written, oldest observation first
    for o in observations:
        for stem_, word in o.surface.items():
            surface.setdefault(stem_, word)
    exact: dict[Signature, Group] = {}
    for o in observations:
        sig = Signature(o.signature.cue, frozenset(canonical.get(w, w) for w in o.signature.content))
        found = exact.get(sig)
        if found is None:
            found = exact[sig] = Group(sig, surface)
        found.members.setdefault((o.source, o.ref), o)
    kept: list[Group] = []
    # Kept groups by (cue, word): a group can only be similar to one sharing a word with it, so
    # each candidate is compared with those, not with every kept group (quadratic in groups).
    sharing: dict[tuple[str, str], list[int]] = {}
    ordered = sorted(exact.values(), key=lambda g: (-len(g.members), g.first_seen, g.signature.key(g.surface)))
    for n, candidate in enumerate(ordered):
        if n % YIELD_EVERY == YIELD_EVERY - 1:
            await asyncio.sleep(0)
        cue, content = candidate.signature.cue, candidate.signature.content
        near = sorted({i for word in content for i in sharing.get((cue, word), ())})
        home = next((i for i in near if _jaccard(kept[i].signature.content, content) >= SIMILAR), None)
        if home is None:
            for word in content:
                sharing.setdefault((cue, word), []).append(len(kept))
            kept.append(candidate)
        else:
            kept[home].absorb(candidate)
    return sorted(kept, key=lambda g: (-len(g.members), -g.last_seen.timestamp(), g.signature.key(g.surface)))


def _clip(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"


def _examples(newest: list[Observation]) -> list[Observation]:
    """At most one patch beside the group's newest events, more only where events leave room: a
    patch is stamped when applied, events when said (often earlier), so by date alone the patches
    that followed the feedback would push every event id out of the examples."""
    events = [o for o in newest if o.source == "preference_event"]
    patches = [o for o in newest if o.source != "preference_event"]
    picked = patches[:1] + events[: EXAMPLES - len(patches[:1])]
    picked += patches[1 : 1 + EXAMPLES - len(picked)]
    return sorted(picked, key=lambda o: (o.at, str(o.ref)), reverse=True)


def describe(g: Group) -> dict[str, Any]:
    newest = sorted(g.members.values(), key=lambda o: (o.at, str(o.ref)), reverse=True)
    examples = []
    for o in _examples(newest):
        ref = {"event_id": o.ref} if o.source == "preference_event" else {"profile_version": o.ref}
        examples.append({"source": o.source, **ref, "type": o.type, "at": o.at, "text": _clip(o.text)})
    subjects = list(dict.fromkeys(o.subject for o in newest if o.subject is not None))
    return {
        "key": g.signature.key(g.surface),
        "basis": g.basis,
        "count": len(g.members),
        "types": dict(sorted(Counter(o.type for o in newest).items())),
        "first_seen": g.first_seen,
        "last_seen": g.last_seen,
        # The user's own words read best; a patch's "path = value" only when no event said it.
        "label": _clip(next((o for o in newest if o.source == "preference_event"), newest[0]).text),
        "subjects": [_clip(s) for s in subjects[:SUBJECTS]],
        "examples": examples,
    }


def _size(row: dict[str, Any]) -> int:
    return len(json.dumps(row, ensure_ascii=False, separators=(",", ":"), default=format_iso)) + 1


async def summarize(db: Database, user_id: int, limit: int, budget: int) -> dict[str, Any]:
    as_of = utc_now()
    observations, events, patches = await read_observations(db, user_id)
    groups = await group(observations)
    rows, room = [], budget
    for g in groups[:limit]:
        row = describe(g)
        room -= _size(row)
        if room < 0:
            break
        rows.append(row)
    return {
        "as_of": as_of,
        "totals": {
            "preference_events": events,
            "profile_patches": patches,
            "groups": len(groups),
            "recurring_groups": sum(1 for g in groups if len(g.members) >= 2),
        },
        "groups": rows,
        "truncated": len(rows) < len(groups),
    }
