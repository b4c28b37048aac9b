"""The Dockerfile, parsed: ``memory-service serve`` on 8765 as a non-root user, the repository
installed with everything ``pip install`` needs, a health check that probes /healthz with Python,
and the secrets directory owned by the service user.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path, PurePosixPath

import typer

from host.cli.main import app as cli_app
from tests.host.deploy.files import REPO, exec_form, last_instruction, load_compose, load_dockerfile, token_file_of


def test_dockerfile_runs_memory_service_serve_on_8765_as_a_non_root_user() -> None:
    instructions = load_dockerfile()
    assert instructions[0][0] == "FROM" and instructions[0][1].split()[0] == "python:3.11-slim"
    entrypoint = exec_form(last_instruction(instructions, "ENTRYPOINT"))
    cmd = exec_form(last_instruction(instructions, "CMD"))
    assert entrypoint == ["memory-service"]
    assert cmd == ["serve", "--host", "0.0.0.0", "--port", "8765"]
    # The CLI really accepts that command line (parsed, not run).
    serve = typer.main.get_command(cli_app).commands["serve"]  # type: ignore[attr-defined]
    params = serve.make_context("serve", cmd[1:]).params
    assert params["host"] == "0.0.0.0" and params["port"] == 8765
    assert "8765" in last_instruction(instructions, "EXPOSE").split()
    user = last_instruction(instructions, "USER").split(":")[0]
    assert user not in ("root", "0"), "the service must not run as root"
    last_user_at = max(i for i, (kw, _) in enumerate(instructions) if kw == "USER")
    assert last_user_at > max(i for i, (kw, _) in enumerate(instructions) if kw == "RUN")


def test_dockerfile_installs_the_repository_with_everything_pip_install_needs() -> None:
    instructions = load_dockerfile()
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
    instructions = load_dockerfile()
    health = last_instruction(instructions, "HEALTHCHECK")
    assert "curl" not in health and "wget" not in health, "python:3.11-slim has neither curl nor wget"
    command = health[health.index("CMD") + 3 :].strip()
    argv = exec_form(command) if command.startswith("[") else shlex.split(command)
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
    instructions = load_dockerfile()
    user = last_instruction(instructions, "USER").split(":")[0]
    secrets = token_file_of(load_compose()["services"]["memory"]).parent
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
    token_file = str(token_file_of(load_compose()["services"]["memory"]))
    assert env.get("MEMORY_TOKEN_FILE", token_file) == token_file, "the image's default must agree with compose"
    assert PurePosixPath(env["MEMORY_DATA_DIR"]) not in (secrets, *secrets.parents), "tokens apart from the data"
