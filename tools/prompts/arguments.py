"""Prompt arguments: what each one means and how its text is checked.

MCP sends every prompt argument as a string, and the SDK only checks that required ones are present,
answering anything else with a generic "Error rendering prompt". A user types these arguments into a
client's slash-command form, so each bad value gets an ``INVALID_PARAMS`` error naming the argument
and saying what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

Check = Callable[[str, str], Any]  # (argument name, raw text) -> the value the text uses


def invalid(name: str, message: str) -> MCPError:
    return MCPError(INVALID_PARAMS, f"Invalid prompt argument '{name}': {message}", {"field": name})


def user_id(name: str, raw: str) -> int:
    """The tools' UserId: an integer ≥ 1 (JSON Schema ``minimum: 1``)."""
    if not re.fullmatch(r"\s*\d{1,15}\s*", raw) or int(raw) < 1:
        raise invalid(name, f"expected a positive integer user id such as 1, got {raw!r}")
    return int(raw)


def text(limit: int) -> Check:
    """Free text the user typed, non-blank and at most ``limit`` characters (the tools' own caps)."""

    def check(name: str, raw: str) -> str:
        value = raw.strip()
        if not value:
            raise invalid(name, "must not be empty")
        if len(value) > limit:
            raise invalid(name, f"at most {limit} characters, got {len(value)}")
        return value

    return check


def count(low: int, high: int) -> Check:
    def check(name: str, raw: str) -> int:
        if not re.fullmatch(r"\s*\d{1,6}\s*", raw) or not low <= int(raw) <= high:
            raise invalid(name, f"expected a whole number from {low} to {high}, got {raw!r}")
        return int(raw)

    return check


_LENGTH = re.compile(r"\s*(\d{1,5})\s*(tracks?|songs?|min|mins|minutes?)?\s*", re.IGNORECASE)


def length(name: str, raw: str) -> tuple[int, str]:
    """'25', '25 tracks' or '90 minutes': the playlist's size as the user would say it."""
    match = _LENGTH.fullmatch(raw)
    if match is None or int(match.group(1)) < 1:
        raise invalid(name, f"expected a number of tracks ('25', '25 tracks') or minutes ('90 minutes'), got {raw!r}")
    unit = "minutes" if (match.group(2) or "").lower().startswith("min") else "tracks"
    if unit == "tracks" and int(match.group(1)) > 10_000:  # a playlist holds at most 10,000 tracks
        raise invalid(name, "a playlist holds at most 10000 tracks")
    return int(match.group(1)), unit


@dataclass(frozen=True)
class Argument:
    """One prompt argument as listed in ``prompts/list`` and checked before rendering."""

    name: str
    description: str
    check: Check
    required: bool = True


def checked(arguments: list[Argument], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The values of the given arguments (absent optional ones left out), or an error naming the
    first missing, unknown or malformed argument."""
    given = dict(given or {})
    known = {argument.name for argument in arguments}
    unknown = sorted(set(given) - known)
    if unknown:
        expected = ", ".join(sorted(known)) or "none"
        raise invalid(unknown[0], f"this prompt takes no such argument (it takes: {expected})")
    values: dict[str, Any] = {}
    for argument in arguments:
        raw = given.get(argument.name)
        if raw is None or (isinstance(raw, str) and not raw.strip() and not argument.required):
            if argument.required:
                raise MCPError(
                    INVALID_PARAMS,
                    f"Missing required prompt argument '{argument.name}': {argument.description}",
                    {"field": argument.name},
                )
            continue
        if not isinstance(raw, str):
            raise invalid(argument.name, "prompt arguments are strings")
        values[argument.name] = argument.check(argument.name, raw)
    return values
