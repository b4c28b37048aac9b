"""Observe whether concurrent tool calls really overlap inside the service.

Counting task switches cannot tell racing writers from writers served one whole call after another
in round-robin order: both switch tasks at every call boundary. A race needs two calls *in flight
at once* (one entered the service facade before the other left it) and, to race on the ledger, a
storage call of one landing between two storage calls of the other (between its read and its
conditional write). ``observe_calls`` records exactly that: each wrapped facade method numbers its
calls and marks their entry and exit, and every storage call (``TrackedCollection._run``) is
attributed to the call it runs for through a context variable.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

# (sub-service of the facade, method): the PRD write tools' capabilities
WRITE_METHODS = (("playlists", "create"), ("playlists", "mutate"), ("profiles", "update"), ("profiles", "append_event"))

_current_call: contextvars.ContextVar[int | None] = contextvars.ContextVar("observed_call", default=None)


@dataclass
class CallLog:
    """What happened, in the order it happened: ("enter" | "exit" | "storage", call number)."""

    events: list[tuple[str, int]] = field(default_factory=list)
    methods: dict[int, str] = field(default_factory=dict)  # call number -> facade method

    @property
    def calls(self) -> int:
        return len(self.methods)

    def max_in_flight(self) -> int:
        """The most observed calls that had entered the facade and not yet left it, at any moment."""
        now = peak = 0
        for kind, _ in self.events:
            if kind == "enter":
                now += 1
                peak = max(peak, now)
            elif kind == "exit":
                now -= 1
        return peak

    def overlapping_calls(self) -> int:
        """Calls that were in flight while at least one other observed call was."""
        open_calls: set[int] = set()
        overlapped: set[int] = set()
        for kind, call in self.events:
            if kind == "enter":
                if open_calls:
                    overlapped |= open_calls | {call}
                open_calls.add(call)
            elif kind == "exit":
                open_calls.discard(call)
        return len(overlapped)

    def interleaved_calls(self) -> int:
        """Calls with another call's storage call between two of their own storage calls: the
        other call read or wrote while this one was between its read and its (conditional) write."""
        storage = [call for kind, call in self.events if kind == "storage"]
        first: dict[int, int] = {}
        last: dict[int, int] = {}
        for index, call in enumerate(storage):
            first.setdefault(call, index)
            last[call] = index
        interleaved = 0
        for call, start in first.items():
            if any(other != call for other in storage[start : last[call] + 1]):
                interleaved += 1
        return interleaved

    def describe(self) -> str:
        return (
            f"{self.calls} calls observed, at most {self.max_in_flight()} in flight at once, "
            f"{self.overlapping_calls()} overlapping another, {self.interleaved_calls()} with another call's "
            f"storage call between two of their own"
        )


@contextlib.contextmanager
def observe_calls(methods: tuple[tuple[str, str], ...] = WRITE_METHODS) -> Iterator[CallLog]:
    """Record entry, exit and storage calls of the named sub-service methods.

    Enter it *outside* ``yielding_storage`` so a storage call is recorded when it really runs,
    after the pauses that wrapper inserts before it."""
    from service.playlists.service import PlaylistService
    from service.profiles.service import ProfileService
    from service.storage.collection import TrackedCollection

    classes: dict[str, type] = {"playlists": PlaylistService, "profiles": ProfileService}

    assert hasattr(TrackedCollection, "_run"), (
        "the storage boundary moved: TrackedCollection._run is gone; point observe_calls at its successor"
    )
    log = CallLog()
    numbers = itertools.count(1)
    originals: dict[tuple[str, str], Any] = {(owner, name): getattr(classes[owner], name) for owner, name in methods}
    original_run = TrackedCollection._run

    def observed(name: str, method: Any) -> Any:
        @functools.wraps(method)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            number = next(numbers)
            log.methods[number] = name
            token = _current_call.set(number)
            log.events.append(("enter", number))
            try:
                return await method(*args, **kwargs)
            finally:
                log.events.append(("exit", number))
                _current_call.reset(token)

        return wrapper

    async def run(self: Any, operation: Any) -> Any:
        number = _current_call.get()
        if number is not None:
            log.events.append(("storage", number))
        return await original_run(self, operation)

    for (owner, name), method in originals.items():
        setattr(classes[owner], name, observed(f"{owner}.{name}", method))
    TrackedCollection._run = run  # type: ignore[method-assign]
    try:
        yield log
    finally:
        TrackedCollection._run = original_run  # type: ignore[method-assign]
        for (owner, name), method in originals.items():
            setattr(classes[owner], name, method)
