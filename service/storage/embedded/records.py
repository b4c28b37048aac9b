"""The journal's rows: what each stores beside its body (owner, checksum), and damage found in them.

Each row carries a CRC-32 of its identity, its owner and its body, checked whenever it is
loaded: a body changed on disk (a flipped bit, a torn page the file system did not report, a
hand edit) is found even when it still decodes. CRC-32 finds accidental damage, which is what a
checksum here is for; it is no defence against someone who can write the file anyway.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Any

import bson

WHOLE = ""  # the field name of a row that holds a whole (small) document

# (collection, doc_key, field, ord, body, user_id, checksum): the columns of ``fields``, in order.
Row = tuple[str, str, str, int, bytes, int | None, int]


def document_key(doc_id: Any) -> str:
    return json.dumps(doc_id)


def checksum(collection: str, key: str, field: str, user_id: int | None, body: bytes) -> int:
    identity = f"{collection}\0{key}\0{field}\0{'' if user_id is None else user_id}\0".encode()
    return zlib.crc32(body, zlib.crc32(identity))


def owner(document: dict[str, Any]) -> int | None:
    user = document.get("user_id")
    return user if type(user) is int else None


def row(collection: str, key: str, field: str, ord_: int, body: bytes, user_id: int | None) -> Row:
    return (collection, key, field, ord_, body, user_id, checksum(collection, key, field, user_id, body))


@dataclass(frozen=True)
class Damage:
    """One stored row that failed its check: named for an operator (``collection/key[field]``)."""

    collection: str
    key: str
    field: str
    user_id: int | None
    reason: str  # "checksum mismatch" | "undecodable: …"

    @property
    def record(self) -> str:
        return f"{self.collection}/{self.key}" + (f"[{self.field}]" if self.field != WHOLE else "")

    def as_json(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "record": self.record, "collection": self.collection, "reason": self.reason}


class RowDamaged(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def decode_checked(stored: tuple[str, str, str, int, bytes, int | None, int | None]) -> dict[str, Any]:
    """The row's decoded body; ``RowDamaged`` if its checksum or its BSON fails. A row without a
    checksum (a store not yet migrated, opened read-only) is checked by decoding alone."""
    collection, key, field, _, body, user_id, stored_sum = stored
    if stored_sum is not None and checksum(collection, key, field, user_id, body) != stored_sum:
        raise RowDamaged("checksum mismatch")
    try:
        return bson.decode(body)
    except Exception as exc:  # bson raises several types (InvalidBSON, struct errors, UnicodeDecodeError)
        raise RowDamaged(f"undecodable: {type(exc).__name__}") from None
