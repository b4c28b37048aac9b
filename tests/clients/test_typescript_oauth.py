"""The official TypeScript SDK's OAuth client (tests/clients/typescript/oauth_client.mjs) against a
served subprocess, over streamable HTTP and SSE: discovery from the 401, dynamic registration,
authorization with the consent answered on the page API by a signed-in user token (the browser's
part), the browser sent on to the script's loopback redirect URI, code exchange, tool calls, a
refresh when the access token is refused, and revocation: the old token answers 401 and the next
call sends the client back to consent. Skipped only when node or npm is missing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from jsonschema import Draft202012Validator

from models.schema_files import success_envelope_schema
from service.settings import Settings
from tests.clients.node_package import TYPESCRIPT_SDK, skip_without_node
from tests.support.mcp_sessions import FORMATS
from tests.support.server_process import ServerProcess, running_server
from tests.support.tokens import create_token, token_env

pytestmark = [pytest.mark.slow, skip_without_node]

ALICE = 1
SCRIPT_TIMEOUT = 90.0
ALL_SCOPES = ["memory:read", "memory:write", "memory:control"]


async def consent(server: ServerProcess, user_token: str, authorization_url: str) -> dict[str, Any]:
    """The person: follows the authorization URL to the page, signs in, approves, and the browser
    goes on to the client's redirect URI. What the page showed them."""
    async with httpx.AsyncClient(base_url=server.base_url) as browser:
        to_consent = await browser.get(authorization_url)
        assert to_consent.status_code == 302, to_consent.text
        request_id = to_consent.headers["location"].split("/ui/#/consent/", 1)[1]
        signed_in = await browser.post("/ui/api/session", json={"token": user_token})
        assert signed_in.status_code == 200, signed_in.text
        shown = dict((await browser.get(f"/ui/api/oauth/requests/{request_id}")).json())
        approved = await browser.post(
            f"/ui/api/oauth/requests/{request_id}/approve", headers={"X-CSRF-Token": signed_in.json()["csrf"]}
        )
        assert approved.status_code == 200, approved.text
        redirect = approved.json()["redirect"]
        assert parse_qs(urlsplit(redirect).query).get("code"), redirect
        landed = await browser.get(redirect)
        assert landed.status_code == 200, landed.text
    return shown


async def run_script(
    server: ServerProcess, url: str, transport: str, user_token: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The script's summary and the consents the person was shown."""
    package = TYPESCRIPT_SDK.directory
    script = await asyncio.create_subprocess_exec(
        "node", str(package / "oauth_client.mjs"), url, transport, str(ALICE),
        cwd=package, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert script.stdout is not None and script.stderr is not None
    shown: list[dict[str, Any]] = []
    try:
        async with asyncio.timeout(SCRIPT_TIMEOUT):
            while line := await script.stdout.readline():
                message = json.loads(line)
                if "authorize" in message:
                    shown.append(await consent(server, user_token, message["authorize"]))
                elif "summary" in message:
                    await script.wait()
                    return dict(message["summary"]), shown
            failure = (await script.stderr.read()).decode(errors="replace")
    finally:
        if script.returncode is None:
            script.kill()
            await script.wait()
    raise AssertionError(f"oauth_client.mjs ended without a summary (exit {script.returncode}):\n{failure}")


def envelope_of(result: dict[str, Any], tool: str) -> dict[str, Any]:
    assert "error" not in result and result["isError"] is False, (tool, result)
    envelope = dict(result["structuredContent"])
    errors = [e.message for e in Draft202012Validator(success_envelope_schema(tool), format_checker=FORMATS).iter_errors(envelope)]  # fmt: skip
    assert envelope["success"] is True and not errors, (tool, errors[:3], envelope)
    return envelope


@pytest.mark.parametrize(("transport", "path"), [("streamable-http", "/mcp"), ("sse", "/sse")])
async def test_the_typescript_sdk_oauth_client(settings: Settings, tmp_path: Path, transport: str, path: str) -> None:
    TYPESCRIPT_SDK.ensure_installed()
    token_file = tmp_path / "secrets" / "tokens.json"
    user_token, _ = create_token(token_file, ALICE)
    env = {**token_env(token_file), "MEMORY_OAUTH": "on"}
    with running_server(settings, tmp_path, transport=transport, extra_env=env) as server:
        summary, shown = await run_script(server, server.base_url + path, transport, user_token)

    connected = summary["connect"]
    assert connected.get("error") is None and connected.get("client_id"), summary
    assert connected["iss"] == server.base_url
    assert connected["state_matches"] is True and connected["scope"].split() == ALL_SCOPES, connected
    assert shown == [
        {
            "client_name": "TypeScript SDK connector",
            "redirect_origin": shown[0]["redirect_origin"],
            "scopes": ALL_SCOPES,
            "users": [{"user_id": ALICE, "held_scopes": []}],
        }
    ]
    assert shown[0]["redirect_origin"].startswith("http://127.0.0.1:")

    envelope_of(summary["write"], "memory.update_profile")
    profile = envelope_of(summary["read"], "memory.get_profile")["result"]["profile"]
    assert profile == {"core_genres": ["power metal"]}  # written and read back with the access token

    refreshed = summary["refresh"]
    assert "error" not in refreshed, refreshed
    envelope_of(refreshed["result"], "memory.get_profile")
    assert refreshed["rotated"] is True and refreshed["fresh"] is True
    assert refreshed["authorizations"] == 1  # refreshed without the person

    revoked = summary["revoke"]
    assert revoked["revoked"] == 200 and revoked["staleStatus"] == 401, revoked
    assert 'error="invalid_token"' in revoked["staleChallenge"]
    after = summary["afterRevoke"]
    assert after.get("unauthorized") is True, after  # the refresh token died with the grant
    assert summary["sentBackToConsent"] is True and len(summary["authorizations"]) == 2
