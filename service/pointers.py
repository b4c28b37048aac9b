"""RFC 6901 JSON Pointers into a profile, one reading for every tool that takes one
(``memory_forget``'s profile_field, ``memory_explain``)."""

from __future__ import annotations

from typing import Any

MISSING = object()  # what a pointer resolves to when nothing is there (null is a value)


def parse_pointer(path: str) -> list[str]:
    """``/rules/max~1min`` → ``["rules", "max/min"]`` (the caller checks the leading ``/``)."""
    return [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]


def pointer(parts: list[str]) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def array_index(part: str, array: list[Any]) -> int | None:
    """The element a token names in an array: digits without a leading zero, within the array."""
    if part.isdigit() and (part == "0" or not part.startswith("0")) and int(part) < len(array):
        return int(part)
    return None


def step(value: Any, part: str) -> Any:
    if isinstance(value, dict):
        return value.get(part, MISSING)
    if isinstance(value, list) and (index := array_index(part, value)) is not None:
        return value[index]
    return MISSING


def resolve(value: Any, parts: list[str]) -> Any:
    """The value at ``parts``, or ``MISSING``."""
    for part in parts:
        value = step(value, part)
        if value is MISSING:
            break
    return value
