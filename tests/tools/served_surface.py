"""What a client is served: the tools a session lists at start, then every tool, resource template
and prompt as listed, in both name styles.

``served_surface.json`` is the copy a test compares against byte for byte; a deliberate change of
the surface rewrites it with ``python -m tests.tools.served_surface --write`` (and says why).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from service.settings import Settings
from tests.support import connected, every_tool

SAVED = Path(__file__).with_name("served_surface.json")
SCHEMAS = Path(__file__).resolve().parents[2] / "models" / "schemas"


def _dump(items: list[Any]) -> list[dict[str, Any]]:
    return [item.model_dump(mode="json", by_alias=True, exclude_none=True) for item in items]


async def _listed(settings: Settings) -> dict[str, Any]:
    async with connected(settings) as call:
        client = call.client
        return {
            "instructions": client.instructions,
            "listed_at_start": [tool.name for tool in (await client.list_tools()).tools],
            "tools": _dump(await every_tool(client)),
            "resource_templates": _dump((await client.list_resource_templates()).resource_templates),
            "prompts": _dump((await client.list_prompts()).prompts),
        }


async def served_surface() -> str:
    """The surface as the JSON text saved in ``served_surface.json``."""
    surface: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        for style in ("plain", "dotted"):
            settings = Settings(
                data_dir=Path(folder) / style, tool_names=style, semantic_search="off", search_warmup=False
            )
            surface[style] = await _listed(settings)
    surface["schema_files"] = {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(SCHEMAS.glob("*.json"))
    }
    return json.dumps(surface, indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    text = asyncio.run(served_surface())
    if sys.argv[1:] == ["--write"]:
        SAVED.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
