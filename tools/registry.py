"""Registers every tool on an MCPServer with the PRD schemas and the envelope.

The SDK validates arguments against a Python signature before a handler runs, answers a bad call
with its own plain text and drops unknown fields. The PRD wants ``INVALID_ARGUMENT`` envelopes
naming the field, so each tool here receives the raw arguments and validates them itself against
the published PRD input schema.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from importlib import metadata
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools.base import Tool
from mcp_types import CallToolResult, ToolAnnotations

from models.schema_files import input_schema, success_envelope_schema
from service.memory import MemoryService
from tools.catalog import TOOL_SPECS, ToolSpec
from tools.envelope import error_code, from_exception, success
from tools.instructions import INSTRUCTIONS
from tools.validation import validate_arguments

log = logging.getLogger("taste_memory.calls")

ServiceProvider = Callable[[], MemoryService]
NameStyle = Literal["plain", "dotted"]


def wire_name(prd_name: str, style: NameStyle = "plain") -> str:
    """``memory.get_profile`` → ``memory_get_profile`` (Claude/OpenAI tool APIs reject dots)."""
    return prd_name if style == "dotted" else prd_name.replace(".", "_")


def rename_in_text(text: str, style: NameStyle) -> str:
    if style == "plain":
        return text
    for spec in TOOL_SPECS:
        text = text.replace(wire_name(spec.prd_name), spec.prd_name)
    return text


class RawArgumentsTool(Tool):
    """A tool whose function receives the arguments exactly as the client sent them."""

    published_output_schema: dict[str, Any] | None = None

    @property
    def output_schema(self) -> dict[str, Any] | None:  # type: ignore[override]
        return self.published_output_schema

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        return await self.fn(arguments, context)


def _placeholder() -> None:  # pragma: no cover - never called; gives the SDK a signature to inspect
    return None


def _call(spec: ToolSpec, provide: ServiceProvider) -> Callable[[dict[str, Any], Any], Any]:
    async def call(arguments: dict[str, Any], context: Any) -> CallToolResult:
        request_id = _request_id(context)
        started = time.perf_counter()
        try:
            valid = validate_arguments(spec.prd_name, arguments)
            answer = success(await spec.handler(provide(), valid))
            code = None
        except Exception as exc:  # every failure becomes an envelope; none escapes as a trace
            answer = from_exception(exc, request_id)
            code = error_code(exc)
        log.info(
            "tool call",
            extra={
                "tool": spec.prd_name,
                "user_id": arguments.get("user_id") if isinstance(arguments, dict) else None,
                "playlist_id": arguments.get("playlist_id") if isinstance(arguments, dict) else None,
                "request_id": request_id,
                "latency_ms": round((time.perf_counter() - started) * 1000, 3),
                "success": code is None,
                "error_code": code,
            },
        )
        return answer

    return call


def _request_id(context: Any) -> str:
    try:
        return str(context.request_id)
    except Exception:  # outside a request (direct call in process): make one up
        return uuid.uuid4().hex


def build_tool(spec: ToolSpec, provide: ServiceProvider, style: NameStyle) -> RawArgumentsTool:
    base = Tool.from_function(_placeholder, name=wire_name(spec.prd_name, style), structured_output=False)
    return RawArgumentsTool(
        fn=_call(spec, provide),
        name=base.name,
        title=spec.title,
        description=rename_in_text(spec.description, style),
        parameters=input_schema(spec.prd_name),
        fn_metadata=base.fn_metadata,
        is_async=True,
        context_kwarg=None,
        annotations=ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=False,
        ),
        published_output_schema=success_envelope_schema(spec.prd_name),
    )


def create_mcp_server(provide: ServiceProvider, style: NameStyle = "plain") -> MCPServer:
    """The MCP server with every tool of the PRD contract (and ``ops.list_users``) registered."""
    return MCPServer(
        name="taste-memory",
        title="Taste Memory",
        instructions=rename_in_text(INSTRUCTIONS, style),
        version=_version(),
        tools=[build_tool(spec, provide, style) for spec in TOOL_SPECS],
    )


def _version() -> str:
    try:
        return metadata.version("taste-memory")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "0.0.0"
