"""Change events in the shape MongoDB 6/7 emits for a database-level ``watch()`` (motor with
``tz_aware=True``), and a fake change stream with motor's interface, written to the documented
format (no server can run here to capture them from). Field by field as the server sends them:
``_id`` is the resume token ``{"_data": <hex string>}``, ``clusterTime`` a BSON Timestamp,
``wallTime`` a UTC date (MongoDB ≥ 6), ``ns`` the database and collection, ``documentKey`` the
``_id``; inserts carry ``fullDocument``; updates (no ``fullDocument`` unless ``updateLookup`` is
asked for) carry ``updateDescription`` with ``updatedFields`` (a ``$push`` of one element shows as
``"events.<index>"``), ``removedFields`` and ``truncatedArrays``; deletes only the key;
``invalidate`` neither ``ns`` nor key.
"""

from __future__ import annotations

import asyncio
import itertools
from datetime import UTC, datetime
from typing import Any

from bson import Timestamp

DB = "taste_memory"
_counter = itertools.count(1)


def resume_token(seconds: int, increment: int) -> dict[str, str]:
    """A KeyString resume token: 0x82, cluster time (seconds, increment), then the event's
    version, type and document key, as MongoDB 6/7 encode it."""
    return {
        "_data": f"82{seconds:08X}{increment:08X}2B042C0100296E5A1004"
        f"{increment * 7919:032X}463C6F7065726174696F6E54797065003C696E73657274000004"
    }


def _header(operation: str, when: datetime) -> dict[str, Any]:
    seconds, increment = int(when.timestamp()), next(_counter)
    return {
        "_id": resume_token(seconds, increment),
        "operationType": operation,
        "clusterTime": Timestamp(seconds, increment),
        "wallTime": when.astimezone(UTC),
    }


def insert(coll: str, document: dict[str, Any], when: datetime) -> dict[str, Any]:
    return {
        **_header("insert", when),
        "fullDocument": document,
        "ns": {"db": DB, "coll": coll},
        "documentKey": {"_id": document["_id"]},
    }


def update(coll: str, key: Any, updated: dict[str, Any], when: datetime) -> dict[str, Any]:
    return {
        **_header("update", when),
        "ns": {"db": DB, "coll": coll},
        "documentKey": {"_id": key},
        "updateDescription": {"updatedFields": updated, "removedFields": [], "truncatedArrays": []},
    }


def delete(coll: str, key: Any, when: datetime) -> dict[str, Any]:
    return {**_header("delete", when), "ns": {"db": DB, "coll": coll}, "documentKey": {"_id": key}}


def invalidate(when: datetime) -> dict[str, Any]:
    return _header("invalidate", when)


# One event written out literally (a preference event insert), as a reference for the shape.
RECORDED_PREFERENCE_INSERT: dict[str, Any] = {
    "_id": {
        "_data": "8266A9F3C2000000022B042C0100296E5A10049A2D1B4C7E0F4B6A8C3D2E1F0A9B8C7D463C6F70657261"
        "74696F6E54797065003C696E736572740046646F63756D656E744B657900463C5F6964003C30623665"
        "32663761000004"
    },
    "operationType": "insert",
    "clusterTime": Timestamp(1722414018, 2),
    "wallTime": datetime(2024, 7, 31, 8, 20, 18, 412000, tzinfo=UTC),
    "fullDocument": {
        "_id": "0b6e2f7a-3c1d-4e5f-8a9b-0c1d2e3f4a5b",
        "user_id": 1,
        "type": "dislike",
        "source": "chat",
        "payload": {"raw_text": "no more eurodance please", "artists": ["Scooter"]},
        "timestamp": datetime(2024, 7, 31, 8, 20, 18, 401000, tzinfo=UTC),
        "recorded_at": datetime(2024, 7, 31, 8, 20, 18, 401000, tzinfo=UTC),
        "recorded_ns": 1722414018401873519,
        "written_by": {
            "principal": "tok-desktop",
            "tool": "memory.append_preference_event",
            "request_id": "5f0c0e4a9d6b4c1f8e2a7b3c9d0e1f2a",
        },
    },
    "ns": {"db": "taste_memory", "coll": "preference_events"},
    "documentKey": {"_id": "0b6e2f7a-3c1d-4e5f-8a9b-0c1d2e3f4a5b"},
}


class FakeChangeStream:
    """Motor's ``AsyncIOMotorChangeStream`` as the watcher uses it: ``async with``, ``try_next``
    (None when a getMore brings nothing), ``resume_token``, ``alive``. Items are change events,
    or exceptions raised where they stand (a failing getMore)."""

    def __init__(
        self,
        items: list[Any],
        open_error: BaseException | None = None,
        resume_token: dict[str, str] | None = None,
        block_when_drained: bool = False,
        post_batch_token: dict[str, str] | None = None,
    ) -> None:
        self.items = list(items)
        self.open_error = open_error
        self.resume_token = resume_token
        self.alive = True
        self.closed = False
        self.on_drained: Any = None
        self._block = block_when_drained
        self._post_batch_token = post_batch_token  # what an empty getMore moves resume_token to

    async def __aenter__(self) -> FakeChangeStream:
        if self.open_error is not None:
            raise self.open_error
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.closed = True

    async def try_next(self) -> dict[str, Any] | None:
        await asyncio.sleep(0)
        if not self.items:
            if self._post_batch_token is not None:
                self.resume_token = self._post_batch_token
            if self._block:
                await asyncio.Event().wait()
            if self.on_drained is not None:
                self.on_drained(self)
            return None
        item = self.items.pop(0)
        if isinstance(item, BaseException):
            raise item
        self.resume_token = item["_id"]
        if item["operationType"] == "invalidate":
            self.alive = False
        return item


class FakeOpener:
    """Stands in for ``db.watch``: hands out the scripted streams in order and records how each
    was asked for. When the last scripted stream is drained it sets ``stop``, which ends the
    watcher's run; an earlier drained stream dies (``alive`` False) so the watcher opens the next."""

    def __init__(self, stop: asyncio.Event, streams: list[FakeChangeStream]) -> None:
        self.stop = stop
        self.streams = list(streams)
        self.calls: list[dict[str, Any]] = []

    def __call__(self, pipeline: list[dict[str, Any]], resume_after: dict[str, Any] | None) -> FakeChangeStream:
        self.calls.append({"pipeline": pipeline, "resume_after": resume_after})
        stream = self.streams.pop(0) if self.streams else FakeChangeStream([])
        last = not self.streams
        stream.on_drained = (lambda s: self.stop.set()) if last else (lambda s: setattr(s, "alive", False))
        return stream

    @property
    def resumed_after(self) -> list[Any]:
        return [call["resume_after"] for call in self.calls]
