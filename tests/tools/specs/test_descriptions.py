"""What the calling model reads on every turn: each listed tool's description is at most 400
characters and its first sentence says when to call it; each argument description (the input
schema files and the common definitions they reach) is at most 120 characters. The envelope and
error codes are said once, in the server's instructions, not in every description."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from models.schema_files import SCHEMA_DIR
from service.settings import TOOLSET_NAMES, Settings
from tests.support import connected

TOOL_LIMIT = 400
ARGUMENT_LIMIT = 120
COMMON_REF = "memory.common.schema.json#/$defs/"
CODES = [
    "INVALID_ARGUMENT",
    "UNAUTHORIZED",
    "FORBIDDEN",
    "NOT_FOUND",
    "CONFLICT",
    "RATE_LIMITED",
    "INTERNAL",
    "DB_ERROR",
]


async def listing(settings: Settings) -> tuple[list[Any], str]:
    """Every tool of every toolset as a client lists it, and the server's instructions."""
    async with connected(settings.model_copy(update={"toolsets": list(TOOLSET_NAMES)})) as call:
        return (await call.client.list_tools()).tools, call.client.instructions or ""


def described(node: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every ``description`` text in a schema, with its path."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield where, value
            else:
                yield from described(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from described(value, f"{where}/{index}")


def refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str) and node["$ref"].startswith(COMMON_REF):
            yield node["$ref"][len(COMMON_REF) :]
        for value in node.values():
            yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def input_files_and_defs(tool_names: list[str]) -> Iterator[tuple[str, Any]]:
    """Each listed tool's input schema file as stored, and every common definition they reach."""
    defs = json.loads((SCHEMA_DIR / "memory.common.json").read_text())["$defs"]
    reached: set[str] = set()
    for name in tool_names:
        schema = json.loads((SCHEMA_DIR / f"{name.replace('_', '.', 1)}.input.json").read_text())
        yield name, schema
        reached |= set(refs(schema))
    pending = sorted(reached)
    while pending:  # a definition may use others
        name = pending.pop()
        yield f"$defs/{name}", defs[name]
        more = set(refs(defs[name])) - reached
        reached |= more
        pending.extend(sorted(more))


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]


async def test_every_tool_description_is_short_and_first_says_when(settings: Settings) -> None:
    tools, _ = await listing(settings)
    assert {tool.name.replace("_", ".", 1) for tool in tools} >= {"ops.list_users", "memory.get_context"}
    too_long = {tool.name: len(tool.description or "") for tool in tools if len(tool.description or "") > TOOL_LIMIT}
    assert too_long == {}, f"descriptions over {TOOL_LIMIT} characters"
    for tool in tools:
        opening = first_sentence(tool.description or "").strip()
        assert len(opening) > 20, (tool.name, opening)
        assert opening.startswith("Call ") or " when " in opening, (tool.name, opening)  # when to call it


async def test_every_argument_description_is_short(settings: Settings) -> None:
    tools, _ = await listing(settings)
    published = [(f"{tool.name} (published)", tool.input_schema) for tool in tools]
    stored = list(input_files_and_defs([tool.name for tool in tools]))
    too_long = {
        where: len(text)
        for source, schema in published + stored
        for where, text in described(schema, source)
        if len(text) > ARGUMENT_LIMIT
    }
    assert too_long == {}, f"argument descriptions over {ARGUMENT_LIMIT} characters"
    assert len(stored) > len(tools), "the common definitions were walked too"


async def test_the_confirmed_tools_say_the_user_is_asked(settings: Settings) -> None:
    """The tools that take confirm: true say so, and that the user is asked too when the client can."""
    tools, _ = await listing(settings)
    confirmed = [tool for tool in tools if "confirm" in tool.input_schema.get("required", [])]
    assert {tool.name for tool in confirmed} == {"memory_delete_user_data", "memory_forget", "memory_import_user_data"}
    for tool in confirmed:
        assert "confirm: true" in tool.description and "elicitation" in tool.description, tool.name


async def test_the_instructions_state_the_error_codes_once_for_every_tool(settings: Settings) -> None:
    tools, instructions = await listing(settings)
    assert [code for code in CODES if code not in instructions] == []
    recitals = {tool.name for tool in tools if sum(code in (tool.description or "") for code in CODES) > 1}
    assert recitals == set(), "the envelope's error codes belong in the instructions"
