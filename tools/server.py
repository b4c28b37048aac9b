"""The MCP server: every tool with its published schemas, the resources and the prompts, all
served through the one call pipeline (``tools.calls.pipeline``).

The SDK validates arguments against a Python signature before a handler runs, answers a bad call
with its own plain text and drops unknown fields. The PRD wants ``INVALID_ARGUMENT`` envelopes
naming the field, so each tool receives the raw arguments and the pipeline validates them against
the published input schema.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import replace
from importlib import metadata
from typing import Any, Literal

from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools.base import Tool
from mcp_types import CallToolResult, InputRequiredResult, ToolAnnotations

from models.schema_files import input_schema, published_output_schema
from service.auth.policy import Principal
from service.facade import MemoryService
from tools.calls.confirmation import confirmed_by_user
from tools.calls.envelope import from_exception, success
from tools.calls.pipeline import Call, CallPipeline, target_user
from tools.calls.policy import CallPolicy, ServiceProvider
from tools.calls.validation import validate_arguments
from tools.instructions import INSTRUCTIONS
from tools.prompts.serving import add_prompts
from tools.resources.reading import register_resources
from tools.resources.subscriptions import Subscriptions
from tools.specs.catalog import TOOL_SPECS, ToolSpec
from tools.specs.listing import current_listing
from tools.toolsets.session import SessionToolsets

NameStyle = Literal["plain", "dotted"]
ToolCall = Callable[[dict[str, Any], Any], Awaitable[CallToolResult | InputRequiredResult]]


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
    def output_schema(self) -> dict[str, Any] | None:
        return self.published_output_schema

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        return await self.fn(arguments, context)


def _placeholder() -> None:  # pragma: no cover - never called; gives the SDK a signature to inspect
    return None


LOGGED_ID_CHARS = 80  # a Spotify playlist id is at most 80 characters


def _logged_playlist(arguments: Any) -> str | None:
    """The playlist id for the log line: raw (the call may be invalid or unauthenticated), so only
    a string, cut at the longest valid id; a log line must not grow with the request body."""
    value = arguments.get("playlist_id") if isinstance(arguments, dict) else None
    if not isinstance(value, str):
        return None
    return value if len(value) <= LOGGED_ID_CHARS else value[:LOGGED_ID_CHARS] + "…"


def tool_call(spec: ToolSpec, pipeline: CallPipeline, toolsets: SessionToolsets | None = None) -> ToolCall:
    """The tool's call through the pipeline: confirmation by the user, the handler, the envelope.
    ``toolsets``: what MCP sessions list, for the tool that changes it (the page has no listing)."""

    async def call(arguments: dict[str, Any], context: Any) -> CallToolResult | InputRequiredResult:
        listing = current_listing.set(toolsets.listing_for(context) if toolsets is not None else None)
        try:
            return await _call(arguments, context)
        finally:
            current_listing.reset(listing)

    async def _call(arguments: dict[str, Any], context: Any) -> CallToolResult | InputRequiredResult:
        gates = Call(
            spec.prd_name,
            spec.access,
            gated=spec.gated,
            writes=not spec.read_only,
            control=spec.control,
            log_fields={
                "tool": spec.prd_name,
                "user_id": target_user(arguments),
                "playlist_id": _logged_playlist(arguments),
            },
        )

        async def work(
            service: MemoryService, valid: dict[str, Any], principal: Principal
        ) -> CallToolResult | InputRequiredResult:
            question = await confirmed_by_user(spec.prd_name, valid, context)  # destructive: the user says yes
            if question is not None:
                return question  # asked in the answer (2026-07-28): the client retries with the reply
            return success(await spec.handler(service, valid, principal))

        return await pipeline.run(
            gates, arguments, context, lambda raw: validate_arguments(spec.prd_name, raw), work, from_exception
        )

    return call


def build_tool(spec: ToolSpec, style: NameStyle, pipeline: CallPipeline, toolsets: SessionToolsets) -> RawArgumentsTool:
    base = Tool.from_function(_placeholder, name=wire_name(spec.prd_name, style), structured_output=False)
    return RawArgumentsTool(
        fn=tool_call(spec, pipeline, toolsets),
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
        published_output_schema=published_output_schema(spec.prd_name),
    )


def tool_calls(provide: ServiceProvider, style: NameStyle, policy: CallPolicy) -> dict[str, ToolCall]:
    """Wire name → the very call path the MCP tools run (identity, rate limit, validation,
    authorization, switches, confirmation, handler, envelope, metrics, log, subscriptions), for
    another transport (the memory page) that passes its own ``policy`` and call context. Every
    tool: toolsets shape what a model sees, not what a surface can do."""
    pipeline = CallPipeline(provide, policy)
    return {wire_name(spec.prd_name, style): tool_call(spec, pipeline) for spec in TOOL_SPECS}


def create_mcp_server(
    provide: ServiceProvider,
    style: NameStyle = "plain",
    policy: CallPolicy | None = None,
    toolsets: Collection[str] | None = None,
    subscriptions: Subscriptions | None = None,
) -> MCPServer:
    """The MCP server with every tool registered and a session's listing starting with ``toolsets``
    (None: every tool; see ``catalog.TOOLSETS``). Without a policy every call is the machine's own
    user (stdio, in process). ``subscriptions``: given when another transport's writes must reach
    this server's subscribers."""
    # One per server: a write through any session reaches every subscriber.
    subscriptions = subscriptions or Subscriptions()
    policy = replace(policy or CallPolicy(), changed=subscriptions.changed)
    pipeline = CallPipeline(provide, policy)
    listings = SessionToolsets(toolsets, policy.identity, subscriptions.bus, lambda name: wire_name(name, style))
    server = MCPServer(
        name="taste-memory",
        title="Taste Memory",
        instructions=rename_in_text(INSTRUCTIONS, style),
        version=_version(),
        tools=[build_tool(spec, style, pipeline, listings) for spec in TOOL_SPECS],
        subscriptions=subscriptions.bus,
    )
    announce_tool_list_changes(server)
    listings.install(server)
    register_resources(server, pipeline)
    subscriptions.install(server, pipeline)
    add_prompts(
        server,
        pipeline,
        [spec.prd_name for spec in TOOL_SPECS],
        lambda context: listings.listed(context.request_context),
        lambda text: rename_in_text(text, style),
    )
    return server


def announce_tool_list_changes(server: MCPServer) -> None:
    """Declare ``tools.listChanged`` at the handshake (protocol 2025-11-25 and before): the SDK's
    transports build the initialization options without notification options."""
    lowlevel = server._lowlevel_server
    build = lowlevel.create_initialization_options

    def with_list_changes(notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any) -> Any:
        return build(notification_options or NotificationOptions(tools_changed=True), *args, **kwargs)

    lowlevel.create_initialization_options = with_list_changes  # type: ignore[method-assign]


def _version() -> str:
    try:
        return metadata.version("taste-memory")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "0.0.0"
