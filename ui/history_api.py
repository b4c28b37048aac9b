"""The memory page's history Import: ``POST /ui/api/history-imports`` takes the file as the body
and answers ``202 {job_id}`` once it is on disk; the import then runs in the server, and ``GET
/ui/api/history-imports/{job_id}`` answers its progress, then its report or its error; ``DELETE``
on it stops a running import (the files imported before stay).

All pass the one call pipeline (``tools.calls.pipeline``) as the page's tool calls do: identity,
rate limit (an upload is one call), authorization, the audit stamp (inherited by the import's task),
the user's switches (checked again when the import starts), metrics and the log line. Errors are
the envelope's error objects, from its one mapping of exceptions.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from service.audit.origin import current_origin
from service.auth.policy import Access, Principal, authorize
from service.errors import InvalidArgument, RateLimited, TooLarge
from service.facade import MemoryService
from service.history.plan import AUTO, FORMATS
from tools.calls.envelope import error_body, error_of
from tools.calls.pipeline import Call, CallPipeline
from ui import uploads
from ui.api import UiApi, UiCallContext
from ui.history_jobs import HistoryJobs, Job
from ui.security import BodyTooLarge

log = logging.getLogger("taste_memory.ui")

IMPORT = "history.import"  # metered, logged and stamped on what the import writes
STATUS = "history.import_status"
CANCEL = "history.import_cancel"
NAME_MAX = 200  # the uploaded file's name as the page sends it, for messages only
HTTP_STATUS = {
    "INVALID_ARGUMENT": 400,
    "UNAUTHORIZED": 401,
    "FORBIDDEN": 403,
    "NOT_FOUND": 404,
    "CONFLICT": 409,
    "RATE_LIMITED": 429,
    "INTERNAL": 500,
    "DB_ERROR": 503,
}
SHUTDOWN = "the server stopped before the import finished; what was imported stays, upload the file again for the rest"


def _flag(value: str, name: str) -> bool:
    if value not in ("true", "false"):
        raise InvalidArgument(f"{name} must be true or false", {"field": name})
    return value == "true"


def import_arguments(raw: Any) -> dict[str, Any]:
    """The query of an upload: ``user_id``, ``format`` (default auto), ``include_private`` (default
    false) and ``name`` (the file's name, for messages)."""
    unknown = sorted(set(raw) - {"user_id", "format", "include_private", "name"})
    if unknown:
        raise InvalidArgument(f"unknown parameter {unknown[0]!r}", {"field": unknown[0]})
    user_id = raw.get("user_id", "")
    if not user_id.isdigit() or not 1 <= int(user_id) < 2**63:
        raise InvalidArgument("user_id must be a positive integer", {"field": "user_id"})
    wanted = raw.get("format", AUTO)
    if wanted != AUTO and wanted not in FORMATS:
        raise InvalidArgument(f"format must be one of {AUTO}, {', '.join(FORMATS)}", {"field": "format"})
    name = raw.get("name", "") or "upload"
    return {
        "user_id": int(user_id),
        "format": wanted,
        "include_private": _flag(raw.get("include_private", "false"), "include_private"),
        "name": name[:NAME_MAX],
    }


def refusal(exc: Exception, request_id: str) -> Response:
    """A refused call as the page's other refusals: an HTTP status and ``{error}``."""
    error = error_of(exc, request_id)
    status = 413 if isinstance(exc, TooLarge) else HTTP_STATUS.get(error["code"], 500)
    headers = None
    if isinstance(exc, RateLimited):
        headers = {"Retry-After": str(max(1, round(exc.retry_after_s)))}
    return JSONResponse({"error": error}, status_code=status, headers=headers)


class HistoryApi:
    def __init__(self, api: UiApi, pipeline: CallPipeline, jobs: HistoryJobs, root: Path, limit: int) -> None:
        self.api = api
        self.pipeline = pipeline
        self.jobs = jobs
        self.root = root  # where uploads go (``uploads.upload_root``)
        self.limit = limit

    async def start(self, request: Request) -> Response:
        live = self.api.caller(request)
        if isinstance(live, Response):
            return live
        raw = dict(request.query_params)
        gates = Call(
            IMPORT,
            Access.WRITE,
            writes=False,  # subscribers are told when the import has finished, not when it is accepted
            log_message="history upload",
            log_fields={"tool": IMPORT, "user_id": raw.get("user_id", "")[:20], "format": raw.get("format", "")[:40]},
        )

        async def work(service: MemoryService, valid: dict[str, Any], principal: Principal) -> Response:
            job = self.jobs.reserve(principal.name, valid["user_id"], valid["name"])
            try:
                folder, job.path, size = await uploads.receive(request.stream(), self.root)
            except BodyTooLarge:
                raise TooLarge(
                    f"the file is larger than this server accepts ({self.limit} bytes, "
                    "MEMORY_MAX_HISTORY_UPLOAD_BYTES); import it with memory-service import-history",
                    self.limit,
                ) from None
            except ClientDisconnect:
                raise InvalidArgument("the upload was interrupted", {"reason": "upload_interrupted"}) from None
            finally:
                if job.path is None:
                    self.jobs.drop(job)
            self.jobs.start(job, lambda: self._run(service, job, folder, valid))
            log.info("history upload received", extra={"job_id": job.job_id, "bytes": size})
            return JSONResponse({"job_id": job.job_id}, status_code=202)

        answer: Response = await self.pipeline.run(gates, raw, UiCallContext(live[1]), import_arguments, work, refusal)
        return answer

    async def _run(self, service: MemoryService, job: Job, folder: Path, valid: dict[str, Any]) -> None:
        """The import itself, in its own task (the call's audit stamp inherited); the upload goes
        whatever happens."""
        assert job.path is not None
        try:
            outcome = await service.history.import_history(
                job.user_id, job.path, valid["format"], valid["include_private"], job.progress
            )
        except Exception as exc:  # the job's answer, in the envelope's error form
            job.failed(error_of(exc, current_origin().request_id))
        except BaseException:
            if job.cancelling:
                job.cancelled()
            else:
                job.failed(error_body("INTERNAL", SHUTDOWN))
            raise
        else:
            job.succeeded(outcome)
            if self.pipeline.policy.changed is not None:
                await self.pipeline.policy.changed(IMPORT, {"user_id": job.user_id})
        finally:
            await asyncio.shield(asyncio.to_thread(uploads.remove, folder))
            log.info(
                "history import finished",
                extra={"job_id": job.job_id, "user_id": job.user_id, "state": job.state, "report": job.report},
            )

    async def cancel(self, request: Request) -> Response:
        live = self.api.caller(request)
        if isinstance(live, Response):
            return live
        gates = Call(CANCEL, Access.READ, gated=False, log_message="history import cancel")

        async def work(service: MemoryService, valid: dict[str, Any], principal: Principal) -> Response:
            job = self.jobs.get(principal.name, valid["job_id"])
            authorize(principal, Access.WRITE, job.user_id)  # still the token's user
            return JSONResponse((await self.jobs.cancel(principal.name, job.job_id)).answer())

        job_id: str = request.path_params["job_id"][:64]
        answer: Response = await self.pipeline.run(
            gates, {"job_id": job_id}, UiCallContext(live[1]), lambda raw: dict(raw), work, refusal
        )
        return answer

    async def status(self, request: Request) -> Response:
        live = self.api.caller(request, csrf=False)  # a read: the cookie suffices, as for the session
        if isinstance(live, Response):
            return live
        gates = Call(STATUS, Access.READ, gated=False, log_message="history import status")

        async def work(service: MemoryService, valid: dict[str, Any], principal: Principal) -> Response:
            job = self.jobs.get(principal.name, valid["job_id"])
            authorize(principal, Access.WRITE, job.user_id)  # still the token's user
            return JSONResponse(job.answer())

        job_id: str = request.path_params["job_id"][:64]  # a job id is 22 characters
        answer: Response = await self.pipeline.run(
            gates, {"job_id": job_id}, UiCallContext(live[1]), lambda raw: dict(raw), work, refusal
        )
        return answer
