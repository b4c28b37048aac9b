"""The PRD's JSON schemas, loaded from ``models/schemas/`` and made self-contained.

The files keep the PRD's ``$ref`` to ``memory.common.schema.json``; MCP clients cannot resolve
that, so the published and enforced schemas have the common definitions inlined.

Two schemas per tool result: ``success_envelope_schema`` is the full PRD one (the tests check every
answer against it); ``published_output_schema`` is what ``tools/list`` publishes as the tool's
``outputSchema``. The MCP client re-validates every result against the published schema with
``jsonschema``, which pays a sub-validator per array item (~10 µs each, whatever the item schema:
``{"type": "string"}`` costs as much as the PRD's length bounds): 50-100 ms for a 5,000-track
reconstruction, half of the client's 6 ms for a page of 50 playlists with 8 tags each. The published
schema therefore leaves out the per-item schema of every array of strings (track IDs, intent tags):
still ``"type": "array"``, the item rule kept in ``description``; looser than the PRD, never false,
and a 5,000-track answer validates in about 0.1 ms. Arrays of objects keep their item schemas.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).parent / "schemas"
_COMMON_REF = "memory.common.schema.json#/$defs/"
_STRING_KEYWORDS = frozenset({"type", "minLength", "maxLength", "pattern", "format"})


def _load(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"{name}.json").read_text())


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_COMMON_REF):
            return copy.deepcopy(defs[ref[len(_COMMON_REF) :]])
        return {k: _inline(v, defs) for k, v in node.items() if k != "$id"}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


@cache
def _common_defs() -> dict[str, Any]:
    return _load("memory.common")["$defs"]


@cache
def input_schema(tool: str) -> dict[str, Any]:
    """Self-contained input schema of a PRD tool name such as ``memory.get_profile``."""
    return _inline(_load(f"{tool}.input"), _common_defs())


@cache
def result_schema(tool: str) -> dict[str, Any]:
    return _inline(_load(f"{tool}.result"), _common_defs())


@cache
def envelope_schema() -> dict[str, Any]:
    return _inline(_load("memory.tool.response"), _common_defs())


def _narrowed(result: dict[str, Any]) -> dict[str, Any]:
    envelope = copy.deepcopy(envelope_schema())
    envelope["properties"]["result"] = {k: copy.deepcopy(v) for k, v in result.items() if k != "$schema"}
    return envelope


def success_envelope_schema(tool: str) -> dict[str, Any]:
    """The envelope of a successful call, with ``result`` narrowed to the tool's full PRD result schema."""
    return _narrowed(result_schema(tool))


def string_item_rule(items: Any) -> dict[str, Any] | None:
    """The inlined item schema of an array of strings (a string type with string keywords only), else None."""
    if isinstance(items, dict) and isinstance(items.get("$ref"), str) and items["$ref"].startswith(_COMMON_REF):
        items = _common_defs().get(items["$ref"][len(_COMMON_REF) :])
    if isinstance(items, dict) and items.get("type") == "string" and set(items) <= _STRING_KEYWORDS:
        return items
    return None


def item_rule_description(items: Any) -> str:
    """What a published string array says about its items instead of a per-item schema."""
    rule = json.dumps(string_item_rule(items), separators=(", ", ": "))
    name = items["$ref"][len(_COMMON_REF) :] + " " if "$ref" in items else ""
    return (
        f"Every item: {name}{rule}. Not published as a per-item schema: MCP clients validate each item "
        "of a published item schema, which costs more than the rest of the answer for long lists."
    )


def _cheap_string_lists(node: Any) -> Any:
    """The PRD schema with every array of strings published without its per-item schema."""
    if isinstance(node, dict):
        items = node.get("items")
        if node.get("type") == "array" and string_item_rule(items) is not None:
            kept = {k: _cheap_string_lists(v) for k, v in node.items() if k != "items"}
            return {**kept, "description": item_rule_description(items)}
        return {k: _cheap_string_lists(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_cheap_string_lists(v) for v in node]
    return node


@cache
def _published_result(tool: str) -> dict[str, Any]:
    return _inline(_cheap_string_lists(_load(f"{tool}.result")), _common_defs())


def published_output_schema(tool: str) -> dict[str, Any]:
    """The ``outputSchema`` a tool publishes: the success envelope with a result schema every PRD result
    satisfies, without per-item checks on arrays of strings (see the module docstring). Self-contained:
    its only ``$ref`` (``#/$defs/ErrorObject``) resolves within the document."""
    return _narrowed(_published_result(tool))


def seed_profile() -> dict[str, Any]:
    return json.loads((Path(__file__).parent / "seed_profile.json").read_text())
