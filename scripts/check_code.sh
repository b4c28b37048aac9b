#!/usr/bin/env bash
# The static checks, each configured in pyproject.toml: the import layers, ruff's lint and format,
# and mypy (strict) on the shipped packages. Run from any folder, with the test extra installed
# in .venv; exits non-zero at the first check that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
"$bin/lint-imports"
"$bin/ruff" check .
"$bin/ruff" format --check .
"$bin/mypy"
