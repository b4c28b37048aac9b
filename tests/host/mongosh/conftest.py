"""The documents the mongosh script tests run against, written once by the service."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.host.mongosh.mongosh_support import store_with_history, write_fixtures


@pytest.fixture(scope="package")
def stored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("mongosh")
    written = asyncio.run(store_with_history(folder / "data"))
    fixtures = write_fixtures(folder / "fixtures.json", "taste_memory", written["collections"])
    return {**written, "fixtures": fixtures, "folder": folder}
