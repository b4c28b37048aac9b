"""Peer: the reference MCP memory server against this service, both over stdio, same client,
same data, same run (the target: store and search faster per call at 1k and at 10k items)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from mcp.client.stdio import StdioServerParameters

from host.running import ServiceHolder, running_service
from service.profiles.service import ProfileService
from service.settings import Settings

from ..calling import BenchError, timed
from ..constants import PEER_BIN, PEER_PACKAGE, SIZE_NAMES, T0
from ..context import Run
from ..data import QUERIES, preference_text
from ..loader import Loader, _raw
from ..plan import warm
from ..processes import child_env, stdio_caller
from ..report import ms, pct, ratio


def peer_available(work: Path) -> tuple[str | None, str | None]:
    """(None, the package's command) when the reference server starts, else (why not, None): offline
    CI has no npm registry. npx installs the package if need be, prints where its command is, then
    runs it as `npx -y PEER_PACKAGE` would."""
    npx = shutil.which("npx")
    if npx is None:
        return "npx is not installed", None
    try:
        done = subprocess.run(
            [npx, "-y", "-p", PEER_PACKAGE, "-c", f"command -v {PEER_BIN} && exec {PEER_BIN}"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
            cwd=work,
            env={**os.environ, "MEMORY_FILE_PATH": str(work / "probe.jsonl")},
        )
    except subprocess.TimeoutExpired:
        return f"`npx -y {PEER_PACKAGE}` did not start within 180 s", None
    if "running on stdio" not in done.stderr:
        lines = [
            line.strip()
            for line in (done.stderr + done.stdout).splitlines()
            if line.strip() and "npm warn" not in line and "complete log" not in line
        ]
        telling = [line for line in lines if "code" in line or "ENOTCACHED" in line or "ENOTFOUND" in line]
        detail = " ".join((telling or lines or ["no output"])[:2])[:200]
        return f"`npx -y {PEER_PACKAGE}` failed (exit {done.returncode}): {detail}", None
    command = next((line.strip() for line in done.stdout.splitlines() if line.strip().endswith(PEER_BIN)), None)
    return None, command


async def load_both(work: Path, name: str, items: int) -> tuple[Path, Path]:
    """The same ``items`` preference texts in our store and in the reference server's JSONL file."""
    store = work / f"peer-ours-{name}"
    rng = random.Random(items)
    texts = [preference_text(rng, i) for i in range(items)]
    async with running_service(Settings(data_dir=store), ServiceHolder()) as service:
        loader = Loader(service)
        for i, (_, payload) in enumerate(texts):
            await _raw(ProfileService.append_event)(
                service.profiles, 1, "like", payload, "user", T0 + timedelta(seconds=i)
            )
            await loader.tick()
        loader.commit()
    memory_file = work / f"peer-reference-{name}.jsonl"
    with open(memory_file, "w") as out:
        for i, (text, _) in enumerate(texts):
            out.write(
                json.dumps(
                    {"type": "entity", "name": f"pref{i:06d}", "entityType": "preference", "observations": [text]}
                )
                + "\n"
            )
    return store, memory_file


async def measure(
    ctx: Run, items: int, store: Path, memory_file: Path, command: str | None = None
) -> tuple[dict[tuple[str, str], list[float]], dict[str, list[int]]]:
    """``command``: the package's own command, run instead of `npx -y` (quick run; same server,
    the same stdio pipes to it, without npx resolving the package again)."""
    plan, work = ctx.plan, ctx.work
    ours_params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "host.cli", "serve", "--transport", "stdio", "--data-dir", str(store)],
        env=child_env(),
        cwd=str(work),
    )
    ref_command, ref_args = (command, []) if command else (shutil.which("npx") or "npx", ["-y", PEER_PACKAGE])
    ref_params = StdioServerParameters(
        command=ref_command, args=ref_args, env={**os.environ, "MEMORY_FILE_PATH": str(memory_file)}, cwd=str(work)
    )
    samples: dict[tuple[str, str], list[float]] = {}
    hits: dict[str, list[int]] = {"ours": [], "ref": []}
    async with stdio_caller(ours_params, work / "peer-ours.log") as (call, _):

        async def our_search(i: int) -> None:
            found = await call("memory_search", {"user_id": 1, "query": QUERIES[i % len(QUERIES)]})
            hits["ours"].append(len(found["result"]["results"]))

        extra = random.Random(items + 1)
        samples["ours", "search"] = await timed(our_search, plan.peer_iters, plan.warmup, plan.budget)
        samples["ours", "store"] = await timed(
            lambda i: call(
                "memory_append_preference_event",
                {"user_id": 1, "type": "like", "payload": preference_text(extra, i)[1], "source": "user"},
            ),
            plan.peer_iters,
            plan.warmup,
            plan.budget,
        )
    async with stdio_caller(ref_params, work / "peer-reference.log") as (call, client):
        tools = {t.name for t in (await client.list_tools()).tools}
        if not {"create_entities", "search_nodes"} <= tools:
            raise BenchError(f"the reference server lists {sorted(tools)}")

        async def their_search(i: int) -> None:
            found = await call("search_nodes", {"query": QUERIES[i % len(QUERIES)]})
            hits["ref"].append(len((found or {}).get("entities", [])))

        extra = random.Random(items + 1)
        samples["ref", "search"] = await timed(their_search, plan.peer_iters, plan.warmup, plan.budget)
        samples["ref", "store"] = await timed(
            lambda i: call(
                "create_entities",
                {
                    "entities": [
                        {
                            "name": f"new{i:06d}",
                            "entityType": "preference",
                            "observations": [preference_text(extra, i)[0]],
                        }
                    ]
                },
            ),
            plan.peer_iters,
            plan.warmup,
            plan.budget,
        )
    return samples, hits


async def run(ctx: Run) -> None:
    report, plan, work = ctx.report, ctx.plan, ctx.work
    section = report.section(
        "peer",
        f"Peer: reference MCP memory server ({PEER_PACKAGE}) vs this service, both over stdio",
        [
            "peer row",
            "items",
            "calls",
            "ours p50",
            "ours p95",
            "reference p50",
            "reference p95",
            "ours / reference p50",
            "hits ours / ref",
        ],
        "Same SDK client over stdio, same data, same run. Both stores preloaded directly with the same N "
        "preference texts (ours: N preference events of user 1 through the facade; reference: N entities "
        "of type `preference` with the text as observation, written to its MEMORY_FILE_PATH JSONL). "
        "store = one `memory_append_preference_event` vs one `create_entities` call with one entity; "
        "search = `memory_search` (default limit, ranked) vs `search_nodes` (every substring match, unranked), "
        f"same queries. Up to {plan.peer_iters} calls {warm(plan)}. Anchor (an earlier run, 2 cores): "
        "reference store 2.05 ms at 1k, 25.7 ms at 10k; search 1.83 ms at 1k, 13.6 ms at 10k.",
    )
    # The probe (an npx run, a few seconds) runs while this process loads the first stores: neither is timed.
    probe = asyncio.create_task(asyncio.to_thread(peer_available, work))
    try:
        first = await load_both(work, SIZE_NAMES[0], plan.peer_sizes[0])
    finally:
        reason, command = await probe
    if reason is not None:
        for name, items in zip(SIZE_NAMES, plan.peer_sizes):
            for op in ("store", "search"):
                section.add(f"peer {op} {name}", [f"{items:,}", "0", "–", "–", "–", "–", f"unavailable: {reason}", "–"])
        report.values["peer.unavailable"] = 1
        return
    for name, items in zip(SIZE_NAMES, plan.peer_sizes):
        store, memory_file = first if name == SIZE_NAMES[0] else await load_both(work, name, items)
        samples, hits = await measure(ctx, items, store, memory_file, None if plan.peer_npx else command)
        for op in ("store", "search"):
            ours, ref = samples["ours", op], samples["ref", op]
            report.values[f"peer.{op}.{name}.ratio"] = pct(ours, 50) / pct(ref, 50)
            report.values[f"peer.{op}.{name}.items"] = items
            found = "–"
            if op == "search":
                found = f"{sum(hits['ours']) / len(hits['ours']):.1f} / {sum(hits['ref']) / len(hits['ref']):.1f}"
            section.add(
                f"peer {op} {name}",
                [
                    f"{items:,}",
                    f"{len(ours)} / {len(ref)}",
                    ms(pct(ours, 50)),
                    ms(pct(ours, 95)),
                    ms(pct(ref, 50)),
                    ms(pct(ref, 95)),
                    ratio(pct(ours, 50), pct(ref, 50)),
                    found,
                ],
            )
