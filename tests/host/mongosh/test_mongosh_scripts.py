"""The operator scripts of scripts/mongosh/: each is valid JavaScript, documents the mongosh
command line that runs it (and that command line runs it), refuses to run without its variables,
names a wrong database, and prints what the service stored (run under node against the stand-in
for mongosh of mongosh_support.py). The audit tail's own behaviour: test_audit_tail.py.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from models.documents.audit import AuditEntry
from tests.host.mongosh.mongosh_support import (
    MONGOSH_DIR,
    NODE,
    PLAYLIST_A,
    PLAYLIST_B,
    USER,
    node_check,
    run_mongosh,
    write_fixtures,
)
from tests.support import track

MONGOSH_SCRIPTS = ["user_summary.js", "playlist_history.js", "audit_tail.js"]
# (required, optional) variables of each script, set with --eval before the file.
SCRIPT_VARIABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "user_summary.js": (("userId",), ()),
    "playlist_history.js": (("userId", "playlistId"), ()),
    "audit_tail.js": ((), ("userId", "playlistId", "limit", "follow")),
}
JS_STRING = re.compile(r""""(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""")
COLLECTIONS = {
    "profiles",
    "preference_events",
    "playlists",
    "playlist_history",
    "idempotency",
    "audit_log",
    "tracks",
    "memories",
    "plays",
    "memory_aging",
}


def _header(source: str) -> list[str]:
    """The comment block the script opens with."""
    lines = []
    for line in source.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line[2:].strip())
    return lines


def _documented_commands(source: str, script: str) -> list[list[str]]:
    return [shlex.split(line) for line in _header(source) if "mongosh " in line and f"scripts/mongosh/{script}" in line]


def _eval_of(argv: list[str]) -> str | None:
    return argv[argv.index("--eval") + 1] if "--eval" in argv else None


@pytest.mark.parametrize("script", MONGOSH_SCRIPTS)
def test_mongosh_script_is_valid_and_documents_its_command_line(script: str, tmp_path: Path) -> None:
    source = (MONGOSH_DIR / script).read_text()
    required, optional = SCRIPT_VARIABLES[script]
    commands = _documented_commands(source, script)
    assert commands, f"{script} must open with the mongosh command line that runs it"
    first = commands[0]
    assert first[:2] == ["mongosh", "$URI/taste_memory"] and first[-1] == f"scripts/mongosh/{script}", first
    for argv in commands:
        assert "taste_memory" in " ".join(argv) and "--quiet" in argv, argv
        evaluated = _eval_of(argv) or ""
        assert not evaluated or evaluated.startswith("const "), evaluated  # mongosh: --eval before the file
        declared = set(re.findall(r"(?:\bconst|,)\s*([A-Za-z_]\w*)\s*=", evaluated))
        assert set(required) <= declared, f"{argv} leaves out {set(required) - declared}"
        unknown = declared - set(required) - set(optional)
        assert not unknown, f"{script} does not read {unknown}"
    assert any(_eval_of(argv) is None for argv in commands) or required, "no variable is required: show that"
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("//"))
    referenced = set(re.findall(r"getCollection\(\"(\w+)\"\)", code))
    code = JS_STRING.sub('""', code)  # so the usage text does not count as a declaration
    assert referenced and referenced <= COLLECTIONS, referenced
    for variable in required + optional:
        assert re.search(rf'typeof {variable} [!=]== "undefined"', source), variable
        # The variable comes from --eval: redeclaring it in the script would be an error in mongosh.
        assert not re.search(rf"\b(const|let|var)\s+{variable}\b", code)
    if NODE:
        node_check(source, script, tmp_path)
        # As mongosh sees it: the --eval declarations first, then the file.
        for i, argv in enumerate(commands):
            node_check((_eval_of(argv) or "") + ";\n" + source, f"evaluated-{i}-{script}", tmp_path)


def test_mongosh_scripts_read_the_collections_the_service_writes() -> None:
    summary = (MONGOSH_DIR / "user_summary.js").read_text()
    history = (MONGOSH_DIR / "playlist_history.js").read_text()
    audit = (MONGOSH_DIR / "audit_tail.js").read_text()
    for name in ("profiles", "preference_events", "playlists", "playlist_history"):
        assert f'getCollection("{name}")' in summary
    for name in ("playlists", "playlist_history"):
        assert f'getCollection("{name}")' in history
    assert ".sort({ base_seq: 1 })" in history
    assert ".sort({ updated_at: -1" in summary and ".limit(10)" in summary
    assert 'getCollection("audit_log")' in audit
    # The tail is read newest first along the audit log's indexes: (time, _id) for every user,
    # (user_id, time, _id) for one.
    keys = [list(index.document["key"].items()) for index in AuditEntry.Settings.indexes]
    assert [("time", -1), ("_id", -1)] in keys and [("user_id", 1), ("time", -1), ("_id", -1)] in keys
    assert audit.count(".sort({ time: -1, _id: -1 })") >= 1 and ".limit(count)" in audit


def _static_checks_without_node(script: str) -> None:
    source = (MONGOSH_DIR / script).read_text()
    assert "quit(" in source and "error: " in source
    assert "is not set" in source


def test_user_summary_reports_profile_counts_and_recent_playlists(stored: dict[str, Any]) -> None:
    if not NODE:
        _static_checks_without_node("user_summary.js")
        return
    done = run_mongosh(stored, "user_summary.js", f"const userId = {USER}")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    profile = stored["profile"]
    version = next(d["version"] for d in stored["collections"]["profiles"] if d["_id"] == USER)
    assert f"profile: version {version}," in out
    keys_line = next(line for line in out.splitlines() if line.strip().startswith("keys ("))
    assert set(keys_line.split(": ", 1)[1].split(", ")) == set(profile["profile"])
    assert re.search(r"preference events:\s+2$", out, re.M)
    assert re.search(r"playlists:\s+2$", out, re.M)
    assert re.search(r"history buckets:\s+3$", out, re.M)  # A opened a second bucket at its 10th change
    assert re.search(r"catalog tracks:\s+1$", out, re.M)
    assert re.search(r"typed memories:\s+2 \(recommendation 1, insight 1; 1 aged to a gist\)$", out, re.M)
    assert re.search(r"plays:\s+3 in 2 month bucket\(s\)$", out, re.M)
    assert re.search(r"aging records:\s+2$", out, re.M)  # one gist, one removed
    rows = [line for line in out.splitlines() if PLAYLIST_A in line or PLAYLIST_B in line]
    assert [PLAYLIST_B in rows[0], PLAYLIST_A in rows[1]] == [True, True], rows  # newest first
    for row, playlist_id in zip(rows, (PLAYLIST_B, PLAYLIST_A), strict=True):
        tracks = int(row.split()[1])
        assert tracks == len(stored["current"][playlist_id]["track_ids"]), row


def test_playlist_history_prints_snapshots_and_events_in_sequence_order(stored: dict[str, Any]) -> None:
    if not NODE:
        _static_checks_without_node("playlist_history.js")
        return
    done = run_mongosh(stored, "playlist_history.js", f'const userId = {USER}, playlistId = "{PLAYLIST_A}"')
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    rows = [line.split(None, 3) for line in lines if re.match(r"\s*\d+\s+\d{4}-\d\d-\d\dT", line)]
    order = [(int(seq), "S" if kind == "SNAPSHOT" else "E") for seq, _, kind, _ in rows]
    buckets = [b for b in stored["collections"]["playlist_history"] if b["playlist_id"] == PLAYLIST_A]
    periodic = sorted(b["base_seq"] for b in buckets if b["base_seq"] > 0)
    assert periodic, "the fixture should have opened a second bucket"
    expected = [(0, "S")]
    for seq in range(1, 12):
        expected.append((seq, "E"))
        if seq in periodic:
            expected.append((seq, "S"))  # a periodic snapshot is the state after its event
    assert order == expected
    # Times are the logged timestamps, and the payload summary names the change.
    assert rows[1][1] == "2024-01-01T00:01:00.000Z" and rows[1][2] == "ADD_TRACKS"
    assert "+1 track at the end" in rows[1][3]
    assert "at index 0" in rows[2][3] and "at positions [1,3]" in rows[3][3]
    assert rows[4][2] == "REMOVE_TRACKS" and track(0) in rows[4][3]
    assert rows[5][2] == "UPDATE_META" and '"Deep Focus"' in rows[5][3]
    # Each event says who wrote it: the principal of its written_by stamp (the CLI's in-process
    # client here: "local").
    events = [e for b in buckets for e in b["events"]]
    principals = {e["written_by"]["principal"] for e in events}
    assert len(principals) == 1, principals
    assert all(r[3].endswith(f"[by {next(iter(principals))}]") for r in rows if r[2] != "SNAPSHOT"), rows
    current = len(stored["current"][PLAYLIST_A]["track_ids"])
    assert any(line.startswith(f"current: {current} tracks at seq 11") for line in lines), done.stdout
    snapshots = [r[3] for r in rows if r[2] == "SNAPSHOT"]
    assert snapshots[0].startswith("create: 3 tracks")
    assert snapshots[1].startswith(f"periodic: {len(buckets[-1]['snapshot']['track_ids'])} tracks")


@pytest.mark.parametrize(
    ("script", "evaluated", "message"),
    [
        ("user_summary.js", None, "error: userId is not set"),
        ("user_summary.js", "const userId = 'abc'", "error: userId must be a positive integer"),
        ("playlist_history.js", None, "error: userId and playlistId are not set"),
        ("playlist_history.js", "const userId = 1", "error: playlistId is not set"),
        ("audit_tail.js", f'const playlistId = "{PLAYLIST_A}"', "error: userId is not set, and playlistId needs it"),
        ("audit_tail.js", "const userId = 0", "error: userId must be a positive integer"),
        ("audit_tail.js", "const limit = -1", "error: limit must be a non-negative integer"),
        ("audit_tail.js", "const limit = 2.5", "error: limit must be a non-negative integer"),
        ("audit_tail.js", 'const follow = "yes"', "error: follow must be true or false"),
    ],
)
def test_mongosh_scripts_refuse_to_run_without_their_variables(
    stored: dict[str, Any], script: str, evaluated: str | None, message: str
) -> None:
    if not NODE:
        source = (MONGOSH_DIR / script).read_text()
        assert "quit(" in source and message.split(" got ")[0] in source.replace('" +\n', "")
        return
    forbidden = write_fixtures(stored["folder"] / "forbidden.json", "forbidden", {}, forbidden=True)
    done = run_mongosh(stored, script, evaluated, forbidden)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stdout
    assert "usage: mongosh" in done.stdout and "the script touched db" not in done.stderr


@pytest.mark.parametrize("script", MONGOSH_SCRIPTS)
def test_mongosh_scripts_name_a_wrong_database(stored: dict[str, Any], script: str) -> None:
    if not NODE:
        _static_checks_without_node(script)
        return
    empty = write_fixtures(stored["folder"] / "empty.json", "test", {})
    evaluated = "const userId = 1" + (f', playlistId = "{PLAYLIST_A}"' if script == "playlist_history.js" else "")
    done = run_mongosh(stored, script, evaluated, empty)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "database 'test' holds no Taste Memory collections" in done.stdout
    assert 'name the database in the URI, e.g. "$URI/taste_memory"' in done.stdout


def test_playlist_history_names_an_unknown_playlist(stored: dict[str, Any]) -> None:
    if not NODE:
        _static_checks_without_node("playlist_history.js")
        return
    done = run_mongosh(stored, "playlist_history.js", f'const userId = {USER}, playlistId = "nope0000000"')
    assert done.returncode == 1 and 'no playlist "nope0000000" is logged for user 3' in done.stdout
