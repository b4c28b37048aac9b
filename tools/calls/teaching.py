"""What a refused argument tells the model: the rule it broke, with its limit or format.

jsonschema's own messages name the value but not the rule's bound (``'pl1' is too short``); an
agent then guesses. These say the bound, an example where a format has one, and the allowed names
for an unknown argument, so one retry is enough.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema.exceptions import ValidationError

FORMAT_EXAMPLES = {
    "date-time": "expected RFC 3339 with a zone, e.g. 2026-03-01T18:00:00Z",
    "uuid": "expected a UUID, e.g. 9b2f6c1e-3c1a-4f7e-9a51-0c2d8e4b7a10",
}
SHOWN = 40  # characters of a refused value quoted back (it may be huge)
LISTED_NAMES = 25  # allowed argument names listed when an unknown one is refused


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def reason(error: ValidationError) -> str:
    """The refusal in words that carry the rule's limit or format."""
    rule, value = error.validator, error.instance
    bound: Any = error.validator_value
    if rule == "minLength" and isinstance(value, str):
        return f"{_shown(value)} is too short (at least {_plural(bound, 'character')})"
    if rule == "maxLength" and isinstance(value, str):
        return f"{_shown(value)} is too long: {len(value)} characters (at most {bound})"
    if rule == "minItems" and isinstance(value, list):
        return f"has {_plural(len(value), 'item')}, at least {bound} needed"
    if rule == "maxItems" and isinstance(value, list):
        return f"has {_plural(len(value), 'item')}, at most {bound} allowed"
    if rule == "format" and bound in FORMAT_EXAMPLES:
        return f"{_shown(value)} is not a valid {bound}: {FORMAT_EXAMPLES[bound]}"
    if rule == "pattern":
        return f"{_shown(value)} does not match the pattern {bound}"
    if rule == "additionalProperties" and isinstance(value, dict) and isinstance(error.schema, Mapping):
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(k for k in value if k not in allowed)
        if unknown:
            names = ", ".join(allowed[:LISTED_NAMES]) + (", …" if len(allowed) > LISTED_NAMES else "")
            return f"unknown argument {unknown[0]!r}; the arguments here are: {names}"
    return error.message
