#!/usr/bin/env python
"""Search benchmark: ``SearchEngine.search`` in process at 1k, 10k and 50k items of one user, search
by meaning on and off: latency over the existing labelled queries and over the paraphrases, MRR/top-5
of each, the start-up index build (lexical and embedding parts, the longest event-loop stall), RSS,
the cost of writes and of embedding what they noted, the model's load.

    python scripts/bench_search.py [--sizes 1000 10000 50000] [--semantic on,off] [--repeat 5] [--writes 200]

Each (size, mode) runs in a fresh subprocess (scripts/benchmarks/search_meaning.py says what it
times), and so does each model load (``--model-loads`` of them), so nothing is cached across them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # service, tests
sys.path.insert(0, str(HERE))  # benchmarks

from benchmarks.search_meaning import measure, model_load  # noqa: E402


def machine() -> str:
    info = Path("/proc/cpuinfo")
    lines = info.read_text().splitlines() if info.exists() else []
    cpu = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), platform.machine())
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, load average at start {load}"


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=HERE.parent, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + (" plus uncommitted changes" if git("status", "--porcelain") else "")


def child(*args: str) -> dict[str, Any]:
    """Run this script with ``args`` in a fresh interpreter; its last stdout line is JSON."""
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"bench_search {' '.join(args)} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def f(value: float | None, digits: int = 2) -> str:
    return "–" if value is None or value != value else f"{value:,.{digits}f}"


def print_tables(rows: list[dict[str, Any]], loads: list[dict[str, float]], args: argparse.Namespace) -> None:
    mode = {True: "on", False: "off"}
    print(
        "\nLatency of SearchEngine.search (limit 25), ms; each query set timed on its own; "
        f"{args.repeat} passes per set, no warm-up pass. MRR and top-5: one pass, limit 10.\n"
    )
    print("| items (one user) | semantic | query set | searches | p50 | p95 | p99 | max | MRR | top-5 |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        for name in ("existing", "paraphrase"):
            s, q = row["search"][name], row["quality"][name]
            print(
                f"| {row['items']:,} | {mode[row['semantic']]} | {name} ({q['queries']}) | {s['n']} | "
                f"{f(s['p50'])} | {f(s['p95'])} | {f(s['p99'])} | {f(s['max'])} | {q['mrr']:.3f} | "
                f"{q['top5']:.1%} |"
            )
    print(
        "\nStart-up index build (MemoryService.build_search_index, model already loaded) and memory. "
        "Lexical = build - embedding; stall = longest gap of a 1 ms asyncio.sleep ticker during the build "
        "(includes its 1 ms); RSS = VmRSS, MB.\n"
    )
    print(
        "| items (one user) | semantic | entries | build s | lexical s | embedding s | longest stall ms | "
        "RSS store loaded | RSS + model | RSS built | index RSS | vectors MB | peak RSS |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(
            f"| {row['items']:,} | {mode[row['semantic']]} | {row['entries']:,} | {f(row['build_s'])} | "
            f"{f(row['build_s'] - row['embed_s'])} | {f(row['embed_s']) if row['semantic'] else '–'} | "
            f"{f(row['stall_ms'], 1)} | {f(row['rss_store'], 0)} | "
            f"{f(row['rss_model'], 0) if row['semantic'] else '–'} | {f(row['rss_built'], 0)} | "
            f"{f(row['rss_built'] - row['rss_model'], 0)} | {f(row.get('vectors_mb'), 1)} | "
            f"{f(row['hwm_built'], 0)} |"
        )
    print(
        f"\nWrites on the built index, ms ({args.writes} appends, {max(1, args.writes // 4)} playlist creates, each "
        "with a new word); flush = UserMeaning.flush of what the writes noted (what the next search pays).\n"
    )
    print(
        "| items (one user) | semantic | append p50 | append p95 | create p50 | create p95 | "
        "flush after all writes ms | per entry µs | flush after 1 write p50 | p95 |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        w = row["writes"]
        flush = ["–"] * 4
        if "flush_batch_ms" in w:
            flush = [
                f(w["flush_batch_ms"]),
                f(w["flush_batch_ms"] * 1000 / max(1, w["flush_batch_entries"]), 0),
                f(w["flush_single"]["p50"]),
                f(w["flush_single"]["p95"]),
            ]
        print(
            f"| {row['items']:,} | {mode[row['semantic']]} | {f(w['append']['p50'])} | {f(w['append']['p95'])} | "
            f"{f(w['create']['p50'])} | {f(w['create']['p95'])} | {' | '.join(flush)} |"
        )
    if loads:
        seconds = [x["load_s"] for x in loads]
        print(
            f"\nModel load (EmbeddingModel(), import included, fresh process, {len(loads)} runs): median "
            f"{statistics.median(seconds) * 1000:.0f} ms (min {min(seconds) * 1000:.0f}, max "
            f"{max(seconds) * 1000:.0f}); RSS +{statistics.median(x['rss_mb'] for x in loads):.0f} MB; first "
            f"embedding {statistics.median(x['first_embed_ms'] for x in loads):.2f} ms."
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--semantic", default="on,off", help="modes to run, comma-separated: on,off | on | off")
    parser.add_argument("--repeat", type=int, default=5, help="passes over each query set")
    parser.add_argument("--writes", type=int, default=200, help="appends timed (and a quarter as many creates)")
    parser.add_argument("--model-loads", type=int, default=3, help="fresh processes timing the model's load")
    parser.add_argument("--child", nargs=2, metavar=("SIZE", "MODE"), help=argparse.SUPPRESS)
    parser.add_argument("--child-model", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        size, mode = args.child
        print(json.dumps(asyncio.run(measure(int(size), mode == "on", args.repeat, args.writes))))
        return
    if args.child_model:
        print(json.dumps(model_load()))
        return
    modes = [m.strip() for m in args.semantic.split(",") if m.strip()]
    if not modes or set(modes) - {"on", "off"}:
        parser.error("--semantic takes on, off or on,off")
    print(
        f"machine: {machine()}\ncommit: {commit()}\ncommand: python scripts/bench_search.py "
        f"{' '.join(sys.argv[1:])}".rstrip()
    )
    started = time.perf_counter()
    rows = []
    for size in args.sizes:
        for mode in modes:
            step = time.perf_counter()
            rows.append(child("--child", str(size), mode, "--repeat", str(args.repeat), "--writes", str(args.writes)))
            print(f"  {size:,} semantic {mode}: {time.perf_counter() - step:.1f} s", file=sys.stderr, flush=True)
    loads = [child("--child-model") for _ in range(args.model_loads)] if "on" in modes else []
    print_tables(rows, loads, args)
    print(f"\nwall time of the run: {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
