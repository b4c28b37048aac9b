"""The memory page's history Import over HTTP, through the real app: a ZIP uploaded, the job polled
to its report (the CLI's for the same file), the plays there for the tools at once, a second upload
inert; the session, CSRF, isolation, switches, size limit and a malformed file; one import per user;
a cancel that keeps the files imported before it."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.settings import Settings
from tests.history.history_fixtures import START, episode, extended, minutes, spotify_zip
from tests.support.server_process import run_cli
from tests.ui.test_ui_http import page, sign_in, tokens
from tests.ui.ui_history_support import finished, leftovers, ok, two_browsers, upload

ALICE, BOB, NOBODY = 1, 2, 99


@pytest.fixture
def ui_settings(settings_factory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Settings of a page server on the test's backend; system temporary files in the test's own
    folder (on MongoDB uploads go there), so what is left behind is this test's."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))

    def build(**overrides: Any) -> Settings:
        made: Settings = settings_factory(
            semantic_search="off",
            search_warmup=False,
            aging_interval_s=0,
            token_file=tmp_path / "secrets" / "tokens.json",
            **overrides,
        )
        return made

    return build


def history_zip(folder: Path) -> Path:
    """Four plays, a skip, a private stream, a podcast and a row repeated in a second file."""
    rows = [extended(n, START + minutes(5 * n), ms=8_000 if n == 3 else 200_000) for n in range(1, 6)]
    rows += [extended(9, START + minutes(90), private=True), episode(START + minutes(95))]
    again = [extended(2, START + minutes(10))]
    files = {"Streaming_History_Audio_2021_0.json": rows, "Streaming_History_Audio_2021_1.json": again}
    return spotify_zip(folder / "my_spotify_data.zip", files, {})


async def signed_in(client: httpx.AsyncClient, token: str) -> str:
    answer = await sign_in(client, token)
    assert answer.status_code == 200, answer.text
    csrf: str = answer.json()["csrf"]
    return csrf


@pytest.mark.slow  # the CLI's report, from a subprocess
async def test_an_uploaded_zip_is_imported_as_the_cli_imports_it_and_the_tools_see_it(
    ui_settings: Any, tmp_path: Path
) -> None:
    settings = ui_settings()
    archive = history_zip(tmp_path)
    cli = run_cli(
        ["import-history", str(archive), "--user-id", "7", "--json", "--data-dir", str(tmp_path / "cli")], cwd=tmp_path
    )
    assert cli.returncode == 0, cli.stderr
    expected = json.loads(cli.stdout)
    assert (expected["plays"], expected["skips"], expected["private_skipped"]) == (4, 1, 1)
    assert (expected["not_music"], expected["duplicates"], expected["entries"]) == (1, 1, 8)

    token, _ = tokens(settings).create("user", [ALICE])
    async with page(settings) as client:
        csrf = await signed_in(client, token)
        # Derived views built before the import (the catalog's analysed copy) must not hide it after.
        before = await ok(client, "memory_resolve_track", {"user_id": ALICE, "text": "Song 2 Artist 2"}, csrf)
        assert before["resolved"] is False
        status_before = await ok(client, "memory_status", {"user_id": ALICE}, csrf)

        started = await upload(client, ALICE, archive.read_bytes(), csrf, name="my_spotify_data.zip")
        assert started.status_code == 202, started.text
        job = await finished(client, started.json()["job_id"])
        assert job["state"] == "done", job
        assert job["report"] == expected
        assert 0 < job["read"] <= job["total"]
        assert job["file"] == "Spotify Extended Streaming History/Streaming_History_Audio_2021_1.json"
        assert {"file": "MyData/Userdata.json", "note": "not a listening history"} in job["left_out"]
        assert str(tmp_path) not in json.dumps(job)  # no server path in what the page shows

        memory = await ok(
            client,
            "memory_add",
            {
                "user_id": ALICE,
                "type": "recommendation",
                "entities": ["Artist 2"],
                "summary": "Suggested Artist 2",
                "importance": 8,
                "timestamp": "2021-03-01T07:00:00Z",
            },
            csrf,
        )
        checked = await ok(
            client, "memory_validate_recommendation", {"user_id": ALICE, "memory_id": memory["memory_id"]}, csrf
        )
        assert (
            checked["validation"]["plays_since_rec"] == 1
        )  # Song 2 once: its repeat in the second file is a duplicate
        found = await ok(client, "memory_resolve_track", {"user_id": ALICE, "text": "Song 2 Artist 2"}, csrf)
        assert found["resolved"] is True and found["best"]["track_id"] == f"{2:022d}"
        status = await ok(client, "memory_status", {"user_id": ALICE}, csrf)
        assert status["counts"]["tracks"] == status_before["counts"]["tracks"] + expected["tracks_added"]
        assert status["counts"]["play_buckets"] == 1

        again = await finished(client, (await upload(client, ALICE, archive.read_bytes(), csrf)).json()["job_id"])
        report = again["report"]
        assert (report["plays"], report["skips"], report["tracks_added"]) == (0, 0, 0)
        assert report["duplicates"] == report["entries"] - report["not_music"] - report["private_skipped"]
        assert await ok(client, "memory_status", {"user_id": ALICE}, csrf) == status
    assert leftovers(settings) == []


async def test_a_session_and_its_csrf_token_are_needed(ui_settings: Any, tmp_path: Path) -> None:
    settings = ui_settings()
    token, _ = tokens(settings).create("user", [ALICE])
    body = history_zip(tmp_path).read_bytes()
    async with page(settings) as client:
        anonymous = await upload(client, ALICE, body, None)
        assert anonymous.status_code == 401 and anonymous.json()["error"]["code"] == "UNAUTHORIZED"
        assert (await client.get("/ui/api/history-imports/abc")).status_code == 401
        csrf = await signed_in(client, token)
        forged = await upload(client, ALICE, body, None)
        assert forged.status_code == 403 and forged.json()["error"]["code"] == "FORBIDDEN"
        wrong = await upload(client, ALICE, body, csrf[:-2] + "xx")
        assert wrong.status_code == 403
        foreign = await client.post(
            "/ui/api/history-imports",
            params={"user_id": ALICE},
            content=body,
            headers={"X-CSRF-Token": csrf, "Origin": "http://evil.example"},
        )
        assert foreign.status_code == 403
        assert (await ok(client, "memory_status", {"user_id": ALICE}, csrf))["counts"]["play_buckets"] == 0
    assert leftovers(settings) == []


async def test_another_users_id_and_job_answer_as_missing_ones(ui_settings: Any, tmp_path: Path) -> None:
    settings = ui_settings()
    alice, _ = tokens(settings).create("user", [ALICE])
    bob, _ = tokens(settings).create("user", [BOB])
    body = history_zip(tmp_path).read_bytes()
    async with two_browsers(settings) as (bobs, alices):
        bob_csrf = await signed_in(bobs, bob)
        bobs_job = (await upload(bobs, BOB, body, bob_csrf)).json()["job_id"]
        assert (await finished(bobs, bobs_job))["state"] == "done"

        csrf = await signed_in(alices, alice)
        with_data = await upload(alices, BOB, body, csrf)
        never_seen = await upload(alices, NOBODY, body, csrf)
        assert with_data.status_code == never_seen.status_code == 403
        assert with_data.json() == never_seen.json()
        assert with_data.json()["error"]["code"] == "FORBIDDEN"
        others = await alices.get(f"/ui/api/history-imports/{bobs_job}")
        missing = await alices.get("/ui/api/history-imports/no-such-job")
        assert others.status_code == missing.status_code == 404
        assert others.json() == missing.json()
        assert (await ok(bobs, "memory_status", {"user_id": BOB}, bob_csrf))["counts"]["play_buckets"] == 1


async def test_a_paused_or_disabled_user_is_refused_and_nothing_is_stored(ui_settings: Any, tmp_path: Path) -> None:
    settings = ui_settings()
    token, _ = tokens(settings).create("user", [ALICE, BOB])
    body = history_zip(tmp_path).read_bytes()
    async with page(settings) as client:
        csrf = await signed_in(client, token)
        await ok(client, "memory_pause", {"user_id": ALICE, "until": "2099-01-01T00:00:00Z"}, csrf)
        await ok(client, "memory_set_enabled", {"user_id": BOB, "enabled": False}, csrf)
        for user, reason in ((ALICE, "memory_paused"), (BOB, "memory_disabled")):
            refused = await upload(client, user, body, csrf)
            assert refused.status_code == 409, refused.text
            error = refused.json()["error"]
            assert (error["code"], error["details"]["reason"]) == ("CONFLICT", reason)
        await ok(client, "memory_pause", {"user_id": ALICE, "until": None}, csrf)
        await ok(client, "memory_set_enabled", {"user_id": BOB, "enabled": True}, csrf)
        for user in (ALICE, BOB):
            counts = (await ok(client, "memory_status", {"user_id": user}, csrf))["counts"]
            assert (counts["play_buckets"], counts["tracks"]) == (0, 0)
    assert leftovers(settings) == []


async def test_an_upload_past_the_limit_is_refused_and_leaves_no_file(ui_settings: Any, tmp_path: Path) -> None:
    settings = ui_settings(max_history_upload_bytes=4096)
    token, _ = tokens(settings).create("user", [ALICE])
    body = json.dumps([extended(n, START + minutes(n)) for n in range(40)]).encode()
    assert len(body) > 4096

    async def streamed() -> AsyncIterator[bytes]:  # no Content-Length: the limit is met while writing
        for start in range(0, len(body), 1000):
            yield body[start : start + 1000]

    async with page(settings) as client:
        csrf = await signed_in(client, token)
        declared = await upload(client, ALICE, body, csrf)
        assert declared.status_code == 413 and "MEMORY_MAX_HISTORY_UPLOAD_BYTES" in declared.json()["error"]["message"]
        chunked = await upload(client, ALICE, streamed(), csrf)
        assert chunked.status_code == 413, chunked.text
        assert chunked.json()["error"]["details"] == {"reason": "too_large", "limit_bytes": 4096}
        assert leftovers(settings) == []
        # Refused uploads hold no import slot: a file within the limit goes through.
        small = json.dumps([extended(1, START)]).encode()
        job = await finished(client, (await upload(client, ALICE, small, csrf)).json()["job_id"])
        assert job["report"]["plays"] == 1
        # The tools' own body limit still holds everywhere else.
        assert (await client.post("/ui/api/session", content=b"x" * 3_000_000)).status_code == 413
    assert leftovers(settings) == []


async def test_a_malformed_file_fails_its_job_with_invalid_argument(ui_settings: Any) -> None:
    settings = ui_settings()
    token, _ = tokens(settings).create("user", [ALICE])
    good = json.dumps([extended(1, START)])
    async with page(settings) as client:
        csrf = await signed_in(client, token)
        broken = (good[:-1] + ', {"ts": "2021-').encode()  # recognised by its first row, cut off later
        job = await finished(client, (await upload(client, ALICE, broken, csrf, name="history.json")).json()["job_id"])
        assert job["state"] == "failed" and job["error"]["code"] == "INVALID_ARGUMENT", job
        assert job["error"]["message"].startswith("history.json"), job
        unknown = await upload(client, ALICE, b'{"hello": "world"}', csrf)
        failed = await finished(client, unknown.json()["job_id"])
        assert failed["error"]["code"] == "INVALID_ARGUMENT" and "no listening history" in failed["error"]["message"]
        bad_format = await upload(client, ALICE, good.encode(), csrf, format="itunes")
        assert bad_format.status_code == 400 and bad_format.json()["error"]["details"] == {"field": "format"}
        assert (await ok(client, "memory_status", {"user_id": ALICE}, csrf))["counts"]["play_buckets"] == 0
    assert leftovers(settings) == []


async def test_one_import_runs_per_user(ui_settings: Any, tmp_path: Path) -> None:
    settings = ui_settings()
    token, _ = tokens(settings).create("user", [ALICE, BOB])
    body = history_zip(tmp_path).read_bytes()
    release = asyncio.Event()

    async def held() -> AsyncIterator[bytes]:  # the first upload stays open until the second is answered
        yield body[:100]
        await release.wait()
        yield body[100:]

    async with page(settings) as client:
        csrf = await signed_in(client, token)
        first = asyncio.create_task(upload(client, ALICE, held(), csrf))
        await asyncio.sleep(0.2)
        second = await upload(client, ALICE, body, csrf)
        assert second.status_code == 409
        assert second.json()["error"]["details"] == {"field": "user_id", "reason": "import_running"}
        other_user = await upload(client, BOB, body, csrf)  # another user's import is not held up
        assert other_user.status_code == 202
        release.set()
        answered = await first
        assert answered.status_code == 202, answered.text
        assert (await finished(client, answered.json()["job_id"]))["report"]["plays"] == 4
        assert (await finished(client, other_user.json()["job_id"]))["report"]["plays"] == 4
    assert leftovers(settings) == []


async def test_a_server_stopping_mid_import_leaves_no_upload_behind(ui_settings: Any) -> None:
    settings = ui_settings()
    token, _ = tokens(settings).create("user", [ALICE])
    body = json.dumps([extended(n, START + minutes(n)) for n in range(5_000)]).encode()
    async with page(settings) as client:
        csrf = await signed_in(client, token)
        started = await upload(client, ALICE, body, csrf)
        assert started.status_code == 202
    # The lifespan's end cancelled the import: its folder is gone, and the file is wholly in or out.
    assert leftovers(settings) == []
    async with page(settings) as client:
        csrf = await signed_in(client, token)
        plays = (await ok(client, "memory_status", {"user_id": ALICE}, csrf))["counts"]["play_buckets"]
        again = await finished(client, (await upload(client, ALICE, body, csrf)).json()["job_id"])
        assert again["report"]["plays"] + again["report"]["duplicates"] == 5_000
        assert (again["report"]["duplicates"] == 0) == (plays == 0)


async def test_a_cancelled_import_keeps_whole_files_and_a_second_upload_adds_the_rest(
    ui_settings: Any, tmp_path: Path
) -> None:
    settings = ui_settings()
    token, _ = tokens(settings).create("user", [ALICE])
    other, _ = tokens(settings).create("user", [ALICE])
    rows_per_file, files = 3_000, 3
    # Every row a play, each file in a month of its own: a file is in or out as a whole.
    contents = {
        f"Streaming_History_Audio_2021_{k}.json": [
            extended(n, START + timedelta(days=31 * k) + minutes(n)) for n in range(rows_per_file)
        ]
        for k in range(files)
    }
    body = spotify_zip(tmp_path / "my_spotify_data.zip", contents, {}).read_bytes()
    async with two_browsers(settings) as (client, stranger):
        csrf = await signed_in(client, token)
        started = await upload(client, ALICE, body, csrf)
        assert started.status_code == 202, started.text
        job_id = started.json()["job_id"]
        for _ in range(2_000):  # until the second file is being read: the first is in
            job = (await client.get(f"/ui/api/history-imports/{job_id}")).json()
            if job["state"] != "running" or "_2021_1.json" in (job["file"] or ""):
                break
            await asyncio.sleep(0.01)
        assert job["state"] == "running", job

        # Another principal cannot stop it (the same answer as a job that never was); no CSRF, no stop.
        stranger_csrf = await signed_in(stranger, other)
        refused = await stranger.delete(f"/ui/api/history-imports/{job_id}", headers={"X-CSRF-Token": stranger_csrf})
        assert refused.status_code == 404 and refused.json()["error"]["code"] == "NOT_FOUND"
        assert (await client.delete(f"/ui/api/history-imports/{job_id}")).status_code == 403

        stopped = await client.delete(f"/ui/api/history-imports/{job_id}", headers={"X-CSRF-Token": csrf})
        assert stopped.status_code == 200, stopped.text
        answer = stopped.json()
        assert answer["state"] == "cancelled" and "report" not in answer and "error" not in answer
        assert answer["note"].startswith("cancelled: the files imported before the cancel stay")
        assert (await client.get(f"/ui/api/history-imports/{job_id}")).json()["state"] == "cancelled"
        again = await client.delete(f"/ui/api/history-imports/{job_id}", headers={"X-CSRF-Token": csrf})
        assert again.status_code == 409 and again.json()["error"]["code"] == "CONFLICT"

        plays = (await ok(client, "memory_status", {"user_id": ALICE}, csrf))["counts"]["plays"]
        assert plays % rows_per_file == 0 and rows_per_file <= plays < files * rows_per_file, plays
        rest = await finished(client, (await upload(client, ALICE, body, csrf)).json()["job_id"])
        assert (rest["report"]["duplicates"], rest["report"]["plays"]) == (plays, files * rows_per_file - plays)
        assert (await ok(client, "memory_status", {"user_id": ALICE}, csrf))["counts"]["plays"] == files * rows_per_file
    assert leftovers(settings) == []
