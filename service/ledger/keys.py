"""Deterministic document identifiers of the ledger."""

from __future__ import annotations


def head_id(user_id: int, playlist_id: str) -> str:
    return f"{user_id}:{playlist_id}"


def bucket_id(user_id: int, playlist_id: str, base_seq: int) -> str:
    # Zero-padded so that _id order is sequence order for an operator reading with mongosh.
    return f"{user_id}:{playlist_id}:{base_seq:010d}"
