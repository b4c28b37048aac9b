"""The two comparisons a code exchange rests on: the PKCE verifier (S256 only) and the redirect
URI (exact, except a loopback redirect's port, RFC 8252 §7.3)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from urllib.parse import urlsplit

# RFC 7636 §4.1: 43 to 128 characters of the unreserved set.
_VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
_LOOPBACK = ("127.0.0.1", "::1", "localhost")


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def pkce_matches(challenge: str, verifier: str | None) -> bool:
    if verifier is None or not _VERIFIER.fullmatch(verifier):
        return False
    return hmac.compare_digest(s256(verifier), challenge)


def redirect_registered(registered: list[str], redirect_uri: str) -> bool:
    if redirect_uri in registered:
        return True
    asked = urlsplit(redirect_uri)
    # A native app listens on whatever port it gets: for an http loopback redirect the port may
    # differ from the registered one, nothing else may.
    if asked.scheme != "http" or asked.hostname not in _LOOPBACK:
        return False
    for uri in registered:
        known = urlsplit(uri)
        if (known.scheme, known.hostname, known.path, known.query) == (
            asked.scheme,
            asked.hostname,
            asked.path,
            asked.query,
        ):
            return True
    return False
