"""Domain exceptions, named for the condition. tools/ maps them to the PRD's error codes."""

from __future__ import annotations

from typing import Any


class MemoryServiceError(Exception):
    """Base of every condition the service reports to a caller."""

    def __init__(self, message: str, details: dict[str, Any] | list[Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidArgument(MemoryServiceError):
    """The request is malformed whatever the stored state."""


class TooLarge(InvalidArgument):
    """A request body or an upload past its size limit (details.reason ``too_large``); HTTP answers 413."""

    def __init__(self, message: str, limit_bytes: int) -> None:
        super().__init__(message, {"reason": "too_large", "limit_bytes": limit_bytes})


class NotFound(MemoryServiceError):
    """Base of every missing-thing condition."""


class PlaylistNotFound(NotFound):
    """Not logged for this user (another user's playlist is reported the same way)."""


class ProfileNotFound(NotFound):
    pass


class PlaylistNotYetCreated(NotFound):
    """``at_time`` lies before the playlist's creation."""


class Conflict(MemoryServiceError):
    """The request is well-formed but contradicts the stored state."""


class PlaylistAlreadyLogged(Conflict):
    pass


class IdempotencyKeyReused(Conflict):
    """The same key arrived with a different payload."""


class TimestampOutOfOrder(Conflict):
    pass


class NotAPermutation(Conflict):
    pass


class PositionOutOfRange(Conflict):
    pass


class PlaylistTooLong(Conflict):
    pass


class StaleEditScript(Conflict):
    """An edit script (RESYNC, UNDO) written for other contents than the playlist's current ones."""


class NothingToUndo(Conflict):
    """Every change of the playlist is already undone (its creation cannot be)."""


class NotRedoable(Conflict):
    """The UNDO named for a redo is not the latest undo still standing."""


class SequenceConflict(Conflict):
    """Another writer committed the same sequence number first; the caller retries."""


class NotAuthenticated(MemoryServiceError):
    """The server has tokens and the call came without a valid one (missing, unknown, revoked)."""


class Forbidden(MemoryServiceError):
    """The caller is known but may not do this."""


class UserNotCovered(Forbidden):
    """The token does not cover the user id asked for (said the same whether or not the user has
    data, so the answer reveals nothing about other users)."""


class OperatorOnly(Forbidden):
    pass


class ScopeNotGranted(Forbidden):
    """An OAuth client's grant lacks the scope this call needs (memory:read, :write, :control)."""


class RateLimited(MemoryServiceError):
    """Too many calls for this token; ``details.retry_after_s`` says when to try again."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message, {"retry_after_s": retry_after_s})
        self.retry_after_s = retry_after_s


class StorageUnavailable(MemoryServiceError):
    """The database could not be reached or refused the write."""


class StorageFull(StorageUnavailable):
    """The disk is full: the write was not applied (details.reason ``storage_full``)."""

    def __init__(self, message: str = "the disk holding the store is full: the write was not applied") -> None:
        super().__init__(message, {"reason": "storage_full"})


class StorageFault(StorageUnavailable):
    """The store could not make the write durable (an I/O error): it was not applied
    (details.reason ``storage_error``)."""

    def __init__(self, message: str = "the store could not write to disk: the write was not applied") -> None:
        super().__init__(message, {"reason": "storage_error"})


class UserQuarantined(StorageUnavailable):
    """A stored record of this user is damaged: the user's calls are refused until an operator
    salvages it (details.reason ``user_quarantined``); every other user is served."""

    def __init__(self, user_id: int) -> None:
        super().__init__(
            f"a stored record of user {user_id} is damaged; this user's memory is unavailable until an "
            f"operator runs `memory-service salvage --user-id {user_id}`",
            {"reason": "user_quarantined"},
        )


class DataDirectoryLocked(RuntimeError):
    """A second process tried to open an embedded data directory already in use."""


class TrackNotInCatalog(NotFound):
    """The track id is not in this user's catalog (another user's track is reported the same way)."""


class MemoryNotFound(NotFound):
    """No memory of this user has this id (another user's memory is not found either)."""


class ForgottenItemNotFound(NotFound):
    """``memory_forget`` names no stored item of this user (another user's item is reported the same way)."""


class NotARecommendation(InvalidArgument):
    """Only a recommendation can be checked against what the listener played since."""


class UserHasData(Conflict):
    """An import into a user who already has data, without ``replace`` (details.reason ``user_has_data``)."""


class EventIdTaken(Conflict):
    """An import whose preference event ids are stored for another user (details.reason ``event_id_taken``)."""


class MemoryDisabled(Conflict):
    """The user turned memory off: nothing is stored until it is turned on again."""


class MemoryPaused(Conflict):
    """The user paused memory: nothing is stored until the pause ends."""


class NotConfirmedByUser(Conflict):
    """Asked to confirm a destructive call, the user declined or cancelled: nothing happened."""


class ConflictNotFound(NotFound):
    """No open stated-versus-played conflict with this id for this user (another user's reads the same)."""


class ResolvedOtherwise(Conflict):
    """The stated-versus-played conflict was already resolved, another way."""


class ExternalIdHeld(Conflict):
    """A track was given an external id (ISRC, Spotify, …) that another track of the catalog holds."""
