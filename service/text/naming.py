"""Whether a query names one of an item's subjects: the rule for what is kept out of sight
(``sensitive``). A subject is named when, folded as entities are (``folded_entity``), it equals the
asked entity or appears as a whole phrase in the asked text. Words that only mean something close,
a typo or a part of the name do not name it: a sensitive item comes back only when asked for."""

from __future__ import annotations

from collections.abc import Iterable

from service.text.entities import folded_entity


def names_any(subjects: Iterable[str], entity: str | None = None, text: str | None = None) -> bool:
    asked = folded_entity(entity) if entity else ""
    said = f" {folded_entity(text)} " if text else ""
    for subject in subjects:
        folded = folded_entity(subject) if isinstance(subject, str) else ""
        if folded and (folded == asked or f" {folded} " in said):
            return True
    return False
