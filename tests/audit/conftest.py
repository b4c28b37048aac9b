"""The store the watcher tests feed change events into: the embedded engine, recording audit
entries on its write path as a server would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from service.audit.write_path import record_audit_on_write_path
from service.settings import Settings
from service.storage.database import Database, open_database
from tests.support.backends import make_settings


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[tuple[Database, Settings]]:
    # snapshot_every=2 with no size condition: the second mutation of a playlist opens a bucket.
    settings = make_settings("embedded", tmp_path / "data", snapshot_every=2, snapshot_min_event_share=0.0)
    async with open_database(settings) as db:
        record_audit_on_write_path(db)
        yield db, settings
