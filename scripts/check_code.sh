#!/usr/bin/env bash
# The checks that run before the tests, locally and in CI (CONTRIBUTING.md): the layer contracts,
# lint, format, types and the house rules. Run from anywhere; uses the checkout's .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
echo "== lint-imports (layers, no cycles)" && "$bin/lint-imports"
echo "== ruff check" && "$bin/ruff" check .
echo "== ruff format --check" && "$bin/ruff" format --check .
echo "== mypy (strict)" && "$bin/mypy"
echo "== house rules" && "$bin/python" scripts/house_rules.py
