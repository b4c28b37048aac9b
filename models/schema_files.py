"""The PRD's JSON schemas, loaded from ``models/schemas/`` and made self-contained.

The files keep the PRD's ``$ref`` to ``memory.common.schema.json``; MCP clients cannot resolve
that, so the published and enforced schemas have the common definitions inlined.
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


def success_envelope_schema(tool: str) -> dict[str, Any]:
    """The envelope of a successful call, with ``result`` narrowed to the tool's result schema."""
    envelope = copy.deepcopy(envelope_schema())
    result = {k: v for k, v in result_schema(tool).items() if k != "$schema"}
    envelope["properties"]["result"] = result
    return envelope


def seed_profile() -> dict[str, Any]:
    return json.loads((Path(__file__).parent / "seed_profile.json").read_text())
