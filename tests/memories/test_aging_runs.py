"""Aging as it runs: the ``memory-service age`` command end to end, and the server's periodic task
(its own origin, a failed run logged and retried, interval 0 = never)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from host.running import ServiceHolder, background_work, running_service
from service.errors import StorageUnavailable
from service.memories.aging import RULE_GIST, aging_periodically
from service.settings import Settings
from service.storage.database import Database
from service.timeutil import format_iso, utc_now
from tests.memories.aging_support import ALICE, BOB, DAY, NOW, boundary_cases
from tests.support import connected
from tests.support.server_process import run_cli


async def test_the_age_command_lists_writes_and_refuses_a_bad_now(settings: Settings, tmp_path: Path) -> None:
    async with connected(settings) as call:
        ids = {user_id: await boundary_cases(call, user_id) for user_id in (ALICE, BOB)}
    due = {u: {i for name, i in cases.items() if not name.startswith("keep")} for u, cases in ids.items()}

    def age(*args: str) -> Any:
        return run_cli(["age", *args], settings, cwd=tmp_path, env={"COLUMNS": "250", "NO_COLOR": "1"})

    bad = age("--now", "yesterday")
    assert bad.returncode != 0 and "--now" in bad.stderr and "RFC 3339" in bad.stderr
    dry = age("--now", format_iso(NOW), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert all(i in dry.stdout for i in due[ALICE] | due[BOB]) and RULE_GIST in dry.stdout
    assert "dry run, nothing written: 22 examined, 4 compressed, 4 removed, 14 kept" in dry.stderr
    only_bob = age("--now", format_iso(NOW), "--user-id", str(BOB))
    assert only_bob.returncode == 0, only_bob.stderr
    assert all(i in only_bob.stdout for i in due[BOB]) and not any(i in only_bob.stdout for i in due[ALICE])
    assert "11 examined, 2 compressed, 2 removed, 7 kept" in only_bob.stderr
    everyone = age("--now", format_iso(NOW))
    assert everyone.returncode == 0 and "20 examined, 2 compressed, 2 removed, 16 kept" in everyone.stderr
    again = age("--now", format_iso(NOW))
    assert again.returncode == 0 and "18 examined, 0 compressed, 0 removed, 18 kept" in again.stderr
    async with connected(settings) as call:
        records = await call.service.database.memory_aging.find({})
    assert {r["memory_id"] for r in records} == due[ALICE] | due[BOB] and len(records) == 8
    assert {(r["written_by"]["principal"], r["written_by"]["tool"]) for r in records} == {("local", "cli.age")}
    assert len({r["written_by"]["request_id"] for r in records}) == 2  # the BOB run, then the ALICE run


async def _records_appear(db: Database, timeout: float = 10.0) -> list[dict[str, Any]]:
    deadline = asyncio.get_running_loop().time() + timeout
    while not (records := await db.memory_aging.find({})):
        assert asyncio.get_running_loop().time() < deadline, "the periodic run did not age the memory"
        await asyncio.sleep(0.02)
    return records


async def test_the_server_ages_periodically_as_its_own_origin(settings_factory: Any) -> None:
    settings = settings_factory(aging_interval_s=0.05)
    async with running_service(settings, ServiceHolder()) as service:
        old = await service.memories.add(ALICE, "event", ["Gig"], "A small gig.", 2, None, utc_now() - 90 * DAY, True)
        async with background_work(service, settings):
            [record] = await _records_appear(service.database)
            # A run records first, then removes: leaving the block cancels the task, so wait for the
            # removal too (a run cut between the two is retried by the next one, tested below).
            deadline = asyncio.get_running_loop().time() + 10.0
            while await service.database.memories.count_documents({"user_id": ALICE}):
                assert asyncio.get_running_loop().time() < deadline, "the periodic run did not remove the memory"
                await asyncio.sleep(0.02)
        assert record["memory_id"] == old["memory_id"] and record["action"] == "removed"
        assert (record["written_by"]["principal"], record["written_by"]["tool"]) == ("local", "aging")
        assert await service.database.memories.count_documents({"user_id": ALICE}) == 0


async def test_a_failed_periodic_run_is_logged_and_the_next_period_tries_again(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_service(settings, ServiceHolder()) as service:
        await service.memories.add(ALICE, "event", ["Gig"], "A small gig.", 2, None, utc_now() - 90 * DAY, True)
        real, calls = service.aging.run, []

        async def failing_once(*args: Any, **kwargs: Any) -> dict[str, Any]:
            calls.append(1)
            if len(calls) == 1:
                raise StorageUnavailable("the database did not complete the operation")
            return await real(*args, **kwargs)

        service.aging.run = failing_once  # type: ignore[method-assign]
        with caplog.at_level(logging.INFO, logger="taste_memory"):
            async with aging_periodically(service.aging, 0.02) as task:
                await _records_appear(service.database)
                deadline = asyncio.get_running_loop().time() + 10
                while "1 removed" not in caplog.text:  # the run logs its counts just after its writes
                    assert asyncio.get_running_loop().time() < deadline, "the run's counts were never logged"
                    await asyncio.sleep(0.02)
            assert task is not None and task.done()
        async with aging_periodically(service.aging, 0) as nothing:
            assert nothing is None  # MEMORY_AGING_INTERVAL_S=0: never
    assert "memory aging failed; retrying at the next period" in caplog.text
    assert "1 removed" in caplog.text
