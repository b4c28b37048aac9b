"""Registers every tool on an MCPServer with the PRD schemas and the envelope.

The SDK validates arguments against a Python signature before a handler runs, answers a bad call
with its own plain text and drops unknown fields. The PRD wants ``INVALID_ARGUMENT`` envelopes
naming the field, so each tool here receives the raw arguments and validates them itself against
the published PRD input schema.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field, replace
from importlib import metadata
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools.base import Tool
from mcp_types import CallToolResult, InputRequiredResult, ToolAnnotations

from models.schema_files import input_schema, published_output_schema
from service.audit.origin import CallOrigin, acting_as, new_request_id
from service.auth.policy import Access, Principal, authenticated, authorize
from service.auth.ratelimit import RateLimiter
from service.facade import MemoryService
from host.metrics import ToolMetrics
from tools.specs.catalog import TOOL_SPECS, ToolSpec, specs_in
from tools.calls.confirmation import confirmed_by_user
from tools.calls.envelope import error_code, from_exception, success
from tools.calls.identity import CallerIdentity, TrustedLocal
from tools.instructions import INSTRUCTIONS
from tools.prompts.serving import add_prompts
from tools.resources.reading import register_resources
from tools.resources.subscriptions import Subscriptions
from tools.calls.validation import validate_arguments

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


@dataclass(frozen=True)
class CallPolicy:
    """What every call passes before its handler: who is calling, how often, and the record."""

    identity: CallerIdentity = field(default_factory=TrustedLocal)
    limiter: RateLimiter | None = None
    metrics: ToolMetrics | None = None
    # Told (tool, arguments) after each successful write, for resource subscribers; never raises.
    changed: Callable[[str, dict[str, Any]], Awaitable[None]] | None = None


def _target_user(arguments: Any) -> int | None:
    value = arguments.get("user_id") if isinstance(arguments, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


async def _serving(spec: ToolSpec, service: MemoryService, arguments: dict[str, Any]) -> MemoryService:
    """The service a call runs on, after the user's switches: a write of a user whose memory is
    off or paused is refused; a read of a user whose memory is off runs on an empty store."""
    user_id = arguments.get("user_id")
    if not spec.gated or not isinstance(user_id, int):
        return service
    if spec.access is Access.WRITE:
        await service.controls.refuse_write(user_id)
    elif spec.access is Access.READ and await service.controls.hides_reads(user_id):
        return await service.controls.empty_twin()
    return service


LOGGED_ID_CHARS = 80  # a Spotify playlist id is at most 80 characters


def _logged_playlist(arguments: Any) -> str | None:
    """The playlist id for the log line: raw (the call may be invalid or unauthenticated), so only
    a string, cut at the longest valid id; a log line must not grow with the request body."""
    value = arguments.get("playlist_id") if isinstance(arguments, dict) else None
    if not isinstance(value, str):
        return None
    return value if len(value) <= LOGGED_ID_CHARS else value[:LOGGED_ID_CHARS] + "…"


def _call(spec: ToolSpec, provide: ServiceProvider, policy: CallPolicy) -> Callable[[dict[str, Any], Any], Any]:
    async def call(arguments: dict[str, Any], context: Any) -> CallToolResult | InputRequiredResult:
        # Ours, not the JSON-RPC id: that one restarts at 1 in every session.
        request_id = new_request_id()
        started = time.perf_counter()
        principal: Principal | None = None
        try:
            principal = authenticated(policy.identity.resolve(context))
            if policy.limiter is not None and not principal.unrestricted:
                policy.limiter.check(principal.name, principal.rate_limit_per_minute)
            valid = validate_arguments(spec.prd_name, arguments)
            authorize(principal, spec.access, _target_user(valid))
            with acting_as(CallOrigin(principal.name, spec.prd_name, request_id)):
                serving = await _serving(spec, provide(), valid)
                question = await confirmed_by_user(spec.prd_name, valid, context)  # destructive: the user says yes
                if question is not None:
                    return question  # asked in the answer (2026-07-28): the client retries with the reply
                answer = success(await spec.handler(serving, valid, principal))
            code = None
        except Exception as exc:  # every failure becomes an envelope; none escapes as a trace
            answer = from_exception(exc, request_id)
            code = error_code(exc)
        seconds = time.perf_counter() - started
        if policy.metrics is not None:
            policy.metrics.observe(spec.prd_name, seconds, code)
        log.info(
            "tool call",
            extra={
                "tool": spec.prd_name,
                "user_id": _target_user(arguments),
                "playlist_id": _logged_playlist(arguments),
                "request_id": request_id,
                "principal": principal.name if principal is not None else None,
                "latency_ms": round(seconds * 1000, 3),
                "success": code is None,
                "error_code": code,
            },
        )
        if code is None and not spec.read_only and policy.changed is not None:
            await policy.changed(spec.prd_name, valid)
        return answer

    return call


def build_tool(spec: ToolSpec, provide: ServiceProvider, style: NameStyle, policy: CallPolicy) -> RawArgumentsTool:
    base = Tool.from_function(_placeholder, name=wire_name(spec.prd_name, style), structured_output=False)
    return RawArgumentsTool(
        fn=_call(spec, provide, policy),
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


ToolCall = Callable[[dict[str, Any], Any], Awaitable[CallToolResult | InputRequiredResult]]


def tool_calls(provide: ServiceProvider, style: NameStyle, policy: CallPolicy,
               toolsets: Collection[str] | None = None) -> dict[str, ToolCall]:
    """Wire name → the very call path the MCP tools run (identity, rate limit, validation,
    authorization, switches, confirmation, handler, envelope, metrics, log, subscriptions), for
    another transport (the memory page) that passes its own ``policy`` and call context."""
    return {wire_name(spec.prd_name, style): _call(spec, provide, policy) for spec in specs_in(toolsets)}


def create_mcp_server(
    provide: ServiceProvider, style: NameStyle = "plain", policy: CallPolicy | None = None,
    toolsets: Collection[str] | None = None, subscriptions: Subscriptions | None = None,
) -> MCPServer:
    """The MCP server with the tools of ``toolsets`` registered (None: every tool; see
    ``catalog.TOOLSETS``). Without a policy every call is the machine's own user (stdio, in process).
    ``subscriptions``: given when another transport's writes must reach this server's subscribers."""
    # One per server: a write through any session reaches every subscriber.
    subscriptions = subscriptions or Subscriptions()
    policy = replace(policy or CallPolicy(), changed=subscriptions.changed)
    server = MCPServer(
        name="taste-memory",
        title="Taste Memory",
        instructions=rename_in_text(INSTRUCTIONS, style),
        version=_version(),
        tools=[build_tool(spec, provide, style, policy) for spec in specs_in(toolsets)],
        subscriptions=subscriptions.bus,
    )
    register_resources(server, provide, policy, subscriptions)
    add_prompts(server, [spec.prd_name for spec in specs_in(toolsets)], lambda text: rename_in_text(text, style))
    return server


def _version() -> str:
    try:
        return metadata.version("taste-memory")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "0.0.0"
