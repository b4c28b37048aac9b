"""The protocol's own refusals (RFC 6749 §5.2 error codes), raised by the domain and answered by
the HTTP adapter as the SDK's error types; they never reach a tool call."""

from __future__ import annotations

from typing import Literal

OAuthErrorCode = Literal[
    "invalid_request", "invalid_client", "invalid_grant", "invalid_scope", "invalid_target", "access_denied"
]


class OAuthError(Exception):
    def __init__(self, code: OAuthErrorCode, description: str) -> None:
        super().__init__(description)
        self.code: OAuthErrorCode = code
        self.description = description
