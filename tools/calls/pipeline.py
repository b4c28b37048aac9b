"""The one call pipeline: every tool call, resource read, prompt and memory-page call passes it.

In order: identity, rate limit, validation, authorization, the audit stamp, the user's switches
(a write refused while memory is off or paused; a read of a user whose memory is off runs on an
empty store), the work itself, then the metrics and one log line; a successful write is told to
resource subscribers. What differs between surfaces is only their ``Call`` and how a refusal is
answered: an envelope for a tool, a JSON-RPC error for a resource or a prompt.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from service.audit.origin import CallOrigin, acting_as, new_request_id
from service.auth.policy import Access, Principal, authenticated, authorize
from service.facade import MemoryService
from tools.calls.envelope import ErrorCode, error_code
from tools.calls.policy import CallPolicy, ServiceProvider

log = logging.getLogger("taste_memory.calls")

T = TypeVar("T")
Work = Callable[[MemoryService, dict[str, Any], Principal], Awaitable[T]]


@dataclass(frozen=True)
class Call:
    """One call as the gates see it."""

    name: str  # metered, logged and stamped on what it writes: memory.get_profile, resource.profile, prompt.…
    access: Access | None  # what it may touch; None: no user's data (a prompt)
    gated: bool = True  # subject to the user's switches
    writes: bool = False  # subscribers hear of it once it succeeds
    control: bool = False  # switches, forgetting, deleting, importing: OAuth's memory:control
    log_message: str = "tool call"
    log_fields: Mapping[str, Any] = field(default_factory=dict)  # the surface's own fields, already bounded


def target_user(arguments: Any) -> int | None:
    value = arguments.get("user_id") if isinstance(arguments, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class CallPipeline:
    def __init__(self, provide: ServiceProvider, policy: CallPolicy) -> None:
        self.provide = provide
        self.policy = policy

    def admit(self, context: Any) -> Principal:
        """Who is calling, within their rate: the gates that need no arguments."""
        principal = authenticated(self.policy.identity.resolve(context))
        if self.policy.limiter is not None and not principal.unrestricted:
            self.policy.limiter.check(principal.name, principal.rate_limit_per_minute)
        return principal

    async def run(
        self,
        call: Call,
        raw: Any,
        context: Any,
        validate: Callable[[Any], dict[str, Any]],
        work: Work[T],
        refused: Callable[[Exception, str], T],
        code_of: Callable[[Exception], ErrorCode] = error_code,
    ) -> T:
        """``work`` behind every gate; a failure is answered by ``refused`` (which may raise)."""
        request_id = new_request_id()  # ours, not the JSON-RPC id: that one restarts at 1 in every session
        started = time.perf_counter()
        principal: Principal | None = None
        try:
            principal = self.admit(context)
            valid = validate(raw)
            user_id = target_user(valid)
            if call.access is not None:
                authorize(principal, call.access, user_id, call.control)
            with acting_as(CallOrigin(principal.name, call.name, request_id)):
                service = await self._serving(call, user_id)
                answer = await work(service, valid, principal)
        except Exception as exc:  # every failure becomes a deliberate answer; none escapes as a trace
            code = code_of(exc)
            self._record(call, request_id, principal, started, code)
            return refused(exc, request_id)
        self._record(call, request_id, principal, started, None)
        if call.writes and self.policy.changed is not None:
            await self.policy.changed(call.name, valid)
        return answer

    async def _serving(self, call: Call, user_id: int | None) -> MemoryService:
        service = self.provide()
        if user_id is not None:
            service.refuse_quarantined(user_id)
        if not call.gated or user_id is None:
            return service
        if call.access is Access.WRITE:
            await service.controls.refuse_write(user_id)
        elif call.access is Access.READ and await service.controls.hides_reads(user_id):
            return await service.empty_twin()
        return service

    def _record(
        self, call: Call, request_id: str, principal: Principal | None, started: float, code: ErrorCode | None
    ) -> None:
        seconds = time.perf_counter() - started
        if self.policy.metrics is not None:
            self.policy.metrics.observe(call.name, seconds, code)
        log.info(
            call.log_message,
            extra={
                **call.log_fields,
                "request_id": request_id,
                "principal": principal.name if principal else None,
                "latency_ms": round(seconds * 1000, 3),
                "success": code is None,
                "error_code": code,
            },
        )
