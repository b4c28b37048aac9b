"""A tool's published ``outputSchema`` as a strict MCP client sees it.

The stock client (``mcp.client.session.ClientSession.validate_tool_result``) picks the validator
class from the schema's ``$schema``, checks the schema against its metaschema, and validates with an
*empty* ``referencing`` registry: a ``$ref`` must resolve within the schema document itself.
No format assertion (the client has none). The tests apply the same rule, and validate failures too
(the client skips them, but a published schema must describe every envelope the tool answers).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

PUBLISHED_URI = "urn:taste-memory:published"


def strict_validator(schema: dict[str, Any]) -> Validator:
    """The validator the stock MCP client builds from a published output schema."""
    cls = validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, registry=Registry())


def refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def unresolvable_refs(schema: dict[str, Any]) -> list[str]:
    """Every ``$ref`` that does not resolve within the document alone (no other resource known)."""
    resolver = (
        Registry()
        .with_resource(PUBLISHED_URI, Resource.from_contents(schema, default_specification=DRAFT202012))
        .resolver(PUBLISHED_URI)
    )
    missing = []
    for ref in refs(schema):
        try:
            resolver.lookup(ref)
        except Exception:  # referencing raises Unresolvable (or PointerToNowhere, a subclass)
            missing.append(ref)
    return missing


class PublishedSchemas:
    """The output schemas one client was given by ``tools/list``, with their strict validators."""

    def __init__(self, listed: dict[str, dict[str, Any] | None]) -> None:
        self.schemas = listed
        self._validators: dict[str, Validator] = {}

    def problem(self, wire_name: str, envelope: Any) -> str | None:
        schema = self.schemas.get(wire_name)
        if schema is None:
            return f"{wire_name} publishes no output schema"
        if wire_name not in self._validators:
            self._validators[wire_name] = strict_validator(schema)
        error = best_match(self._validators[wire_name].iter_errors(envelope))
        return None if error is None else f"{wire_name}: {error.json_path}: {error.message[:300]}"


async def published_schemas(client: Any) -> PublishedSchemas:
    listed = (await client.list_tools()).tools
    return PublishedSchemas({tool.name: tool.output_schema for tool in listed})
