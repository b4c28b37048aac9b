"""The CLI as a script sees it, stdout piped (not a terminal): each command names the store it opened
on stderr, ``--json`` is JSON alone on stdout, and a table keeps every row, ids whole, on one line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from host.cli.base import describe_store
from host.running import ServiceHolder, running_service
from service.settings import Settings
from service.storage.embedded.lockfile import DataDirLock
from service.timeutil import format_iso
from tests.memories.aging_support import ALICE, BOB, NOW, boundary_cases
from tests.support import connected
from tests.support.server_process import run_cli
from tests.support.tokens import create_token, token_env

pytestmark = pytest.mark.slow

NARROW = {"COLUMNS": "80", "NO_COLOR": "1"}  # what Rich assumes when stdout is not a terminal


def cli(settings: Settings | None, tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    return run_cli(list(args), settings, cwd=tmp_path, env={**NARROW, **(env or {})})


def rows(stdout: str) -> list[list[str]]:
    """Tab-separated lines, the header first."""
    return [line.split("\t") for line in stdout.splitlines()]


def test_store_line_names_the_embedded_directory_absolutely(tmp_path: Path) -> None:
    done = run_cli(["age", "--dry-run", "--data-dir", "relative/data"], cwd=tmp_path, env=NARROW)
    assert done.returncode == 0, done.stderr
    # A dry run reads beside a running server, and the line says so.
    assert done.stderr.splitlines()[0] == f"store: embedded at {(tmp_path / 'relative' / 'data').resolve()} (read-only)"


async def test_age_dry_run_piped_keeps_each_change_on_one_line(settings: Settings, tmp_path: Path) -> None:
    async with connected(settings) as call:
        ids = {user_id: await boundary_cases(call, user_id) for user_id in (ALICE, BOB)}
    due = {i for cases in ids.values() for name, i in cases.items() if not name.startswith("keep")}

    done = cli(settings, tmp_path, "age", "--now", format_iso(NOW), "--dry-run")
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert table[0] == ["user", "memory", "action", "rule", "before", "after"]
    assert {row[1] for row in table[1:]} == due  # every id whole, in its column
    assert all(len(row) == 6 for row in table), done.stdout
    assert "┃" not in done.stdout and "─" not in done.stdout  # no box drawing to strip
    assert f"store: {describe_store(settings, readonly=True)}" in done.stderr.splitlines()
    assert "dry run, nothing written: 22 examined, 4 compressed, 4 removed, 14 kept" in done.stderr


async def test_age_json_is_the_report_alone_on_stdout(settings: Settings, tmp_path: Path) -> None:
    async with connected(settings) as call:
        ids = await boundary_cases(call, ALICE)
    due = {i for name, i in ids.items() if not name.startswith("keep")}

    done = cli(settings, tmp_path, "age", "--now", format_iso(NOW), "--dry-run", "--json")
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()  # one JSON document, no spinner frame, no summary
    report = json.loads(line)
    assert report["now"] == format_iso(NOW) and report["dry_run"] is True
    assert report["counts"] == {"examined": 11, "compressed": 2, "removed": 2, "kept": 7}
    assert {c["memory_id"] for c in report["changes"]} == due
    assert {c["user_id"] for c in report["changes"]} == {ALICE}
    assert "dry run, nothing written: 11 examined, 2 compressed, 2 removed, 7 kept" in done.stderr
    assert f"store: {describe_store(settings, readonly=True)}" in done.stderr.splitlines()


async def test_rederive_table_piped_keeps_each_difference_on_one_line(settings: Settings, tmp_path: Path) -> None:
    async with connected(settings) as call:
        liked = await call.ok(
            "memory_append_preference_event", {"user_id": ALICE, "type": "like", "payload": {"artist": "The Beatles"}}
        )
        await call.ok(
            "memory_append_preference_event", {"user_id": ALICE, "type": "dislike", "payload": {"artist": "beatles"}}
        )
    async with running_service(settings, ServiceHolder(), recover=False) as service:
        await service.database.preference_events.update_one(
            {"_id": liked["event_id"], "user_id": ALICE}, {"$unset": {"superseded_by": ""}}
        )

    done = cli(settings, tmp_path, "rederive", "--dry-run")
    assert done.returncode == 3, done.stderr
    table = rows(done.stdout)
    assert table[0] == ["user", "view", "key", "fields", "detail"]
    [row] = table[1:]
    assert row[:4] == [str(ALICE), "supersession", liked["event_id"], "superseded_by"]
    assert row[4].startswith("mark set"), row
    assert f"store: {describe_store(settings, readonly=True)}" in done.stderr.splitlines()


def test_token_list_piped_and_json(tmp_path: Path) -> None:
    token_file = tmp_path / "secrets" / "tokens.json"
    _, kept = create_token(token_file, 1, label="laptop\tassistant [prod]")
    _, gone = create_token(token_file, 2, role="operator", rate_limit_per_minute=0)
    revoked = run_cli(["token", "revoke", gone], cwd=tmp_path, env=token_env(token_file))
    assert revoked.returncode == 0, revoked.stderr

    listed = cli(None, tmp_path, "token", "list", env=token_env(token_file))
    assert listed.returncode == 0, listed.stderr
    table = rows(listed.stdout)
    assert table[0] == ["token id", "role", "users", "label", "calls/min", "created", "revoked"]
    by_id = {row[0]: row for row in table[1:]}
    assert set(by_id) == {kept, gone} and all(len(row) == 7 for row in table)
    assert by_id[kept][1:5] == ["user", "1", "laptop\\tassistant [prod]", "server default"]
    assert by_id[gone][1:5] == ["operator", "2", "", "no limit"] and by_id[gone][6]
    store_line = f"store: tokens at {token_file.resolve()}"
    assert listed.stderr.splitlines() == [store_line, "2 tokens, 1 active, 1 revoked"]

    as_json = cli(None, tmp_path, "token", "list", "--json", env=token_env(token_file))
    assert as_json.returncode == 0, as_json.stderr
    listing = {row["token_id"]: row for row in json.loads(as_json.stdout)}
    assert listing[kept]["label"] == "laptop\tassistant [prod]" and listing[gone]["revoked_at"]
    assert as_json.stderr.splitlines() == [store_line, "2 tokens, 1 active, 1 revoked"]


def test_export_to_stdout_is_the_document_alone(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    seeded = run_cli(["seed", "--user-id", "3", "--data-dir", str(data_dir)], cwd=tmp_path, env=NARROW)
    assert seeded.returncode == 0, seeded.stderr
    done = run_cli(["export", "--user-id", "3", "--out", "-", "--data-dir", str(data_dir)], cwd=tmp_path, env=NARROW)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["user_id"] == 3  # the spinner drew on stderr, not in the JSON
    assert done.stderr.splitlines()[0] == f"store: embedded at {data_dir.resolve()} (read-only)"


def test_a_refused_store_is_named_before_the_error(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    held = DataDirLock(data_dir)
    held.acquire()
    try:
        done = run_cli(["seed", "--data-dir", str(data_dir)], cwd=tmp_path, env=NARROW)
    finally:
        held.release()
    assert done.returncode == 1
    first, error = done.stderr.splitlines()[:2]
    assert first == f"store: embedded at {data_dir.resolve()}"
    # One line however long the path (a log or grep sees it whole), naming this process as the holder.
    assert error.startswith(f"error: data directory {data_dir} is already in use (pid {os.getpid()}); ")
