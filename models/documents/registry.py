"""Every document model, as ``init_beanie`` is given them at start-up."""

from __future__ import annotations

from beanie import Document

from models.documents.audit import AuditEntry, AuditStreamState
from models.documents.ledger import IdempotencyRecord, ListingCursor, PlaylistDocument, PlaylistHistoryBucket
from models.documents.memories import MemoryAgingEvent, MemoryDocument, PlayBucket
from models.documents.profiles import PreferenceEventDocument, ProfileDocument
from models.documents.tracks import TrackChoice, TrackDocument
from models.documents.users import MemoryControls, UserStats

DOCUMENT_MODELS: list[type[Document]] = [
    ProfileDocument,
    PreferenceEventDocument,
    PlaylistDocument,
    PlaylistHistoryBucket,
    IdempotencyRecord,
    ListingCursor,
    AuditEntry,
    AuditStreamState,
    UserStats,
    TrackDocument,
    TrackChoice,
    MemoryDocument,
    PlayBucket,
    MemoryAgingEvent,
    MemoryControls,
]
