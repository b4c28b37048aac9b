"""The deployment files of this checkout: docker-compose.yml, the Dockerfile and scripts/seed.py,
read the way the tests check them. No Docker engine or mongod runs here, so the tests parse the
first two for the properties that make the deployment work, and run the commands they document
(the seed, creating tokens, the refusal to serve 0.0.0.0 without one) for real on this checkout.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[3]
COMPOSE_FILE = REPO / "docker-compose.yml"
DOCKERFILE = REPO / "Dockerfile"
SEED_SCRIPT = REPO / "scripts" / "seed.py"


def load_compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def environment_of(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.split("=", 1) for item in env)
    return {k: str(v) for k, v in env.items()}


def token_file_of(service: dict[str, Any]) -> PurePosixPath:
    value = environment_of(service).get("MEMORY_TOKEN_FILE")
    assert value, "the service binds 0.0.0.0 and needs MEMORY_TOKEN_FILE"
    path = PurePosixPath(value)
    assert path.is_absolute(), path
    return path


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.pop("PYTHONPATH", None)
    return env


def load_dockerfile() -> list[tuple[str, str]]:
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


def exec_form(arguments: str) -> list[str]:
    value = json.loads(arguments)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), arguments
    return value


def last_instruction(instructions: list[tuple[str, str]], keyword: str) -> str:
    found = [args for kw, args in instructions if kw == keyword]
    assert found, f"the Dockerfile has no {keyword}"
    return found[-1]  # the last one is the one in force
