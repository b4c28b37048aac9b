"""When the authorization server runs and which URL it names: from the settings, never a request."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from service.settings import Settings


def test_the_issuer_is_the_public_url_or_the_loopback_port() -> None:
    assert Settings(port=9000).base_url == "http://127.0.0.1:9000"
    assert Settings(host="0.0.0.0").base_url is None
    assert Settings(host="0.0.0.0", public_url="https://m.example.com/").base_url == "https://m.example.com"


def test_auto_is_on_exactly_when_tokens_are_required() -> None:
    loopback = Settings(oauth="auto")
    assert not loopback.oauth_enabled(tokens_configured=False)  # the open loopback mode
    assert loopback.oauth_enabled(tokens_configured=True)
    assert Settings(oauth="auto", host="0.0.0.0", public_url="https://m.example.com").oauth_enabled(False)
    # Beyond loopback without a public URL there is no issuer to name.
    assert not Settings(oauth="auto", host="0.0.0.0").oauth_enabled(True)
    assert not Settings(oauth="on", transport="stdio").oauth_enabled(True)
    assert Settings().oauth == "auto"  # on by default whenever tokens are required
    assert Settings().oauth_enabled(True) and not Settings().oauth_enabled(False)
    assert not Settings(oauth="off").oauth_enabled(True)


@pytest.mark.parametrize(
    "overrides",
    [
        {"oauth": "on", "host": "0.0.0.0"},
        {"public_url": "http://memory.example.com"},
        {"public_url": "https://memory.example.com/?a=1"},
        {"public_url": "ftp://memory.example.com"},
    ],
)
def test_settings_that_could_not_name_a_sound_issuer_are_refused(overrides: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        Settings(**overrides)  # type: ignore[arg-type]


def test_client_metadata_origins_are_origins_and_https_beyond_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_OAUTH_CLIENT_METADATA_ORIGINS", "https://Claude.ai, http://127.0.0.1:9000/")
    assert Settings().oauth_client_metadata_origins == ["https://claude.ai", "http://127.0.0.1:9000"]
    for refused in ("http://claude.ai", "https://claude.ai/clients", "claude.ai"):
        with pytest.raises(ValidationError):
            Settings(oauth_client_metadata_origins=refused)  # type: ignore[arg-type]
