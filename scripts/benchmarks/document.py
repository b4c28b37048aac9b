"""docs/PERFORMANCE.md: the run's conditions, the targets, every table; the hand-written notes
after the marker are kept from the previous file."""

from __future__ import annotations

import contextlib
import platform
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from .constants import ROOT
from .plan import Plan
from .report import Report

NOTES_MARKER = "<!-- notes below this line are hand-written and kept when bench.py rewrites the file -->"


def _run(args: list[str]) -> str:
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def code_version() -> str:
    commit = _run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    if not commit:
        return "unknown (not a git checkout)"
    dirty = _run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"])
    return f"commit {commit}" + (" with uncommitted changes" if dirty else "")


def machine() -> list[str]:
    lscpu = _run(["lscpu"])
    fields = {}
    for line in lscpu.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    memory = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    try:
        from importlib.metadata import version

        mcp_version = version("mcp")
    except Exception:  # pragma: no cover
        mcp_version = "?"
    return [
        f"- CPU: {fields.get('Model name', platform.processor() or '?')}, `nproc` = {_run(['nproc'])}"
        f" ({fields.get('Architecture', platform.machine())}, {fields.get('Thread(s) per core', '?')} thread(s) per core, "
        f"hypervisor: {fields.get('Hypervisor vendor', 'none')})",
        f"- Memory: {memory}",
        f"- OS: {platform.platform()}",
        f"- Python {platform.python_version()} ({sys.executable}), mcp {mcp_version}, "
        f"node {_run(['node', '--version']) or 'not installed'}",
    ]


def document(report: Report, plan: Plan, command: str, started: datetime, seconds: float, old: str | None) -> str:
    parts = [
        "# Performance",
        "",
        f"Written by `scripts/bench.py` ({plan.name} run) on {started:%Y-%m-%d %H:%M} UTC in {seconds / 60:.1f} min.",
        "",
        "Command:",
        "",
        "```sh",
        command,
        "```",
        "",
        f"Code: {code_version()}",
        "",
        "Machine:",
        "",
        *machine(),
        f"- 1-minute load average at the start and after each section (the benchmark itself keeps about "
        f"1–2 cores busy; more means other processes competed): {', '.join(report.load)}",
        "",
        "All latencies in milliseconds, measured by the client around one `call_tool` (sequential unless said);"
        " p50/p95 are nearest-rank percentiles; ratios are between figures of this same run.",
        "",
        "## Targets (reported, not asserted)",
        "",
        *report.targets,
        "",
        "## Tables",
        "",
    ]
    for section in report.sections:
        parts.append(section.markdown())
    text = "\n".join(parts).rstrip() + "\n\n" + NOTES_MARKER
    if old and NOTES_MARKER in old:
        return text + old.split(NOTES_MARKER, 1)[1]  # byte for byte: the notes are hand-written
    return text + "\n\n## Notes\n\n(none yet)\n"
