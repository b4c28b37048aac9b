"""The command: pick the plan and the sections, run them, print the targets, write the report."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shlex
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from .constants import ROOT
from .context import Run
from .document import document
from .plan import FULL, QUICK
from .report import Report
from .sections import SECTIONS
from .stores import StoreCache
from .targets import judge

USAGE = """Taste Memory benchmark (SPEC §7): prints a table and writes docs/PERFORMANCE.md.

    python scripts/bench.py            # full run (about 20-40 minutes on 2 cores)
    python scripts/bench.py --quick    # every row, small sizes and few iterations (2-3 minutes)
    python scripts/bench.py --quick --only floor,tools --out /tmp/perf.md

Every figure is measured in this run, every ratio is between two figures of this run. Every
server binds 127.0.0.1 on a free port and is stopped on the way out, however the run ends."""


def quiet_logging(path: Path) -> None:
    """The in-process service logs as in production (one JSON line per call, INFO) but into a file,
    so the table stays readable; the client side's per-request INFO lines (httpx) are dropped."""
    from host.logging_setup import configure_logging

    configure_logging("INFO")
    handler = logging.getLogger().handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(open(path, "a"))  # noqa: SIM115 - lives as long as the run
    for name in ("httpx", "httpcore", "mcp.client"):
        logging.getLogger(name).setLevel(logging.WARNING)


async def main_async(options: argparse.Namespace, script: str) -> int:
    plan = QUICK if options.quick else FULL
    started = datetime.now(UTC)
    begin = time.perf_counter()
    report = Report()
    selected = options.only.split(",") if options.only else list(SECTIONS)
    unknown = [key for key in selected if key not in SECTIONS]
    if unknown:
        raise SystemExit(f"unknown sections {unknown}; choose from {','.join(SECTIONS)}")
    with tempfile.TemporaryDirectory(prefix="taste-bench-") as tmp:
        work = Path(tmp)
        quiet_logging(work / "in-process.log")
        ctx = Run(report, plan, work, StoreCache(work, plan))
        report.load.append(f"start {os.getloadavg()[0]:.2f}")
        with ctx.kept:  # servers shared between sections, stopped however the run ends
            for key in selected:
                section_start = time.perf_counter()
                await SECTIONS[key](ctx)
                report.load.append(f"{key} {os.getloadavg()[0]:.2f}")
                print(
                    f"  [{key}: {time.perf_counter() - section_start:.1f} s, load {os.getloadavg()[0]:.2f}]", flush=True
                )
    seconds = time.perf_counter() - begin
    report.targets = judge(report, plan)
    print("\n== Targets")
    for line in report.targets:
        print(line)
    out = Path(options.out)
    command = "python " + " ".join(shlex.quote(a) for a in [os.path.relpath(script, Path.cwd()), *sys.argv[1:]])
    old = out.read_text() if out.exists() else None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(document(report, plan, command, started, seconds, old))
    print(f"\nwrote {out} ({seconds:.0f} s)")
    return 0


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def main(script: str) -> int:
    parser = argparse.ArgumentParser(description=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="every row, small sizes, few iterations (2-3 min)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "PERFORMANCE.md"), help="where to write the report")
    parser.add_argument("--only", default="", help=f"comma-separated sections: {','.join(SECTIONS)} (default: all)")
    options = parser.parse_args()
    # Settings come from MEMORY_* variables: the caller's must not change what is measured.
    for name in list(os.environ):
        if name.startswith("MEMORY_"):
            del os.environ[name]
    try:
        return asyncio.run(main_async(options, script))
    except BaseExceptionGroup as group:  # the SDK's task groups nest the real error deeply
        for leaf in _leaves(group):
            print(f"bench.py failed: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        raise SystemExit(1) from None
