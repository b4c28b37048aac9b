"""Shared fixtures: one suite, two backends.

Every test that takes ``settings`` runs on the embedded engine, and also on real MongoDB when
``MEMORY_TEST_MONGODB_URI`` is set (each test then gets its own database, dropped afterwards).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.settings import Settings

MONGODB_URI = os.environ.get("MEMORY_TEST_MONGODB_URI")
BACKENDS = ["embedded"] + (["mongodb"] if MONGODB_URI else [])


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's own MEMORY_* variables must not leak into the settings tests build.
    for name in list(os.environ):
        if name.startswith("MEMORY_") and name != "MEMORY_TEST_MONGODB_URI":
            monkeypatch.delenv(name)


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
