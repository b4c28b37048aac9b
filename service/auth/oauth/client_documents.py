"""Client ID Metadata Documents: a client whose ``client_id`` is an https URL describes itself in the
JSON document at that URL, and needs no registration. These are the rules a URL and its document
must meet before the server trusts either; fetching it is the host's job. Only origins the operator
listed are ever fetched (no request to an address a stranger chose), and http only on loopback."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any
from urllib.parse import urlsplit

from service.auth.oauth.errors import OAuthError
from service.auth.oauth.records import ClientRecord
from service.auth.oauth.scopes import SUPPORTED

_LOOPBACK = ("127.0.0.1", "localhost", "::1")
# What the document may say that the server keeps; anything else is ignored.
_KEPT = ("client_name", "client_uri", "logo_uri", "software_id", "software_version")
_GRANTS = ("authorization_code", "refresh_token")
MAX_NAME = 200


def is_document_url(client_id: str) -> bool:
    return client_id.startswith(("https://", "http://"))


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def check_url(client_id: str, allowed_origins: Collection[str]) -> None:
    """The URL may name a client: https with a path, nothing hidden in it, from a listed origin."""
    try:
        parts = urlsplit(client_id)
        _ = parts.port  # a malformed port raises here
    except ValueError:
        raise OAuthError("invalid_client", "the client_id URL is malformed") from None
    if parts.scheme != "https" and not (parts.scheme == "http" and parts.hostname in _LOOPBACK):
        raise OAuthError("invalid_client", "a client_id URL must be https")
    if parts.username or parts.password or parts.fragment or parts.path in ("", "/"):
        raise OAuthError("invalid_client", "a client_id URL has a path and no credentials or fragment")
    if any(segment in (".", "..") for segment in parts.path.split("/")):
        raise OAuthError("invalid_client", "a client_id URL has no dot segments")
    if origin_of(client_id) not in allowed_origins:
        raise OAuthError("invalid_client", f"client metadata from {origin_of(client_id)} is not accepted here")


def client_from_document(client_id: str, document: Any, fetched_at: str) -> ClientRecord:
    """The client the document describes; refused unless it names itself by this very URL, lists
    its redirect URIs and is a public client (a document is public: it cannot hold a secret)."""
    if not isinstance(document, dict):
        raise OAuthError("invalid_client", "the client metadata document is not a JSON object")
    if document.get("client_id") != client_id:
        raise OAuthError("invalid_client", "the client metadata document's client_id is not its own URL")
    uris = document.get("redirect_uris")
    if not isinstance(uris, list) or not uris or not all(isinstance(u, str) and u for u in uris):
        raise OAuthError("invalid_client", "the client metadata document lists no redirect_uris")
    method = document.get("token_endpoint_auth_method", "none")
    if method != "none" or "client_secret" in document or "client_secret_expires_at" in document:
        raise OAuthError("invalid_client", "a client metadata document describes a public client (auth method none)")
    name = document.get("client_name")
    if name is not None and (not isinstance(name, str) or len(name) > MAX_NAME):
        raise OAuthError("invalid_client", "client_name must be a short string")
    grants = document.get("grant_types", list(_GRANTS))
    if not isinstance(grants, list) or "authorization_code" not in grants:
        raise OAuthError("invalid_client", "the client must use the authorization_code grant")
    kept = {key: document[key] for key in _KEPT if isinstance(document.get(key), str)}
    metadata = {
        **kept,
        "client_id": client_id,
        "redirect_uris": list(uris),
        "grant_types": [g for g in _GRANTS if g in grants],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        # What a grant may do is decided at consent, as for a registered client.
        "scope": " ".join(SUPPORTED),
    }
    return ClientRecord(client_id, name, list(uris), fetched_at, metadata)
