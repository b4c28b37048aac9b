"""mongomock's tuning is installed by the embedded engine as it starts, never on import: a process
that serves real MongoDB (every module of the server imported, the app assembled, the store opened
until the server refuses) runs stock mongomock. Checked in a fresh interpreter, since the test
process itself has long since started embedded engines."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import asyncio, sys, tempfile
from pathlib import Path
import mongomock.collection, mongomock.helpers, mongomock.store

def current():
    return (mongomock.store.CollectionStore.__setitem__, mongomock.collection.Collection._update,
            mongomock.collection.Collection._delete, mongomock.collection.Collection._iter_documents,
            mongomock.helpers.patch_datetime_awareness_in_document)

stock = current()
import host.app, host.cli.main, service.facade, tools.server, ui.routes
from service.errors import StorageUnavailable
from service.settings import Settings
from service.storage.database import open_database
settings = Settings(mongodb_uri="mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=300&connectTimeoutMS=300")
host.app.build_app(settings)

async def open_mongodb():
    try:
        async with open_database(settings):
            pass
    except StorageUnavailable:
        return "refused"
    return "opened"

assert asyncio.run(open_mongodb()) == "refused"
assert current() == stock, "a MongoDB process changed mongomock"
from service.storage.embedded.engine import EmbeddedEngine
EmbeddedEngine(Path(tempfile.mkdtemp()), "probe", journal=False)
tuned = current()
assert all(a is not b for a, b in zip(tuned, stock)), "the embedded engine did not install its tuning"
print("ok")
"""


def test_only_the_embedded_engine_installs_the_tuning(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]
