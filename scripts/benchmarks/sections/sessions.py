"""Sessions: what the seeds' stories cost the agent in definitions read, answers read and calls,
on the default listing (``session_cost``; run it as a file to compare two source trees)."""

from __future__ import annotations

from ..context import Run
from ..session_cost import run_sessions


async def run(ctx: Run) -> None:
    result = await run_sessions(ctx.work / "sessions")
    listing = result["listing"]
    section = ctx.report.section(
        "sessions",
        "Sessions: what a session costs the agent (in process, default listing)",
        ["session", "definitions B", "answers B", "tool calls", "list calls", "enable calls", "largest answer"],
        "Each session on a fresh copy of one listener's year ("
        + ", ".join(f"{v:,} {k.replace('_', ' ')}" for k, v in result["history"].items())
        + "), through the in-process MCP client. Definitions: the compact UTF-8 JSON "
        "of {name, description, inputSchema} summed over the tools listed at session start and at every re-list "
        "after `memory_enable_toolsets`; answers: the compact JSON of every tool result's structured content; "
        "tool calls include the enabling calls, list calls are counted apart. "
        f"Default listing: {listing['tools']} tools, {listing['bytes']:,} B.",
    )
    for s in result["sessions"]:
        tool, size, _ = max(s["calls"], key=lambda call: call[1])
        cells = [s["definitions_bytes"], s["answers_bytes"], s["tool_calls"], s["list_calls"], s["enable_calls"]]
        section.add(s["name"], [f"{n:,}" for n in cells] + [f"{tool} {size:,}"])
        ctx.report.values[f"sessions.{s['name']}.answers"] = s["answers_bytes"]
    ctx.report.values["sessions.listing.bytes"] = listing["bytes"]
