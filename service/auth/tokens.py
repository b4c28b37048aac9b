"""Bearer tokens in a small JSON file, stored hashed, shown once at creation.

A file rather than a collection: the embedded store admits one process at a time, and an
operator must be able to create or revoke a token while the server runs. The server re-reads
the file when it changes (one ``stat`` per check), so a revocation holds from the next call.
Writers take an exclusive lock and replace the file atomically, so concurrent ``token create``
commands never lose each other's tokens and a reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from service.auth.files import locked, replace_atomically
from service.timeutil import format_iso, utc_now

Role = Literal["user", "operator"]
PREFIX = "tm"


@dataclass(frozen=True)
class TokenRecord:
    token_id: str
    token_hash: str
    role: Role
    user_ids: list[int]
    label: str | None
    created_at: str
    revoked_at: str | None = None
    # Calls per minute for this token (None: the server's MEMORY_RATE_LIMIT_PER_MINUTE; 0: no limit):
    # a backfill script needs more than an agent.
    rate_limit_per_minute: int | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def hash_token(token: str) -> str:
    # The secret part is 256 random bits: a plain SHA-256 cannot be brute-forced, and a slow hash
    # would cost every call (tokens are checked per request).
    return hashlib.sha256(token.encode()).hexdigest()


def token_id_of(token: str) -> str | None:
    parts = token.split("_", 2)  # the secret is URL-safe base64 and may itself contain '_'
    if len(parts) != 3 or parts[0] != PREFIX or not parts[1] or not parts[2]:
        return None
    return parts[1]


@dataclass
class _Snapshot:
    stamp: tuple[int, int, int] | None = None
    records: dict[str, TokenRecord] = field(default_factory=dict)


class TokenStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._snapshot = _Snapshot()

    # --- reading (server side) -------------------------------------------------------------

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return None
        return info.st_ino, info.st_mtime_ns, info.st_size

    def records(self) -> dict[str, TokenRecord]:
        """Every token ever created (revoked ones included), re-read when the file changed."""
        stamp = self._stamp()
        if stamp != self._snapshot.stamp:
            self._snapshot = _Snapshot(stamp, self._read() if stamp is not None else {})
        return self._snapshot.records

    def configured(self) -> bool:
        """Tokens exist (even if all are revoked): revoking every token must not open the server."""
        return bool(self.records())

    def lookup(self, token: str) -> TokenRecord | None:
        """The record whose secret this is, revoked or not; None for anything else."""
        record = self.records().get(token_id_of(token) or "")
        if record is None or not hmac.compare_digest(record.token_hash, hash_token(token)):
            return None
        return record

    def verify(self, token: str) -> TokenRecord | None:
        """The record of an active token, or None."""
        record = self.lookup(token)
        return record if record is not None and record.active else None

    def _read(self) -> dict[str, TokenRecord]:
        try:
            document = json.loads(self.path.read_text())
            return {r["token_id"]: TokenRecord(**r) for r in document["tokens"]}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # Failing closed: a damaged file must not turn authentication off.
            raise RuntimeError(f"token file {self.path} is unreadable: {exc}") from exc

    # --- writing (CLI side) ----------------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[dict[str, TokenRecord]]:
        with locked(self.path):
            records = self._read() if self.path.exists() else {}
            yield records
            self._write(records)

    def _write(self, records: dict[str, TokenRecord]) -> None:
        body = json.dumps({"version": 1, "tokens": [asdict(r) for r in records.values()]}, indent=2)
        replace_atomically(self.path, body, ".tokens-")

    def create(
        self, role: Role, user_ids: list[int], label: str | None = None, rate_limit_per_minute: int | None = None
    ) -> tuple[str, TokenRecord]:
        """A new token: the secret is returned once and only its hash is kept."""
        if role == "user" and not user_ids:
            raise ValueError("a user token needs at least one --user-id")
        if rate_limit_per_minute is not None and rate_limit_per_minute < 0:
            raise ValueError("--rate-limit-per-minute must be 0 (no limit) or more")
        with self._locked() as records:
            token_id = secrets.token_hex(6)
            while token_id in records:
                token_id = secrets.token_hex(6)
            token = f"{PREFIX}_{token_id}_{secrets.token_urlsafe(32)}"
            record = TokenRecord(
                token_id,
                hash_token(token),
                role,
                sorted(set(user_ids)),
                label,
                format_iso(utc_now()) or "",
                rate_limit_per_minute=rate_limit_per_minute,
            )
            records[token_id] = record
        return token, record

    def revoke(self, token_id: str) -> TokenRecord:
        with self._locked() as records:
            record = records.get(token_id)
            if record is None:
                raise KeyError(token_id)
            if record.active:
                record = TokenRecord(**{**asdict(record), "revoked_at": format_iso(utc_now())})
                records[token_id] = record
        return record

    def listing(self) -> list[dict[str, Any]]:
        """What an operator may see: never the hash."""
        return [{k: v for k, v in asdict(r).items() if k != "token_hash"} for r in self.records().values()]
