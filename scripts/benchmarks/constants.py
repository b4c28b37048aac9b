"""Names every module of the benchmark shares."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
CALL_TIMEOUT = 120.0  # seconds a sequential benchmark call may take before the SDK gives up
T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)  # fixed clock of generated histories (reproducible data)
PEER_PACKAGE = "@modelcontextprotocol/server-memory"
PEER_BIN = "mcp-server-memory"  # the command the package installs (what `npx -y PEER_PACKAGE` runs)
SIZE_NAMES = ("small", "medium", "large")
