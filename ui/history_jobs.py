"""The memory page's history imports in flight and just finished, held in process memory.

A job belongs to the principal that started it: another one asking for it is answered as for a
job that never was. One import runs per user at a time (a second is ``CONFLICT``, whoever starts
it). A finished job is kept for a while so the page can read its report, and only the latest
``KEEP`` of them. A server restart forgets them all, as it forgets the page's sessions.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from service.errors import Conflict, NotFound
from service.history.importer import Outcome
from tools.calls.envelope import ErrorBody
from ui.uploads import remove

KEEP = 100  # finished jobs kept, the oldest dropped first
KEEP_SECONDS = 60 * 60  # and none longer than this after it finished

CANCELLED = (
    "cancelled: the files imported before the cancel stay, the one being read is not in; "
    "import the same file again for the rest"
)
State = Literal["running", "done", "failed", "cancelled"]


@dataclass
class Job:
    job_id: str
    owner: str  # the principal's name (``ui:<token id>``)
    user_id: int
    upload_name: str  # the file as the person chose it: shown instead of the server's temporary path
    state: State = "running"
    read: int = 0
    total: int = 0
    file: str | None = None
    report: dict[str, Any] | None = None
    left_out: list[dict[str, str]] = field(default_factory=list)
    error: ErrorBody | None = None
    path: Path | None = None  # the upload on disk, once received
    finished_at: float | None = None
    task: asyncio.Task[None] | None = None
    cancelling: bool = False  # the person asked to stop it (a server shutdown cancels it too)

    def shown(self, name: str) -> str:
        """A file name as the importer gives it (the upload's path, or path:member) as the person knows it."""
        if self.path is None:
            return name
        upload = str(self.path)
        if name.startswith(upload + ":"):
            return name[len(upload) + 1 :]
        return name.replace(upload, self.upload_name)

    def progress(self, read: int, total: int, name: str) -> None:
        self.read, self.total, self.file = read, total, self.shown(name)

    def succeeded(self, outcome: Outcome) -> None:
        self.state, self.report = "done", outcome.report.as_json()
        self.left_out = [{"file": self.shown(f.name), "note": f.note} for f in outcome.files if f.report is None]

    def cancelled(self) -> None:
        self.state = "cancelled"

    def failed(self, error: ErrorBody) -> None:
        message = error["message"] if self.path is None else error["message"].replace(str(self.path), self.upload_name)
        self.state, self.error = "failed", {**error, "message": message}

    def answer(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "job_id": self.job_id,
            "user_id": self.user_id,
            "state": self.state,
            "read": self.read,
            "total": self.total,
            "file": self.file,
        }
        if self.state == "done":
            body.update(report=self.report, left_out=self.left_out)
        elif self.state == "cancelled":
            body["note"] = CANCELLED
        elif self.state == "failed":
            body["error"] = self.error
        return body


class HistoryJobs:
    def __init__(self, clock: Callable[[], float] = time.monotonic, keep: int = KEEP) -> None:
        self.clock = clock
        self.keep = keep
        self._jobs: dict[str, Job] = {}  # in the order they were started

    def reserve(self, owner: str, user_id: int, upload_name: str) -> Job:
        """A new running job, before its upload is read: a second import of the user is refused
        at once instead of after a long upload."""
        self._prune()
        if any(j.user_id == user_id and j.state == "running" for j in self._jobs.values()):
            raise Conflict(
                "an import of a listening history is already running for this user; wait until it ends",
                {"field": "user_id", "reason": "import_running"},
            )
        job = Job(secrets.token_urlsafe(16), owner, user_id, upload_name)
        self._jobs[job.job_id] = job
        return job

    def drop(self, job: Job) -> None:
        """The upload never became an import (refused, too large, interrupted)."""
        self._jobs.pop(job.job_id, None)

    def start(self, job: Job, work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work()`` as the job's task (called inside it: a task cancelled before its first
        step leaves no coroutine never awaited)."""
        job.task = asyncio.create_task(self._finishing(job, work), name=f"history-import-{job.job_id}")

    async def _finishing(self, job: Job, work: Callable[[], Awaitable[None]]) -> None:
        try:
            await work()
        finally:
            job.finished_at = self.clock()
            job.task = None

    def get(self, owner: str, job_id: str) -> Job:
        self._prune()
        job = self._jobs.get(job_id)
        if job is None or job.owner != owner:
            raise NotFound("no import with this id (finished imports are kept for an hour)", {"field": "job_id"})
        return job

    async def cancel(self, owner: str, job_id: str) -> Job:
        """Stop a running import of ``owner`` and wait until it has stopped: each file is one unit
        of work, so the files before stay and the one being read is wholly out."""
        job = self.get(owner, job_id)
        task = job.task
        if job.state != "running" or task is None:
            raise Conflict(f"this import has already {job.state.replace('done', 'finished')}", {"field": "job_id"})
        job.cancelling = True
        task.cancel()
        await asyncio.wait([task])
        return job

    def _prune(self) -> None:
        now = self.clock()
        finished = [j for j in self._jobs.values() if j.finished_at is not None]
        for job in finished[: max(0, len(finished) - self.keep)]:
            self._jobs.pop(job.job_id, None)
        for job in finished:
            if job.finished_at is not None and now - job.finished_at > KEEP_SECONDS:
                self._jobs.pop(job.job_id, None)

    async def close(self) -> None:
        """Server shutdown: every import still running is cancelled, and its upload removed."""
        tasks = [j.task for j in self._jobs.values() if j.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        # A task cancelled before its first step never reached its own clean-up.
        folders = [j.path.parent for j in self._jobs.values() if j.path is not None]
        await asyncio.to_thread(_remove_all, folders)


def _remove_all(folders: list[Path]) -> None:
    for folder in folders:
        remove(folder)
