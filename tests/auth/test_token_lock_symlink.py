"""``token create`` / ``token revoke`` truncate whatever the lock file's name points to.

``TokenStore._locked`` opens ``<token file>.lock`` with ``open(..., "w")``: it follows a symlink
and truncates its target. Whoever can write the token file's directory (a shared or misconfigured
directory, another account in the same group) plants ``tokens.json.lock -> ~/.ssh/authorized_keys``
and the next operator running ``memory-service token create`` empties that file with the
operator's rights. The lock needs no content: it must be opened without truncating and without
following a link.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from service.auth.tokens import TokenStore


def test_the_lock_file_never_truncates_a_link_target(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "tokens.json.lock").symlink_to(victim)
    store = TokenStore(secrets / "tokens.json")
    with contextlib.suppress(OSError):  # refusing to lock through a link is fine
        store.create("user", [1])
    assert victim.read_text() == "precious\n"


def test_tokens_are_still_created_and_revoked(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "secrets" / "tokens.json")
    token, record = store.create("user", [1])
    assert store.verify(token) == record
    store.revoke(record.token_id)
    assert store.verify(token) is None and store.lookup(token) is not None
    with pytest.raises(KeyError):
        store.revoke("nope")
