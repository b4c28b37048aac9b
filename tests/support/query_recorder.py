"""Records every storage call a service makes, at two levels: the storage interface
(``TrackedCollection``'s methods: the filter the service expresses) and the driver (the collection
object ``TrackedCollection`` wraps: the filter that would reach ``mongos``), each with the phase
(tool, start-up or CLI path) and the service function that sent it, and whether its filter holds
``user_id`` as an equality, as a sharded cluster needs to route it to one shard.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service.storage.collection import TrackedCollection
from tests.support import Caller, EnvelopeCaller

REPO = Path(__file__).resolve().parents[2]

# What the recorder knows how to read a filter from; any other public method of the storage
# interface fails the test until it is taught here.
INTERFACE_METHODS = {
    "find_one",
    "find",
    "count_documents",
    "aggregate",
    "insert_one",
    "update_one",
    "find_one_and_update",
    "replace_one",
    "delete_many",
    "count_by_user",
    "find_one_shared",
    "find_shared",
}

WHOLE_COLLECTION = {"count_by_user"}  # no filter: over every user (start-up's recount)

DRIVER_FILTER_FIRST = {
    "find_one",
    "find",
    "count_documents",
    "update_one",
    "update_many",
    "find_one_and_update",
    "find_one_and_replace",
    "find_one_and_delete",
    "replace_one",
    "delete_one",
    "delete_many",
}

DRIVER_DOCUMENT = {"insert_one"}
DRIVER_PASSIVE = {"name", "full_name", "database", "with_options", "index_information", "codec_options"}


@dataclass
class Query:
    level: str  # "interface" | "driver"
    phase: str  # the tool, "startup", or a CLI path
    collection: str
    method: str
    filter: Any
    site: str  # the service function that sent it

    @property
    def scoped(self) -> bool:
        subject = self.filter
        if self.method == "aggregate":
            first = subject[0] if subject else {}
            subject = first.get("$match", {}) if isinstance(first, Mapping) else {}
        if not isinstance(subject, Mapping):
            return False
        user = subject.get("user_id")
        return isinstance(user, int) and not isinstance(user, bool)

    @property
    def shape(self) -> str:
        return json.dumps(_shape(self.filter), sort_keys=True)

    def __str__(self) -> str:
        return f"[{self.phase}] {self.collection}.{self.method}({self.shape}) from {self.site}"


def _shape(value: Any) -> Any:
    """A filter with its values replaced by their types: what tells two query forms apart."""
    if isinstance(value, Mapping):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value[:1]] + (["…"] if len(value) > 1 else [])
    return type(value).__name__


def _site() -> str:
    """The innermost service (or tools) function on the stack outside the storage layer."""
    frame = sys._getframe(2)
    while frame is not None:
        path = Path(frame.f_code.co_filename)
        if path.is_relative_to(REPO / "service") and not path.is_relative_to(REPO / "service" / "storage"):
            return f"{path.relative_to(REPO).as_posix()}:{frame.f_code.co_name}"
        if path.is_relative_to(REPO / "tools"):
            return f"{path.relative_to(REPO).as_posix()}:{frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


# The collections whose interface call is under way: a collection's own nested call (delete_many's
# find) is not a separate query of the service, another collection's (the audit entry a write
# records) is.
_inside: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar("inside", default=frozenset())


@dataclass
class Recorder:
    phase: str = "startup"
    queries: list[Query] = field(default_factory=list)

    def note(self, level: str, collection: str, method: str, filter_: Any) -> None:
        self.queries.append(Query(level, self.phase, collection, method, filter_, _site()))

    @contextmanager
    def during(self, phase: str) -> Iterator[None]:
        previous, self.phase = self.phase, phase
        try:
            yield
        finally:
            self.phase = previous

    def at(self, level: str) -> list[Query]:
        return [q for q in self.queries if q.level == level]


def _interface_filter(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if method in WHOLE_COLLECTION:
        return {}
    if method == "aggregate":
        return args[0] if args else kwargs.get("pipeline")
    if method == "insert_one":
        return args[0] if args else kwargs.get("document")
    if method == "replace_one":
        # The service names the document; the storage layer builds the filter from it and the
        # condition (the driver level checks what it built).
        document = args[0] if args else kwargs["document"]
        condition = (args[1] if len(args) > 1 else kwargs.get("condition")) or {}
        built = {"_id": document["_id"], **condition}
        if "user_id" in document:
            built["user_id"] = document["user_id"]
        return built
    return args[0] if args else kwargs.get("filter_")


def record_interface(monkeypatch: pytest.MonkeyPatch, recorder: Recorder) -> None:
    public = {
        name
        for name, member in inspect.getmembers(TrackedCollection, inspect.iscoroutinefunction)
        if not name.startswith("_")
    }
    untaught = public - INTERFACE_METHODS
    assert not untaught, f"new storage methods {sorted(untaught)}: teach this recorder where their filter is"
    for method in sorted(public):
        original = getattr(TrackedCollection, method)

        @functools.wraps(original)
        async def recorded(
            self: TrackedCollection, *args: Any, __method: str = method, __original: Any = original, **kwargs: Any
        ) -> Any:
            inside = _inside.get()
            if id(self) in inside:
                return await __original(self, *args, **kwargs)
            recorder.note("interface", self.name, __method, _interface_filter(__method, args, kwargs))
            token = _inside.set(inside | {id(self)})
            try:
                return await __original(self, *args, **kwargs)
            finally:
                _inside.reset(token)

        monkeypatch.setattr(TrackedCollection, method, recorded)


class DriverRecorder:
    """Stands in for the driver's collection object, noting the filter of every call."""

    def __init__(self, inner: Any, collection: str, recorder: Recorder) -> None:
        self._inner, self._collection, self._recorder = inner, collection, recorder

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(self._inner, attribute)
        if attribute in DRIVER_PASSIVE or attribute.startswith("_") or not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            if attribute == "aggregate":
                subject = args[0] if args else kwargs.get("pipeline")
            elif attribute in DRIVER_DOCUMENT:
                subject = args[0] if args else kwargs.get("document")
            elif attribute in DRIVER_FILTER_FIRST:
                subject = args[0] if args else kwargs.get("filter")
            else:  # insert_many, bulk_write, distinct …: unknown here, so reported as unscoped
                subject = {"<unrecognised driver call>": attribute}
            self._recorder.note("driver", self._collection, attribute, subject)
            return value(*args, **kwargs)

        return call


def record_driver(service: Any, recorder: Recorder) -> bool:
    """Wrap the driver collection inside each of the service's collections; False if the storage
    layer no longer exposes it (then only the interface level is checked)."""
    database = service.database
    wrapped = False
    for name in vars(database):
        collection = getattr(database, name)
        if isinstance(collection, TrackedCollection) and hasattr(collection, "_collection"):
            collection._collection = DriverRecorder(collection._collection, collection.name, recorder)
            # The embedded engine's shortcuts read mongomock's store directly; at this level the
            # calls take the driver route a MongoDB server would receive.
            collection._in_process = False
            wrapped = True
    return wrapped


class RecordingCaller(EnvelopeCaller):
    """Each call's storage traffic is noted under the tool's name."""

    def __init__(self, inner: Caller, recorder: Recorder) -> None:
        self.inner, self.recorder = inner, recorder
        self.tools: set[str] = set()

    async def __call__(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        self.tools.add(tool)
        with self.recorder.during(tool):
            return await self.inner(tool, arguments)
