#!/usr/bin/env python
"""What trust costs: per-call latency over SSE with and without a bearer token, token
verification, the audit entry the embedded write path adds to every write, and ``ops.audit``
queries as the audit log grows.

    python scripts/bench_auth.py [--calls 400] [--audit-sizes 1000 10000 100000]

The SSE rows alternate the open server and the token server in rounds, so load from other
processes falls on both alike. Prints a table; the numbers go into docs/PERFORMANCE.md by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmarks.calling import client_caller, timed
from benchmarks.constants import HOST
from benchmarks.processes import answers_ready, free_port, http_server
from benchmarks.report import pct
from mcp.client.client import Client
from mcp.client.sse import sse_client

from service.audit.origin import CallOrigin, acting_as, new_request_id
from service.audit.write_path import record_audit_on_write_path
from service.auth.tokens import TokenStore
from service.facade import MemoryService
from service.settings import Settings
from service.storage.database import open_database
from service.storage.embedded.engine import _mock_collection
from service.timeutil import utc_now

USER = 1
ROUNDS = 4


def track(n: int) -> str:
    return f"track{n:017d}"


def serve(data_dir: Path, work: Path) -> Any:
    port = free_port()
    args = [sys.executable, "-m", "host.cli", "serve", "--host", HOST, "--port", str(port), "--data-dir", str(data_dir)]
    # The limiter stays on (its check is part of the cost) but far above this sequential client.
    limits = {"MEMORY_RATE_LIMIT_PER_MINUTE": "1000000", "MEMORY_RATE_LIMIT_BURST": "1000"}
    return http_server(args, port, work / f"server-{port}.log", lambda: answers_ready(port, "/readyz"), limits)


async def sse_rows(calls: int, work: Path) -> list[tuple[str, list[float], list[float]]]:
    """(row, open samples, token samples) for get_profile and a mutation."""
    open_dir, token_dir = work / "open", work / "token"
    token_dir.mkdir(parents=True)
    # A realistic file: the caller's token among a hundred others.
    store = TokenStore(token_dir / "tokens.json")
    for n in range(100):
        store.create("user", [100 + n])
    token, _ = store.create("user", [USER])
    samples: dict[str, dict[str, list[float]]] = {"get_profile": {}, "mutation": {}}
    with serve(open_dir, work) as open_base, serve(token_dir, work) as token_base:
        for _mode, base, headers in (
            ("open", open_base, None),
            ("token", token_base, {"Authorization": f"Bearer {token}"}),
        ):
            async with Client(sse_client(f"{base}/sse", headers=headers), cache=None) as client:
                call = client_caller(client)
                await call(
                    "memory_log_playlist_create",
                    {"user_id": USER, "playlist_id": "benchplaylist01", "name": "bench", "track_ids": [track(0)]},
                )
        per_round = max(calls // ROUNDS, 10)
        for _ in range(ROUNDS):
            for mode, base, headers in (
                ("open", open_base, None),
                ("token", token_base, {"Authorization": f"Bearer {token}"}),
            ):
                async with Client(sse_client(f"{base}/sse", headers=headers), cache=None) as client:
                    call = client_caller(client)
                    profile = await timed(lambda i: call("memory_get_profile", {"user_id": USER}), per_round, 20)
                    mutation = await timed(
                        lambda i: call(
                            "memory_log_playlist_mutation",
                            {
                                "user_id": USER,
                                "playlist_id": "benchplaylist01",
                                "type": "ADD_TRACKS",
                                "payload": {"track_ids": [track(i % 50)]},
                            },
                        ),
                        per_round,
                        5,
                    )
                samples["get_profile"].setdefault(mode, []).extend(profile)
                samples["mutation"].setdefault(mode, []).extend(mutation)
    return [(f"SSE {row}", s["open"], s["token"]) for row, s in samples.items()]


def verify_rows(work: Path) -> list[tuple[str, float]]:
    rows = []
    for size in (10, 1000):
        store = TokenStore(work / f"verify-{size}" / "tokens.json")
        for n in range(size - 1):
            store.create("user", [n + 1])
        token, _ = store.create("user", [USER])
        reader = TokenStore(store.path)
        reader.verify(token)  # the first call reads the file; later ones only stat it
        started = time.perf_counter()
        for _ in range(2000):
            assert reader.verify(token) is not None
        rows.append((f"verify a token, {size:,} in the file (µs)", (time.perf_counter() - started) / 2000 * 1e6))
    return rows


async def in_process(measure: Callable[[MemoryService], Awaitable[Any]]) -> Any:
    with tempfile.TemporaryDirectory() as data_dir:
        async with open_database(Settings(data_dir=Path(data_dir))) as db:
            record_audit_on_write_path(db)
            return await measure(MemoryService(db, Settings(data_dir=Path(data_dir))))


async def write_path_rows(calls: int) -> list[tuple[str, list[float], list[float]]]:
    """Mutation latency in process with the audit entry written, and with the hook detached."""

    async def measure(service: MemoryService) -> tuple[list[float], list[float]]:
        arguments = {"user_id": USER, "playlist_id": "benchplaylist01", "name": "b", "track_ids": [track(0)]}
        await service.playlists.create(arguments, None)
        hook = service.database.history.on_change

        async def mutate(i: int) -> None:
            with acting_as(CallOrigin("bench", "memory.log_playlist_mutation", new_request_id())):
                await service.playlists.mutate(
                    {
                        "user_id": USER,
                        "playlist_id": "benchplaylist01",
                        "type": "ADD_TRACKS",
                        "payload": {"track_ids": [track(i)]},
                    },
                    None,
                )

        with_audit, without = [], []
        for _ in range(ROUNDS):
            service.database.history.on_change = hook
            with_audit += await timed(mutate, max(calls // ROUNDS, 10), 5)
            service.database.history.on_change = None
            without += await timed(mutate, max(calls // ROUNDS, 10), 5)
        return with_audit, without

    with_audit, without = await in_process(measure)
    return [("in-process mutation (journal on)", without, with_audit)]


async def audit_query_rows(sizes: list[int]) -> list[tuple[str, list[float]]]:
    rows = []
    for size in sizes:

        async def measure(service: MemoryService, size: int = size) -> list[float]:
            db = service.database
            store = _mock_collection(db._embedded.client, service.settings.database_name, "audit_log")._store
            now = utc_now()
            for n in range(size):  # straight into the store, as start-up loads the journal
                entry_id = uuid.uuid4().hex
                store[entry_id] = {
                    "_id": entry_id,
                    "time": now,
                    "collection": "playlist_history",
                    "operation": "update",
                    "user_id": 1 + n % 8,
                    "playlist_id": f"playlist{n % 500:06d}",
                    "document_key": "k",
                    "tool": "memory.log_playlist_mutation",
                    "request_id": entry_id,
                    "principal": "tok",
                    "via": "write_path",
                }
            return await timed(lambda i: service.audit.entries(USER, None, None, None, 100, None), 20, 2)

        rows.append((f"ops.audit, 100 newest of one user, {size:,} entries (in process)", await in_process(measure)))
    return rows


def line(label: str, *cells: str) -> str:
    # Cells are at least two spaces apart, whatever the label's length.
    return f"{label:<66}" + "".join(f"  {c:>12}" for c in cells)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--audit-sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    args = parser.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}"
    )
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        print(line("", "open p50", "token p50", "open p95", "token p95", "Δ p50 ms"))
        for label, base, token in await sse_rows(args.calls, work):
            print(
                line(
                    label,
                    f"{pct(base, 50):.2f}",
                    f"{pct(token, 50):.2f}",
                    f"{pct(base, 95):.2f}",
                    f"{pct(token, 95):.2f}",
                    f"{pct(token, 50) - pct(base, 50):+.2f}",
                )
            )
        print(line("", "no audit p50", "audit p50", "no audit p95", "audit p95", "Δ p50 ms"))
        for label, base, audited in await write_path_rows(args.calls):
            print(
                line(
                    label,
                    f"{pct(base, 50):.2f}",
                    f"{pct(audited, 50):.2f}",
                    f"{pct(base, 95):.2f}",
                    f"{pct(audited, 95):.2f}",
                    f"{pct(audited, 50) - pct(base, 50):+.2f}",
                )
            )
        for label, micros in verify_rows(work):
            print(line(label, f"{micros:.1f}"))
        print(line("", "p50 ms", "p95 ms"))
        for label, samples in await audit_query_rows(args.audit_sizes):
            print(line(label, f"{pct(samples, 50):.2f}", f"{pct(samples, 95):.2f}"))
        print(f"load at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
