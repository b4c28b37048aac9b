"""One module per group of tables; ``SECTIONS`` is the order of a full run (``--only`` picks)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..context import Run
from . import bootstrap, context, durability, floor, ledger, load, peer, rules, scale, search, sessions, startup, tools

SECTIONS: dict[str, Callable[[Run], Awaitable[None]]] = {
    "floor": floor.run,
    "tools": tools.run,  # uses the floor's figures for its SSE-overhead table
    "ledger": ledger.run,
    "rules": rules.run,
    "search": search.run,
    "durability": durability.run,
    "peer": peer.run,
    "scale": scale.run,
    "context": context.run,
    "bootstrap": bootstrap.run,
    "startup": startup.run,
    "load": load.run,
    "sessions": sessions.run,  # bytes and calls, no timings
}
