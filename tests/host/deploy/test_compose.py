"""docker-compose.yml, parsed: a single-node replica set with persistent data that the service waits
for and connects to, ports on loopback only, the seed as a one-shot tool against the same database,
the token file on a declared writable volume, and the token commands it documents, run for real.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from service.auth.tokens import TokenStore
from tests.host.deploy.files import (
    COMPOSE_FILE,
    REPO,
    clean_env,
    environment_of,
    exec_form,
    last_instruction,
    load_compose,
    load_dockerfile,
    token_file_of,
)
from tests.host.mongosh.mongosh_support import NODE, node_check


def _interpolate(text: str) -> str:
    """Compose's ``${VAR:-default}`` / ``${VAR-default}`` / ``${VAR}``, with the variable unset."""
    return re.sub(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*))?\}", lambda m: m.group(1) or "", text)


def _argv(value: Any) -> list[str]:
    if value is None:
        return []
    return shlex.split(value) if isinstance(value, str) else [str(v) for v in value]


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
    compose = load_compose()
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
    compose = load_compose()
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
    uri = urlsplit(environment_of(compose["services"]["memory"])["MEMORY_MONGODB_URI"])
    # The member's address is what drivers are told to use: the service must reach it as named.
    assert member.group(1) == uri.netloc
    for key in ("interval", "retries", "start_period", "timeout"):
        assert key in mongo["healthcheck"], f"mongo healthcheck needs {key}"
    if NODE:
        node_check(script, "healthcheck.js")


def test_memory_service_waits_for_a_healthy_replica_set_and_uses_it() -> None:
    compose = load_compose()
    memory = compose["services"]["memory"]
    build = memory.get("build")
    context = build if isinstance(build, str) else (build or {}).get("context")
    assert context in (".", "./"), "memory is built from the repository's Dockerfile"
    if isinstance(build, dict) and "dockerfile" in build:
        assert build["dockerfile"] == "Dockerfile"
    assert _depends_condition(memory, "mongo") == "service_healthy"
    uri = urlsplit(environment_of(memory)["MEMORY_MONGODB_URI"])
    assert uri.scheme == "mongodb"
    assert uri.netloc == "mongo:27017"
    assert parse_qs(uri.query).get("replicaSet") == [_replset_name(compose["services"]["mongo"])]
    assert ("127.0.0.1", "8765", "8765") in _published_ports(memory)


def test_every_published_port_is_on_the_loopback_only() -> None:
    for name, service in load_compose()["services"].items():
        for host_ip, host_port, target in _published_ports(service):
            assert host_ip == "127.0.0.1", f"{name} publishes {host_port}:{target} beyond the loopback"
            assert host_port, f"{name} publishes {target} on a random host port"


def test_seed_service_is_a_one_shot_tool_against_the_same_database() -> None:
    compose = load_compose()
    seed, memory = compose["services"]["seed"], compose["services"]["memory"]
    assert "tools" in seed.get("profiles", [])
    assert "profiles" not in memory, "the service itself must start with a plain `docker compose up`"
    assert _argv(seed.get("entrypoint")) + _argv(seed.get("command")) == ["memory-service", "seed", "--user-id", "1"]
    assert environment_of(seed)["MEMORY_MONGODB_URI"] == environment_of(memory)["MEMORY_MONGODB_URI"]
    assert environment_of(seed)["MEMORY_TOKEN_FILE"] == environment_of(memory)["MEMORY_TOKEN_FILE"]
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


@pytest.mark.parametrize("name", ["memory", "seed"])
def test_token_file_is_on_a_declared_writable_volume(name: str) -> None:
    compose = load_compose()
    service = compose["services"][name]
    token_file = token_file_of(service)
    assert token_file == token_file_of(compose["services"]["memory"]), "every service must use the same tokens"
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


def _memory_service(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "host.cli", *args],
        cwd=REPO,
        env={**clean_env(), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_compose_documents_creating_tokens_before_up_and_the_commands_work(tmp_path: Path) -> None:
    compose = load_compose()
    commands = _compose_commands()
    creates = [i for i, argv in enumerate(commands) if argv[2:3] == ["run"] and "token" in argv]
    up = next(i for i, argv in enumerate(commands) if argv[2:3] == ["up"])
    assert creates and max(creates) < up, "the token step must come before `docker compose up`"
    # `docker compose run --rm memory ARGS` runs the image's ENTRYPOINT (memory-service) with ARGS.
    assert "entrypoint" not in compose["services"]["memory"]
    assert exec_form(last_instruction(load_dockerfile(), "ENTRYPOINT")) == ["memory-service"]
    token_file = token_file_of(compose["services"]["memory"])
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
