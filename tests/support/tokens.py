"""Bearer tokens for end-to-end tests, made the way an operator makes them: with the CLI."""

from __future__ import annotations

from pathlib import Path

from tests.support.server_process import run_cli


def token_env(token_file: Path) -> dict[str, str]:
    return {"MEMORY_TOKEN_FILE": str(token_file)}


def create_token(
    token_file: Path,
    *user_ids: int,
    role: str = "user",
    label: str | None = None,
    rate_limit_per_minute: int | None = None,
) -> tuple[str, str]:
    """(token, token id) of a new token, via ``memory-service token create``."""
    args = ["token", "create", "--role", role, *[f"--user-id={u}" for u in user_ids]]
    if label:
        args += ["--label", label]
    if rate_limit_per_minute is not None:
        args += ["--rate-limit-per-minute", str(rate_limit_per_minute)]
    token_file.parent.mkdir(parents=True, exist_ok=True)
    done = run_cli(args, cwd=token_file.parent, env=token_env(token_file))
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    assert token.count("_") >= 2 and "\n" not in token, f"token create printed more than the token: {done.stdout!r}"
    return token, token.split("_", 2)[1]


def revoke_token(token_file: Path, token_id: str) -> None:
    done = run_cli(["token", "revoke", token_id], cwd=token_file.parent, env=token_env(token_file))
    assert done.returncode == 0, done.stderr
