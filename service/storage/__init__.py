"""Storage engines behind one interface: real MongoDB (motor) or the embedded store."""

from service.storage.collection import DuplicateDocument, TrackedCollection
from service.storage.database import Database, open_database

__all__ = ["Database", "DuplicateDocument", "TrackedCollection", "open_database"]
