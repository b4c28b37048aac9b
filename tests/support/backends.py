"""The backends every test runs on: the embedded engine, and real MongoDB when
``MEMORY_TEST_MONGODB_URI`` is set (each test then gets its own database, dropped afterwards).

A test runs on both by taking the ``settings`` fixture (or ``settings_factory`` for overrides such
as small caps, or ``backend`` for the name): they are parametrised over ``BACKENDS``, and the root
conftest loads this module as a plugin. A test that must build settings itself calls
``make_settings(backend, data_dir)``. The memory store has two code paths of its own (an analysed
copy kept between calls, or none, as on MongoDB): ``stores_on_both_paths`` drives both on the
embedded engine's storage, the second told it is MongoDB.
"""

from __future__ import annotations

import dataclasses
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from service.memories.service import MemoryStore
from service.search.engine import SearchEngine
from service.settings import Settings
from service.storage.database import Database, open_database

MONGODB_URI = os.environ.get("MEMORY_TEST_MONGODB_URI")
BACKENDS = ["embedded"] + (["mongodb"] if MONGODB_URI else [])
ENGINES = ("embedded", "mongodb")


def make_settings(backend: str, data_dir: Path, **overrides: object) -> Settings:
    if backend == "mongodb":
        return Settings(mongodb_uri=MONGODB_URI, database_name=f"tm_test_{uuid.uuid4().hex[:12]}", **overrides)
    return Settings(data_dir=data_dir, **overrides)


def _drop(settings: Settings) -> None:
    if settings.mongodb_uri:
        from pymongo import MongoClient

        with MongoClient(settings.mongodb_uri) as client:
            client.drop_database(settings.database_name)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def settings(backend: str, tmp_path: Path) -> Iterator[Settings]:
    value = make_settings(backend, tmp_path / "data")
    yield value
    _drop(value)


@pytest.fixture
def settings_factory(backend: str, tmp_path: Path) -> Iterator[object]:
    """Build settings with overrides (e.g. small caps) on the current backend."""
    made: list[Settings] = []

    def build(**overrides: object) -> Settings:
        value = make_settings(backend, tmp_path / f"data{len(made)}", **overrides)
        made.append(value)
        return value

    yield build
    for value in made:
        _drop(value)


async def stores_on_both_paths(tmp_path: Path) -> AsyncIterator[tuple[str, Database, Settings, MemoryStore]]:
    """(engine, database, settings, store) for each path of the memory store, each on a fresh data
    directory. No MongoDB server can run here, so the second path is driven on the embedded
    engine's storage told it is MongoDB: the code path is MongoDB's, the query language
    mongomock's common subset with it."""
    for engine in ENGINES:
        settings = Settings(data_dir=tmp_path / engine)
        async with open_database(settings) as db:
            told = dataclasses.replace(db, engine=engine)
            store = MemoryStore(told, settings, SearchEngine(told))
            assert (store.kept_between_calls) == (engine == "embedded")  # the two paths are really both taken
            yield engine, told, settings, store
