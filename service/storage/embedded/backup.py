"""Whole-store backup, check and restore of the embedded store's SQLite file.

A backup is one SQLite file: ``VACUUM INTO`` copies the store inside one read transaction, so it
is a consistent state (every commit before it began, none after) while the server goes on
writing, and a ``manifest`` table in the same file says when it was taken, how many records of
each collection it holds and a SHA-256 of them all. Each step writes a ``.partial`` file first
and renames it into place, so a killed backup or restore leaves no half file under the real name.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from service.storage.embedded.engine import JOURNAL_FILE
from service.storage.embedded.journal import Journal
from service.storage.embedded.records import owner

MANIFEST = "manifest"
FORMAT = "taste-memory-backup/1"


class BackupRefused(Exception):
    """The backup cannot be taken or used (a damaged file, an occupied target): nothing was written."""


def _readonly(path: Path) -> sqlite3.Connection:
    if not path.exists():
        raise BackupRefused(f"no store at {path}")
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)


def integrity_problems(connection: sqlite3.Connection) -> list[str]:
    """SQLite's own check of the file's pages and indexes: empty when sound."""
    try:
        rows = [r[0] for r in connection.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as exc:  # not a database at all, or its header is gone
        return [str(exc)]
    return [] if rows == ["ok"] else rows


def store_problems(store: Path) -> list[str]:
    """SQLite's integrity check of a store file, read-only (a running server's too)."""
    connection = _readonly(store)
    try:
        return integrity_problems(connection)
    finally:
        connection.close()


def digest(connection: sqlite3.Connection) -> tuple[dict[str, int], str]:
    """Documents per collection and a SHA-256 over every row in primary-key order."""
    counts: dict[str, int] = {}
    sha = hashlib.sha256()
    last: tuple[str, str] | None = None
    for collection, key, field, body in connection.execute(
        "SELECT collection, doc_key, field, body FROM fields ORDER BY collection, doc_key, field"
    ):
        if (collection, key) != last:
            counts[collection] = counts.get(collection, 0) + 1
            last = (collection, key)
        for part in (collection, key, field):
            sha.update(part.encode() + b"\0")
        sha.update(len(body).to_bytes(8, "big") + body)
    return counts, sha.hexdigest()


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())
    with contextlib.suppress(OSError):  # a directory cannot be opened for fsync on some systems
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def _put_in_place(partial: Path, target: Path) -> None:
    """The finished file under its real name, in one rename, once it is on disk."""
    _fsync(partial)
    os.replace(partial, target)
    _fsync(target)


def take_backup(store: Path, target: Path) -> dict[str, Any]:
    """Copy the store at ``store`` (a running server's too) to ``target``; return the manifest."""
    if target.exists():
        raise BackupRefused(f"{target} exists; choose a new file")
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    source = _readonly(store)
    try:
        source.execute("VACUUM INTO ?", (str(partial),))
    finally:
        source.close()
    copy = sqlite3.connect(partial, isolation_level=None)
    try:
        counts, sha = digest(copy)
        manifest = {
            "format": FORMAT,
            "taken_at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "source": str(store),
            "documents": counts,
            "records": sum(counts.values()),
            "sha256": sha,
        }
        copy.execute(f"CREATE TABLE {MANIFEST} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        copy.executemany(f"INSERT INTO {MANIFEST} VALUES (?, ?)", [(k, json.dumps(v)) for k, v in manifest.items()])
        copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
    finally:
        copy.close()
    _put_in_place(partial, target)
    return manifest


def read_manifest(connection: sqlite3.Connection) -> dict[str, Any] | None:
    try:
        rows = connection.execute(f"SELECT key, value FROM {MANIFEST}").fetchall()
    except sqlite3.DatabaseError:
        return None
    return {key: json.loads(value) for key, value in rows}


def backup_problems(path: Path) -> tuple[dict[str, Any] | None, list[str]]:
    """(its manifest, what is wrong with the backup file: empty when it is whole)."""
    connection = _readonly(path)
    try:
        problems = integrity_problems(connection)
        if problems:
            return None, problems
        manifest = read_manifest(connection)
        if manifest is None or manifest.get("format") != FORMAT:
            return manifest, [f"{path} is not a Taste Memory backup (no manifest)"]
        counts, sha = digest(connection)
        if sha != manifest.get("sha256") or counts != manifest.get("documents"):
            problems.append("the records differ from the manifest's checksum (the file was changed after the backup)")
        return manifest, problems
    finally:
        connection.close()


def restore_backup(backup: Path, data_dir: Path) -> dict[str, Any]:
    """Put a checked backup in place as the store of an empty ``data_dir``; return its manifest."""
    manifest, problems = backup_problems(backup)
    if problems:
        raise BackupRefused("the backup is damaged, nothing restored: " + "; ".join(problems))
    assert manifest is not None
    data_dir.mkdir(parents=True, exist_ok=True)
    ours = ("LOCK", "LOCK.pid", JOURNAL_FILE + ".partial")  # the lock, and a killed restore's file
    occupied = sorted(p.name for p in data_dir.iterdir() if p.name not in ours)
    if occupied:
        raise BackupRefused(f"{data_dir} is not empty ({', '.join(occupied[:5])}); restore into a new directory")
    target = data_dir / JOURNAL_FILE
    partial = data_dir / (JOURNAL_FILE + ".partial")
    shutil.copyfile(backup, partial)
    copy = sqlite3.connect(partial, isolation_level=None)
    try:
        copy.execute(f"DROP TABLE {MANIFEST}")
    finally:
        copy.close()
    _put_in_place(partial, target)
    return manifest


def user_documents(backup: Path, user_id: int) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """(the backup's manifest, every sound record of one user in it) for salvage from a backup."""
    manifest, problems = backup_problems(backup)
    if problems:
        raise BackupRefused("the backup is damaged: " + "; ".join(problems))
    assert manifest is not None
    journal = Journal(backup, readonly=True)
    try:
        documents = [(name, doc) for name, doc in journal.load() if owner(doc) == user_id]
        damaged = [d.record for d in journal.damage if d.user_id == user_id]
    finally:
        journal.close()
    if damaged:
        raise BackupRefused(f"the backup's records of user {user_id} are damaged too: {', '.join(damaged[:5])}")
    return manifest, documents
