"""The service the adapters call: one named sub-service per capability, assembled once.

Each sub-service's writes are units of work (``storage.units``): committed, durable on the
embedded store, before they return. Beside the capabilities, the facade only owns the service's
life: start-up recovery, the search warm-up, and the empty twin a disabled user's reads run on.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from service.audit.reader import AuditReader
from service.context.service import ContextService
from service.control.explain import Provenance
from service.control.forget import Forgetter
from service.control.inspect import Inspector
from service.control.switches import Controls
from service.history.service import HistoryService
from service.insights.conflict_service import ConflictService
from service.insights.service import InsightService
from service.ledger.reader import LedgerReader
from service.ledger.recovery import roll_forward_all
from service.ledger.writer import LedgerWriter
from service.memories.aging import AgingService
from service.memories.followups import FollowUpService
from service.memories.service import MemoryStore
from service.playlists.moves import LedgerMoves
from service.playlists.portability import Portability
from service.playlists.service import PlaylistService
from service.profiles.choices import Choices
from service.profiles.service import ProfileService
from service.rederive.service import Rederiver
from service.search.engine import SearchEngine
from service.settings import Settings
from service.storage.database import Database, open_database
from service.storage.units import unit_of_work
from service.tracks.service import TrackService
from service.transfer.service import TransferService
from service.users import directory
from service.users import stats as user_stats
from service.users.service import UserService


class MemoryService:
    def __init__(self, db: Database, settings: Settings) -> None:
        self._db = db
        self.settings = settings
        writer = LedgerWriter(db, settings)
        reader = LedgerReader(db, writer)
        self._writer = writer
        self.search = SearchEngine(db, semantic=settings.semantic_search == "on")
        self.profiles = ProfileService(db, settings, self.search)
        self.tracks = TrackService(db, settings, self.search)
        self.playlists = PlaylistService(db, settings, writer, reader, self.search, self.tracks)
        self.moves = LedgerMoves(db, settings, writer, reader, self.search)
        self.portability = Portability(db, reader)  # memory_playlist_portability
        self.insights = InsightService(db, settings)
        self.memories = MemoryStore(db, settings, self.search)
        self.controls = Controls(db, settings)
        self.followups = FollowUpService(db, settings, self.memories)
        self.context = ContextService(db, self.profiles.store, self.memories, self.followups, writer)
        self.aging = AgingService(db, self.memories)
        self.choices = Choices(self.profiles.append_event)  # memory_record_choice: an ordinary event write
        self.provenance = Provenance(db, self.memories)  # memory_explain
        self.conflicts = ConflictService(db, settings, self.profiles.append_event)  # stated versus played
        self.forgetter = Forgetter(db, self.search, self.memories, writer)  # memory_forget
        self.rederiver = Rederiver(db, writer.caps, self.search, self.memories)  # memory-service rederive
        self.inspector = Inspector(db, self.controls, self.context)  # memory_inspect
        self.transfer = TransferService(db, settings, writer.caps, self.search)
        self.users = UserService(db, writer.settle, self.search.user_reloaded)
        # memory-service import-history and the memory page's Import
        self.history = HistoryService(db, self.tracks, self.controls.refuse_write, self.search.user_reloaded)
        self.audit = AuditReader(db)
        self.search.on_user_reloaded(self.context.forget_served)  # forget, import, delete: the last block goes
        self.profiles.on_event_appended(self.context.event_appended)  # the block's kept lines take each event in
        db.on_reverted(self.search.user_reloaded)  # a failed call's changes undone: so is what was derived
        self._twin: MemoryService | None = None
        self._twin_stack = contextlib.AsyncExitStack()

    @property
    def database(self) -> Database:
        return self._db

    def refuse_quarantined(self, user_id: int) -> None:
        """``UserQuarantined`` if a stored record of this user is damaged (until it is salvaged)."""
        self._db.refuse_quarantined(user_id)

    @unit_of_work
    async def recover(self) -> int:
        """Start-up: roll playlist documents forward, then make the per-user counters agree with
        the records (a crash can leave a counter one bump behind its commit point)."""
        rebuilt = await roll_forward_all(self._db, self._writer.caps)
        await user_stats.recount_all(self._db)
        return rebuilt

    async def build_search_index(self) -> tuple[int, float]:
        """Build every user's search index, one user at a time, yielding between them: the server's
        background warm-up (a search builds its user's index on first use anyway). Returns
        (entries indexed, seconds); nothing to build on real MongoDB."""
        if not self.search.in_memory:
            return 0, 0.0
        listed = await directory.list_users(self._db, 2**31)
        return await self.search.warm_up([row["user_id"] for row in listed])

    async def empty_twin(self) -> MemoryService:
        """A service over an empty in-memory store: what reads answer for a user whose memory is off,
        computed rather than imitated, so every read answers exactly as for a user never seen."""
        if self._twin is None:
            folder = Path(self._twin_stack.enter_context(tempfile.TemporaryDirectory(prefix="tm-empty-")))
            settings = self.settings.model_copy(update={"mongodb_uri": None, "data_dir": folder, "journal": False})
            db = await self._twin_stack.enter_async_context(open_database(settings))
            self._twin = MemoryService(db, settings)
        return self._twin

    async def close(self) -> None:
        self._twin = None
        await self._twin_stack.aclose()
