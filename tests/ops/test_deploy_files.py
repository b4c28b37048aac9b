"""The deployment and operator files: docker-compose.yml, Dockerfile, scripts/seed.py, scripts/mongosh/.

No Docker engine or mongod runs here, so the compose file and the Dockerfile are checked by
parsing them for the properties that make the deployment work; the seed script is run for real;
the mongosh scripts are syntax-checked with node and run against a small in-memory stand-in for
mongosh's ``db`` holding documents the service itself wrote.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import typer
import yaml

from service.cli import app as cli_app
from service.settings import Settings
from tests.support import connected, playlist, track

REPO = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO / "docker-compose.yml"
DOCKERFILE = REPO / "Dockerfile"
SEED_SCRIPT = REPO / "scripts" / "seed.py"
MONGOSH_DIR = REPO / "scripts" / "mongosh"
MONGOSH_SCRIPTS = ["user_summary.js", "playlist_history.js"]
NODE = shutil.which("node")
JS_STRING = re.compile(r""""(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""")
COLLECTIONS = {"profiles", "preference_events", "playlists", "playlist_history", "idempotency"}


# --------------------------------------------------------------------------------------------
# docker-compose.yml


def _compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def _interpolate(text: str) -> str:
    """Compose's ``${VAR:-default}`` / ``${VAR-default}`` / ``${VAR}``, with the variable unset."""
    return re.sub(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*))?\}", lambda m: m.group(1) or "", text)


def _argv(value: Any) -> list[str]:
    if value is None:
        return []
    return shlex.split(value) if isinstance(value, str) else [str(v) for v in value]


def _environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.split("=", 1) for item in env)
    return {k: str(v) for k, v in env.items()}


def _published_ports(service: dict[str, Any]) -> list[tuple[str | None, str, str]]:
    """(host ip, host port, container port) of each published port, short or long syntax."""
    out: list[tuple[str | None, str, str]] = []
    for entry in service.get("ports") or []:
        if isinstance(entry, dict):
            out.append((entry.get("host_ip"), str(entry.get("published", "")), str(entry["target"])))
            continue
        parts = _interpolate(str(entry)).split("/")[0].rsplit(":", 2)
        if len(parts) == 3:
            out.append((parts[0].strip("[]"), parts[1], parts[2]))
        elif len(parts) == 2:
            out.append((None, parts[0], parts[1]))
        else:
            out.append((None, "", parts[0]))
    return out


def _depends_condition(service: dict[str, Any], on: str) -> str | None:
    depends = service.get("depends_on") or {}
    if isinstance(depends, list):
        return "service_started" if on in depends else None
    return (depends.get(on) or {}).get("condition", "service_started") if on in depends else None


def _healthcheck_script(service: dict[str, Any]) -> tuple[list[str], str]:
    test = service["healthcheck"]["test"]
    argv = _argv(test)
    if argv and argv[0] == "CMD-SHELL":
        argv = shlex.split(" ".join(argv[1:]))
    elif argv and argv[0] == "CMD":
        argv = argv[1:]
    script = argv[argv.index("--eval") + 1] if "--eval" in argv else " ".join(argv)
    return argv, script


def _replset_name(mongo: dict[str, Any]) -> str:
    argv = _argv(mongo.get("command"))
    assert "--replSet" in argv, f"mongo must run as a replica set: {argv}"
    return argv[argv.index("--replSet") + 1]


def test_mongo_is_a_single_node_replica_set_with_persistent_data() -> None:
    compose = _compose()
    mongo = compose["services"]["mongo"]
    assert re.fullmatch(r"mongo:7(\.\d+)*", mongo["image"]), mongo["image"]
    argv = _argv(mongo.get("command"))
    assert _replset_name(mongo) == "rs0"
    assert "--bind_ip_all" in argv
    named = {v.split(":", 1)[0]: v.split(":", 1)[1] for v in mongo["volumes"] if ":" in v}
    data_volumes = [name for name, target in named.items() if target.split(":")[0] == "/data/db"]
    assert data_volumes, "MongoDB's /data/db must be on a volume"
    assert data_volumes[0] in (compose.get("volumes") or {}), "the data volume must be a declared named volume"


def test_mongo_healthcheck_initiates_the_replica_set_the_service_connects_to() -> None:
    compose = _compose()
    mongo = compose["services"]["mongo"]
    argv, script = _healthcheck_script(mongo)
    assert argv[0] == "mongosh"
    assert "rs.status()" in script
    assert "rs.initiate(" in script
    # rs.initiate only in the branch taken when rs.status() fails (not initiated yet).
    assert re.search(r"try\s*\{\s*rs\.status\(\)\s*\}\s*catch\s*\(\s*\w+\s*\)\s*\{\s*rs\.initiate\(", script), script
    initiated = re.search(r"_id\s*:\s*['\"]([^'\"]+)['\"]", script)
    assert initiated and initiated.group(1) == _replset_name(mongo)
    member = re.search(r"host\s*:\s*['\"]([^'\"]+)['\"]", script)
    assert member, script
    uri = urlsplit(_environment(compose["services"]["memory"])["MEMORY_MONGODB_URI"])
    # The member's address is what drivers are told to use: the service must reach it as named.
    assert member.group(1) == uri.netloc
    for key in ("interval", "retries", "start_period", "timeout"):
        assert key in mongo["healthcheck"], f"mongo healthcheck needs {key}"
    if NODE:
        _node_check(script, "healthcheck.js")


def test_memory_service_waits_for_a_healthy_replica_set_and_uses_it() -> None:
    compose = _compose()
    memory = compose["services"]["memory"]
    build = memory.get("build")
    context = build if isinstance(build, str) else (build or {}).get("context")
    assert context in (".", "./"), "memory is built from the repository's Dockerfile"
    if isinstance(build, dict) and "dockerfile" in build:
        assert build["dockerfile"] == "Dockerfile"
    assert _depends_condition(memory, "mongo") == "service_healthy"
    uri = urlsplit(_environment(memory)["MEMORY_MONGODB_URI"])
    assert uri.scheme == "mongodb"
    assert uri.netloc == "mongo:27017"
    assert parse_qs(uri.query).get("replicaSet") == [_replset_name(compose["services"]["mongo"])]
    assert ("127.0.0.1", "8765", "8765") in _published_ports(memory)


def test_every_published_port_is_on_the_loopback_only() -> None:
    for name, service in _compose()["services"].items():
        for host_ip, host_port, target in _published_ports(service):
            assert host_ip == "127.0.0.1", f"{name} publishes {host_port}:{target} beyond the loopback"
            assert host_port, f"{name} publishes {target} on a random host port"


def test_seed_service_is_a_one_shot_tool_against_the_same_database() -> None:
    compose = _compose()
    seed, memory = compose["services"]["seed"], compose["services"]["memory"]
    assert "tools" in seed.get("profiles", [])
    assert "profiles" not in memory, "the service itself must start with a plain `docker compose up`"
    assert _argv(seed.get("entrypoint")) + _argv(seed.get("command")) == ["memory-service", "seed", "--user-id", "1"]
    assert _environment(seed)["MEMORY_MONGODB_URI"] == _environment(memory)["MEMORY_MONGODB_URI"]
    assert _depends_condition(seed, "mongo") == "service_healthy"
    assert seed.get("image") or seed.get("build"), "seed needs the service image"
    assert str(seed.get("restart", "no")) in ("no", "False", "false")


# --------------------------------------------------------------------------------------------
# Dockerfile


def _dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        keyword, _, rest = line.partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
    assert not pending, "the Dockerfile ends inside a continued line"
    return instructions


def _exec_form(arguments: str) -> list[str]:
    value = json.loads(arguments)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), arguments
    return value


def _only(instructions: list[tuple[str, str]], keyword: str) -> str:
    found = [args for kw, args in instructions if kw == keyword]
    assert found, f"the Dockerfile has no {keyword}"
    return found[-1]  # the last one is the one in force


def test_dockerfile_runs_memory_service_serve_on_8765_as_a_non_root_user() -> None:
    instructions = _dockerfile()
    assert instructions[0][0] == "FROM" and instructions[0][1].split()[0] == "python:3.11-slim"
    entrypoint = _exec_form(_only(instructions, "ENTRYPOINT"))
    cmd = _exec_form(_only(instructions, "CMD"))
    assert entrypoint == ["memory-service"]
    assert cmd == ["serve", "--host", "0.0.0.0", "--port", "8765"]
    # The CLI really accepts that command line (parsed, not run).
    serve = typer.main.get_command(cli_app).commands["serve"]  # type: ignore[attr-defined]
    params = serve.make_context("serve", cmd[1:]).params
    assert params["host"] == "0.0.0.0" and params["port"] == 8765
    assert "8765" in _only(instructions, "EXPOSE").split()
    user = _only(instructions, "USER").split(":")[0]
    assert user not in ("root", "0"), "the service must not run as root"
    last_user_at = max(i for i, (kw, _) in enumerate(instructions) if kw == "USER")
    assert last_user_at > max(i for i, (kw, _) in enumerate(instructions) if kw == "RUN")


def test_dockerfile_installs_the_repository_with_everything_pip_install_needs() -> None:
    instructions = _dockerfile()
    runs = " && ".join(args for kw, args in instructions if kw == "RUN")
    assert re.search(r"pip install (\S+ )*\.(\s|$)", runs), runs
    copied: set[str] = set()
    for kw, args in instructions:
        if kw in ("COPY", "ADD"):
            sources = [s for s in args.split()[:-1] if not s.startswith("--")]
            copied.update(Path(s).as_posix().rstrip("/") for s in sources)
    if "." not in copied:
        project = tomllib.loads((REPO / "pyproject.toml").read_text())
        packages = [p.rstrip("*") for p in project["tool"]["setuptools"]["packages"]["find"]["include"]]
        needed = {"pyproject.toml", project["project"]["readme"], *packages}
        missing = {n for n in needed if n not in copied and f"./{n}" not in copied}
        assert not missing, f"the image build misses {sorted(missing)}"


def test_dockerfile_healthcheck_probes_healthz_with_python() -> None:
    instructions = _dockerfile()
    health = _only(instructions, "HEALTHCHECK")
    assert "curl" not in health and "wget" not in health, "python:3.11-slim has neither curl nor wget"
    command = health[health.index("CMD") + 3:].strip()
    argv = _exec_form(command) if command.startswith("[") else shlex.split(command)
    assert argv[0] in ("python", "python3") and argv[1] == "-c"
    code = argv[2]
    compile(code, "HEALTHCHECK", "exec")
    assert re.search(r"http://(127\.0\.0\.1|localhost):8765/healthz", code), code


# --------------------------------------------------------------------------------------------
# scripts/seed.py


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.pop("PYTHONPATH", None)
    return env


def _run_seed(data_dir: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SEED_SCRIPT), "--user-id", "7", "--data-dir", str(data_dir)],
        cwd=cwd, env=_clean_env(), capture_output=True, text=True, timeout=120,
    )


@pytest.mark.slow
def test_seed_script_loads_once_and_the_second_run_changes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = _run_seed(data, tmp_path)
    assert first.returncode == 0, first.stderr
    first_text = " ".join(first.stderr.split())
    assert "seed profile for user 7: loaded (profile version" in first_text, first_text
    second = _run_seed(data, tmp_path)
    assert second.returncode == 0, second.stderr
    second_text = " ".join(second.stderr.split())
    assert "seed profile for user 7: already loaded, nothing changed" in second_text, second_text
    version = re.search(r"profile version (\d+)", first_text)
    assert version and f"(profile version {version.group(1)})" in second_text


@pytest.mark.slow
def test_seed_script_runs_the_cli_code_of_this_checkout(tmp_path: Path) -> None:
    probe = (
        "import runpy, sys; runpy.run_path(sys.argv[1], run_name='probe'); "
        "print(sys.modules['service.cli'].__file__)"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(SEED_SCRIPT)], cwd=tmp_path, env=_clean_env(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == REPO / "service" / "cli.py"
    bad = subprocess.run([sys.executable, str(SEED_SCRIPT), "--user-id", "0", "--data-dir", str(tmp_path)],
                         cwd=tmp_path, env=_clean_env(), capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "--user-id" in bad.stderr


# --------------------------------------------------------------------------------------------
# scripts/mongosh/


def _node_check(source: str, name: str, tmp: Path | None = None) -> None:
    assert NODE
    folder = tmp or Path(os.environ.get("TMPDIR", "/tmp"))
    path = folder / f"tm-check-{os.getpid()}-{name}"
    path.write_text(source)
    try:
        done = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True, timeout=60)
    finally:
        path.unlink()
    assert done.returncode == 0, f"{name} is not valid JavaScript:\n{done.stderr}"


@pytest.mark.parametrize("script", MONGOSH_SCRIPTS)
def test_mongosh_script_is_valid_and_documents_its_command_line(script: str, tmp_path: Path) -> None:
    source = (MONGOSH_DIR / script).read_text()
    header = [line for line in source.splitlines()[:15] if line.startswith("//")]
    command = next((line for line in header if "mongosh " in line and f"scripts/mongosh/{script}" in line), None)
    assert command, f"{script} must open with the mongosh command line that runs it"
    assert "--eval 'const userId = " in command and "taste_memory" in command
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("//"))
    referenced = set(re.findall(r"getCollection\(\"(\w+)\"\)", code))
    code = JS_STRING.sub('""', code)  # so the usage text does not count as a declaration
    assert referenced and referenced <= COLLECTIONS, referenced
    for variable in ("userId",) + (("playlistId",) if script == "playlist_history.js" else ()):
        assert f'typeof {variable} === "undefined"' in source
        # The variable comes from --eval: redeclaring it in the script would be an error in mongosh.
        assert not re.search(rf"\b(const|let|var)\s+{variable}\b", code)
    if NODE:
        _node_check(source, script, tmp_path)
        # As mongosh sees it: the --eval declarations first, then the file.
        _node_check('const userId = 1, playlistId = "37i9dQZF1DX";\n' + source, "evaluated-" + script, tmp_path)


def test_mongosh_scripts_read_the_collections_the_service_writes() -> None:
    summary = (MONGOSH_DIR / "user_summary.js").read_text()
    history = (MONGOSH_DIR / "playlist_history.js").read_text()
    for name in ("profiles", "preference_events", "playlists", "playlist_history"):
        assert f'getCollection("{name}")' in summary
    for name in ("playlists", "playlist_history"):
        assert f'getCollection("{name}")' in history
    assert '.sort({ base_seq: 1 })' in history
    assert '.sort({ updated_at: -1' in summary and ".limit(10)" in summary


# A stand-in for the parts of mongosh the scripts use: print, quit and a read-only db over
# documents loaded from JSON. Filters are plain equality (the scripts use no operators).
FAKE_MONGOSH = r"""
const __fs = require("fs");
const __data = JSON.parse(__fs.readFileSync(process.env.TM_FIXTURES, "utf8"), (key, value) =>
  value && typeof value === "object" && Object.keys(value).length === 1 && typeof value.$date === "string"
    ? new Date(value.$date) : value);
function print(...args) { process.stdout.write(args.map(String).join(" ") + "\n"); }
function quit(code) { process.exit(code === undefined ? 0 : code); }
function __get(doc, path) { return path.split(".").reduce((d, k) => (d == null ? undefined : d[k]), doc); }
function __matches(doc, filter) {
  for (const [key, want] of Object.entries(filter || {})) {
    if (want !== null && typeof want === "object") throw new Error("fake mongosh: operator in filter " + JSON.stringify(filter));
    if (__get(doc, key) !== want) return false;
  }
  return true;
}
function __key(v) { return v instanceof Date ? v.getTime() : v; }
class __Cursor {
  constructor(docs) { this.docs = docs.slice(); this.pos = 0; }
  sort(spec) {
    const keys = Object.entries(spec);
    this.docs.sort((a, b) => {
      for (const [k, dir] of keys) {
        const x = __key(__get(a, k)), y = __key(__get(b, k));
        if (x < y) return -dir;
        if (x > y) return dir;
      }
      return 0;
    });
    return this;
  }
  limit(n) { this.docs = this.docs.slice(0, n); return this; }
  toArray() { return this.docs.slice(this.pos); }
  hasNext() { return this.pos < this.docs.length; }
  next() { return this.docs[this.pos++]; }
  forEach(fn) { while (this.hasNext()) fn(this.next()); }
}
class __Collection {
  constructor(docs) { this.docs = docs || []; }
  find(filter, projection) { return new __Cursor(this.docs.filter((d) => __matches(d, filter))); }
  findOne(filter, projection) { return this.docs.find((d) => __matches(d, filter)) || null; }
  countDocuments(filter) { return this.docs.filter((d) => __matches(d, filter)).length; }
}
const db = __data.forbidden
  ? new Proxy({}, { get(target, name) { throw new Error("the script touched db." + String(name)); } })
  : {
      getName: () => __data.database,
      getCollectionNames: () => Object.keys(__data.collections),
      getCollection: (name) => new __Collection(__data.collections[name]),
    };
"""

USER = 3
PLAYLIST_A = playlist(1)
PLAYLIST_B = playlist(2)
T0 = datetime(2024, 1, 1, tzinfo=UTC)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return {"$date": moment.astimezone(UTC).isoformat().replace("+00:00", "Z")}
    raise TypeError(f"cannot serialize {type(value)}")


async def _store_with_history(data_dir: Path) -> dict[str, Any]:
    """A user with a profile, preference events and two playlists, written by the service."""
    settings = Settings(data_dir=data_dir)
    async with connected(settings) as call:
        await call.ok("memory_update_profile", {"user_id": USER, "patch": {"genres": {"like": ["ambient"]},
                                                                           "rules": ["no live versions"]}})
        for word in ("calm", "no vocals"):
            await call.ok("memory_append_preference_event",
                          {"user_id": USER, "type": "like", "payload": {"raw_text": word}})
        await call.ok("memory_log_playlist_create", {
            "user_id": USER, "playlist_id": PLAYLIST_A, "name": "Focus", "track_ids": [track(i) for i in range(3)],
            "seed_context": {"mood": "focus"}, "created_at": T0.isoformat(),
        })
        mutations: list[tuple[str, dict[str, Any]]] = [
            ("ADD_TRACKS", {"track_ids": [track(10)]}),
            ("ADD_TRACKS", {"track_ids": [track(11)], "insert_at": 0}),
            ("ADD_TRACKS", {"track_ids": [track(12), track(13)], "positions": [1, 3]}),
            ("REMOVE_TRACKS", {"track_ids": [track(0)]}),
            ("UPDATE_META", {"name": "Deep Focus", "intent_tags": ["work"]}),
        ]
        mutations += [("ADD_TRACKS", {"track_ids": [track(20 + i)]}) for i in range(6)]  # 11 in all
        for i, (kind, payload) in enumerate(mutations, start=1):
            await call.ok("memory_log_playlist_mutation", {
                "user_id": USER, "playlist_id": PLAYLIST_A, "type": kind, "payload": payload,
                "timestamp": (T0 + timedelta(minutes=i)).isoformat(),
            })
        await call.ok("memory_log_playlist_create", {
            "user_id": USER, "playlist_id": PLAYLIST_B, "name": "Run", "track_ids": [track(50), track(51)],
            "created_at": (T0 + timedelta(days=1)).isoformat(),
        })
        db = call.service.database
        collections = {c.name: await c.find({}) for c in db.user_collections()}
        current = {p: await call.ok("memory_reconstruct_playlist", {"user_id": USER, "playlist_id": p})
                   for p in (PLAYLIST_A, PLAYLIST_B)}
        profile = await call.ok("memory_get_profile", {"user_id": USER})
    return {"collections": collections, "current": current, "profile": profile}


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("mongosh")
    written = asyncio.run(_store_with_history(folder / "data"))
    fixtures = folder / "fixtures.json"
    fixtures.write_text(json.dumps({"database": "taste_memory", "collections": written["collections"]},
                                   default=_json_default))
    return {**written, "fixtures": fixtures, "folder": folder}


def _run_mongosh(stored: dict[str, Any], script: str, evaluated: str | None, fixtures: Path | None = None
                 ) -> subprocess.CompletedProcess[str]:
    assert NODE
    source = FAKE_MONGOSH + (evaluated + "\n" if evaluated else "") + (MONGOSH_DIR / script).read_text()
    program = stored["folder"] / f"run-{script}"
    program.write_text(source)
    env = {**os.environ, "TM_FIXTURES": str(fixtures or stored["fixtures"])}
    return subprocess.run([NODE, str(program)], capture_output=True, text=True, timeout=60, env=env)


def _static_checks_without_node(script: str) -> None:
    source = (MONGOSH_DIR / script).read_text()
    assert "quit(" in source and "error: " in source
    assert "is not set" in source


def test_user_summary_reports_profile_counts_and_recent_playlists(stored: dict[str, Any]) -> None:
    if not NODE:
        _static_checks_without_node("user_summary.js")
        return
    done = _run_mongosh(stored, "user_summary.js", f"const userId = {USER}")
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
    rows = [line for line in out.splitlines() if PLAYLIST_A in line or PLAYLIST_B in line]
    assert [PLAYLIST_B in rows[0], PLAYLIST_A in rows[1]] == [True, True], rows  # newest first
    for row, playlist_id in zip(rows, (PLAYLIST_B, PLAYLIST_A), strict=True):
        tracks = int(row.split()[1])
        assert tracks == len(stored["current"][playlist_id]["track_ids"]), row


def test_playlist_history_prints_snapshots_and_events_in_sequence_order(stored: dict[str, Any]) -> None:
    if not NODE:
        _static_checks_without_node("playlist_history.js")
        return
    done = _run_mongosh(stored, "playlist_history.js", f'const userId = {USER}, playlistId = "{PLAYLIST_A}"')
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
    ],
)
def test_mongosh_scripts_refuse_to_run_without_their_variables(
    stored: dict[str, Any], script: str, evaluated: str | None, message: str
) -> None:
    if not NODE:
        _static_checks_without_node(script)
        return
    forbidden = stored["folder"] / "forbidden.json"
    forbidden.write_text(json.dumps({"forbidden": True}))
    done = _run_mongosh(stored, script, evaluated, forbidden)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stdout
    assert "usage: mongosh" in done.stdout and "the script touched db" not in done.stderr


def test_mongosh_scripts_name_a_wrong_database_and_an_unknown_playlist(stored: dict[str, Any]) -> None:
    if not NODE:
        _static_checks_without_node("playlist_history.js")
        return
    empty = stored["folder"] / "empty.json"
    empty.write_text(json.dumps({"database": "test", "collections": {}}))
    done = _run_mongosh(stored, "user_summary.js", "const userId = 1", empty)
    assert done.returncode == 3 and "database 'test' holds no Taste Memory collections" in done.stdout
    done = _run_mongosh(stored, "playlist_history.js", f'const userId = 1, playlistId = "{PLAYLIST_A}"', empty)
    assert done.returncode == 3 and "database 'test' holds no Taste Memory collections" in done.stdout
    done = _run_mongosh(stored, "playlist_history.js", f'const userId = {USER}, playlistId = "nope0000000"')
    assert done.returncode == 1 and 'no playlist "nope0000000" is logged for user 3' in done.stdout
