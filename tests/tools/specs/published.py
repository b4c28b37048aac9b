"""A tool's published ``outputSchema`` as a strict MCP client sees it.

The stock client (``mcp.client.session.ClientSession.validate_tool_result``) picks the validator
class from the schema's ``$schema``, checks the schema against its metaschema, and validates with an
*empty* ``referencing`` registry: a ``$ref`` must resolve within the schema document itself.
No format assertion (the client has none). The tests apply the same rule, and validate failures too
(the client skips them, but a published schema must describe every envelope the tool answers).
``DESCRIBED_ARRAYS``: the arrays published without their item schema, by tool and result path.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.support import every_tool

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
    listed = await every_tool(client)
    return PublishedSchemas({tool.name: tool.output_schema for tool in listed})


# The arrays published without their item schema, by result path: every array of the PRD results that is
# not itself inside an item schema (intent_tags of a get_playlists item goes with the item's schema).
DESCRIBED_ARRAYS = {
    "ops.list_users": ["users"],
    "memory.get_playlists": ["items"],
    "memory.get_playlist": [
        "playlist/intent_tags",
        "latest_snapshot/track_ids",
        "latest_snapshot/tracks",
        "recent_events",
    ],
    "memory.reconstruct_playlist": ["track_ids", "tracks"],
    "memory.search": ["results"],
    "ops.audit": ["entries"],
    "memory.undo_last_mutation": ["meta_fields"],
    "memory.resync_playlist": ["meta_fields"],
    "memory.diff_playlist": ["added", "removed", "moved", "meta_changes", "events"],
    "memory.resolve_track": ["best/artists", "alternatives"],
    "memory.confirm_track": ["track/artists"],
    "memory.check_playlist": [
        "violations",
        "unverified",
        "unknown_tracks",
        "rules/avoid_artists",
        "rules/avoid_tracks",
        "rules/avoid_genres",
    ],
    "memory.log_playlist_create": ["rule_report/violations", "rule_report/unverified", "rule_report/unknown_tracks"],
    "memory.log_playlist_mutation": ["rule_report/violations", "rule_report/unverified", "rule_report/unknown_tracks"],
    "memory.get_playlist_timeline": ["points"],
    "memory.playlist_portability": ["tracks"],
    "memory.upsert_tracks": ["merged"],
    "memory.rotation_report": ["new", "staples"],
    "memory.feedback_summary": ["groups"],
    "memory.add": ["memory/entities"],
    "memory.query": ["memories"],
    "memory.validate_recommendation": ["recommendation/entities"],
    "memory.open_followups": ["followups"],
    "memory.get_context": ["diagnostics/sections", "diagnostics/kept", "diagnostics/dropped"],
    "memory.record_choice": ["payload/choice/dimensions"],
    "memory.explain": ["set_by", "evidence"],
    "memory.list_conflicts": ["conflicts"],
    "memory.enable_toolsets": ["enabled", "added"],
    "memory.inspect": [
        "last_context/diagnostics/sections",
        "last_context/diagnostics/kept",
        "last_context/diagnostics/dropped",
        "profile_fields",
        "out_of_sight/memories",
        "out_of_sight/events",
        "out_of_sight/fields",
    ],
}
