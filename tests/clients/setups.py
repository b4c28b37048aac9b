"""Read the client setups out of docs/CLIENTS.md and README.md, as each client would read them.

A snippet sits between ``<!-- client:NAME -->`` and ``<!-- /client -->`` in one fenced block: JSON
configuration files (Claude Desktop, Cursor: ``mcpServers``; VS Code: ``servers`` with ``type``) or
shell commands (``claude mcp add``, ``npx @modelcontextprotocol/inspector``). Each server entry
becomes a ``Launch``: a stdio command to run, or a URL to connect to. The only things a test may
change are the placeholders the docs tell the reader to change (``PLACEHOLDER``) and the port. A
client may appear in both files (the README shows one); its two snippets must then be the same.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CLIENTS_DOC = ROOT / "docs" / "CLIENTS.md"
SOURCES = (CLIENTS_DOC, README)
PLACEHOLDER = "/path/to/taste-memory"
_SNIPPET = re.compile(r"<!-- client:([a-z0-9-]+) -->\s*```(\w+)\n(.*?)```\s*<!-- /client -->", re.DOTALL)
# A config entry's "type" (VS Code, Claude Code) or the URL path (Cursor guesses) -> serve --transport.
_TRANSPORTS = {"http": "streamable-http", "sse": "sse"}
_PATHS = {"/mcp": "streamable-http", "/sse": "sse"}


@dataclass(frozen=True)
class Launch:
    client: str
    name: str
    command: str | None = None  # stdio
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None  # HTTP
    transport: str = "stdio"  # as memory-service serve --transport names it
    argv: list[str] = field(default_factory=list)  # a shell snippet's whole command line

    def port(self) -> int | None:
        return urlsplit(self.url).port if self.url else None


def _snippets_in(text: str, where: str) -> dict[str, tuple[str, str]]:
    found = _SNIPPET.findall(text)
    names = [name for name, _, _ in found]
    assert len(names) == len(set(names)), f"{where}: a client snippet appears twice: {names}"
    return {name: (language, body) for name, language, body in found}


def snippets(text: str | None = None) -> dict[str, tuple[str, str]]:
    """client name -> (fence language, body), from ``text`` or from every file in ``SOURCES``."""
    if text is not None:
        return _snippets_in(text, "text")
    merged: dict[str, tuple[str, str]] = {}
    for path in SOURCES:
        for name, snippet in _snippets_in(path.read_text(), path.name).items():
            assert merged.get(name, snippet) == snippet, (
                f"{path.name}: the {name} snippet differs from {CLIENTS_DOC.name}'s"
            )
            merged[name] = snippet
    return merged


def snippets_by_file() -> dict[str, dict[str, tuple[str, str]]]:
    """file name -> its snippets, for checks of where each snippet is shown."""
    return {path.name: _snippets_in(path.read_text(), path.name) for path in SOURCES}


def _url_launch(client: str, name: str, url: str, declared: str | None, argv: list[str] | None = None) -> Launch:
    path = urlsplit(url).path
    transport = _TRANSPORTS[declared] if declared else _PATHS[path]
    assert _PATHS.get(path) == transport, f"{client}/{name}: {url} is not where the {transport} transport listens"
    return Launch(client, name, url=url, transport=transport, argv=argv or [])


def from_config(client: str, body: str) -> list[Launch]:
    config = json.loads(body)
    key = "servers" if client == "vscode" else "mcpServers"  # VS Code's own key; the others share Claude's
    assert set(config) == {key}, f"{client}: expected only {key!r}, got {sorted(config)}"
    launches = []
    for name, entry in config[key].items():
        declared = entry.get("type")
        if client == "vscode":
            assert declared in ("stdio", "http", "sse"), f"VS Code needs a type on {name}"
        if "command" in entry:
            assert declared in (None, "stdio"), entry
            launches.append(
                Launch(
                    client,
                    name,
                    command=entry["command"],
                    args=list(entry.get("args", [])),
                    env=dict(entry.get("env", {})),
                )
            )
        else:
            launches.append(_url_launch(client, name, entry["url"], declared))
    return launches


def _claude_mcp_add(argv: list[str]) -> Launch:
    """``claude mcp add [--transport T] [--scope S] [-e K=V]... NAME (URL | -- COMMAND ARGS...)``."""
    assert argv[:3] == ["claude", "mcp", "add"], argv
    words, command = (argv[3 : argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv[3:], [])
    options: dict[str, list[str]] = {}
    positional = []
    i = 0
    while i < len(words):
        if words[i].startswith("-"):
            options.setdefault(words[i].lstrip("-"), []).append(words[i + 1])
            i += 2
        else:
            positional.append(words[i])
            i += 1
    transport = options.get("transport", ["stdio"])[0]
    env = dict(pair.split("=", 1) for pair in options.get("env", []) + options.get("e", []))
    if command:
        assert transport == "stdio" and len(positional) == 1, argv
        return Launch("claude-code", positional[0], command=command[0], args=command[1:], env=env, argv=argv)
    name, url = positional
    return _url_launch("claude-code", name, url, transport, argv)


def _inspector(argv: list[str]) -> Launch:
    """``npx @modelcontextprotocol/inspector --cli [-e K=V]... [--method M] (URL | -- COMMAND ARGS...)``."""
    assert argv[:3] == ["npx", "@modelcontextprotocol/inspector", "--cli"], argv
    if "--" in argv:
        options, command = argv[3 : argv.index("--")], argv[argv.index("--") + 1 :]
        env = dict(options[i + 1].split("=", 1) for i, word in enumerate(options) if word == "-e")
        return Launch("inspector", "stdio", command=command[0], args=command[1:], env=env, argv=argv)
    url = next(word for word in argv if word.startswith("http"))
    return _url_launch("inspector", urlsplit(url).path, url, None, argv)


def from_shell(client: str, body: str) -> list[Launch]:
    parse = {"claude-code": _claude_mcp_add, "inspector": _inspector}[client]
    return [parse(shlex.split(line)) for line in body.splitlines() if line.strip()]


def launches() -> list[Launch]:
    """Every server entry of every client snippet in the docs."""
    found = []
    for client, (language, body) in snippets().items():
        found.extend(from_config(client, body) if language == "json" else from_shell(client, body))
    return found
