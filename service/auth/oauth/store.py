"""Registered clients and grants in one JSON file beside the token file (``oauth.json``), with the
token file's discipline: hashes only, writers locked, the file replaced atomically, re-read when
it changed. Not part of any user's data, so never in an export."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from service.auth.files import locked, replace_atomically
from service.auth.oauth.records import ClientRecord, Grant


@dataclass
class OAuthState:
    clients: dict[str, ClientRecord] = field(default_factory=dict)
    grants: dict[str, Grant] = field(default_factory=dict)


class OAuthStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._state = OAuthState()

    def _current_stamp(self) -> tuple[int, int, int] | None:
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return None
        return info.st_ino, info.st_mtime_ns, info.st_size

    def state(self) -> OAuthState:
        """What the file holds now (one ``stat`` when it has not changed)."""
        stamp = self._current_stamp()
        if stamp != self._stamp:
            self._state = self._read() if stamp is not None else OAuthState()
            self._stamp = stamp
        return self._state

    def _read(self) -> OAuthState:
        try:
            document = json.loads(self.path.read_text())
            return OAuthState(
                {c["client_id"]: ClientRecord(**c) for c in document["clients"]},
                {g["grant_id"]: Grant(**g) for g in document["grants"]},
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # Failing closed: a damaged file must not let a revoked grant through.
            raise RuntimeError(f"OAuth file {self.path} is unreadable: {exc}") from exc

    @contextmanager
    def changing(self) -> Iterator[OAuthState]:
        """The state to change in place; written back atomically when the block ends cleanly."""
        with locked(self.path):
            state = self._read() if self.path.exists() else OAuthState()
            yield state
            body = json.dumps(
                {
                    "version": 1,
                    "clients": [asdict(c) for c in state.clients.values()],
                    "grants": [asdict(g) for g in state.grants.values()],
                },
                indent=2,
            )
            replace_atomically(self.path, body, ".oauth-")


def grants_listing(state: OAuthState) -> list[dict[str, object]]:
    """What an operator may see of the grants: who, which client, what, when; never a hash."""
    rows: list[dict[str, object]] = []
    for grant in state.grants.values():
        client = state.clients.get(grant.client_id)
        rows.append(
            {
                "grant_id": grant.grant_id,
                "client_id": grant.client_id,
                "client_name": client.client_name if client else None,
                "user_id": grant.user_id,
                "scopes": list(grant.scopes),
                "created_at": grant.created_at,
                "last_used_at": grant.last_used_at,
                "revoked_at": grant.revoked_at,
            }
        )
    return rows
