"""Entities (artists, albums, genres) folded to one comparable form: "The Zombies", "zombies" and
"ZOMBIES" are one entity. Folding is the track catalog's (case, diacritics, apostrophes, a leading or
inner "the"); a name that is nothing but articles ("The The") keeps them, and one of punctuation
only is compared as written, case aside."""

from __future__ import annotations

import re

from service.text.analysis import fold
from service.text.words import words


def folded_entity(entity: str) -> str:
    found = words(entity)
    if found:
        return " ".join(found)
    every = re.findall(r"[a-z0-9]+", fold(entity))  # only articles: "The The"
    return " ".join(every) if every else " ".join(fold(entity).split())
