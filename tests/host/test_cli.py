"""The command line as an operator uses it: ``seed``, ``--help``, and MEMORY_* variables."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service.settings import Settings
from tests.support.mcp_sessions import sse_session, streamable_http_session
from tests.support.server_process import child_environment, run_cli, running_server

pytestmark = pytest.mark.slow

SEED_PROFILE = Path(__file__).resolve().parents[2] / "models" / "seed_profile.json"
CONSOLE_SCRIPT = Path(sys.executable).parent / "memory-service"
SERVE_FLAGS = {
    "--transport": "MEMORY_TRANSPORT",
    "--host": "MEMORY_HOST",
    "--port": "MEMORY_PORT",
    "--data-dir": "MEMORY_DATA_DIR",
    "--mongodb-uri": "MEMORY_MONGODB_URI",
    "--tool-names": "MEMORY_TOOL_NAMES",
    "--log-level": "MEMORY_LOG_LEVEL",
    "--toolsets": "MEMORY_TOOLSETS",
    "--stdio-user-ids": "MEMORY_STDIO_USER_IDS",
}
STORE_FLAGS = {"--data-dir": "MEMORY_DATA_DIR", "--mongodb-uri": "MEMORY_MONGODB_URI"}
COMMANDS = ("serve", "seed", "export", "import", "rederive")


def export_file(settings: Settings, tmp_path: Path, name: str) -> dict[str, Any]:
    out = tmp_path / name
    done = run_cli(["export", "--user-id", "1", "--out", str(out)], settings, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


async def test_seed_loads_the_prd_profile_once(settings: Settings, tmp_path: Path) -> None:
    expected = json.loads(SEED_PROFILE.read_text())
    first = run_cli(["seed", "--user-id", "1"], settings, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    after_first = export_file(settings, tmp_path, "first.json")["data"]

    second = run_cli(["seed", "--user-id", "1"], settings, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    after_second = export_file(settings, tmp_path, "second.json")["data"]

    profile = after_first["profile"]
    assert profile["profile"] == expected
    assert profile["version"] == 1 and len(profile["history"]) == 1
    assert after_second["profile"] == profile  # same version, same time, same history: nothing written
    assert after_second["preference_events"] == [] and after_second["playlists"] == []

    # What an agent sees afterwards through the server.
    with running_server(settings, tmp_path) as server:
        async with sse_session(server) as call:
            seen = await call.ok("memory_get_profile", {"user_id": 1})
            assert seen == {"user_id": 1, "profile": expected, "version": 1, "updated_at": profile["updated_at"]}
            users = (await call.ok("ops_list_users", {}))["users"]
            assert [(u["user_id"], u["profile_version"]) for u in users] == [(1, 1)]


def help_text(*args: str) -> str:
    assert CONSOLE_SCRIPT.exists(), f"the console script {CONSOLE_SCRIPT} is not installed"
    done = subprocess.run(
        [str(CONSOLE_SCRIPT), *args, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env=child_environment({"COLUMNS": "200", "NO_COLOR": "1"}),
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def option_sections(text: str, flags: list[str]) -> dict[str, str]:
    """The help text of each option: from its flag to the next option."""
    starts = sorted((m.start(), m.group(1)) for m in re.finditer(r"(?<![\w-])(--[a-z][a-z-]*)", text))
    sections: dict[str, str] = {}
    for (start, flag), (end, _) in zip(starts, [*starts[1:], (len(text), "")]):
        if flag in flags and flag not in sections:
            sections[flag] = text[start:end]
    return sections


def test_serve_help_lists_every_flag_with_its_env_var() -> None:
    text = help_text("serve")
    sections = option_sections(text, list(SERVE_FLAGS))
    missing = [flag for flag in SERVE_FLAGS if flag not in sections]
    assert not missing, f"serve --help does not list {missing}:\n{text}"
    undocumented = [f"{flag} ({env})" for flag, env in SERVE_FLAGS.items() if env not in sections[flag]]
    assert not undocumented, f"serve --help does not name the variable of {undocumented}:\n{text}"


@pytest.mark.parametrize("command", ["seed", "export", "import", "rederive"])
def test_store_flags_of_every_command_name_their_env_var(command: str) -> None:
    text = help_text(command)
    sections = option_sections(text, list(STORE_FLAGS))
    undocumented = [f"{flag} ({env})" for flag, env in STORE_FLAGS.items() if env not in sections.get(flag, "")]
    assert not undocumented, f"{command} --help does not document {undocumented}:\n{text}"


def test_top_level_help_documents_every_command_and_env_var() -> None:
    text = help_text()
    for command in COMMANDS:
        assert re.search(rf"\b{command}\b", text), f"--help does not list the {command} command:\n{text}"
    missing = [env for env in SERVE_FLAGS.values() if env not in text]
    assert not missing, f"memory-service --help does not document {missing}:\n{text}"


async def test_environment_variables_configure_serve(settings: Settings, tmp_path: Path) -> None:
    # No flags at all: transport, host, port, store and tool names come from MEMORY_* variables.
    with running_server(
        settings, tmp_path, transport="streamable-http", env_only=True, extra_env={"MEMORY_TOOL_NAMES": "dotted"}
    ) as server:
        async with streamable_http_session(server) as call:
            names = {t.name for t in (await call.client.list_tools()).tools}
            assert "memory.update_profile" in names and "ops.list_users" in names
            await call.ok("memory.update_profile", {"user_id": 4, "patch": {"from": "env"}})
    # The flags select the same store.
    with running_server(settings, tmp_path) as server:
        async with sse_session(server) as call:
            profile = await call.ok("memory_get_profile", {"user_id": 4})
            assert (profile["profile"], profile["version"]) == ({"from": "env"}, 1)


def test_serve_rejects_an_unknown_transport_clearly(tmp_path: Path) -> None:
    done = run_cli(
        ["serve", "--transport", "carrier-pigeon", "--data-dir", str(tmp_path / "data")], cwd=tmp_path, timeout=60
    )
    assert done.returncode != 0
    assert "transport" in done.stderr.lower(), done.stderr
    assert "Traceback" not in done.stderr, done.stderr
