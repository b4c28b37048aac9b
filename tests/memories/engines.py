"""The memory store on both paths it has: the embedded engine's (an analysed copy kept between
calls) and real MongoDB's (nothing kept; the server selects by index). No MongoDB server can run
here, so the second is driven on the embedded engine's storage told it is MongoDB: the code path
is MongoDB's, the query language mongomock's common subset with it."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

from service.memories.service import MemoryStore
from service.search.engine import SearchEngine
from service.settings import Settings
from service.storage.database import Database, open_database

ENGINES = ("embedded", "mongodb")


async def stores_on_both_paths(tmp_path: Path) -> AsyncIterator[tuple[str, Database, Settings, MemoryStore]]:
    """(engine, database, settings, store) for each path, each on a fresh data directory."""
    for engine in ENGINES:
        settings = Settings(data_dir=tmp_path / engine)
        async with open_database(settings) as db:
            told = dataclasses.replace(db, engine=engine)
            store = MemoryStore(told, settings, SearchEngine(told))
            assert (store.kept_between_calls) == (engine == "embedded")  # the two paths are really both taken
            yield engine, told, settings, store
