"""Long operations killed part-way leave the store as before them or as after them, never torn:
an import of a big export, a user delete, a backup, a salvage. Each is SIGKILLed at a delay drawn
in [0, T], T an uninterrupted run of the same operation, so the kill points spread over it
(process start included: that is part of what an operator's kill can hit). Embedded-only.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from service.settings import Settings
from tests.storage.torn_support import (
    BIG_USER,
    BigStore,
    build_big_store,
    cli_ok,
    damage_one_record,
    exported,
    kill_after,
    kill_when,
    start,
    stored_rows,
    timed,
    verified,
)
from tests.support.mcp_sessions import sse_session
from tests.support.server_process import ServerProcess, run_cli, running_server

pytestmark = pytest.mark.slow

EXAMPLES = 2  # drawn kill points per operation (besides 0, 1 and the commit point): each costs a run of the operation and a read-back
IMPORTED_AS = 2
INFINITY = float("inf")


def kill_points(test: Callable[[float], None]) -> Callable[[], None]:
    """Run ``test(fraction)`` over drawn fractions of T, the ends always among them (a kill at once,
    one at the end of an uninterrupted run)."""
    return hypothesis_settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: one example is a process run or more
        suppress_health_check=[HealthCheck.too_slow],
    )(given(st.floats(min_value=0.0, max_value=1.0))(example(0.0)(example(1.0)(test))))


Kill = Callable[[subprocess.Popen[bytes], Settings], bool]  # kills the command's process; True if it ran


def at_fraction(fraction: float, whole: float) -> Kill:
    return lambda process, _: kill_after(process, fraction * whole)


def at_commit(landed: Callable[[Settings], bool]) -> Kill:
    return lambda process, store: kill_when(process, lambda: landed(store))


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> BigStore:
    return asyncio.run(build_big_store(tmp_path_factory.mktemp("big")))


def test_import_killed_leaves_the_user_before_or_after(big: BigStore) -> None:
    arguments = ["import", "--file", str(big.export_file), "--user-id", str(IMPORTED_AS)]
    measured = big.clone("import-measured", big.other)
    before = exported(measured, IMPORTED_AS, big.workdir)
    assert before["data"]["profile"] is None and not before["data"]["preference_events"]

    def landed(store: Settings) -> bool:
        return stored_rows(store, "user_id = ?", IMPORTED_AS) > 0

    whole, committed = timed(arguments, measured, big.workdir, lambda: landed(measured))
    after = exported(measured, IMPORTED_AS, big.workdir)
    assert len(after["data"]["preference_events"]) > 2000
    seen: Counter[str] = Counter()

    def attempt(kill: Kill, at: str) -> None:
        store = big.clone("import-killed", big.other)
        killed = kill(start(arguments, store, big.workdir), store)
        now = exported(store, IMPORTED_AS, big.workdir)
        assert now in (before, after), f"import killed {at} left user {IMPORTED_AS} neither before nor after"
        outcome = "before" if now == before else "after"
        seen[f"{outcome} ({'killed' if killed else 'had exited'})"] += 1
        if outcome == "before" and not seen["imported again"]:
            # What a killed import left behind is no obstacle to running it again (once: it costs a run).
            cli_ok(arguments, store, big.workdir)
            assert exported(store, IMPORTED_AS, big.workdir) == after
            seen["imported again"] += 1

    kill_points(lambda fraction: attempt(at_fraction(fraction, whole), f"at {fraction:.3f} of {whole:.1f}s"))()
    attempt(at_commit(landed), "once its rows were on disk")
    print(f"import, T={whole:.1f}s, commit seen at {committed}s: {dict(seen)}")
    assert seen["before (killed)"] and seen["after (killed)"], f"kills did not reach both sides: {dict(seen)}"


async def delete_then_kill(server: ServerProcess, delay: float, landed: Callable[[], bool] | None) -> float | None:
    """Send memory_delete_user_data and SIGKILL the server ``delay`` s later, or once ``landed()``
    (with neither, wait for the answer and kill nothing); return the seconds from sending to the
    answer if it was answered (acknowledged) first."""
    async with sse_session(server) as call:
        await call.ok("memory_get_profile", {"user_id": BIG_USER})  # the session is ready
        began = time.monotonic()
        sent = asyncio.create_task(call("memory_delete_user_data", {"user_id": BIG_USER, "confirm": True}))
        while not sent.done() and time.monotonic() - began < delay and not (landed and landed()):
            await asyncio.wait({sent}, timeout=0.005 if landed else delay)
        answered = time.monotonic() - began if sent.done() and sent.result()["success"] else None
        if delay == INFINITY and landed is None:
            return answered
        server.kill()
        with contextlib.suppress(BaseException):  # the connection drops with the server
            await sent
        return answered


def run_delete(
    store: Settings, workdir: Path, delay: float = INFINITY, landed: Callable[[], bool] | None = None
) -> float | None:
    """``delete_then_kill`` on a server of its own, stopped (if still running) on the way out."""
    with running_server(store, workdir) as server:
        answered: float | None = None

        async def run() -> None:
            nonlocal answered
            answered = await delete_then_kill(server, delay, landed)

        try:
            asyncio.run(run())
        except BaseException:
            if delay == INFINITY and landed is None:
                raise
            # Leaving the session of a killed server may raise: expected.
        return answered


def test_user_delete_killed_leaves_the_user_before_or_after(big: BigStore) -> None:
    before = exported(big.clone("delete-before"), BIG_USER, big.workdir)
    measured = big.clone("delete-measured")
    whole = run_delete(measured, big.workdir)
    assert whole is not None
    after = exported(measured, BIG_USER, big.workdir)
    assert after["data"]["profile"] is None and not after["data"]["preference_events"]
    seen: Counter[str] = Counter()

    def attempt(delay: float, at: str, landed: Callable[[Settings], bool] | None = None) -> None:
        store = big.clone("delete-killed")
        answered = run_delete(store, big.workdir, delay, None if landed is None else lambda: landed(store))
        now = exported(store, BIG_USER, big.workdir)
        assert now in (before, after), f"delete killed {at} left the user neither before nor after"
        if answered is not None:
            assert now == after, f"the delete was acknowledged, killed {at}: the user is back"
        seen[("before" if now == before else "after") + (" (answered)" if answered is not None else "")] += 1
        assert verified(store, big.workdir)[0] == 0

    kill_points(lambda fraction: attempt(fraction * whole, f"at {fraction:.3f} of {whole:.2f}s"))()
    attempt(INFINITY, "once its rows were gone", lambda store: stored_rows(store, "user_id = ?", BIG_USER) == 0)
    print(f"user delete, T={whole:.2f}s: {dict(seen)}")
    assert seen["before"] and (seen["after"] or seen["after (answered)"]), dict(seen)


def test_backup_killed_leaves_no_backup_or_a_whole_one(big: BigStore, tmp_path: Path) -> None:
    store = big.clone("backup-source")  # a clean copy: nothing here writes to it
    measured = tmp_path / "measured.backup"
    whole, committed = timed(["backup", str(measured)], store, big.workdir, measured.exists)
    seen: Counter[str] = Counter()
    number = iter(range(1000))

    def attempt(kill: Callable[[subprocess.Popen[bytes], Path], bool], at: str) -> None:
        target = tmp_path / f"killed-{next(number)}.backup"
        partial = target.with_name(target.name + ".partial")
        kill(start(["backup", str(target)], store, big.workdir), target)
        if target.exists():
            seen["whole"] += 1
            code, report = verified(store, big.workdir, backup=target)
            assert code == 0 and report["clean"], f"a backup killed {at} fails verify: {report}"
            return
        seen["absent, .partial left" if partial.exists() else "absent"] += 1
        if partial.exists() and not seen["taken again"]:
            # A leftover .partial is not taken for the backup, and is no obstacle to taking it again.
            into = tmp_path / "restored-from-nothing"
            refused = run_cli(["restore", str(target), "--data-dir", str(into)], cwd=big.workdir)
            assert refused.returncode != 0 and not (into / "memory.sqlite3").exists(), refused.stderr
            retaken = cli_ok(["backup", str(target), "--json"], store, big.workdir)
            assert str(target) in retaken.stdout and not partial.exists()
            assert verified(store, big.workdir, backup=target)[0] == 0
            seen["taken again"] += 1

    kill_points(
        lambda fraction: attempt(lambda p, _: kill_after(p, fraction * whole), f"at {fraction:.3f} of {whole:.1f}s")
    )()
    attempt(lambda p, target: kill_when(p, target.exists), "once renamed into place")
    print(f"backup, T={whole:.1f}s, renamed into place at {committed}s: {dict(seen)}")
    assert seen["whole"] and (seen["absent"] or seen["absent, .partial left"]), dict(seen)


def test_salvage_killed_leaves_the_damage_or_the_user_served(big: BigStore) -> None:
    damaged = big.clone("salvage-damaged")
    record = damage_one_record(damaged, BIG_USER)
    code, report = verified(damaged, big.workdir)
    assert code == 3 and [d["record"] for d in report["damaged"]] == [record], report
    arguments = ["salvage", "--user-id", str(BIG_USER)]

    def landed(store: Settings) -> bool:  # salvage deletes the damaged row in its commit
        where = "collection = 'preference_events' AND doc_key = ?"
        return stored_rows(store, where, record.split("/", 1)[1]) == 0

    measured = big.clone("salvage-measured")
    damage_one_record(measured, BIG_USER)
    whole, committed = timed(arguments, measured, big.workdir, lambda: landed(measured))
    assert verified(measured, big.workdir)[0] == 0
    after = exported(measured, BIG_USER, big.workdir)
    seen: Counter[str] = Counter()

    def attempt(kill: Kill, at: str) -> None:
        store = big.clone("salvage-killed")
        damage_one_record(store, BIG_USER)
        kill(start(arguments, store, big.workdir), store)
        code, now = verified(store, big.workdir)
        if code == 3:  # before: the same damage, the user still quarantined, nothing else
            assert [d["record"] for d in now["damaged"]] == [record] and not now["differences"], now
            assert now["quarantined_users"] == [BIG_USER], now
            seen["before"] += 1
            return
        assert now["clean"] and not now["quarantined_users"], now
        assert exported(store, BIG_USER, big.workdir) == after, f"salvage killed {at}: the user differs"
        seen["after"] += 1

    kill_points(lambda fraction: attempt(at_fraction(fraction, whole), f"at {fraction:.3f} of {whole:.1f}s"))()
    attempt(at_commit(landed), "once the damaged row was gone")
    print(f"salvage, T={whole:.1f}s, commit seen at {committed}s: {dict(seen)}")
    assert seen["before"] and seen["after"], dict(seen)
