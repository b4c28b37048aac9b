"""Authorization requests waiting for consent, and the codes consent issues: in memory only, short
lived, each code good for one exchange. A replayed code is remembered until it would have expired,
so the grant it produced can be ended (OAuth 2.1 §4.1.3)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import replace

from service.auth.oauth.errors import OAuthError
from service.auth.oauth.records import CodeRecord, PendingRequest

REQUEST_TTL_S = 600.0  # the person has ten minutes to sign in and decide
CODE_TTL_S = 60.0


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


class ConsentDesk:
    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._requests: dict[str, PendingRequest] = {}
        self._codes: dict[str, CodeRecord] = {}
        self._spent: dict[str, tuple[str | None, float]] = {}  # code hash -> (grant id, forget after)

    def _sweep(self) -> None:
        now = self.clock()
        for table in (self._requests, self._codes):
            for key in [k for k, v in table.items() if v.expires_at <= now]:
                del table[key]
        for key in [k for k, (_, until) in self._spent.items() if until <= now]:
            del self._spent[key]

    def open(self, request: PendingRequest) -> PendingRequest:
        self._sweep()
        opened = replace(request, request_id=secrets.token_urlsafe(16), expires_at=self.clock() + REQUEST_TTL_S)
        self._requests[opened.request_id] = opened
        return opened

    def pending(self, request_id: str) -> PendingRequest | None:
        self._sweep()
        return self._requests.get(request_id)

    def close(self, request_id: str) -> PendingRequest:
        """The request, taken: a consent is answered once, approved or denied."""
        self._sweep()
        request = self._requests.pop(request_id, None)
        if request is None:
            raise KeyError(request_id)
        return request

    def issue_code(self, request: PendingRequest, user_id: int) -> str:
        code = secrets.token_urlsafe(32)  # 256 bits, beyond RFC 6749 §10.10's 160
        self._codes[_hash(code)] = CodeRecord(
            client_id=request.client_id,
            redirect_uri=request.redirect_uri,
            redirect_uri_explicit=request.redirect_uri_explicit,
            code_challenge=request.code_challenge,
            resource=request.resource,
            user_id=user_id,
            scopes=list(request.scopes),
            expires_at=self.clock() + CODE_TTL_S,
        )
        return code

    def peek(self, client_id: str, code: str) -> CodeRecord | None:
        """The live code of this client, not taken (the SDK loads a code before exchanging it)."""
        self._sweep()
        record = self._codes.get(_hash(code))
        return record if record is not None and record.client_id == client_id else None

    def take(self, client_id: str, code: str) -> CodeRecord:
        """The code, spent; a second use, another client's code or an expired one: ``invalid_grant``."""
        self._sweep()
        digest = _hash(code)
        record = self._codes.get(digest)
        if record is None or record.client_id != client_id:
            raise OAuthError("invalid_grant", "the authorization code is unknown, expired or already used")
        del self._codes[digest]
        self._spent[digest] = (None, record.expires_at)
        return record

    def spent_grant(self, code: str) -> str | None:
        """The grant a spent code produced, if this code was spent (and is remembered)."""
        entry = self._spent.get(_hash(code))
        return entry[0] if entry else None

    def was_spent(self, code: str) -> bool:
        return _hash(code) in self._spent

    def bind(self, code: str, grant_id: str) -> None:
        digest = _hash(code)
        if digest in self._spent:
            self._spent[digest] = (grant_id, self._spent[digest][1])
