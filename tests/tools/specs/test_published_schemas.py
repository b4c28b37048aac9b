"""The output schemas the tools publish: self-contained and true of every PRD result.

The stock MCP client validates every successful result against the published ``outputSchema`` with
``jsonschema``; a per-item subschema costs a sub-validator per item, so no array is published with
one. A strict client can compile the published schemas with no registry; they differ from the full
PRD result schema only by moving each array's item schema (``items``) into its ``description``,
verbatim, on exactly the arrays of ``DESCRIBED_ARRAYS`` (so every PRD-valid result is valid against
them, and the PRD rule can be read back from them). What that costs: test_published_schema_costs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from models.schema_files import envelope_schema, published_output_schema, success_envelope_schema
from service.settings import Settings
from tests.support import connected
from tests.support.contract import TOOLS, errors_of, wire
from tests.tools.specs.published import DESCRIBED_ARRAYS, published_schemas, refs, strict_validator, unresolvable_refs

ITEM_RULE = "Every item: "  # how a published array's description quotes the PRD item schema it replaces


def _arrays(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every array schema in a schema document, with its path of property names (``[]`` for an item)."""
    if isinstance(node, dict):
        if node.get("type") == "array":
            yield path, node
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    yield from _arrays(sub, f"{path}/{name}".lstrip("/"))
            elif key == "items":
                yield from _arrays(value, f"{path}[]")
            else:
                yield from _arrays(value, path)
    elif isinstance(node, list):
        for value in node:
            yield from _arrays(value, path)


def _restored(node: Any) -> Any:
    """The published schema with each array's quoted item rule put back as its ``items``."""
    if isinstance(node, dict):
        said = node.get("description")
        if node.get("type") == "array" and isinstance(said, str) and ITEM_RULE in said:
            start = said.index("{", said.index(ITEM_RULE))
            items, end = json.JSONDecoder().raw_decode(said, start)
            assert said[end:].startswith(". Not published as a per-item schema"), said
            own = said[: said.index(ITEM_RULE)].rstrip()  # the array's own description, if it had one
            restored = {**{k: _restored(v) for k, v in node.items() if k != "description"}, "items": items}
            return {**restored, "description": own} if own else restored
        return {k: _restored(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_restored(v) for v in node]
    return node


@pytest.mark.parametrize("prd_name", TOOLS)
def test_published_schema_compiles_without_a_registry(prd_name: str) -> None:
    schema = published_output_schema(prd_name)
    strict_validator(schema)  # metaschema check, the client's empty registry
    assert unresolvable_refs(schema) == []
    assert all(ref.startswith("#") for ref in refs(schema)), "only document-local $refs"
    assert "$id" not in json.dumps(schema), "an $id would change how the client resolves $refs"


@pytest.mark.parametrize("prd_name", TOOLS)
def test_published_schema_only_moves_item_schemas_into_descriptions(prd_name: str) -> None:
    prd = success_envelope_schema(prd_name)
    published = published_output_schema(prd_name)
    # Nothing else changed: putting the quoted item rules back gives the PRD schema, key for key.
    assert _restored(published) == prd
    # No array of the published schema keeps a per-item schema, and the arrays that lost one are exactly
    # the PRD's arrays with items (outside other items), each quoting its own rule.
    assert [path for path, array in _arrays(published) if "items" in array] == []
    described = [path.removeprefix("result/") for path, array in _arrays(published) if "description" in array]
    assert described == DESCRIBED_ARRAYS.get(prd_name, [])
    assert described == [
        path.removeprefix("result/") for path, array in _arrays(prd) if "items" in array and "[]" not in path
    ]
    # Dropping a subschema of `items` can only admit more instances: every PRD-valid envelope stays valid.
    assert (published != prd) == (prd_name in DESCRIBED_ARRAYS)


def test_schemas_handed_out_are_copies() -> None:
    for build in (published_output_schema, success_envelope_schema):
        first = build("memory.reconstruct_playlist")
        first["properties"]["result"]["properties"]["track_ids"]["maxItems"] = 1
        assert "maxItems" not in build("memory.reconstruct_playlist")["properties"]["result"]["properties"]["track_ids"]


async def test_tools_list_publishes_these_schemas(settings: Settings) -> None:
    async with connected(settings) as call:
        published = await published_schemas(call.client)
    assert set(published.schemas) == {wire(name) for name in TOOLS}
    for prd_name in TOOLS:
        assert published.schemas[wire(prd_name)] == published_output_schema(prd_name)


def test_error_envelopes_satisfy_every_published_schema() -> None:
    """isError answers are not validated by the client, but the schema still describes them."""
    failure = {"success": False, "error": {"code": "NOT_FOUND", "message": "no such playlist", "details": {"x": 1}}}
    assert errors_of(Draft202012Validator(envelope_schema()), failure) == []
    for prd_name in TOOLS:
        assert list(strict_validator(published_output_schema(prd_name)).iter_errors(failure)) == []
    bad = {"success": False, "error": {"code": "NOPE", "message": "x"}}
    assert list(strict_validator(published_output_schema("memory.reconstruct_playlist")).iter_errors(bad))
