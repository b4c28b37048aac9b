"""The PRD's JSON schemas, loaded from ``models/schemas/`` and made self-contained.

The files keep the PRD's ``$ref`` to ``memory.common.schema.json``; MCP clients cannot resolve
that, so the published and enforced schemas have the common definitions inlined. Two schemas per
tool result: ``success_envelope_schema`` is the full PRD one (the tests check every answer against
it); ``published_output_schema``, the tool's ``outputSchema`` in ``tools/list``, leaves out the
per-item schema of every array: looser than the PRD's, never false.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).parent / "schemas"
_COMMON_REF = "memory.common.schema.json#/$defs/"


def _load(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"{name}.json").read_text())


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_COMMON_REF):
            return _inline(copy.deepcopy(defs[ref[len(_COMMON_REF) :]]), defs)  # a definition may use others
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


def item_rule_description(items: dict[str, Any]) -> str:
    """What a published array says about its items instead of a per-item schema: the PRD item rule,
    inlined, as JSON (with the common definition's name when the PRD refers to one)."""
    ref = items.get("$ref")
    name = ref[len(_COMMON_REF) :] + " " if isinstance(ref, str) and ref.startswith(_COMMON_REF) else ""
    rule = json.dumps(_inline(items, _common_defs()), separators=(", ", ": "))
    return (
        f"Every item: {name}{rule}. Not published as a per-item schema: MCP clients validate every item "
        "(and every field of an object item) of a published item schema, which costs more than the rest "
        "of the answer for long lists."
    )


def _without_item_schemas(node: Any) -> Any:
    """The PRD schema with every array's per-item schema moved into its ``description``."""
    if isinstance(node, dict):
        items = node.get("items")
        if node.get("type") == "array" and isinstance(items, dict):
            kept = {k: _without_item_schemas(v) for k, v in node.items() if k != "items"}
            said = item_rule_description(items)
            return {**kept, "description": f"{kept['description']} {said}" if "description" in kept else said}
        return {k: _without_item_schemas(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_without_item_schemas(v) for v in node]
    return node


@cache
def _published_result(tool: str) -> dict[str, Any]:
    # Twice: the second pass reaches arrays inside the common definitions the first one inlined.
    return _without_item_schemas(_inline(_without_item_schemas(_load(f"{tool}.result")), _common_defs()))


def published_output_schema(tool: str) -> dict[str, Any]:
    """The ``outputSchema`` a tool publishes: the success envelope with a result schema every PRD result
    satisfies, without per-item schemas on arrays. Self-contained: its only ``$ref``
    (``#/$defs/ErrorObject``) resolves within the document.

    Why no per-item schemas: the MCP client re-validates every result against the published schema
    with ``jsonschema``, which pays a sub-validator per array item (~10 µs each, whatever the item
    schema: ``{"type": "string"}`` costs as much as the PRD's length bounds) and one more per checked
    field of an object item: 50-100 ms for a 5,000-track reconstruction, 2.7-4.4 ms of a 50-user
    ``ops_list_users`` call, ~3 ms for 50 playlists, 1.2 ms for 25 search hits. Object items published
    as ``{"type": "object", "required": [...]}`` would still cost 8-14 µs a row (7 ms for a 500-entry
    audit page), so every array stays ``"type": "array"`` with the PRD's item rule quoted verbatim
    (inlined) in its ``description``. Everything outside array items is the PRD's, so the client's
    check costs the same for 1 row as for 500, and every PRD-valid answer satisfies it."""
    return _narrowed(_published_result(tool))


def seed_profile() -> dict[str, Any]:
    return json.loads((Path(__file__).parent / "seed_profile.json").read_text())
