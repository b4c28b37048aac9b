"""The authorization response: where the browser goes back to the client, with the code (or the
error) and the state it sent, and, when the server names itself, its issuer (RFC 9207 ``iss``), so
a client talking to several authorization servers can tell which one answered (mix-up attacks)."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit, urlunsplit

from service.auth.oauth.records import PendingRequest


def with_params(redirect_uri: str, params: dict[str, str]) -> str:
    """The redirect URI with ``params`` added to whatever query it was registered with."""
    parts = urlsplit(redirect_uri)
    query = "&".join(q for q in (parts.query, urlencode(params)) if q)
    return urlunsplit(parts._replace(query=query))


def authorization_response(request: PendingRequest, issuer: str | None, **params: str) -> str:
    extra = {**params, **({"state": request.state} if request.state is not None else {})}
    return with_params(request.redirect_uri, {**extra, **({"iss": issuer} if issuer else {})})
