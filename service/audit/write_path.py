"""The audit trail: who changed what and when (write-path entries, change-stream watcher, query)."""

from __future__ import annotations

from service.audit.entries import AUDITED
from service.audit.trail import write_path_recorder
from service.storage.database import Database


def record_audit_on_write_path(db: Database) -> None:
    """The embedded engine has no change streams: each change's entry is written by the write
    path, in the same unit of work. On MongoDB the watcher writes them (``watching_audit``)."""
    if db.engine == "embedded":
        db.observe_writes(write_path_recorder(db.audit_log), AUDITED)
