"""The deployment files: docker-compose.yml, Dockerfile, scripts/seed.py.

No Docker engine or mongod runs here, so the compose file and the Dockerfile are checked by
parsing them for the properties that make the deployment work; the commands they document (the
seed, creating tokens, the refusal to serve 0.0.0.0 without one) are run for real on this checkout.
The mongosh scripts of scripts/mongosh/ are tested in test_mongosh_scripts.py and test_audit_tail.py.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import typer
import yaml

from host.cli.main import app as cli_app
from service.auth.tokens import TokenStore
from tests.host.mongosh.mongosh_support import NODE, node_check

REPO = Path(__file__).resolve().parents[3]
COMPOSE_FILE = REPO / "docker-compose.yml"
DOCKERFILE = REPO / "Dockerfile"
SEED_SCRIPT = REPO / "scripts" / "seed.py"


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
        node_check(script, "healthcheck.js")


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
    assert _environment(seed)["MEMORY_TOKEN_FILE"] == _environment(memory)["MEMORY_TOKEN_FILE"]
    assert _depends_condition(seed, "mongo") == "service_healthy"
    assert seed.get("image") or seed.get("build"), "seed needs the service image"
    assert str(seed.get("restart", "no")) in ("no", "False", "false")


def _mounts(service: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(source, target, read only) of each volume, short or long syntax; source "" if anonymous."""
    out: list[tuple[str, str, bool]] = []
    for entry in service.get("volumes") or []:
        if isinstance(entry, dict):
            out.append((str(entry.get("source") or ""), str(entry["target"]), bool(entry.get("read_only"))))
            continue
        parts = _interpolate(str(entry)).split(":")
        if len(parts) == 1:
            out.append(("", parts[0], False))
        else:
            out.append((parts[0], parts[1], len(parts) > 2 and "ro" in parts[2].split(",")))
    return out


def _token_file(service: dict[str, Any]) -> PurePosixPath:
    value = _environment(service).get("MEMORY_TOKEN_FILE")
    assert value, "the service binds 0.0.0.0 and needs MEMORY_TOKEN_FILE"
    path = PurePosixPath(value)
    assert path.is_absolute(), path
    return path


@pytest.mark.parametrize("name", ["memory", "seed"])
def test_token_file_is_on_a_declared_writable_volume(name: str) -> None:
    compose = _compose()
    service = compose["services"][name]
    token_file = _token_file(service)
    assert token_file == _token_file(compose["services"]["memory"]), "every service must use the same tokens"
    holding = [
        (source, PurePosixPath(target), ro)
        for source, target, ro in _mounts(service)
        if PurePosixPath(target) in token_file.parents
    ]
    assert holding, f"{name}: {token_file} is on no mounted volume, so its tokens die with the container"
    source, target, read_only = max(holding, key=lambda m: len(m[1].parts))  # the innermost mount wins
    assert source and not source.startswith((".", "/", "~")), f"{name}: {source!r} must be a named volume"
    assert source in (compose.get("volumes") or {}), f"volume {source} must be declared at the top level"
    assert not read_only, "`token create` writes the token file (and its lock file) there"
    assert target == token_file.parent, "the volume holds the token file's own directory (what the image creates)"
    for other, mongo_target, _ in _mounts(compose["services"]["mongo"]):
        assert other != source, f"MongoDB must not mount the secrets volume (at {mongo_target})"


def _compose_commands() -> list[list[str]]:
    """The docker compose command lines of the comment block the compose file opens with."""
    commands = []
    for line in COMPOSE_FILE.read_text().splitlines():
        if not line.startswith("#"):
            break
        if line[1:].strip().startswith("docker compose "):
            commands.append(shlex.split(line[1:], comments=True))
    return commands


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.pop("PYTHONPATH", None)
    return env


def _memory_service(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "host.cli", *args],
        cwd=REPO,
        env={**_clean_env(), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_compose_documents_creating_tokens_before_up_and_the_commands_work(tmp_path: Path) -> None:
    compose = _compose()
    commands = _compose_commands()
    creates = [i for i, argv in enumerate(commands) if argv[2:3] == ["run"] and "token" in argv]
    up = next(i for i, argv in enumerate(commands) if argv[2:3] == ["up"])
    assert creates and max(creates) < up, "the token step must come before `docker compose up`"
    # `docker compose run --rm memory ARGS` runs the image's ENTRYPOINT (memory-service) with ARGS.
    assert "entrypoint" not in compose["services"]["memory"]
    assert _exec_form(_only(_dockerfile(), "ENTRYPOINT")) == ["memory-service"]
    token_file = _token_file(compose["services"]["memory"])
    env = {"MEMORY_TOKEN_FILE": str(tmp_path / token_file.relative_to("/")), "MEMORY_DATA_DIR": str(tmp_path / "data")}
    refused = _memory_service("serve", "--host", "0.0.0.0", "--port", "8765", env=env)
    assert refused.returncode == 2 and "refusing to listen on 0.0.0.0" in " ".join(refused.stderr.split())
    roles = []
    for i in creates:
        argv = commands[i]
        assert argv[:4] == ["docker", "compose", "run", "--rm"] and argv[4] == "memory", argv
        assert argv[5:7] == ["token", "create"], argv
        done = _memory_service(*argv[5:], env=env)
        assert done.returncode == 0, done.stderr
        assert re.fullmatch(r"tm_[0-9a-f]+_\S+\n", done.stdout), "the token, once, alone on stdout"
        roles.append(argv[argv.index("--role") + 1] if "--role" in argv else "user")
    assert roles[0] == "operator" and "user" in roles, roles
    records = TokenStore(Path(env["MEMORY_TOKEN_FILE"])).listing()
    assert sorted(r["role"] for r in records) == sorted(roles)
    assert any(r["role"] == "user" and r["user_ids"] for r in records), "a user token acts for its users"


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
    command = health[health.index("CMD") + 3 :].strip()
    argv = _exec_form(command) if command.startswith("[") else shlex.split(command)
    assert argv[0] in ("python", "python3") and argv[1] == "-c"
    code = argv[2]
    compile(code, "HEALTHCHECK", "exec")
    assert re.search(r"http://(127\.0\.0\.1|localhost):8765/healthz", code), code


def _dockerfile_env(instructions: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for kw, args in instructions:
        if kw == "ENV":
            parts = shlex.split(args)
            if len(parts) == 2 and "=" not in parts[0]:  # the legacy `ENV KEY value` form
                env[parts[0]] = parts[1]
            else:
                env.update(part.split("=", 1) for part in parts)
    return env


def _run_commands(instructions: list[tuple[str, str]]) -> list[list[str]]:
    return [
        shlex.split(command)
        for kw, args in instructions
        if kw == "RUN"
        for command in re.split(r"&&|;|\|\|", args)
        if command.strip()
    ]


def test_dockerfile_creates_the_secrets_directory_owned_by_the_service_user() -> None:
    instructions = _dockerfile()
    user = _only(instructions, "USER").split(":")[0]
    secrets = _token_file(_compose()["services"]["memory"]).parent
    commands = _run_commands(instructions)
    assert any(argv[0] == "useradd" and argv[-1] == user for argv in commands), f"no useradd of {user}"
    made = [i for i, argv in enumerate(commands) if argv[0] == "mkdir" and str(secrets) in argv[1:]]
    assert made, f"the image must create {secrets}: a new volume takes the owner and mode of the image's directory"

    def covers(argv: list[str]) -> bool:
        flags = [a for a in argv[1:] if a.startswith("-")]
        paths = [PurePosixPath(a) for a in argv[2 + len(flags) :]]
        return any(p == secrets or ("-R" in flags and p in secrets.parents) for p in paths)

    owned = [
        i
        for i, argv in enumerate(commands)
        if argv[0] == "chown"
        and covers(argv)
        and next(a for a in argv[1:] if not a.startswith("-")).split(":")[0] == user
    ]
    assert owned and max(owned) > min(made), f"{secrets} must be owned by {user}, the user the service runs as"
    modes = [argv[-2] for argv in commands if argv[0] == "chmod" and argv[-1] == str(secrets)]
    assert modes and int(modes[-1], 8) & 0o777 == 0o700, f"{secrets} must be private to {user}: {modes}"
    env = _dockerfile_env(instructions)
    token_file = str(_token_file(_compose()["services"]["memory"]))
    assert env.get("MEMORY_TOKEN_FILE", token_file) == token_file, "the image's default must agree with compose"
    assert PurePosixPath(env["MEMORY_DATA_DIR"]) not in (secrets, *secrets.parents), "tokens apart from the data"


# --------------------------------------------------------------------------------------------
# scripts/seed.py


def _run_seed(data_dir: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SEED_SCRIPT), "--user-id", "7", "--data-dir", str(data_dir)],
        cwd=cwd,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
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
        "import runpy, sys; runpy.run_path(sys.argv[1], run_name='probe'); print(sys.modules['host.cli.main'].__file__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(SEED_SCRIPT)],
        cwd=tmp_path,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == REPO / "host" / "cli" / "main.py"
    bad = subprocess.run(
        [sys.executable, str(SEED_SCRIPT), "--user-id", "0", "--data-dir", str(tmp_path)],
        cwd=tmp_path,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0 and "--user-id" in bad.stderr
