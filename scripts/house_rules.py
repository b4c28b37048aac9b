"""The house rules no linter checks: small modules, short module docstrings, no issue numbers.

    python scripts/house_rules.py

Source modules (host/, service/, tools/, ui/, models/) are at most 300 lines and test files at
most 400; a module docstring is at most 10 lines; no code names an issue by number (git history
holds that). Prints each breach and exits 1, or prints nothing and exits 0.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ("host/", "service/", "tools/", "ui/", "models/")
MAX_SOURCE_LINES = 300
MAX_TEST_LINES = 400
MAX_DOCSTRING_LINES = 10
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues? *#? *\d+")


def python_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return sorted(f for f in listed if (ROOT / f).exists())


def breaches(path: str) -> list[str]:
    text = (ROOT / path).read_text(encoding="utf-8")
    found = []
    lines = text.count("\n")
    limit = MAX_SOURCE_LINES if path.startswith(SOURCE) else MAX_TEST_LINES if path.startswith("tests/") else None
    if limit is not None and lines > limit:
        found.append(f"{path}: {lines} lines (at most {limit})")
    tree = ast.parse(text, path)
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        length = (first.end_lineno or first.lineno) - first.lineno + 1
        if length > MAX_DOCSTRING_LINES:
            found.append(f"{path}: module docstring of {length} lines (at most {MAX_DOCSTRING_LINES})")
    for number, line in enumerate(text.splitlines(), start=1):
        if ISSUE_NUMBER.search(line):
            found.append(f"{path}:{number}: names an issue by number: {line.strip()[:80]}")
    return found


def main() -> int:
    found = [breach for path in python_files() for breach in breaches(path)]
    for breach in found:
        print(breach)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
