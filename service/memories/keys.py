"""How memories are compared: folded entities (the deduplication key, fuzzy entity lookups),
stemmed summary words (the overlap that makes two statements one memory), identifiers.
Entities fold as ``service.text.entities`` folds them."""

from __future__ import annotations

import re
import uuid

from service.text.analysis import fold, terms
from service.text.entities import folded_entity

MEMORY_TYPES = ("recommendation", "insight", "event", "feedback", "discussion")
KEY_SEPARATOR = "\x1f"  # cannot occur in a folded entity (only letters, digits and spaces do)
# Share of the shorter summary's stemmed words the two summaries must have in common to be the
# same statement: "Recommended baroque pop album" / "Recommended for its baroque pop" share 3 of 3.
SUMMARY_OVERLAP = 1 / 3
_MEMORY_ID = re.compile(r"^mem_[0-9a-f]{24}$")


def new_memory_id() -> str:
    return "mem_" + uuid.uuid4().hex[:24]


def is_memory_id(text: str) -> bool:
    return bool(_MEMORY_ID.fullmatch(text))


def memory_key(user_id: int, memory_id: str) -> str:
    return f"{user_id}:{memory_id}"


def entity_key(entities: list[str]) -> str:
    """The folded entities as a set: order and repeats do not make a memory different."""
    return KEY_SEPARATOR.join(sorted({folded_entity(e) for e in entities}))


def summary_terms(summary: str) -> frozenset[str]:
    return frozenset(terms(summary))


def summaries_overlap(first: str, second: str) -> bool:
    a, b = summary_terms(first), summary_terms(second)
    if not a or not b:  # a summary of stop words only overlaps only a same one
        return fold(first).strip() == fold(second).strip()
    return len(a & b) / min(len(a), len(b)) >= SUMMARY_OVERLAP
