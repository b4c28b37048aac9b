"""What a session costs the agent: the seeds' stories as agent sessions through the in-process MCP
client, counting the bytes of tool definitions the model reads, the bytes of answers, the calls.

    python scripts/benchmarks/session_cost.py [--json] [--compare BEFORE.json]
    PYTHONPATH=/path/to/other/tree python scripts/benchmarks/session_cost.py --json > before.json

Runs on whichever service tree comes first on the path (an older checkout through PYTHONPATH).
A tool not in the listing is reached as an agent would: ``memory_enable_toolsets``, then a re-list.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from mcp.client.client import Client

if __package__:
    from .session_history import USER, Track, World, make_world, seed_history
else:  # run as a file: its folder is on the path
    from session_history import USER, Track, World, make_world, seed_history  # type: ignore[no-redef]

ENABLE = "memory_enable_toolsets"


def compact(value: Any) -> int:
    """Bytes of the compact UTF-8 JSON (no spaces) of a value: what the model reads."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str).encode())


def definition(tool: Any) -> dict[str, Any]:
    listed = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {"name": listed["name"], "description": listed.get("description"), "inputSchema": listed["inputSchema"]}


class SessionFailed(RuntimeError):
    pass


def toolset_holding(wire: str) -> str | None:
    """The smallest toolset of the tree's catalog that holds this wire name (None: no catalog)."""
    try:
        from tools.specs.catalog import TOOLSETS
    except ImportError:
        return None
    holders = [name for name, members in TOOLSETS.items() if any(m.replace(".", "_") == wire for m in members)]
    return min(holders, key=lambda name: (len(TOOLSETS[name]), name)) if holders else None


@dataclass
class Tally:
    name: str
    title: str
    listed_at_start: int = 0
    definitions_bytes: int = 0  # every listing the session read: at start, and after each enabling
    answers_bytes: int = 0
    tool_calls: int = 0  # tools/call requests, the enabling calls included
    list_calls: int = 0  # tools/list requests (pages included)
    enable_calls: int = 0
    listings: list[int] = field(default_factory=list)
    calls: list[tuple[str, int, bool]] = field(default_factory=list)  # (tool, answer bytes, success)


class Agent:
    """One session's client: calls tools as the model would and counts what the model reads."""

    def __init__(self, client: Client, tally: Tally) -> None:
        self.client = client
        self.tally = tally
        self.listed: dict[str, dict[str, Any]] = {}

    async def list_tools(self) -> None:
        tools: list[Any] = []
        cursor: str | None = None
        while True:
            page = await self.client.list_tools(cursor=cursor, cache_mode="bypass")
            self.tally.list_calls += 1
            tools += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
        self.listed = {tool.name: definition(tool) for tool in tools}
        size = sum(compact(d) for d in self.listed.values())
        self.tally.listings.append(size)
        self.tally.definitions_bytes += size
        if not self.tally.listed_at_start:
            self.tally.listed_at_start = len(self.listed)

    async def call(self, tool: str, arguments: dict[str, Any], expect: str | None = None) -> Any:
        """The tool's result; ``expect``: the error code a deliberate call must answer (its error)."""
        if tool not in self.listed:
            await self.enable(tool)
        result = await self.client.call_tool(tool, arguments)
        envelope = result.structured_content
        if envelope is None:
            text = "".join(getattr(part, "text", "") for part in result.content)
            envelope = json.loads(text) if text.startswith("{") else {"success": False, "error": {"message": text}}
        size = compact(envelope)
        ok = bool(envelope.get("success"))
        self.tally.tool_calls += 1
        self.tally.answers_bytes += size
        self.tally.calls.append((tool, size, ok))
        if expect is not None:
            code = None if ok else envelope["error"].get("code")
            if code != expect:
                raise SessionFailed(f"{self.tally.name}: {tool} should answer {expect}, answered {envelope}")
            return envelope["error"]
        if not ok:
            raise SessionFailed(f"{self.tally.name}: {tool}({json.dumps(arguments)[:300]}) failed: {envelope}")
        return envelope["result"]

    async def enable(self, tool: str) -> None:
        toolset = toolset_holding(tool)
        if ENABLE not in self.listed or toolset is None:
            raise SessionFailed(f"{self.tally.name}: {tool} is not listed and {ENABLE} cannot reach it")
        self.tally.enable_calls += 1
        await self.call(ENABLE, {"toolsets": [toolset]})
        await self.list_tools()  # as on notifications/tools/list_changed
        if tool not in self.listed:
            raise SessionFailed(f"{self.tally.name}: {tool} still not listed after enabling {toolset}")


def capped(pool: list[Track], n: int, per_artist: int = 3) -> list[Track]:
    """The first n tracks of ``pool`` keeping playlist_rules.max_tracks_per_artist (PRD §10.5)."""
    counts: dict[str, int] = {}
    chosen = []
    for track in pool:
        counts[track.artist] = counts.get(track.artist, 0) + 1
        if counts[track.artist] <= per_artist:
            chosen.append(track)
    return chosen[:n]


def _event_id() -> str:
    return str(uuid.uuid4())


async def playbook(agent: Agent, world: World) -> None:
    """PRD §10: session start, a new playlist logged, four edits, a stated preference."""
    await start(agent)
    await agent.call("memory_get_playlists", {"user_id": USER, "limit": 10})
    tracks = [t.track_id for t in capped(world.fresh[:14] + world.tracks, 32)]
    playlist_id = "3cEYpjA9oz9GiPac4AsH4n"
    await agent.call(
        "memory_log_playlist_create",
        {
            "user_id": USER,
            "playlist_id": playlist_id,
            "name": "Warm-up for Nightwish in March",
            "description": "Drive → breather → drive, at most 3 per artist",
            "track_ids": tracks,
            "intent_tags": ["upbeat", "breathers", "symphonic metal", "concert warm-up"],
            "seed_context": {
                "days": 60,
                "top_artists": ["Nightwish", "Beast in Black", "Epica"],
                "top_tracks": tracks[:3],
                "constraints": {"max_tracks_per_artist": 3, "target_duration_minutes": {"min": 120, "max": 180}},
            },
            "idempotency_key": f"create-{playlist_id}",
        },
    )
    added = [t.track_id for t in world.fresh[14:18]]
    kept = [t for t in tracks if t not in tracks[3:5]]
    now = kept[:12] + added + kept[12:]  # after the add at 12 and the removal
    edits: list[tuple[str, dict[str, Any]]] = [
        ("ADD_TRACKS", {"track_ids": added, "insert_at": 12}),
        ("REMOVE_TRACKS", {"track_ids": tracks[3:5]}),
        ("REORDER", {"track_ids": now[12:16] + now[:12] + now[16:]}),  # the new finds open the playlist
        ("UPDATE_META", {"name": "Nightwish Warm-up (March)", "intent_tags": ["concert warm-up", "upbeat"]}),
    ]
    for kind, payload in edits:
        await agent.call(
            "memory_log_playlist_mutation",
            {
                "user_id": USER,
                "playlist_id": playlist_id,
                "type": kind,
                "payload": payload,
                "client_event_id": _event_id(),
            },
        )
    said = "Less Sabaton from now on, and two tracks per artist is plenty."
    await agent.call(
        "memory_append_preference_event",
        {"user_id": USER, "type": "rule", "source": "user", "payload": {"raw_text": said, "subject": "Sabaton"}},
    )
    await agent.call(
        "memory_update_profile",
        {
            "user_id": USER,
            "source": "user",
            "reason": f"User feedback: {said}",
            "patch": {"playlist_rules": {"max_tracks_per_artist": 2}},
        },
    )


async def start(agent: Agent) -> None:
    """The instructions' session start: the one user, then the context block."""
    users = await agent.call("ops_list_users", {})
    if len(users["users"]) != 1:
        raise SessionFailed(f"expected exactly one user, listed {users}")
    await agent.call("memory_get_context", {"user_id": users["users"][0]["user_id"]})


async def read_back(agent: Agent, world: World) -> None:
    """PRD §10.6 and §10.8: what is in it now (the music service answers 403), then find that
    playlist from before and make a v2 of it."""
    await start(agent)
    listed = await agent.call("memory_get_playlists", {"user_id": USER, "limit": 10})
    newest = listed["items"][0]["playlist_id"]
    await agent.call("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": newest, "include_tracks": True})
    hits = await agent.call("memory_search", {"user_id": USER, "query": "breathers upbeat metal road trip"})
    found = next(hit["id"] for hit in hits["results"] if hit["kind"] == "playlist")
    before = await agent.call("memory_get_playlist", {"user_id": USER, "playlist_id": found})
    seed_set = before["latest_snapshot"]["track_ids"]
    v2 = seed_set[:20] + [t.track_id for t in world.fresh[18:30]]
    await agent.call(
        "memory_log_playlist_create",
        {
            "user_id": USER,
            "playlist_id": "6rqhFgbbKwnb9MLmUQDhG6",
            "name": "Drive & Breathe v2",
            "track_ids": v2,
            "intent_tags": ["upbeat", "breathers", "symphonic metal", "road trip", "new finds"],
            "seed_context": {
                "based_on_playlist": found,
                "kept_from_v1": 20,
                "new_tracks": 12,
                "constraints": {"max_tracks_per_artist": 3},
            },
            "idempotency_key": "create-drive-breathe-v2",
        },
    )


async def followup(agent: Agent, world: World) -> None:
    """Seed 001: follow up on due recommendations with play data, learn from the answer, check
    memory before recommending again, remember the new recommendation."""
    await start(agent)
    due = await agent.call("memory_open_followups", {"user_id": USER})
    await agent.call("memory_log_plays", {"user_id": USER, "plays": world.recent_plays})
    verdicts = {}
    for item in due["followups"]:
        checked = await agent.call("memory_validate_recommendation", {"user_id": USER, "memory_id": item["memory_id"]})
        verdicts[item["entities"][0]] = (item["memory_id"], checked["validation"]["plays_since_rec"])
    if set(verdicts) != {"The Zombies", "Tame Impala"}:
        raise SessionFailed(f"expected the two due recommendations, followed up {verdicts}")
    tame_id, _ = verdicts["Tame Impala"]
    await agent.call(
        "memory_add",
        {
            "user_id": USER,
            "type": "feedback",
            "entities": ["Tame Impala", "Currents"],
            "summary": "Too psychedelic - user prefers melodic over experimental",
            "importance": 9,
            "metadata": {"sentiment": "negative", "original_rec_id": tame_id, "reason": "Too experimental"},
        },
    )
    await agent.call(
        "memory_add",
        {
            "user_id": USER,
            "type": "insight",
            "entities": ["baroque pop", "The Zombies"],
            "summary": "Loved Odessey and Oracle: baroque pop arrangements land, psychedelia does not",
            "importance": 9,
            "metadata": {"tags": ["preference", "arrangements"]},
        },
    )
    await agent.call("memory_query", {"user_id": USER, "entity": "The Left Banke", "limit": 5})
    await agent.call("memory_query", {"user_id": USER, "text": "baroque pop arrangements", "limit": 5})
    await agent.call(
        "memory_add",
        {
            "user_id": USER,
            "type": "recommendation",
            "entities": ["The Left Banke", "Walk Away Renée/Pretty Ballerina"],
            "summary": "Recommended after The Zombies landed: baroque pop with strings, melodic",
            "importance": 8,
            "metadata": {"check_after_days": 7, "reason": "Baroque pop like Odessey"},
        },
    )


async def control(agent: Agent, world: World) -> None:
    """Seed 003: what do you know about me, why, forget that, pause, stop remembering."""
    await start(agent)
    await agent.call("memory_inspect", {"user_id": USER})
    why = await agent.call("memory_explain", {"user_id": USER, "path": "Sabaton"})
    said = next(e for e in why["evidence"] if e["kind"] == "preference_event")
    await agent.call("memory_forget", {"user_id": USER, "kind": "preference_event", "id": said["id"], "confirm": True})
    await agent.call(
        "memory_forget", {"user_id": USER, "kind": "profile_field", "id": "/likes/artists/1", "confirm": True}
    )
    tonight = world.now + timedelta(hours=14)
    await agent.call("memory_pause", {"user_id": USER, "until": tonight.strftime("%Y-%m-%dT%H:%M:%SZ")})
    # The playbook says to log what the user likes; while paused the write is refused (deliberate).
    await agent.call(
        "memory_append_preference_event",
        {"user_id": USER, "type": "like", "source": "user", "payload": {"raw_text": "This Wardruna track is great"}},
        expect="CONFLICT",
    )
    await agent.call("memory_set_enabled", {"user_id": USER, "enabled": False})
    await agent.call("memory_status", {"user_id": USER})


Story = Callable[[Agent, World], Awaitable[None]]
SESSIONS: list[tuple[str, str, Story]] = [
    ("playbook", "PRD §10: start, create a playlist, 4 edits, a preference", playbook),
    ("read-back", "PRD §10.6/§10.8: what's in it now; that playlist from before → v2", read_back),
    ("follow-up", "Seed 001: due recommendations checked with plays, feedback, next rec", followup),
    ("control", "Seed 003: what do you know, why, forget that, pause, stop remembering", control),
]


@contextlib.asynccontextmanager
async def served(data_dir: Path, toolsets: list[str] | None = None) -> AsyncIterator[Client]:
    """The service on ``data_dir`` and an in-process client listing ``toolsets`` (None: what a
    deployment with default settings lists, as ``memory-service serve`` builds it)."""
    from host.running import ServiceHolder, running_service
    from service.settings import Settings
    from tools.server import create_mcp_server

    settings = Settings(data_dir=data_dir)
    holder = ServiceHolder()
    server = create_mcp_server(
        holder, settings.tool_names, toolsets=settings.toolsets if toolsets is None else toolsets
    )
    # mode="legacy": a session as the clients in use hold one (the 2025-11-25 handshake).
    async with running_service(settings, holder), Client(server, cache=None, mode="legacy") as client:
        yield client


def every_toolset() -> list[str]:
    from tools.specs.catalog import TOOLSETS

    return list(TOOLSETS)


async def seed(data_dir: Path, world: World) -> dict[str, int]:
    async with served(data_dir, every_toolset()) as client:
        agent = Agent(client, Tally("seed", "history"))
        await agent.list_tools()
        return await seed_history(agent.call, world)


async def run_sessions(work: Path, toolsets: list[str] | None = None) -> dict[str, Any]:
    """Seed the history once, then each session on a fresh copy of it; the measurements as JSON.
    ``toolsets``: the listing the sessions start from (None: the default listing)."""
    world = make_world()
    template = work / "history"
    written = await seed(template, world)
    out: dict[str, Any] = {"tree": tree(), "history": written, "sessions": []}
    for name, title, story in SESSIONS:
        copy = work / f"session-{name}"
        shutil.copytree(template, copy)
        tally = Tally(name, title)
        async with served(copy, toolsets) as client:
            agent = Agent(client, tally)
            await agent.list_tools()
            if "listing" not in out:
                out["listing"] = {"tools": len(agent.listed), "bytes": tally.listings[0], "names": sorted(agent.listed)}
            await story(agent, world)
        out["sessions"].append(asdict(tally))
    return out


def tree() -> str:
    """Which service tree was measured: its folder and commit."""
    import tools

    root = Path(tools.__file__).resolve().parents[1]
    run = lambda *args: subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True).stdout  # noqa: E731
    commit = run("rev-parse", "--short", "HEAD").strip() or "?"
    dirty = " with uncommitted changes" if run("status", "--porcelain", "--untracked-files=no").strip() else ""
    return f"{root} at {commit}{dirty}"


def table(before: dict[str, Any] | None, after: dict[str, Any]) -> str:
    """Markdown: per session, definitions, answers and calls (before → after when comparing)."""
    pair = (lambda b, a: f"{b:,} → {a:,}") if before else (lambda b, a: f"{a:,}")
    old = {s["name"]: s for s in before["sessions"]} if before else {}
    rows = [
        "| session | definitions held at the end B | definitions read B | answers B | tool calls | list calls "
        "| enable calls |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s in after["sessions"]:
        b = old.get(s["name"], s)
        cells = [pair(b["listings"][-1], s["listings"][-1])] + [
            pair(b[k], s[k]) for k in ("definitions_bytes", "answers_bytes", "tool_calls", "list_calls", "enable_calls")
        ]
        rows.append(f"| {s['name']}: {s['title']} | " + " | ".join(cells) + " |")
    lb, la = (before or after)["listing"], after["listing"]
    rows.append(
        f"| default listing (bytes; tools) | {pair(lb['bytes'], la['bytes'])} | | | {pair(lb['tools'], la['tools'])} | | |"
    )
    return "\n".join(rows)


def largest(result: dict[str, Any], n: int = 5) -> list[str]:
    calls = [(size, s["name"], tool) for s in result["sessions"] for tool, size, _ in s["calls"]]
    return [f"{tool} ({session}): {size:,} B" for size, session, tool in sorted(calls, reverse=True)[:n]]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")
    parser.add_argument("--compare", metavar="BEFORE.json", help="print before → after against this run")
    options = parser.parse_args()
    logging.disable(logging.INFO)  # the service's line per call; only warnings and errors reach stderr
    with tempfile.TemporaryDirectory(prefix="session-cost-") as tmp:
        result = asyncio.run(run_sessions(Path(tmp)))
    if options.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
        return 0
    before = json.loads(Path(options.compare).read_text()) if options.compare else None
    if before:
        print(f"before: {before['tree']}\nafter:  {result['tree']}\n")
    else:
        print(f"tree: {result['tree']}\n")
    print(table(before, result))
    print("\nlargest answers: " + "; ".join(largest(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
